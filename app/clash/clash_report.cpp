// The clash report writers: one JSON document built with nlohmann-json, CSV rows from the same
// values, and the clash band as a binary little-endian PLY (the layout of export_voxels_ply).
#include "clash/clash_report.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

namespace voxhash::clash {
namespace {

using json = nlohmann::json;

/// The double whose shortest text is the float's (0.7113f is written 0.7113, not 0.71130001544).
double shortest(float value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text - 1, value).ptr;
  *end           = '\0';
  return std::strtod(text, nullptr);
}

json triple(Float3 p) {
  return json::array({shortest(p.x), shortest(p.y), shortest(p.z)});
}
json triple(Int3 c) {
  return json::array({c.x, c.y, c.z});
}

json part_pairs(const std::vector<PartPair>& pairs, const ClashNames& names) {
  json out = json::array();
  for (const PartPair& p : pairs) {
    out.push_back({{"part_a", names.part(0, p.part_a)},
                   {"part_a_id", p.part_a},
                   {"part_b", names.part(1, p.part_b)},
                   {"part_b_id", p.part_b},
                   {"voxels", p.voxels}});
  }
  return out;
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string csv_number(const json& value) {
  return value.dump();
}

using Rgb = std::array<std::uint8_t, 3>;
/// Region colours by rank (cycled), then grey for voxels of regions that were not listed.
constexpr std::array<Rgb, 8> kRegionColours{{{230, 25, 75},
                                             {60, 180, 75},
                                             {255, 225, 25},
                                             {0, 130, 200},
                                             {245, 130, 48},
                                             {145, 30, 180},
                                             {70, 240, 240},
                                             {240, 50, 230}}};
constexpr Rgb kUnlistedColour{128, 128, 128};

void append_little_endian(std::string& out, float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  for (int b = 0; b < 4; ++b)
    out.push_back(static_cast<char>((bits >> (8 * b)) & 0xFFu));
}

}  // namespace

std::string ClashNames::model(int index) const {
  const std::string& name = models[static_cast<std::size_t>(index)];
  return name.empty() ? (index == 0 ? "model A" : "model B") : name;
}

std::string ClashNames::part(int model, std::uint32_t id) const {
  const auto& names = parts[static_cast<std::size_t>(model)];
  return id < names.size() && !names[id].empty() ? names[id] : "part " + std::to_string(id);
}

void write_clash_json(const ClashReport& report,
                      const std::string& path,
                      const ClashNames& names,
                      const ClashRun* run) {
  json models = json::array();
  for (int m = 0; m < 2; ++m) {
    json model = {{"name", names.model(m)}, {"parts", names.parts[m]}};
    if (run) {
      const ModelFrameStats& s = run->models[m];
      model.update({{"path", run->paths[m]},
                    {"points", s.points},
                    {"voxels", s.voxels},
                    {"intersection", s.intersection},
                    {"inside", s.inside},
                    {"outside", s.outside},
                    {"outside_grid", s.outside_grid},
                    {"outside_grid_warning", outside_grid_fraction(s) > kOutsideGridWarning}});
    }
    models.push_back(std::move(model));
  }
  const Grid& g = report.grid;
  json regions  = json::array();
  for (std::size_t i = 0; i < report.regions.size(); ++i) {
    const ClashRegion& r = report.regions[i];
    regions.push_back({{"rank", i + 1},
                       {"voxels", r.voxels},
                       {"volume", r.volume},
                       {"bounds", {{"min", triple(r.bounds.min)}, {"max", triple(r.bounds.max)}}},
                       {"centroid", triple(r.centroid)},
                       {"cells", {{"min", triple(r.min_cell)}, {"max", triple(r.max_cell)}}},
                       {"part_pairs", part_pairs(r.parts, names)}});
  }
  json clashes = json::array();
  for (const Clash& c : report.clashes) {
    clashes.push_back({{"id", id_text(c.id)},
                       {"kind", to_string(c.kind)},
                       {"part_a", names.part(0, c.part_a)},
                       {"part_a_id", c.part_a},
                       {"part_b", names.part(1, c.part_b)},
                       {"part_b_id", c.part_b},
                       {"volume", c.volume},
                       {"depth", c.depth},
                       {"distance", c.distance},
                       {"resolution", c.resolution},
                       {"centroid", triple(c.centroid)},
                       {"bounds", {{"min", triple(c.bounds.min)}, {"max", triple(c.bounds.max)}}},
                       {"contact_voxels", c.contact_voxels}});
  }
  json open_parts = json::array();
  for (int m = 0; m < 2; ++m) {
    json list = json::array();
    for (const std::uint32_t p : report.open_parts[m])
      list.push_back(names.part(m, p));
    open_parts.push_back(std::move(list));
  }
  json document = {{"schema", "voxhash-clash/2"},
                   {"clashes", std::move(clashes)},
                   {"counts",
                    {{"clashes", report.clashes.size()},
                     {"hard", report.kind_counts[0]},
                     {"touching", report.kind_counts[1]},
                     {"clearance", report.kind_counts[2]}}},
                   {"solids", report.solids},
                   {"open_parts", std::move(open_parts)},
                   {"models", std::move(models)},
                   {"grid",
                    {{"origin", triple(g.origin)},
                     {"voxel_size", triple(g.voxel_size)},
                     {"resolution", triple(g.resolution)}}},
                   {"totals",
                    {{"regions", report.total_regions},
                     {"listed", report.regions.size()},
                     {"voxels", report.voxels},
                     {"volume", report.volume},
                     {"part_pairs", part_pairs(report.parts, names)}}},
                   {"regions", std::move(regions)}};
  if (run) {
    document.update({{"command_line", run->command_line},
                     {"scene",
                      {{"file", run->scene_file},
                       {"name", run->scene_name},
                       {"unit", run->unit},
                       {"up", run->up}}},
                     {"backend", run->backend},
                     {"algorithm", run->algorithm},
                     {"time", run->time},
                     {"tolerance", run->tolerance},
                     {"clearance", run->clearance},
                     {"touching", run->touching},
                     {"peak_device_bytes", run->memory.device},
                     {"peak_pinned_bytes", run->memory.pinned},
                     {"peak_host_bytes", run->memory.host},
                     {"warnings", run->warnings}});
  }
  voxhash::write_file(path, document.dump(2) + "\n");
}

std::vector<std::string> solid_warnings(const ClashReport& report, const ClashNames& names) {
  std::vector<std::string> lines;
  if (!report.solids) {
    lines.push_back(
        "a model is not a mesh: its clashes are the surfaces' shared voxels, without overlap "
        "volume or penetration depth (both need closed meshes)");
  }
  for (int m = 0; m < 2; ++m) {
    const auto& open = report.open_parts[m];
    if (open.empty()) continue;
    std::string list;
    for (std::size_t i = 0; i < open.size() && i < 8; ++i)
      list += (i ? ", " : "") + names.part(m, open[i]);
    if (open.size() > 8) list += ", ...";
    lines.push_back("model " + std::string(1, m ? 'B' : 'A') + " (" + names.model(m) +
                    "): " + std::to_string(open.size()) + " part(s) are not closed (" + list +
                    "): an open mesh has no inside, so their overlap volumes and depths are not "
                    "to be trusted");
  }
  return lines;
}

std::string id_text(std::uint64_t id) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(id));
  return text;
}

