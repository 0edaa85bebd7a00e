// Scene files to Scene: nlohmann-json parses the text, a small field reader walks it knowing the
// path of every value, so each error is one line "FILE: FIELD: what is wrong" (unknown fields,
// wrong types, out-of-range numbers, unknown units, malformed byte sizes, conflicting fields).
#include <voxhash/backend.hpp>
#include <voxhash/error.hpp>
#include <voxhash/scene.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <utility>

namespace voxhash {
namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxPoints = std::size_t{1} << 30;
constexpr int kMaxResolution     = 1 << 16;

const char* type_name(const json& v) {
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  if (v.is_boolean()) return "a boolean";
  return "null";
}

/// Times a scene may give (seconds): far beyond any animation, and spans between them and poses
/// at them stay finite.
constexpr double kMaxSceneTime = 1e9;

/// A JSON value and where it is, for errors that name the file and the field.
class Field {
 public:
  Field(const json& value, std::string path, const std::string& file)
      : m_value(value), m_path(std::move(path)), m_file(file) {}

  /// Fails naming member `key` (which may be missing).
  [[noreturn]] void fail_at(const char* key, const std::string& what) const {
    child_path(key).fail(what);
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidInput(m_file + ": " + (m_path.empty() ? "" : m_path + ": ") + what);
  }

  [[nodiscard]] bool has(const char* key) const { return m_value.contains(key); }
  [[nodiscard]] bool is_string() const { return m_value.is_string(); }

  [[nodiscard]] Field operator[](const char* key) const {
    if (!has(key)) child_path(key).fail("missing");
    return {m_value.at(key), m_path.empty() ? key : m_path + "." + key, m_file};
  }

  /// Fails on any member not in `known`, naming it and listing what is accepted.
  void expect_object(std::initializer_list<const char*> known) const {
    if (!m_value.is_object()) fail(std::string("must be an object, not ") + type_name(m_value));
    for (const auto& item : m_value.items()) {
      const std::string& key = item.key();
      if (std::find_if(known.begin(), known.end(), [&](const char* k) { return key == k; }) !=
          known.end()) {
        continue;
      }
      std::string expected;
      for (const char* k : known)
        expected += (expected.empty() ? "" : ", ") + std::string(k);
      child_path(key.c_str()).fail("unknown field (expected one of: " + expected + ")");
    }
  }

  [[nodiscard]] std::vector<Field> elements(std::size_t min_size, std::size_t max_size) const {
    if (!m_value.is_array()) fail(std::string("must be an array, not ") + type_name(m_value));
    if (m_value.size() < min_size || m_value.size() > max_size) {
      fail(min_size == max_size
               ? "must have " + std::to_string(min_size) + " elements, not " +
                     std::to_string(m_value.size())
               : "must have " + std::to_string(min_size) + " to " + std::to_string(max_size) +
                     " elements, not " + std::to_string(m_value.size()));
    }
    std::vector<Field> out;
    for (std::size_t i = 0; i < m_value.size(); ++i)
      out.emplace_back(m_value[i], m_path + "[" + std::to_string(i) + "]", m_file);
    return out;
  }

  [[nodiscard]] bool boolean() const {
    if (!m_value.is_boolean())
      fail(std::string("must be true or false, not ") + type_name(m_value));
    return m_value.get<bool>();
  }

  [[nodiscard]] double number() const {
    if (!m_value.is_number()) fail(std::string("must be a number, not ") + type_name(m_value));
    const double v = m_value.get<double>();
    if (!std::isfinite(v)) fail("must be finite");
    return v;
  }

  /// A number the pipeline keeps as a 32-bit float (positions, motion): it must stay finite.
  [[nodiscard]] float single() const {
    const double v = number();
    if (!(std::abs(v) <= std::numeric_limits<float>::max())) {
      fail("must be within +-3.4e38 (it is kept as a 32-bit float)");
    }
    return static_cast<float>(v);
  }

  [[nodiscard]] double positive() const {
    const double v = number();
    if (!(v > 0)) fail("must be > 0");
    return v;
  }

