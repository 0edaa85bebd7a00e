// Pipeline: the public face of the frame pipeline. Holds the configuration and its validated grid
// and forwards to the backend's PipelineImpl (the one virtual seam); also the per-frame motion
// set-up shared by both backends.
#include "pipeline/pipeline_backend.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

namespace voxhash {
namespace pipeline {
namespace {

void set_rotation(core::MotionParams& m, float yaw, float pitch) {
  // R = Ry(yaw) * Rx(pitch), row-major.
  const float cy = std::cos(yaw), sy = std::sin(yaw), cp = std::cos(pitch), sp = std::sin(pitch);
  const float r[9] = {cy, sy * sp, sy * cp, 0, cp, -sp, -sy, cy * sp, cy * cp};
  std::copy(r, r + 9, m.rotation);
}

}  // namespace

core::MotionParams make_motion(const AnimationParams& a, int index, double time) {
  core::MotionParams m;
  const Float3 extra = index == 0 ? a.offset_a : a.offset_b;
  if (!a.animate) {
    const RigidTransform& pose = a.pose[index];
    std::copy(pose.rotation, pose.rotation + 9, m.rotation);
    m.translation = {
        pose.translation.x + extra.x, pose.translation.y + extra.y, pose.translation.z + extra.z};
    return m;
  }
  // One full swing (apart -> through each other -> apart on the other side -> back) takes 12 s
  // at speed 1, so the models pass through each other about every 6 s.
  const double phase = time * a.speed * 2.0 * std::numbers::pi / 12.0;
  const float sign   = index == 0 ? -1.f : 1.f;
  m.deform           = a.deformation;
  m.amount           = a.amount;
  m.phase            = static_cast<float>(phase * 3.0) + index;
  set_rotation(m,
               static_cast<float>(phase * (index == 0 ? 0.5 : -0.35)),
               static_cast<float>(phase * (index == 0 ? 0.2 : 0.3)));
  m.translation = {sign * a.separation * static_cast<float>(std::cos(phase)) + extra.x,
                   0.15f * sign * static_cast<float>(std::sin(phase)) + extra.y,
                   extra.z};
  return m;
}

}  // namespace pipeline

namespace {
/// The paged table is a table, not a frame algorithm: a frame whose tables would exceed
/// PipelineConfig::gpu_budget pages them itself (a paged cuckoo table per model), whatever the
/// algorithm selected.
void check_frame_algorithm(TableKind kind) {
  if (!visit_table(kind, [](auto traits) { return traits.frame_algorithm; })) {
    throw InvalidInput("the pipeline runs " + detail::table_names(kTableKinds) + ", not " +
                       std::string(to_string(kind)));
  }
}
}  // namespace

Pipeline::Pipeline(Backend backend, const PipelineConfig& config)
    : m_backend(backend),
      m_config(config),
      m_grid(config.grid),
      m_impl(detail::make_pipeline_backend(backend)) {
  check_frame_algorithm(config.algorithm);
}

Pipeline::~Pipeline() = default;

Backend Pipeline::backend() const {
  return m_backend;
}
const PipelineConfig& Pipeline::config() const {
  return m_config;
}
const Grid& Pipeline::grid() const {
  return m_grid;
}

void Pipeline::set_model(int index, std::span<const Float3> rest_points) {
  if (index != 0 && index != 1) throw InvalidInput("model index must be 0 or 1");
  m_impl->set_model(index, rest_points);
}

void Pipeline::set_model(int index, const Mesh& mesh, std::span<const Float3> rest_points) {
  if (index != 0 && index != 1) throw InvalidInput("model index must be 0 or 1");
  m_impl->set_model(index, mesh, rest_points);
}

void Pipeline::set_model_parts(int index, std::span<const std::uint32_t> parts) {
  if (index != 0 && index != 1) throw InvalidInput("model index must be 0 or 1");
  m_impl->set_model_parts(index, parts);
}

void Pipeline::set_algorithm(TableKind kind) {
  check_frame_algorithm(kind);
  m_config.algorithm = kind;
}

void Pipeline::set_grid(const GridParams& grid) {
  m_grid        = Grid(grid);
  m_config.grid = grid;
}

void Pipeline::set_animation(const AnimationParams& animation) {
  m_config.animation = animation;
}

void Pipeline::set_model_transform(int index, const RigidTransform& transform) {
  if (index != 0 && index != 1) throw InvalidInput("model index must be 0 or 1");
  const float* r = transform.rotation;
  if (!std::all_of(r, r + 9, [](float v) { return std::isfinite(v); }) ||
      !std::isfinite(transform.translation.x) || !std::isfinite(transform.translation.y) ||
      !std::isfinite(transform.translation.z)) {
    throw InvalidInput(std::string("model ") + (index ? 'B' : 'A') +
                       "'s pose is not finite (NaN or infinite rotation or translation)");
  }
  m_config.animation.pose[index] = transform;
}

namespace {
/// Refuses a frame whose time, or whose motion at that time, is not finite: a model moved to NaN
/// has no voxels, and a frame with no voxels would say "no clash".
void check_frame_motion(const AnimationParams& animation, double time) {
  if (!std::isfinite(time)) {
    throw InvalidInput("frame time " + std::to_string(time) + " is not finite");
  }
  // A deformation moves a point by about amount times its coordinates (squared, for a bend):
  // beyond this it overflows a float on any model.
  constexpr float kMaxAmount = 1e6f;
  if (animation.animate && animation.deformation != Deformation::None &&
      !(std::fabs(animation.amount) <= kMaxAmount)) {
    throw InvalidInput("deformation amount " + std::to_string(animation.amount) +
                       " is out of range (at most 1e6 either way)");
  }
  for (int i = 0; i < 2; ++i) {
    const core::MotionParams m = pipeline::make_motion(animation, i, time);
    const bool finite =
        std::isfinite(m.amount) && std::isfinite(m.phase) &&
        std::all_of(m.rotation, m.rotation + 9, [](float v) { return std::isfinite(v); }) &&
        std::isfinite(m.translation.x) && std::isfinite(m.translation.y) &&
        std::isfinite(m.translation.z);
    if (!finite) {
      char when[32];
      std::snprintf(when, sizeof when, "%g", time);
      throw InvalidInput(std::string("model ") + (i ? 'B' : 'A') + "'s motion at time " + when +
                         " is not finite (the time, speed, separation, offset or deformation "
                         "amount is too large)");
    }
  }
}
}  // namespace

FrameStats Pipeline::run_frame(double time, const FrameTargets& targets, Stream stream) {
  check_frame_motion(m_config.animation, time);
  m_has_frame            = false;  // a frame that throws may leave its tables half built
  const FrameStats stats = m_impl->run_frame(m_config, m_grid, time, targets, stream);
  m_has_frame            = true;
  return stats;
}

int Pipeline::key_bits() const {
  return frame_key_bits(m_config);
}

std::span<const Key> Pipeline::voxels(int index) const {
  if (!m_has_frame) return {};
  return m_impl->voxels(index);
}
std::span<const Key64> Pipeline::voxels64(int index) const {
  if (!m_has_frame) return {};
  return m_impl->voxels64(index);
}
std::span<const Key> Pipeline::keys(int index) const {
  if (!m_has_frame) return {};
  return m_impl->keys(index);
}
std::span<const VoxelLabel> Pipeline::labels(int index) const {
  if (!m_has_frame) return {};
  return m_impl->labels(index);
}
std::span<const Float3> Pipeline::points(int index) const {
  return m_impl->points(index);
}
std::span<const VoxelInstance> Pipeline::instances(int index) const {
  if (!m_has_frame) return {};
  return m_impl->instances(index);
}

ModelVoxels Pipeline::download(int index) const {
  if (!m_has_frame) return {};
  return m_impl->download(index);
}

std::string open_mesh_warning(const ModelFrameStats& stats, int model, const std::string& name) {
  if (!stats.open_parts) return {};
  return std::string("model ") + (model ? 'B' : 'A') + " (" + name +
         ") is an open mesh: " + std::to_string(stats.open_parts) +
         " of its parts have a hole or a missing face (" + std::to_string(stats.boundary_edges) +
         " boundary edges), so it has no exact inside; model " + (model ? 'A' : 'B') +
         "'s labels against it come from its winding number and are uncertain near the holes";
}

std::vector<std::string> frame_warnings(const FrameStats& stats,
                                        const std::array<std::string, 2>& names) {
  std::vector<std::string> lines;
  for (int m = 0; m < 2; ++m) {
    const ModelFrameStats& s = stats.model[m];
    const std::string model  = std::string("model ") + (m ? 'B' : 'A') + " (" + names[m] + ")";
    if (s.point_coverage < kMinPointCoverage) {
      char text[256];
      std::snprintf(text,
                    sizeof text,
                    " is a point cloud covering only %.1f %% of its surface voxels (%.0f %% "
                    "needed): its labels may leak through the gaps; it needs about %zu points "
                    "at this grid, or a mesh",
                    100 * s.point_coverage,
                    100 * kMinPointCoverage,
                    s.recommended_points);
      lines.push_back(model + text);
    }
    if (s.thin_feature_regions) {
      lines.push_back(model + ": " + std::to_string(s.thin_feature_regions) +
                      " region(s) reach both sides of a wall of model " + (m ? 'A' : 'B') +
                      " thinner than about two voxels; their labels are not trustworthy (a "
                      "finer grid resolves the wall)");
    }
    if (s.open_parts) lines.push_back(open_mesh_warning(s, m, names[m]));
    if (outside_grid_fraction(s) > kOutsideGridWarning) {
      lines.push_back(model + ": " + std::to_string(s.outside_grid) + " of " +
                      std::to_string(s.points) + " points fell outside the grid");
    }
  }
  return lines;
}

}  // namespace voxhash
