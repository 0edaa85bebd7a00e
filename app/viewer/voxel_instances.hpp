// Writing a model's voxel instances: the CUDA kernel's host entry point (device memory in and out,
// e.g. a mapped GL buffer) and the host loop. Both call make_voxel_instance per element.
#pragma once

#include "viewer/voxel_instance.hpp"

#include <voxhash/core/voxel.hpp>
#include <voxhash/pipeline.hpp>
#include <voxhash/types.hpp>

#include <cstddef>
#include <span>

namespace voxhash::viewer {

/// out[i] = make_voxel_instance(grid, keys[i], labels[i]) for i < n, on `stream`; does not
/// synchronize. keys, labels and out are device pointers. Built only with CUDA.
void write_voxel_instances_async(const core::GridView& grid,
                                 const Key* keys,
                                 const VoxelLabel* labels,
                                 std::size_t n,
                                 VoxelInstance* out,
                                 Stream stream);

/// The same on the host: out[i] = make_voxel_instance(grid, keys[i], labels[i]).
inline void write_voxel_instances(const core::GridView& grid,
                                  std::span<const Key> keys,
                                  std::span<const VoxelLabel> labels,
                                  VoxelInstance* out) {
  for (std::size_t i = 0; i < keys.size(); ++i) out[i] = make_voxel_instance(grid, keys[i], labels[i]);
}

}  // namespace voxhash::viewer