  [[nodiscard]] std::int64_t integer(std::int64_t min, std::int64_t max) const {
    const double v = number();
    if (v != std::floor(v)) fail("must be a whole number");
    if (v < static_cast<double>(min) || v > static_cast<double>(max)) {
      fail("must be from " + std::to_string(min) + " to " + std::to_string(max));
    }
    return static_cast<std::int64_t>(v);
  }

  /// A byte size: a string with a unit ("1GiB", "512MiB", "2GB": parse_bytes) or a whole number of
  /// bytes, > 0 either way.
  [[nodiscard]] std::size_t byte_size() const {
    constexpr const char* kExpected =
        "a byte size such as \"1GiB\", \"512MiB\" or \"2GB\", or a whole number of bytes";
    if (m_value.is_string()) {
      const std::string text                 = m_value.get<std::string>();
      const std::optional<std::size_t> bytes = parse_bytes(text);
      if (!bytes) fail("'" + text + "' is not " + kExpected);
      if (*bytes == 0) fail("must be > 0");
      return *bytes;
    }
    if (!m_value.is_number()) {
      fail(std::string("must be ") + kExpected + ", not " + type_name(m_value));
    }
    if (m_value.is_number_unsigned()) {
      const std::uint64_t bytes = m_value.get<std::uint64_t>();
      if (bytes == 0) fail("must be > 0");
      return static_cast<std::size_t>(bytes);
    }
    const double v = number();
    if (!(v > 0)) fail("must be > 0");
    if (v != std::floor(v) || v >= 0x1.0p64) fail(std::string("must be ") + kExpected);
    return static_cast<std::size_t>(v);
  }

  /// A length of 0 or more: a number in `unit`, or a string with a unit ("25mm": parse_length).
  [[nodiscard]] double length(LengthUnit unit) const {
    if (m_value.is_string()) {
      const std::string text             = m_value.get<std::string>();
      const std::optional<double> length = parse_length(text, unit);
      if (!length) fail("'" + text + "' is not a length of 0 or more such as \"25mm\" or \"1in\"");
      return *length;
    }
    const double v = number();
    if (!(v >= 0)) fail("must be >= 0");
    return v;
  }

  [[nodiscard]] std::string string() const {
    if (!m_value.is_string()) fail(std::string("must be a string, not ") + type_name(m_value));
    return m_value.get<std::string>();
  }

  [[nodiscard]] Float3 vec3() const {
    const std::vector<Field> e = elements(3, 3);
    return {e[0].single(), e[1].single(), e[2].single()};
  }

  /// One of `names` (their index), else an error listing them.
  [[nodiscard]] std::size_t choice(std::initializer_list<const char*> names) const {
    return choice(std::span<const char* const>(names.begin(), names.size()));
  }
  [[nodiscard]] std::size_t choice(std::span<const char* const> names) const {
    const std::string s = string();
    std::size_t i       = 0;
    std::string all;
    for (const char* name : names) {
      if (s == name) return i;
      all += (all.empty() ? "" : ", ") + std::string(name);
      ++i;
    }
    fail("unknown value '" + s + "' (expected one of: " + all + ")");
  }

 private:
  [[nodiscard]] Field child_path(const char* key) const {
    return {m_value, m_path.empty() ? key : m_path + "." + key, m_file};
  }

