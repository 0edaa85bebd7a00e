// A scene opened for a front end, in the one order the viewer, bench frame and voxhash clash
// share: memory checked from the scene alone, the models read and placed, memory checked again for
// the fitted grid; then the front end's pipeline configurations and the pipelines themselves, the
// models handed to them and posed. Meshes are checked once read, before any voxelization: their
// surface voxels estimated from the triangles' area (check_mesh_memory).
#include <voxhash/error.hpp>
#include <voxhash/pipeline.hpp>
#include <voxhash/scene.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace voxhash {
namespace {

/// The conservative voxelizer's voxels per voxel_size^2 of triangle area: a plane crosses up to
/// sqrt(3) voxels per voxel_size^2 (its normal along a diagonal), and every voxel a triangle's
/// edges touch counts as well; 2 covers both for triangles larger than a voxel.
constexpr double kSurfaceVoxelsPerArea = 2.0;

double mesh_area(const Mesh& mesh) {
  double area = 0;
  for (std::size_t t = 0; t + 2 < mesh.triangles.size(); t += 3) {
    const Float3 a = mesh.vertices[mesh.triangles[t]];
    const Float3 b = mesh.vertices[mesh.triangles[t + 1]];
    const Float3 c = mesh.vertices[mesh.triangles[t + 2]];
    const double u[3]{double(b.x) - a.x, double(b.y) - a.y, double(b.z) - a.z};
    const double v[3]{double(c.x) - a.x, double(c.y) - a.y, double(c.z) - a.z};
    const double n[3]{
        u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    area += 0.5 * std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  }
  return area;
}

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", v);
  return text;
}

/// Whether `bytes` fit in `memory`'s free memory with kMemoryHeadroom to spare (require_memory's
/// rule).
bool fit(Backend memory, std::size_t bytes) {
  const std::size_t free = free_memory(memory);
  return bytes <= free && free - bytes >= kMemoryHeadroom;
}

/// The memory `need` does not fit in on `backend` (the host also holds the Cpu backend's), and
/// the bytes it needs there; nullopt when it fits.
std::optional<std::pair<Backend, std::size_t>> short_of(Backend backend,
                                                        const MemoryEstimate& need) {
  if (backend == Backend::Cpu) {
    const std::size_t bytes = need.backend_bytes + need.host_bytes;
    if (fit(Backend::Cpu, bytes)) return std::nullopt;
    return std::pair{Backend::Cpu, bytes};
  }
  if (!fit(backend, need.backend_bytes)) return std::pair{backend, need.backend_bytes};
  if (!fit(Backend::Cpu, need.host_bytes)) return std::pair{Backend::Cpu, need.host_bytes};
  return std::nullopt;
}

}  // namespace

std::size_t estimate_surface_voxels(const Mesh& mesh, double voxel_size) {
  if (mesh.triangles.empty() || !(voxel_size > 0)) return 0;
  const double voxels =
      std::ceil(kSurfaceVoxelsPerArea * mesh_area(mesh) / (voxel_size * voxel_size)) +
      static_cast<double>(mesh.triangles.size() / 3);
  constexpr double kMost = double(std::size_t{1} << 50);  // beyond any memory; bytes stay finite
  return voxels >= kMost ? std::size_t{1} << 50 : static_cast<std::size_t>(voxels);
}

