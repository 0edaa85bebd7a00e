// BCF 2.1 export of a clash report (clash_bcf.hpp): the XML documents through pugixml, the zip
// built in memory through libzip and written through voxhash::write_file.
#include "clash/clash_bcf.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>
#include <pugixml.hpp>
#include <sstream>
#include <string>
#include <vector>
#include <zip.h>

namespace voxhash::clash {
namespace {

/// SplitMix64's finalizer: the GUIDs' bits.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The text of a pugixml document, with its XML declaration.
std::string xml_text(const pugi::xml_document& doc) {
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
}

pugi::xml_document new_document() {
  pugi::xml_document doc;
  pugi::xml_node declaration               = doc.append_child(pugi::node_declaration);
  declaration.append_attribute("version")  = "1.0";
  declaration.append_attribute("encoding") = "UTF-8";
  return doc;
}

void add_text(pugi::xml_node parent, const char* name, const std::string& text) {
  parent.append_child(name).text().set(text.c_str());
}

/// A BCF point or direction: <name><X/><Y/><Z/></name>.
void add_xyz(pugi::xml_node parent, const char* name, const std::array<double, 3>& v) {
  pugi::xml_node node = parent.append_child(name);
  node.append_child("X").text().set(v[0]);
  node.append_child("Y").text().set(v[1]);
  node.append_child("Z").text().set(v[2]);
}

/// A length for a description: 4 significant digits and the unit.
std::string length_text(double value, const std::string& unit, int power = 1) {
  char text[64];
  std::snprintf(text, sizeof text, "%.4g", value);
  return std::string(text) + (unit.empty() ? "" : " " + unit) + (power == 3 ? "^3" : "");
}

/// The time of the export, ISO 8601 in UTC (BCF's CreationDate).
std::string now_utc() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string markup(const Clash& c,
                   const ClashNames& names,
                   const std::string& unit,
                   const std::string& created) {
  pugi::xml_document doc = new_document();
  pugi::xml_node root    = doc.append_child("Markup");
  pugi::xml_node topic   = root.append_child("Topic");
  const std::string kind(to_string(c.kind));
  topic.append_attribute("Guid")        = clash_guid(c.id, "topic").c_str();
  topic.append_attribute("TopicType")   = "Clash";
  topic.append_attribute("TopicStatus") = "Open";
  const std::string a                   = names.model(0) + " / " + names.part(0, c.part_a);
  const std::string b                   = names.model(1) + " / " + names.part(1, c.part_b);
  std::string title                     = kind + " clash: " + a + " x " + b;
  title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
  add_text(topic, "Title", title);
  add_text(topic, "Labels", kind);
  add_text(topic, "CreationDate", created);
  add_text(topic, "CreationAuthor", "voxhash");
  std::string description = "Clash " + id_text(c.id) + ": " + a + " and " + b + ". ";
  if (c.kind == ClashKind::Clearance) {
    description += "Closest distance " + length_text(c.distance, unit) + ".";
  } else if (std::isfinite(c.volume)) {
    description += "Overlap volume " + length_text(c.volume, unit, 3) + ", penetration depth " +
                   length_text(c.depth, unit) + ".";
  } else {
    description += std::to_string(c.contact_voxels) + " shared surface voxels (no solids).";
  }
  description += " At (" + length_text(c.centroid.x, "") + ", " + length_text(c.centroid.y, "") +
                 ", " + length_text(c.centroid.z, unit) + ").";
  add_text(topic, "Description", description);
  pugi::xml_node viewpoints                   = root.append_child("Viewpoints");
  viewpoints.append_attribute("Guid")         = clash_guid(c.id, "viewpoint").c_str();
  viewpoints.append_child("Viewpoint").text() = "viewpoint.bcfv";
  return xml_text(doc);
}

std::string viewpoint(const Clash& c, const ClashNames& names) {
  pugi::xml_document doc        = new_document();
  pugi::xml_node root           = doc.append_child("VisualizationInfo");
  root.append_attribute("Guid") = clash_guid(c.id, "viewpoint").c_str();
  pugi::xml_node components     = root.append_child("Components");
  pugi::xml_node selection      = components.append_child("Selection");
  for (int m = 0; m < 2; ++m) {
    pugi::xml_node component = selection.append_child("Component");
    add_text(component, "OriginatingSystem", "voxhash");
    add_text(component, "AuthoringToolId", names.part(m, m ? c.part_b : c.part_a));
  }
  components.append_child("Visibility").append_attribute("DefaultVisibility") = true;
  // Looking down at the clash from above one corner, far enough that its box fills about half the
  // view; the clipping plane through its centre hides the half nearer the camera.
  const std::array<double, 3> centre{c.centroid.x, c.centroid.y, c.centroid.z};
  const double size             = std::max({static_cast<double>(c.bounds.max.x - c.bounds.min.x),
                                            static_cast<double>(c.bounds.max.y - c.bounds.min.y),
                                            static_cast<double>(c.bounds.max.z - c.bounds.min.z),
                                            1e-6});
  constexpr double kFieldOfView = 60.0;
  const double distance         = size / std::tan(kFieldOfView * 3.14159265358979323846 / 360.0);
  const double s                = 1.0 / std::sqrt(3.0);
  const std::array<double, 3> direction{-s, -s, -s};
  const std::array<double, 3> eye{centre[0] - distance * direction[0],
                                  centre[1] - distance * direction[1],
                                  centre[2] - distance * direction[2]};
  const double u        = 1.0 / std::sqrt(6.0);  // z up, made perpendicular to the direction
  pugi::xml_node camera = root.append_child("PerspectiveCamera");
  add_xyz(camera, "CameraViewPoint", eye);
  add_xyz(camera, "CameraDirection", direction);
  add_xyz(camera, "CameraUpVector", {-u, -u, 2 * u});
  camera.append_child("FieldOfView").text().set(kFieldOfView);
  pugi::xml_node plane = root.append_child("ClippingPlanes").append_child("ClippingPlane");
  add_xyz(plane, "Location", centre);
  add_xyz(plane, "Direction", {s, s, s});  // towards the camera: that side is hidden
  return xml_text(doc);
}

std::string version() {
  pugi::xml_document doc             = new_document();
  pugi::xml_node root                = doc.append_child("Version");
  root.append_attribute("VersionId") = "2.1";
  add_text(root, "DetailedVersion", "2.1");
  return xml_text(doc);
}

std::string project(const ClashRun* run) {
  pugi::xml_document doc = new_document();
  pugi::xml_node root    = doc.append_child("ProjectExtension");
  pugi::xml_node node    = root.append_child("Project");
  const std::string name = run && !run->scene_name.empty() ? run->scene_name : "voxhash";
  std::uint64_t h        = 0xcbf29ce484222325ull;  // FNV-1a of the scene's name
  for (const unsigned char ch : name)
    h = (h ^ ch) * 0x100000001b3ull;
  node.append_attribute("ProjectId") = clash_guid(h, "project").c_str();
  add_text(node, "Name", name);
  root.append_child("ExtensionSchema");
  return xml_text(doc);
}

/// A zip built in memory by libzip.
class MemoryZip {
 public:
  explicit MemoryZip(const std::string& path) : m_path(path) {
    zip_error_t error;
    zip_error_init(&error);
    m_source = zip_source_buffer_create(nullptr, 0, 0, &error);
    if (m_source) m_zip = zip_open_from_source(m_source, ZIP_TRUNCATE, &error);
    if (!m_zip) fail(zip_error_strerror(&error));
    zip_source_keep(m_source);  // read back after zip_close
  }
  ~MemoryZip() {
    if (m_zip) zip_discard(m_zip);
    if (m_source) zip_source_free(m_source);
  }
  MemoryZip(const MemoryZip&)            = delete;
  MemoryZip& operator=(const MemoryZip&) = delete;

