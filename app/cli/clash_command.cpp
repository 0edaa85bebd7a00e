// `voxhash clash`: loads and places the scene's models, runs one frame at the scene's time with
// no instances, groups the intersection into clash regions (compute_clash_report) and writes the
// report: a summary on stdout, JSON (schema voxhash-clash/1, docs/SCENES.md) and CSV (one row per
// region) through nlohmann-json, and the clash band's voxels as a PLY.
#include "cli/clash_command.hpp"

#include <voxhash/clash.hpp>
#include <voxhash/error.hpp>
#include <voxhash/io.hpp>
#include <voxhash/pipeline.hpp>

#include <array>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

namespace voxhash::cli {
namespace {

using json = nlohmann::json;

/// A float as the shortest decimal that reads back as it (2.4f is 2.4, not 2.4000000953674316).
json number(float v) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  return std::strtod(std::string(text, end).c_str(), nullptr);
}

json vec3(Float3 v) {
  return json::array({number(v.x), number(v.y), number(v.z)});
}

json bounds_json(const Bounds& b) {
  return {{"min", vec3(b.min)}, {"max", vec3(b.max)}};
}

/// More than 1 % of the model's points fell outside the grid in the frame.
bool outside_warning(const ModelFrameStats& m) {
  return m.outside_grid * 100 > m.points;
}

std::string parts_text(const ClashRegion& region) {
  std::string text;
  for (const ClashPartPair& p : region.parts) {
    if (!text.empty()) text += ';';
    text += std::to_string(p.part_a);
    text += '/';
    text += std::to_string(p.part_b);
    text += ':';
    text += std::to_string(p.voxels);
  }
  return text;
}

json report_json(const ClashCommand& command,
                 const LoadedScene& loaded,
                 const Pipeline& pipeline,
                 const FrameStats& stats,
                 const ClashReport& report,
                 double time) {
  const Scene& scene = loaded.scene;
  const Grid& grid   = pipeline.grid();
  json models        = json::array();
  for (int i = 0; i < 2; ++i) {
    const ModelFrameStats& m = stats.model[i];
    models.push_back({{"name", loaded.models[i].name},
                      {"path", scene.models[i].path.string()},
                      {"points", m.points},
                      {"outside_grid", m.outside_grid},
                      {"outside_grid_warning", outside_warning(m)},
                      {"voxels", m.voxels},
                      {"intersection", m.intersection},
                      {"inside", m.inside},
                      {"outside", m.outside}});
  }
  json regions = json::array();
  for (std::size_t r = 0; r < report.regions.size(); ++r) {
    const ClashRegion& region = report.regions[r];
    json parts                = json::array();
    for (const ClashPartPair& p : region.parts)
      parts.push_back({{"part_a", p.part_a}, {"part_b", p.part_b}, {"voxels", p.voxels}});
    regions.push_back({{"rank", r + 1},
                       {"voxels", region.voxels},
                       {"volume", region.volume},
                       {"bounds", bounds_json(region.bounds)},
                       {"centroid", vec3(region.centroid)},
                       {"parts", parts}});
  }
  const Float3 lo = grid.origin;
  const Float3 hi = {lo.x + grid.voxel_size.x * grid.resolution.x,
                     lo.y + grid.voxel_size.y * grid.resolution.y,
                     lo.z + grid.voxel_size.z * grid.resolution.z};
  return {
      {"schema", "voxhash-clash/1"},
      {"command_line", command.command_line},
      {"scene", {{"file", scene.file}, {"name", scene.name}, {"unit", to_string(scene.unit)}}},
      {"backend", to_string(pipeline.backend())},
      {"algorithm", to_string(pipeline.config().algorithm)},
      {"time", time},
      {"grid",
       {{"resolution", {grid.resolution.x, grid.resolution.y, grid.resolution.z}},
        {"voxel_size", grid.voxel_size.x},
        {"bounds", bounds_json({lo, hi})}}},
      {"models", models},
      {"clash",
       {{"regions", report.regions.size()}, {"voxels", report.voxels}, {"volume", report.volume}}},
      {"regions", regions},
      {"warnings", loaded.warnings}};
}

std::ofstream open_output(const std::string& path) {
  std::ofstream out(path);
  if (!out) throw Error("cannot write " + path);
  return out;
}

void write_csv(const ClashReport& report, const std::string& path) {
  std::ofstream out = open_output(path);
  out << "rank,voxels,volume,min_x,min_y,min_z,max_x,max_y,max_z,centroid_x,centroid_y,"
         "centroid_z,parts\n";
  for (std::size_t r = 0; r < report.regions.size(); ++r) {
    const ClashRegion& g = report.regions[r];
    out << r + 1 << ',' << g.voxels << ',' << json(g.volume).dump();
    for (const float v : {g.bounds.min.x,
                          g.bounds.min.y,
                          g.bounds.min.z,
                          g.bounds.max.x,
                          g.bounds.max.y,
                          g.bounds.max.z,
                          g.centroid.x,
                          g.centroid.y,
                          g.centroid.z}) {
      out << ',' << number(v).dump();
    }
    out << ',' << parts_text(g) << '\n';
  }
  if (!out) throw Error("cannot write " + path);
}

/// The clash band: model A's intersection voxels (model B's are the same voxels).
void write_band_ply(const Pipeline& pipeline, const std::string& path) {
  std::array<ModelVoxels, 2> models;
  const ModelVoxels a = pipeline.download(0);
  for (std::size_t i = 0; i < a.keys.size(); ++i) {
    if (a.labels[i] != VoxelLabel::Intersection) continue;
    models[0].keys.push_back(a.keys[i]);
    models[0].labels.push_back(a.labels[i]);
  }
  export_voxels_ply(path, pipeline.config().grid, models);
}

void print_summary(const LoadedScene& loaded,
                   const Pipeline& pipeline,
                   const FrameStats& stats,
                   const ClashReport& report,
                   double time) {
  const Scene& scene     = loaded.scene;
  const std::string unit = std::string(to_string(scene.unit));
  const Grid& grid       = pipeline.grid();
  std::printf("scene %s (%s), unit %s, time %g s, %s backend, %s\n",
              scene.name.c_str(),
              scene.file.c_str(),
              unit.c_str(),
              time,
              std::string(to_string(pipeline.backend())).c_str(),
              std::string(to_string(pipeline.config().algorithm)).c_str());
  std::printf("grid %d x %d x %d, voxel %g %s\n",
              grid.resolution.x,
              grid.resolution.y,
              grid.resolution.z,
              grid.voxel_size.x,
              unit.c_str());
  for (int i = 0; i < 2; ++i) {
    const ModelFrameStats& m = stats.model[i];
    std::printf(
        "model %c %s: %zu points (%zu outside the grid), %zu voxels, %zu intersecting, "
        "%zu inside %c\n",
        'A' + i,
        loaded.models[i].name.c_str(),
        m.points,
        m.outside_grid,
        m.voxels,
        m.intersection,
        m.inside,
        'B' - i);
  }
  std::printf("%zu clash regions, %zu voxels, %g %s^3\n",
              report.regions.size(),
              report.voxels,
              report.volume,
              unit.c_str());
  for (std::size_t r = 0; r < report.regions.size(); ++r) {
    const ClashRegion& g = report.regions[r];
    std::printf(
        "  #%zu  %zu voxels  %g %s^3  centroid (%g, %g, %g)  box (%g, %g, %g)-(%g, %g, %g)\n",
        r + 1,
        g.voxels,
        g.volume,
        unit.c_str(),
        g.centroid.x,
        g.centroid.y,
        g.centroid.z,
        g.bounds.min.x,
        g.bounds.min.y,
        g.bounds.min.z,
        g.bounds.max.x,
        g.bounds.max.y,
        g.bounds.max.z);
  }
}

}  // namespace

