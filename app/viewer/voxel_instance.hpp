// The per-voxel record the renderer draws as a cube (world-space centre and label), how a model's
// records are grouped by label in its buffer (so each layer is one draw of a contiguous range), and
// the per-element function shared by the CUDA kernel and the host path, so both paths draw
// bit-identical positions. Plain C++ (VOXHASH_HD is empty outside nvcc).
#pragma once

#include <voxhash/core/host_device.hpp>
#include <voxhash/core/voxel.hpp>
#include <voxhash/error.hpp>
#include <voxhash/geometry.hpp>
#include <voxhash/pipeline.hpp>
#include <voxhash/types.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace voxhash::viewer {

struct VoxelInstance {
  Float3 center;
  std::uint32_t label;  // a voxhash::VoxelLabel value
};
static_assert(sizeof(VoxelInstance) == 16);

/// A model's instances are stored grouped by label: outside, then inside, then intersection.
/// first[l] and count[l] give the range of label l (a VoxelLabel value).
struct LabelRanges {
  std::uint32_t first[3] = {};
  std::uint32_t count[3] = {};

  [[nodiscard]] std::size_t total() const { return std::size_t{count[0]} + count[1] + count[2]; }
};

/// The ranges for a frame's per-label counts of one model; throws voxhash::Error when they do
/// not add up to the model's voxels (the buffer layout relies on them).
inline LabelRanges label_ranges(const ModelFrameStats& model) {
  LabelRanges r;
  r.count[static_cast<int>(VoxelLabel::Outside)] = static_cast<std::uint32_t>(model.outside);
  r.count[static_cast<int>(VoxelLabel::Inside)]  = static_cast<std::uint32_t>(model.inside);
  r.count[static_cast<int>(VoxelLabel::Intersection)] =
      static_cast<std::uint32_t>(model.intersection);
  r.first[1] = r.count[0];
  r.first[2] = r.count[0] + r.count[1];
  if (r.total() != model.voxels) {
    throw Error("viewer: the frame's label counts (" + std::to_string(r.total()) +
                ") do not add up to its voxels (" + std::to_string(model.voxels) + ")");
  }
  return r;
}

VOXHASH_HD VoxelInstance make_voxel_instance(const core::GridView& grid,
                                             Key key,
                                             VoxelLabel label) {
  return {grid.center(key), static_cast<std::uint32_t>(label)};
}

}  // namespace voxhash::viewer