  void add(const std::string& name, std::string bytes) {
    m_files.push_back(std::make_unique<std::string>(std::move(bytes)));  // libzip reads it at close
    zip_source_t* s = zip_source_buffer(m_zip, m_files.back()->data(), m_files.back()->size(), 0);
    if (!s || zip_file_add(m_zip, name.c_str(), s, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8) < 0) {
      if (s) zip_source_free(s);
      fail(zip_strerror(m_zip));
    }
  }

  /// The archive's bytes (the zip is closed).
  std::string finish() {
    if (zip_close(m_zip) < 0) fail(zip_strerror(m_zip));
    m_zip = nullptr;
    zip_stat_t stat;
    if (zip_source_stat(m_source, &stat) < 0 || zip_source_open(m_source) < 0) {
      fail("cannot read the archive back");
    }
    std::string bytes(static_cast<std::size_t>(stat.size), '\0');
    const zip_int64_t read = zip_source_read(m_source, bytes.data(), stat.size);
    zip_source_close(m_source);
    if (read != static_cast<zip_int64_t>(stat.size)) fail("cannot read the archive back");
    return bytes;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidInput(m_path + ": cannot build the BCF archive: " + what);
  }

  std::string m_path;
  zip_source_t* m_source = nullptr;
  zip_t* m_zip           = nullptr;
  std::vector<std::unique_ptr<std::string>> m_files;
};

}  // namespace

std::string clash_guid(std::uint64_t id, std::string_view what) {
  std::uint64_t salt = 0xcbf29ce484222325ull;
  for (const unsigned char ch : what)
    salt = (salt ^ ch) * 0x100000001b3ull;
  std::uint64_t hi = mix(id ^ salt), lo = mix(hi ^ id);
  hi = (hi & ~0xF000ull) | 0x5000ull;              // version 5
  lo = (lo & ~(0xC0ull << 56)) | (0x80ull << 56);  // variant 10
  char text[40];
  std::snprintf(text,
                sizeof text,
                "%08llx-%04llx-%04llx-%04llx-%012llx",
                static_cast<unsigned long long>(hi >> 32),
                static_cast<unsigned long long>((hi >> 16) & 0xFFFF),
                static_cast<unsigned long long>(hi & 0xFFFF),
                static_cast<unsigned long long>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
  return text;
}

void write_clash_bcf(const ClashReport& report,
                     const std::string& path,
                     const ClashNames& names,
                     const ClashRun* run) {
  const std::string unit    = run ? run->unit : "";
  const std::string created = now_utc();
  MemoryZip zip(path);
  zip.add("bcf.version", version());
  zip.add("project.bcfp", project(run));
  for (const Clash& c : report.clashes) {
    const std::string folder = clash_guid(c.id, "topic") + "/";
    zip.add(folder + "markup.bcf", markup(c, names, unit, created));
    zip.add(folder + "viewpoint.bcfv", viewpoint(c, names));
  }
  voxhash::write_file(path, zip.finish());
}

}  // namespace voxhash::clash