int run_clash(const ClashCommand& command) {
  const LoadedScene loaded = load_scene_models(command.scene, command.defaults);
  for (const std::string& warning : loaded.warnings)
    std::cerr << "voxhash: warning: " << warning << std::endl;
  const double time = command.time.value_or(command.scene.time);
  Pipeline pipeline(command.backend, loaded.config);
  set_scene_models(pipeline, loaded, time);
  const FrameStats stats   = pipeline.run_frame(time, {.write_instances = false});
  const ClashReport report = compute_clash_report(pipeline);
  for (int i = 0; i < 2; ++i) {
    if (!outside_warning(stats.model[i])) continue;
    std::cerr << "voxhash: warning: model '" << loaded.models[i].name
              << "': " << stats.model[i].outside_grid << " of " << stats.model[i].points
              << " points fell outside the grid" << std::endl;
  }
  print_summary(loaded, pipeline, stats, report, time);
  if (!command.json_path.empty()) {
    std::ofstream out = open_output(command.json_path);
    out << report_json(command, loaded, pipeline, stats, report, time).dump(2) << '\n';
    if (!out) throw Error("cannot write " + command.json_path);
  }
  if (!command.csv_path.empty()) write_csv(report, command.csv_path);
  if (!command.ply_path.empty()) write_band_ply(pipeline, command.ply_path);
  return 0;
}

}  // namespace voxhash::cli
