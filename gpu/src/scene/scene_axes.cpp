// A scene's up axis: the world the pipeline and the viewer work in is Y-up, a Z-up scene is turned
// into it by a quarter turn about x ((x, y, z) -> (x, z, -y)) and its reports turned back. Every
// map here permutes coordinates and negates one, so points, boxes, poses, grids and voxel keys go
// back and forth exactly; which axes a file's coordinates are in (IFC: Z-up) is decided here too.
#include <voxhash/scene.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace voxhash {
namespace {

/// Both corners mapped, then sorted per axis (a negated axis swaps min and max).
template <class F>
Bounds map_box(const Bounds& box, F&& map) {
  const Float3 a = map(box.min), b = map(box.max);
  return {{std::min(a.x, b.x), std::min(a.y, b.y), std::min(a.z, b.z)},
          {std::max(a.x, b.x), std::max(a.y, b.y), std::max(a.z, b.z)}};
}

/// A world cell of a grid of `world_resolution` as the cell of the same voxel in the scene's axes.
Int3 scene_cell(UpAxis up, Int3 world_resolution, Int3 c) {
  if (up == UpAxis::Y) return c;
  return {c.x, world_resolution.z - 1 - c.z, c.y};
}

/// The Grid of the world grid `world` in the scene's axes, field by field (the same voxel sizes,
/// bit for bit).
Grid scene_grid(UpAxis up, const Grid& world) {
  if (up == UpAxis::Y) return world;
  Grid g       = world;
  g.resolution = {world.resolution.x, world.resolution.z, world.resolution.y};
  g.bits       = {world.bits.x, world.bits.z, world.bits.y};
  g.voxel_size = {world.voxel_size.x, world.voxel_size.z, world.voxel_size.y};
  g.origin     = {world.origin.x,
                  -(world.origin.z + static_cast<float>(world.resolution.z) * world.voxel_size.z),
                  world.origin.y};
  return g;
}

}  // namespace

bool is_ifc_file(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) {
    return static_cast<char>(std::tolower(c));
  });
  return extension == ".ifc" || extension == ".ifczip";
}

std::string_view to_string(UpAxis up) {
  return up == UpAxis::Y ? "y" : "z";
}

Float3 world_from_scene_axes(UpAxis up, Float3 p) {
  return up == UpAxis::Y ? p : Float3{p.x, p.z, -p.y};
}

Float3 scene_axes_from_world(UpAxis up, Float3 p) {
  return up == UpAxis::Y ? p : Float3{p.x, -p.z, p.y};
}

Bounds world_from_scene_axes(UpAxis up, const Bounds& box) {
  return map_box(box, [up](Float3 p) { return world_from_scene_axes(up, p); });
}

Bounds scene_axes_from_world(UpAxis up, const Bounds& box) {
  return map_box(box, [up](Float3 p) { return scene_axes_from_world(up, p); });
}

GridParams scene_axes_grid(UpAxis up, const GridParams& world) {
  if (up == UpAxis::Y) return world;
  return {{world.resolution.x, world.resolution.z, world.resolution.y},
          scene_axes_from_world(up, world.bounds)};
}

Key64 scene_axes_key(UpAxis up, const Grid& world, const Grid& scene, Key64 key) {
  return scene.key64(scene_cell(up, world.resolution, world.cell(key)));
}

void to_scene_axes(ClashReport& report, UpAxis up) {
  if (up == UpAxis::Y) return;
  const Grid world = report.grid;
  const Grid scene = scene_grid(up, world);
  for (Clash& c : report.clashes) {
    c.centroid = scene_axes_from_world(up, c.centroid);
    c.bounds   = scene_axes_from_world(up, c.bounds);
  }
  for (ClashRegion& r : report.regions) {
    r.centroid    = scene_axes_from_world(up, r.centroid);
    r.bounds      = scene_axes_from_world(up, r.bounds);
    const Int3 lo = scene_cell(up, world.resolution, r.min_cell);
    const Int3 hi = scene_cell(up, world.resolution, r.max_cell);
    r.min_cell    = {std::min(lo.x, hi.x), std::min(lo.y, hi.y), std::min(lo.z, hi.z)};
    r.max_cell    = {std::max(lo.x, hi.x), std::max(lo.y, hi.y), std::max(lo.z, hi.z)};
  }
  std::vector<std::pair<Key64, std::uint32_t>> voxels(report.voxel_keys.size());
  for (std::size_t i = 0; i < voxels.size(); ++i) {
    voxels[i] = {scene_axes_key(up, world, scene, report.voxel_keys[i]),
                 i < report.voxel_regions.size() ? report.voxel_regions[i] : 0};
  }
  std::sort(voxels.begin(), voxels.end());
  for (std::size_t i = 0; i < voxels.size(); ++i) {
    report.voxel_keys[i] = voxels[i].first;
    if (i < report.voxel_regions.size()) report.voxel_regions[i] = voxels[i].second;
  }
  report.grid = scene;
}

void to_scene_axes(std::array<ModelVoxels, 2>& models, GridParams& world, UpAxis up) {
  if (up == UpAxis::Y) return;
  const Grid from(world);
  world = scene_axes_grid(up, world);
  const Grid to(world);
  for (ModelVoxels& model : models) {
    for (Key64& key : model.keys)
      key = scene_axes_key(up, from, to, key);
  }
}

UpAxis scene_up(const Scene& scene) {
  if (scene.up) return *scene.up;
  bool all_z     = true;
  const auto own = [](const std::filesystem::path& path, std::optional<UpAxis> given) {
    return given ? *given == UpAxis::Z : is_ifc_file(path);
  };
  for (const SceneModel& model : scene.models) {
    if (!model.is_set()) all_z = all_z && own(model.path, model.up);
    for (const SceneFile& file : model.files)
      all_z = all_z && own(file.path, file.up);
  }
  return all_z ? UpAxis::Z : UpAxis::Y;
}

UpAxis file_up(const Scene& scene, const std::filesystem::path& path, std::optional<UpAxis> given) {
  if (given) return *given;
  return is_ifc_file(path) ? UpAxis::Z : scene_up(scene);
}

RigidTransform world_transform(UpAxis up, const Pose& pose) {
  RigidTransform t = to_rigid_transform(pose);
  if (up == UpAxis::Y) return t;
  // S R S^T with S = [[1, 0, 0], [0, 0, 1], [0, -1, 0]]: rows and columns permuted, two negated.
  const float* r   = t.rotation;
  const float m[9] = {r[0], r[2], -r[1], r[6], r[8], -r[7], -r[3], -r[5], r[4]};
  std::copy(m, m + 9, t.rotation);
  t.translation = world_from_scene_axes(up, pose.translate);
  return t;
}

}  // namespace voxhash