  const json& m_value;
  std::string m_path;
  const std::string& m_file;
};

LengthUnit read_unit(const Field& f) {
  const std::string name = f.string();
  if (const auto unit = parse_length_unit(name)) return *unit;
  f.fail("unknown unit '" + name + "' (expected one of: m, cm, mm, in, ft)");
}

/// "rotate" (degrees, x then y then z about fixed axes) or "quaternion" ([w, x, y, z]), not both.
Quaternion read_rotation(const Field& f) {
  if (f.has("rotate") && f.has("quaternion")) {
    f["quaternion"].fail("give either rotate (degrees) or quaternion, not both");
  }
  if (f.has("rotate")) {
    const Float3 deg = f["rotate"].vec3();
    return quaternion_from_euler(deg.x, deg.y, deg.z);
  }
  if (!f.has("quaternion")) return {};
  const Field q                 = f["quaternion"];
  const std::vector<Field> wxyz = q.elements(4, 4);
  Quaternion r{wxyz[0].number(), wxyz[1].number(), wxyz[2].number(), wxyz[3].number()};
  // Normalized through the largest component, so that components near 1e200 (whose squares
  // overflow) still give their rotation rather than a zero quaternion.
  const double largest = std::max({std::abs(r.w), std::abs(r.x), std::abs(r.y), std::abs(r.z)});
  const Quaternion s   = largest > 0
                             ? Quaternion{r.w / largest, r.x / largest, r.y / largest, r.z / largest}
                             : Quaternion{0, 0, 0, 0};
  const double scaled  = std::sqrt(s.w * s.w + s.x * s.x + s.y * s.y + s.z * s.z);
  const double norm    = largest * scaled;  // infinite only near DBL_MAX: then only compared
  if (!(norm > 1e-12)) q.fail("must not be zero (it is normalized; [1, 0, 0, 0] is no rotation)");
  // A unit quaternion (as scene_to_json writes one) is kept bit for bit, so a saved scene reads
  // back to the same scene; dividing by a norm one ulp off 1 would change its last digits.
  if (std::abs(norm - 1.0) <= 1e-12) return r;
  return {s.w / scaled, s.x / scaled, s.y / scaled, s.z / scaled};
}

Pose read_pose(const Field& f) {
  Pose pose;
  if (f.has("translate")) pose.translate = f["translate"].vec3();
  pose.rotate = read_rotation(f);
  return pose;
}

UpAxis read_up(const Field& f) {
  return f.choice({"y", "z"}) == 0 ? UpAxis::Y : UpAxis::Z;
}

/// A model file's path: not empty, no NUL; relative to the scene's folder.
std::filesystem::path read_path(const Field& f, const std::filesystem::path& folder) {
  const std::string path = f.string();
  if (path.empty()) f.fail("must not be empty");
  if (path.find('\0') != std::string::npos) f.fail("must not hold a NUL character");
  return folder / std::filesystem::path(path);
}

/// A name reports print on one line: no control characters.
void check_name(const std::string& name, const Field& f) {
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) {
      f.fail("must not hold control characters (a line break, an escape)");
    }
  }
}

/// "transform": translate, rotate or quaternion, scale.
void read_transform(const Field& f, Pose& pose, double& scale) {
  f.expect_object({"translate", "rotate", "quaternion", "scale"});
  pose = read_pose(f);
  if (f.has("scale")) scale = f["scale"].positive();
}

ModelAs read_as(const Field& f) {
  return f.choice({"mesh", "points"}) == 0 ? ModelAs::Mesh : ModelAs::Points;
}

std::vector<Keyframe> read_keyframes(const Field& f) {
  std::vector<Keyframe> keys;
  double previous = -INFINITY;
  for (const Field& k : f.elements(1, 1'000'000)) {
    k.expect_object({"time", "translate", "rotate", "quaternion"});
    Keyframe key{k["time"].number(), read_pose(k)};
    if (!(key.time > previous)) k["time"].fail("must be later than the previous keyframe's");
    if (!(std::fabs(key.time) <= kMaxSceneTime)) {
      k["time"].fail("must be within +-1e9 seconds");
    }
    previous = key.time;
    keys.push_back(key);
  }
  return keys;
}