void check_mesh_memory(Backend backend,
                       const std::vector<PipelineConfig>& configs,
                       const LoadedScene& loaded) {
  const GridParams& grid = loaded.config.grid;
  const double voxel     = (double(grid.bounds.max.x) - grid.bounds.min.x) / grid.resolution.x;
  // The frames' memory at voxel size h: each mesh model's keys as many as its surface voxels.
  const auto need_at = [&](double h, std::array<std::size_t, 2>& voxels) {
    MemoryEstimate need;
    std::array<std::size_t, 2> keys = loaded.point_counts();
    for (int i = 0; i < 2; ++i) {
      voxels[i] = estimate_surface_voxels(loaded.models[i].cloud.mesh, h);
      keys[i]   = std::max(keys[i], voxels[i]);
    }
    for (PipelineConfig config : configs) {
      const double shrink = voxel / h;
      for (int* r :
           {&config.grid.resolution.x, &config.grid.resolution.y, &config.grid.resolution.z})
        *r = std::max(1, static_cast<int>(std::ceil(*r * shrink)));
      need += estimate_frame_bytes(config, keys);
    }
    return need;
  };
  std::array<std::size_t, 2> voxels{};
  const auto short_now = short_of(backend, need_at(voxel, voxels));
  if (!short_now || (voxels[0] == 0 && voxels[1] == 0)) return;  // no meshes: the point check
  const auto fits_at = [&](double h) {
    std::array<std::size_t, 2> ignored{};
    return !short_of(backend, need_at(h, ignored));
  };
  // The smallest voxel size (2 significant digits, rounded up) whose frames fit.
  const double extent = std::max({double(grid.bounds.max.x) - grid.bounds.min.x,
                                  double(grid.bounds.max.y) - grid.bounds.min.y,
                                  double(grid.bounds.max.z) - grid.bounds.min.z});
  double lo = voxel, hi = std::max(extent, voxel) * 2;
  const bool found = fits_at(hi);
  for (int i = 0; found && i < 100; ++i) {
    const double mid         = std::sqrt(lo * hi);
    (fits_at(mid) ? hi : lo) = mid;
  }
  const double digits = std::pow(10.0, std::floor(std::log10(hi)) - 1);
  double suggested    = std::ceil(hi / digits) * digits;
  for (int i = 0; found && i < 100 && !fits_at(suggested); ++i)
    suggested += digits;
  const int model = voxels[1] > voxels[0] ? 1 : 0;
  const std::string unit(to_string(loaded.scene.unit));
  const auto [memory, bytes] = *short_now;
  throw OutOfMemory(
      loaded.scene.file + ": model '" + loaded.models[model].name + "': ~" +
      number_text(static_cast<double>(voxels[model])) + " surface voxels at " + number_text(voxel) +
      " " + unit + " need ~" + format_bytes(bytes) + "; the " +
      (memory == Backend::Cpu ? "host" : "GPU") + " has " + format_bytes(free_memory(memory)) +
      " free; " +
      (found ? "use --voxel-size >= " + number_text(suggested) + " " + unit + " (grid.voxel_size)"
             : std::string("no voxel size fits this model in memory")));
}

std::vector<PipelineConfig> scene_configs(const PipelineConfig& config, const SceneTables& tables) {
  std::vector<PipelineConfig> configs;
  const auto add = [&](TableKind algorithm) {
    PipelineConfig c = config;
    c.algorithm      = algorithm;
    if (tables.cuckoo_space) c.table_options.cuckoo_space = *tables.cuckoo_space;
    if (tables.load) c.table_options.load = *tables.load;
    configs.push_back(c);
  };
  if (tables.algorithms.empty()) add(config.algorithm);
  for (const TableKind algorithm : tables.algorithms)
    add(algorithm);
  return configs;
}

OpenScene open_scene(const Scene& scene, const OpenSceneOptions& options) {
  const auto check = [&](const std::vector<PipelineConfig>& configs,
                         std::array<std::size_t, 2> points) {
    if (options.check_memory) {
      options.check_memory(configs, points);
      return;
    }
    for (const PipelineConfig& config : configs)
      check_frame_memory(options.backend, config, points);
  };
  check(scene_configs(scene_memory_config(scene, options.defaults), options.tables),
        {scene_model_points(scene, 0, options.defaults),
         scene_model_points(scene, 1, options.defaults)});
  OpenScene open{.loaded = load_scene_models(scene, options.defaults)};
  open.configs = scene_configs(open.loaded.config, options.tables);
  check_mesh_memory(options.backend, open.configs, open.loaded);  // before any voxelization
  check(open.configs, open.loaded.point_counts());  // point clouds come with their own counts
  return open;
}

std::unique_ptr<Pipeline> make_scene_pipeline(Backend backend,
                                              const PipelineConfig& config,
                                              const LoadedScene& scene,
                                              double time) {
  auto pipeline = std::make_unique<Pipeline>(backend, config);
  set_scene_models(*pipeline, scene, time);
  return pipeline;
}

void set_scene_models(Pipeline& pipeline, const LoadedScene& scene, double time) {
  for (int i = 0; i < 2; ++i) {
    const PointCloud& cloud = scene.models[i].cloud;
    if (cloud.mesh.triangles.empty()) {
      pipeline.set_model(i, cloud.points);
      pipeline.set_model_parts(i, cloud.point_parts);
    } else {
      pipeline.set_model(i, cloud.mesh, cloud.points);
    }
  }
  pose_scene(pipeline, scene.scene, time);
}

void pose_scene(Pipeline& pipeline, const Scene& scene, double time) {
  if (scene.motion.kind != MotionKind::Keyframes) return;
  for (int i = 0; i < 2; ++i)
    pipeline.set_model_transform(i, world_transform(scene_up(scene), model_pose(scene, i, time)));
}

}  // namespace voxhash
