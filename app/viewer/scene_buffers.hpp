// The GL buffers the renderer draws from: per model, its animated points (voxhash::Float3) and its
// labelled voxels (VoxelInstance). Sized by point count (a model has at most one voxel per point),
// so they are reallocated only when a model's size changes, never per frame.
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

  [[nodiscard]] GLuint points_buffer(int model) const { return m_points[model].id(); }
  [[nodiscard]] GLuint voxels_buffer(int model) const { return m_voxels[model].id(); }
  [[nodiscard]] std::size_t capacity(int model) const { return m_capacity[model]; }

  /// What the last frame wrote: each model's number of points and its voxel instances per label.
  std::array<std::size_t, 2> point_count{};
  std::array<LabelRanges, 2> voxel_ranges{};

 private:
  std::array<GlBuffer, 2> m_points;
  std::array<GlBuffer, 2> m_voxels;
  std::array<std::size_t, 2> m_capacity{};
};

}  // namespace voxhash::viewer
