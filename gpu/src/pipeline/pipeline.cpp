// Pipeline: the public face of the frame pipeline. Holds the configuration and a backend
// implementation (CPU or CUDA); also the grid and motion set-up shared by both backends.
#include "pipeline/pipeline_backend.hpp"

#include <voxhash/error.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <string>

namespace voxhash {

core::GridView grid_view(const GridParams& grid) {
  const Int3 r = grid.resolution;
  if (r.x < 1 || r.y < 1 || r.z < 1) {
    throw InvalidInput("grid resolution must be at least 1 voxel per axis");
  }
  core::GridView g;
  g.resolution = r;
  g.bits       = {core::bits_for(r.x), core::bits_for(r.y), core::bits_for(r.z)};
  if (g.bits.x + g.bits.y + g.bits.z > 31) {
    throw InvalidInput(
        "grid " + std::to_string(r.x) + "x" + std::to_string(r.y) + "x" + std::to_string(r.z) +
        " needs more than 31 key bits (e.g. 2048x2048x512 is the largest 2:2:1 grid)");
  }
  const Float3 lo = grid.bounds.min, hi = grid.bounds.max;
  if (!(hi.x > lo.x && hi.y > lo.y && hi.z > lo.z) || !std::isfinite(lo.x + lo.y + lo.z) ||
      !std::isfinite(hi.x + hi.y + hi.z)) {
    throw InvalidInput("grid bounds must be finite with max > min on every axis");
  }
  g.origin     = lo;
  g.voxel_size = {(hi.x - lo.x) / r.x, (hi.y - lo.y) / r.y, (hi.z - lo.z) / r.z};
  return g;
}

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
    m.translation = extra;
    return m;
  }
  // One full swing (apart -> through each other -> apart on the other side -> back) takes 12 s
  // at speed 1, so the models pass through each other about every 6 s.
  const double phase = time * a.speed * 2.0 * std::numbers::pi / 12.0;
  const float sign   = index == 0 ? -1.f : 1.f;
  m.deform           = static_cast<core::DeformKind>(a.deformation);
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

struct Pipeline::State {
  PipelineConfig config;
  std::unique_ptr<pipeline::PipelineBackend> impl;
  Backend backend;
};

Pipeline::Pipeline(Backend backend, const PipelineConfig& config) : m(std::make_unique<State>()) {
  (void)grid_view(config.grid);  // validate early
  m->config  = config;
  m->backend = backend;
#if VOXHASH_HAS_CUDA
  if (backend == Backend::Cuda) m->impl = pipeline::make_cuda_pipeline();
#endif
  if (backend == Backend::Cuda && !m->impl) throw InvalidInput(cuda_unavailable_reason());
  if (!m->impl) m->impl = pipeline::make_cpu_pipeline();
}

Pipeline::~Pipeline() = default;

Backend Pipeline::backend() const {
  return m->backend;
}
const PipelineConfig& Pipeline::config() const {
  return m->config;
}

void Pipeline::set_model(int index, std::span<const Float3> rest_points) {
  if (index != 0 && index != 1) throw InvalidInput("model index must be 0 or 1");
  m->impl->set_model(index, rest_points);
}

void Pipeline::set_model(int index, const Mesh& mesh, std::span<const Float3> rest_points) {
  if (index != 0 && index != 1) throw InvalidInput("model index must be 0 or 1");
  m->impl->set_model(index, mesh, rest_points);
}

void Pipeline::set_algorithm(TableKind kind) {
  m->config.algorithm = kind;
}

void Pipeline::set_grid(const GridParams& grid) {
  (void)grid_view(grid);
  m->config.grid = grid;
}

void Pipeline::set_animation(const AnimationParams& animation) {
  m->config.animation = animation;
}

FrameStats Pipeline::run_frame(double time, std::array<Float3*, 2> animated_points) {
  return m->impl->run_frame(m->config, time, animated_points);
}

std::span<const Key> Pipeline::voxels(int index) const {
  return m->impl->voxels(index);
}
std::span<const VoxelLabel> Pipeline::labels(int index) const {
  return m->impl->labels(index);
}
std::span<const Float3> Pipeline::points(int index) const {
  return m->impl->points(index);
}

ModelVoxels Pipeline::download(int index) const {
  const auto keys   = voxels(index);
  const auto labels = this->labels(index);
  std::vector<Key> k(keys.size());
  std::vector<VoxelLabel> l(labels.size());
  detail::copy_bytes(k.data(), Backend::Cpu, keys.data(), m->backend, k.size() * sizeof(Key));
  detail::copy_bytes(l.data(), Backend::Cpu, labels.data(), m->backend, l.size());
  std::vector<std::uint32_t> order(k.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return k[a] < k[b]; });
  ModelVoxels out;
  out.keys.reserve(k.size());
  out.labels.reserve(k.size());
  for (auto i : order) {
    out.keys.push_back(k[i]);
    out.labels.push_back(l[i]);
  }
  return out;
}

Float3 voxel_center(const GridParams& grid, Key key) {
  return grid_view(grid).center(key);
}

Key voxel_key(const GridParams& grid, Float3 p) {
  return grid_view(grid).voxelize(p);
}

}  // namespace voxhash
