// The GL buffers the renderer draws from: per model, its animated points (voxhash::Float3) and its
// labelled voxels (VoxelInstance). Sized by point count (a point cloud has at most one voxel per
// point); a mesh's voxels can outnumber its points, and its voxel buffer grows, with headroom, the
// first time a frame needs more. Never reallocated per frame in steady state.
#pragma once

#include "viewer/gl.hpp"

#include <voxhash/pipeline.hpp>

#include <array>
#include <cstddef>

namespace voxhash::viewer {

class SceneBuffers {
 public:
  /// Makes room for `points[i]` points and voxels of model i (growing only). Returns true when
  /// buffers were (re)created, which invalidates their contents and any CUDA registration of them.
  bool reserve(const std::array<std::size_t, 2>& points);
  /// Makes room for `voxels` voxel instances of `model` (growing only, with a quarter of headroom).
  /// Returns true when the buffer was recreated (as reserve does).
  bool reserve_voxels(int model, std::size_t voxels);

  [[nodiscard]] GLuint points_buffer(int model) const { return m_points[model].id(); }
  [[nodiscard]] GLuint voxels_buffer(int model) const { return m_voxels[model].id(); }
  [[nodiscard]] std::size_t capacity(int model) const { return m_capacity[model]; }
  [[nodiscard]] std::size_t voxel_capacity(int model) const { return m_voxel_capacity[model]; }

  /// What the last frame wrote: each model's number of points and its voxel instances per label.
  std::array<std::size_t, 2> point_count{};
  std::array<LabelRanges, 2> voxel_ranges{};

 private:
  std::array<GlBuffer, 2> m_points;
  std::array<GlBuffer, 2> m_voxels;
  std::array<std::size_t, 2> m_capacity{}, m_voxel_capacity{};
};

}  // namespace voxhash::viewer