SceneModel read_model(const Field& f, const std::filesystem::path& folder) {
  f.expect_object({"name",
                   "path",
                   "unit",
                   "up",
                   "as",
                   "transform",
                   "points",
                   "keyframes",
                   "files_outside_folder"});
  SceneModel m;
  m.path = read_path(f["path"], folder);
  m.name = f.has("name") ? f["name"].string()
                         : std::filesystem::path(f["path"].string()).stem().string();
  check_name(m.name, f.has("name") ? f["name"] : f["path"]);
  if (f.has("unit")) m.unit = read_unit(f["unit"]);
  if (f.has("up")) m.up = read_up(f["up"]);
  if (f.has("transform")) read_transform(f["transform"], m.pose, m.scale);
  if (f.has("as")) m.as = read_as(f["as"]);
  if (f.has("points")) m.points = f["points"].integer(1, kMaxPoints);
  if (f.has("files_outside_folder")) m.files_outside_folder = f["files_outside_folder"].boolean();
  if (f.has("keyframes")) m.keyframes = read_keyframes(f["keyframes"]);
  return m;
}

/// Part patterns: at least one, none empty.
std::vector<std::string> read_patterns(const Field& f) {
  std::vector<std::string> patterns;
  for (const Field& p : f.elements(1, 100'000)) {
    std::string pattern = p.string();
    if (pattern.empty()) p.fail("must not be empty (\"*\" matches every part)");
    patterns.push_back(std::move(pattern));
  }
  return patterns;
}

/// A selection set's file: its path alone, or an object with the keys a model gives its file.
SceneFile read_set_file(const Field& f, const std::filesystem::path& folder) {
  SceneFile file;
  if (f.is_string()) {
    file.path = read_path(f, folder);
    return file;
  }
  f.expect_object({"path", "unit", "up", "transform", "as", "files_outside_folder", "parts"});
  file.path = read_path(f["path"], folder);
  if (f.has("parts")) file.parts = read_patterns(f["parts"]);
  if (f.has("unit")) file.unit = read_unit(f["unit"]);
  if (f.has("up")) file.up = read_up(f["up"]);
  if (f.has("transform")) read_transform(f["transform"], file.pose, file.scale);
  if (f.has("as")) file.as = read_as(f["as"]);
  if (f.has("files_outside_folder")) {
    file.files_outside_folder = f["files_outside_folder"].boolean();
  }
  return file;
}

/// One file entry of a set, and whether it gave no placement, only the path (and its parts): then
/// it takes the placement the other set gives the same file.
struct SetFileEntry {
  SceneFile file;
  bool plain = false;
  std::string field;               // "set_a.files[0]"
  std::filesystem::path identity;  // what tells files apart: the absolute path, normalized
};

/// "set_a" / "set_b": the files, the part patterns, and the set's own name, transform, points and
/// keyframes.
SceneModel read_set(const Field& f,
                    const char* key,
                    const std::filesystem::path& folder,
                    std::vector<SetFileEntry>& entries) {
  f.expect_object({"name", "files", "parts", "transform", "points", "keyframes"});
  SceneModel m;
  m.name = f.has("name") ? f["name"].string() : std::string(key);
  if (f.has("name")) check_name(m.name, f["name"]);
  const std::vector<Field> files = f["files"].elements(1, 100'000);
  std::set<std::filesystem::path> seen;
  for (std::size_t i = 0; i < files.size(); ++i) {
    bool placed = false;  // the entry gives a placement, not only the path (and parts)
    for (const char* k : {"unit", "up", "transform", "as", "files_outside_folder"})
      placed = placed || (!files[i].is_string() && files[i].has(k));
    SetFileEntry entry{read_set_file(files[i], folder),
                       !placed,
                       std::string(key) + ".files[" + std::to_string(i) + "]",
                       {}};
    entry.identity = std::filesystem::absolute(entry.file.path).lexically_normal();
    if (!seen.insert(entry.identity).second) {
      files[i].fail(entry.file.path.string() + " is listed twice in " + key + ".files");
    }
    m.files.push_back(entry.file);
    entries.push_back(std::move(entry));
  }
  if (f.has("parts")) m.parts = read_patterns(f["parts"]);
  for (std::size_t i = 0; i < m.files.size(); ++i) {
    if (m.parts.empty() && m.files[i].parts.empty()) {
      files[i].fail(std::string("no parts to select: give ") + key +
                    ".parts, or this file's own \"parts\"");
    }
  }
  if (f.has("transform")) read_transform(f["transform"], m.pose, m.scale);
  if (f.has("points")) m.points = f["points"].integer(1, kMaxPoints);
  if (f.has("keyframes")) m.keyframes = read_keyframes(f["keyframes"]);
  return m;
}

bool same_placement(const SceneFile& a, const SceneFile& b) {
  const auto same3    = [](Float3 p, Float3 q) { return p.x == q.x && p.y == q.y && p.z == q.z; };
  const Quaternion &p = a.pose.rotate, &q = b.pose.rotate;
  return a.unit == b.unit && a.up == b.up && same3(a.pose.translate, b.pose.translate) &&
         p.w == q.w && p.x == q.x && p.y == q.y && p.z == q.z && a.scale == b.scale &&
         a.as == b.as && a.files_outside_folder == b.files_outside_folder;
}

/// A file in both sets is read once: an entry that gives only the path takes the other's
/// placement; two entries that both give one must give the same.
void merge_shared_files(Scene& scene, const std::vector<SetFileEntry>& entries) {
  const std::size_t count_a = scene.models[0].files.size();
  std::map<std::filesystem::path, std::size_t> in_a;
  for (std::size_t a = 0; a < count_a; ++a)
    in_a.emplace(entries[a].identity, a);
  for (std::size_t b = count_a; b < entries.size(); ++b) {
    const auto found = in_a.find(entries[b].identity);
    if (found == in_a.end()) continue;
    const std::size_t a    = found->second;
    const SetFileEntry &ea = entries[a], &eb = entries[b];
    SceneFile& fa = scene.models[0].files[a];
    SceneFile& fb = scene.models[1].files[b - count_a];
    // The placement only: each set keeps its own part patterns for the file.
    const auto take = [](SceneFile& to, const SceneFile& from) {
      std::vector<std::string> parts = std::move(to.parts);
      to                             = from;
      to.parts                       = std::move(parts);
    };
    if (eb.plain) {
      take(fb, fa);
    } else if (ea.plain) {
      take(fa, fb);
    } else if (!same_placement(ea.file, eb.file)) {
      throw InvalidInput(scene.file + ": " + eb.field + ": " + eb.file.path.string() +
                         " is also in " + ea.field +
                         ", placed otherwise: a file in both sets is read once, with one "
                         "placement (give it in one entry and only the path in the other)");
    }
  }
}

SceneGrid read_grid(const Field& f) {
  f.expect_object({"voxel_size", "resolution", "bounds", "margin"});
  SceneGrid g;
  if (f.has("voxel_size") && f.has("resolution")) {
    f["resolution"].fail("give either voxel_size or resolution, not both");
  }
  if (f.has("voxel_size")) g.voxel_size = f["voxel_size"].positive();
  if (f.has("resolution"))
    g.resolution = static_cast<int>(f["resolution"].integer(1, kMaxResolution));
  if (f.has("bounds")) {
    const Field b = f["bounds"];
    b.expect_object({"min", "max"});
    const Bounds bounds{b["min"].vec3(), b["max"].vec3()};
    if (!(bounds.max.x > bounds.min.x && bounds.max.y > bounds.min.y &&
          bounds.max.z > bounds.min.z)) {
      b["max"].fail("must be greater than min on every axis");
    }
    g.bounds = bounds;
  }
  if (f.has("margin")) {
    g.margin = f["margin"].number();
    if (g.margin < 0) f["margin"].fail("must be >= 0");
  }
  return g;
}

SceneMotion read_motion(const Field& f) {
  f.expect_object({"kind", "speed", "separation", "deformation", "amount"});
  SceneMotion m;
  if (f.has("kind")) {
    m.kind = static_cast<MotionKind>(f["kind"].choice({"none", "swing", "keyframes"}));
  }
  for (const char* swing_only : {"speed", "separation", "deformation", "amount"}) {
    if (f.has(swing_only) && m.kind != MotionKind::Swing) {
      f[swing_only].fail("applies only to motion.kind \"swing\"");
    }
  }
  if (f.has("speed")) m.speed = f["speed"].single();
  if (f.has("separation")) m.separation = f["separation"].single();
  if (f.has("deformation")) {
    m.deformation =
        static_cast<Deformation>(f["deformation"].choice({"none", "twist", "bend", "wobble"}));
  }
  if (f.has("amount")) {
    m.amount = f["amount"].single();
    if (!(std::fabs(m.amount) <= 1e6f)) f["amount"].fail("must be within +-1e6");
  }
  return m;
}

/// "line L, column C" of byte offset `byte` (1-based, as nlohmann counts it) in `text`.
std::string position(std::string_view text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

Scene parse_scene(std::string_view json_text, const std::filesystem::path& file) {
  const std::string name = file.string();
  json doc;
  // Keys seen in each object being parsed: a key given twice is refused, not last-wins.
  std::vector<std::set<std::string>> open_objects;
  std::string repeated;
  const auto watch = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) open_objects.emplace_back();
    if (event == json::parse_event_t::object_end && !open_objects.empty()) open_objects.pop_back();
    if (event == json::parse_event_t::key && !open_objects.empty() &&
        !open_objects.back().insert(parsed.get<std::string>()).second && repeated.empty()) {
      repeated = parsed.get<std::string>();
    }
    return true;
  };
  try {
    doc = json::parse(json_text.begin(), json_text.end(), watch);
  } catch (const json::parse_error& e) {
    // nlohmann's what() reads "[json.exception.parse_error.101] parse error at line 2, column 3:
    // syntax error while parsing ...": keep the part after the position.
    std::string what        = e.what();
    const std::size_t colon = what.find(": ", what.find("column"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    throw InvalidInput(name + ": " + position(json_text, e.byte) + ": not valid JSON (" + what +
                       ")");
  } catch (const json::exception& e) {
    // The others the parser throws, e.g. out_of_range.406: a number too large for a double.
    std::string what          = e.what();
    const std::size_t bracket = what.find("] ");
    if (bracket != std::string::npos) what = what.substr(bracket + 2);
    throw InvalidInput(name + ": not valid JSON (" + what + ")");
  }

  if (!repeated.empty()) {
    throw InvalidInput(name + ": key \"" + repeated +
                       "\" appears twice in one object: which one is meant cannot be told");
  }
  const Field root(doc, "", name);
  root.expect_object({"voxhash_scene",
                      "name",
                      "unit",
                      "up",
                      "models",
                      "set_a",
                      "set_b",
                      "grid",
                      "motion",
                      "algorithm",
                      "points",
                      "time",
                      "gpu_budget",
                      "tolerance",
                      "clearance"});
  if (!root.has("voxhash_scene")) {
    root["voxhash_scene"].fail("missing (a scene file starts with \"voxhash_scene\": 1)");
  }
  const std::int64_t version = root["voxhash_scene"].integer(1, 1'000'000);
  if (version != kSceneVersion) {
    root["voxhash_scene"].fail("version " + std::to_string(version) +
                               " is not supported (this voxhash reads version " +
                               std::to_string(kSceneVersion) + ")");
  }

  Scene scene;
  scene.file = name;
  scene.name = root.has("name") ? root["name"].string() : file.stem().string();
  if (root.has("unit")) scene.unit = read_unit(root["unit"]);
  if (root.has("grid")) scene.grid = read_grid(root["grid"]);
  if (root.has("motion")) scene.motion = read_motion(root["motion"]);
  if (root.has("algorithm")) {
    // Every frame algorithm, by the names the scene writer uses (kTableKinds: one list).
    std::vector<std::string> names;
    for (const TableKind kind : kTableKinds)
      names.emplace_back(to_string(kind));
    std::vector<const char*> choices;
    for (const std::string& name : names)
      choices.push_back(name.c_str());
    scene.algorithm = kTableKinds[root["algorithm"].choice(choices)];
  }
  if (root.has("points")) scene.points = root["points"].integer(1, kMaxPoints);
  if (root.has("time")) {
    scene.time = root["time"].number();
    if (!(std::fabs(scene.time) <= kMaxSceneTime))
      root["time"].fail("must be within +-1e9 seconds");
  }
  if (root.has("gpu_budget")) scene.gpu_budget = root["gpu_budget"].byte_size();
  for (const auto& [key, out] :
       {std::pair{"tolerance", &scene.tolerance}, {"clearance", &scene.clearance}}) {
    if (root.has(key)) *out = root[key].length(scene.unit);
  }

  if (root.has("up")) scene.up = read_up(root["up"]);
  const std::filesystem::path folder = file.parent_path();
  const bool sets                    = root.has("set_a") || root.has("set_b");
  if (sets && root.has("models")) {
    root["models"].fail("give either models or set_a and set_b (selection sets), not both");
  }
  std::vector<Field> model_fields;  // where each model is, for the errors below
  if (sets) {
    std::vector<SetFileEntry> entries;
    for (int i = 0; i < 2; ++i) {
      const char* key = i == 0 ? "set_a" : "set_b";
      if (!root.has(key)) {
        root.fail_at(key, "missing (a scene of selection sets gives set_a and set_b)");
      }
      model_fields.push_back(root[key]);
      scene.models[i] = read_set(model_fields[i], key, folder, entries);
    }
    merge_shared_files(scene, entries);
  } else {
    if (!root.has("models")) root.fail_at("models", "missing (or set_a and set_b: selection sets)");
    const std::vector<Field> models = root["models"].elements(2, 2);
    for (int i = 0; i < 2; ++i) {
      model_fields.push_back(models[i]);
      scene.models[i] = read_model(models[i], folder);
    }
  }
  bool any_keyframes = false;
  for (int i = 0; i < 2; ++i) {
    if (!scene.models[i].keyframes.empty()) {
      any_keyframes = true;
      if (scene.motion.kind != MotionKind::Keyframes) {
        model_fields[i]["keyframes"].fail("needs motion.kind \"keyframes\"");
      }
    }
  }
  if (scene.motion.kind == MotionKind::Keyframes && !any_keyframes) {
    root["motion"]["kind"].fail("\"keyframes\" needs keyframes in at least one model");
  }
  return scene;
}

Scene load_scene(const std::filesystem::path& file) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(file, ec);
  if (ec == std::errc::too_many_symbolic_link_levels) {
    throw InvalidInput(file.string() + ": symbolic link loop (too many levels of symbolic links)");
  }
  if (!std::filesystem::is_regular_file(status)) {
    std::error_code link_error;
    if (!std::filesystem::exists(status) &&
        std::filesystem::is_symlink(std::filesystem::symlink_status(file, link_error))) {
      throw InvalidInput(file.string() + ": broken symbolic link (to '" +
                         std::filesystem::read_symlink(file, link_error).string() +
                         "', which does not exist)");
    }
    throw InvalidInput(file.string() + ": " +
                       (std::filesystem::exists(status) ? "not a file" : "no such scene file"));
  }
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) throw InvalidInput(file.string() + ": cannot be read");
  return parse_scene(text.str(), file);
}

void set_model_file(Scene& scene, int index, const std::filesystem::path& path) {
  SceneModel& model = scene.models[static_cast<std::size_t>(index)];
  model.name        = path.stem().string();
  model.up.reset();
  if (model.as == ModelAs::Mesh) model.as = ModelAs::File;  // "points" takes any file
  if (!model.is_set()) {
    model.path = path;
    return;
  }
  SceneFile file;
  file.path   = path;
  file.as     = model.as;
  model.files = {file};
  model.parts = {"*"};
}

Scene scene_of_models(const std::filesystem::path& model_a, const std::filesystem::path& model_b) {
  Scene scene;
  scene.file = "command line";
  scene.name = model_a.stem().string() + " + " + model_b.stem().string();
  for (int i = 0; i < 2; ++i) {
    const std::filesystem::path& path = i == 0 ? model_a : model_b;
    scene.models[i].path              = path;
    scene.models[i].name              = path.stem().string();
  }
  return scene;
}

}  // namespace voxhash