void write_clash_csv(const ClashReport& report, const std::string& path, const ClashNames& names) {
  std::string text =
      "id,kind,model_a,part_a_id,part_a,model_b,part_b_id,part_b,volume,depth,distance,"
      "resolution,centroid_x,centroid_y,centroid_z,min_x,min_y,min_z,max_x,max_y,max_z,"
      "contact_voxels\n";
  const std::string model_a = csv_text(names.model(0)), model_b = csv_text(names.model(1));
  const auto number = [](double v) { return std::isnan(v) ? std::string() : csv_number(v); };
  for (const Clash& c : report.clashes) {
    text += id_text(c.id) + ',' + std::string(to_string(c.kind)) + ',' + model_a + ',' +
            std::to_string(c.part_a) + ',' + csv_text(names.part(0, c.part_a)) + ',' + model_b +
            ',' + std::to_string(c.part_b) + ',' + csv_text(names.part(1, c.part_b)) + ',' +
            number(c.volume) + ',' + number(c.depth) + ',' + number(c.distance) + ',' +
            number(c.resolution);
    for (const Float3 p : {c.centroid, c.bounds.min, c.bounds.max}) {
      for (const float v : {p.x, p.y, p.z})
        text += ',' + csv_number(shortest(v));
    }
    text += ',' + std::to_string(c.contact_voxels) + '\n';
  }
  voxhash::write_file(path, text);
}

