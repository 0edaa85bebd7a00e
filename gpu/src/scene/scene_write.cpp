// Scene to scene file: the inverse of parse_scene, so that a front end (the viewer's "save scene")
// can write the scene it runs. Every field parse_scene reads is written with full precision (floats
// and doubles round-trip through the text), rotations as quaternions, model paths relative to the
// file's folder, the GPU budget in the largest binary unit that holds it exactly.
#include <voxhash/error.hpp>
#include <voxhash/io.hpp>
#include <voxhash/scene.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace voxhash {
namespace {

using json = nlohmann::ordered_json;

json vec3(Float3 v) {
  return json::array({v.x, v.y, v.z});
}

json quaternion(const Quaternion& q) {
  return json::array({q.w, q.x, q.y, q.z});
}

/// `path` as the file in `folder` names it: relative where both are absolute or both relative.
std::string relative_to(const std::filesystem::path& path, const std::filesystem::path& folder) {
  const std::filesystem::path absolute      = std::filesystem::absolute(path).lexically_normal();
  const std::filesystem::path folder_abs    = std::filesystem::absolute(folder).lexically_normal();
  const std::filesystem::path relative_path = absolute.lexically_relative(folder_abs);
  return relative_path.empty() ? absolute.string() : relative_path.generic_string();
}

/// `bytes` as parse_bytes reads it back: "1GiB", "512MiB", "64KiB" where a binary unit divides it
/// exactly, else the number of bytes.
json byte_size(std::size_t bytes) {
  constexpr std::pair<std::size_t, const char*> kUnits[] = {
      {std::size_t{1} << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}};
  for (const auto& [unit, name] : kUnits) {
    if (bytes % unit == 0) return std::to_string(bytes / unit) + name;
  }
  return bytes;
}

json transform(const Pose& pose, double scale) {
  return {{"translate", vec3(pose.translate)},
          {"quaternion", quaternion(pose.rotate)},
          {"scale", scale}};
}

const char* as_name(ModelAs as) {
  return as == ModelAs::Mesh ? "mesh" : "points";
}

/// A selection set's file entry, every key given written (a file in both sets is written the same
/// in both, which parse_scene accepts).
json set_file_json(const SceneFile& file, const std::filesystem::path& folder) {
  json f;
  f["path"] = relative_to(file.path, folder);
  if (file.unit) f["unit"] = std::string(to_string(*file.unit));
  if (file.up) f["up"] = std::string(to_string(*file.up));
  f["transform"] = transform(file.pose, file.scale);
  if (file.as != ModelAs::File) f["as"] = as_name(file.as);
  if (file.files_outside_folder) f["files_outside_folder"] = true;
  if (!file.parts.empty()) f["parts"] = file.parts;
  return f;
}

json model_json(const SceneModel& model, const std::filesystem::path& folder) {
  json m;
  m["name"] = model.name;
  if (model.is_set()) {
    json files = json::array();
    for (const SceneFile& file : model.files)
      files.push_back(set_file_json(file, folder));
    m["files"] = std::move(files);
    if (!model.parts.empty()) m["parts"] = model.parts;
  } else {
    m["path"] = relative_to(model.path, folder);
    if (model.unit) m["unit"] = std::string(to_string(*model.unit));
    if (model.up) m["up"] = std::string(to_string(*model.up));
  }
  m["transform"] = transform(model.pose, model.scale);
  if (!model.is_set() && model.as != ModelAs::File) m["as"] = as_name(model.as);
  if (model.points > 0) m["points"] = model.points;
  if (!model.is_set() && model.files_outside_folder) m["files_outside_folder"] = true;
  if (!model.keyframes.empty()) {
    json keys = json::array();
    for (const Keyframe& k : model.keyframes) {
      keys.push_back({{"time", k.time},
                      {"translate", vec3(k.pose.translate)},
                      {"quaternion", quaternion(k.pose.rotate)}});
    }
    m["keyframes"] = std::move(keys);
  }
  return m;
}

}  // namespace

std::string scene_to_json(const Scene& scene, const std::filesystem::path& folder) {
  constexpr const char* kMotions[]      = {"none", "swing", "keyframes"};
  constexpr const char* kDeformations[] = {"none", "twist", "bend", "wobble"};
  json doc;
  doc["voxhash_scene"] = kSceneVersion;
  doc["name"]          = scene.name;
  doc["unit"]          = std::string(to_string(scene.unit));
  if (scene.up) doc["up"] = std::string(to_string(*scene.up));
  if (scene.models[0].is_set()) {
    doc["set_a"] = model_json(scene.models[0], folder);
    doc["set_b"] = model_json(scene.models[1], folder);
  } else {
    doc["models"] =
        json::array({model_json(scene.models[0], folder), model_json(scene.models[1], folder)});
  }

  json grid;
  if (scene.grid.voxel_size > 0) grid["voxel_size"] = scene.grid.voxel_size;
  if (scene.grid.voxel_size <= 0 && scene.grid.resolution > 0) {
    grid["resolution"] = scene.grid.resolution;
  }
  if (scene.grid.bounds) {
    grid["bounds"] = {{"min", vec3(scene.grid.bounds->min)}, {"max", vec3(scene.grid.bounds->max)}};
  }
  grid["margin"] = scene.grid.margin;
  doc["grid"]    = std::move(grid);

  json motion;
  motion["kind"] = kMotions[static_cast<int>(scene.motion.kind)];
  if (scene.motion.kind == MotionKind::Swing) {
    motion["speed"]       = scene.motion.speed;
    motion["separation"]  = scene.motion.separation;
    motion["deformation"] = kDeformations[static_cast<int>(scene.motion.deformation)];
    motion["amount"]      = scene.motion.amount;
  }
  doc["motion"] = std::move(motion);
  if (scene.algorithm) doc["algorithm"] = std::string(to_string(*scene.algorithm));
  if (scene.points > 0) doc["points"] = scene.points;
  doc["time"] = scene.time;
  if (scene.gpu_budget.value_or(GpuBudget{}).limited())
    doc["gpu_budget"] = byte_size(scene.gpu_budget->bytes());
  if (scene.tolerance > 0) doc["tolerance"] = scene.tolerance;
  if (scene.clearance > 0) doc["clearance"] = scene.clearance;
  return doc.dump(2) + "\n";
}

void save_scene(const Scene& scene, const std::filesystem::path& file) {
  const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : ".";
  const std::string text             = scene_to_json(scene, folder);
  write_file(file, text);
}

}  // namespace voxhash
