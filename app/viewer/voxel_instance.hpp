// The per-voxel record the renderer draws as a cube (world-space centre and label), and the one
// per-element function that makes it, shared by the CUDA kernel and the host path so both paths
// draw bit-identical positions. Plain C++ (VOXHASH_HD is empty outside nvcc).
#pragma once

#include <voxhash/core/host_device.hpp>
#include <voxhash/core/voxel.hpp>
#include <voxhash/geometry.hpp>
#include <voxhash/pipeline.hpp>
#include <voxhash/types.hpp>

#include <cstdint>

namespace voxhash::viewer {

struct VoxelInstance {
  Float3 center;
  std::uint32_t label;  // a voxhash::VoxelLabel value
};
static_assert(sizeof(VoxelInstance) == 16);

/// The key layout and voxel geometry of `grid` (a grid the pipeline already accepted), as the
/// pipeline's kernels see it.
inline core::GridView grid_view(const GridParams& grid) {
  const Int3 r = grid.resolution;
  const Float3 lo = grid.bounds.min, hi = grid.bounds.max;
  core::GridView g;
  g.resolution = r;
  g.bits       = {core::bits_for(r.x), core::bits_for(r.y), core::bits_for(r.z)};
  g.origin     = lo;
  g.voxel_size = {(hi.x - lo.x) / r.x, (hi.y - lo.y) / r.y, (hi.z - lo.z) / r.z};
  return g;
}

VOXHASH_HD VoxelInstance make_voxel_instance(const core::GridView& grid, Key key, VoxelLabel label) {
  return {grid.center(key), static_cast<std::uint32_t>(label)};
}

}  // namespace voxhash::viewer