void write_clash_regions_csv(const ClashReport& report,
                             const std::string& path,
                             const ClashNames& names) {
  std::string text =
      "rank,voxels,volume,min_x,min_y,min_z,max_x,max_y,max_z,centroid_x,centroid_y,centroid_z,"
      "model_a,part_a_id,part_a,model_b,part_b_id,part_b,pair_voxels\n";
  const std::string model_a = csv_text(names.model(0)), model_b = csv_text(names.model(1));
  for (std::size_t i = 0; i < report.regions.size(); ++i) {
    const ClashRegion& r = report.regions[i];
    std::string region =
        std::to_string(i + 1) + ',' + std::to_string(r.voxels) + ',' + csv_number(r.volume);
    for (const Float3 p : {r.bounds.min, r.bounds.max, r.centroid}) {
      for (const float v : {p.x, p.y, p.z})
        region += ',' + csv_number(shortest(v));
    }
    if (r.parts.empty()) text += region + ',' + model_a + ",,," + model_b + ",,,\n";
    for (const PartPair& p : r.parts) {
      text += region + ',' + model_a + ',' + std::to_string(p.part_a) + ',' +
              csv_text(names.part(0, p.part_a)) + ',' + model_b + ',' + std::to_string(p.part_b) +
              ',' + csv_text(names.part(1, p.part_b)) + ',' + std::to_string(p.voxels) + '\n';
    }
  }
  voxhash::write_file(path, text);
}

void write_clash_ply(const ClashReport& report, const std::string& path) {
  if (report.voxel_keys.size() != report.voxels ||
      report.voxel_regions.size() != report.voxel_keys.size()) {
    throw InvalidInput(path +
                       ": the clash report holds no voxels (compute it with ClashOptions::voxels)");
  }
  std::string bytes =
      "ply\n"
      "format binary_little_endian 1.0\n"
      "comment voxhash clash band: intersection voxel centres coloured by region\n"
      "element vertex " +
      std::to_string(report.voxel_keys.size()) +
      "\n"
      "property float x\nproperty float y\nproperty float z\n"
      "property uchar red\nproperty uchar green\nproperty uchar blue\n"
      "end_header\n";
  for (std::size_t i = 0; i < report.voxel_keys.size(); ++i) {
    const Float3 c = report.grid.center(report.voxel_keys[i]);
    append_little_endian(bytes, c.x);
    append_little_endian(bytes, c.y);
    append_little_endian(bytes, c.z);
    const std::uint32_t region = report.voxel_regions[i];
    const Rgb colour =
        region == kNotFound ? kUnlistedColour : kRegionColours[region % kRegionColours.size()];
    for (const std::uint8_t channel : colour)
      bytes.push_back(static_cast<char>(channel));
  }
  voxhash::write_file(path, bytes);
}

}  // namespace voxhash::clash
