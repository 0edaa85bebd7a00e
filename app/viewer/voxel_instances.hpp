// Writing a model's voxel instances grouped by label: the CUDA kernel's host entry point (device
// memory in and out, e.g. a mapped GL buffer) and the host loop. Both call make_voxel_instance per
// element; the kernel's order within a label's range is unspecified, the host's is the input's.
#pragma once

#include "viewer/voxel_instance.hpp"

#include <voxhash/core/voxel.hpp>
#include <voxhash/pipeline.hpp>
#include <voxhash/types.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace voxhash::viewer {

/// Writes make_voxel_instance(grid, keys[i], labels[i]) for i < n into the range of labels[i] in
/// `out`, on `stream`; does not synchronize. keys, labels, out and d_cursors (3 counters the call
/// resets) are device pointers. A voxel beyond its label's range is dropped. Built only with CUDA.
void write_voxel_instances_async(const core::GridView& grid,
                                 const Key* keys,
                                 const VoxelLabel* labels,
                                 std::size_t n,
                                 const LabelRanges& ranges,
                                 std::uint32_t* d_cursors,
                                 VoxelInstance* out,
                                 Stream stream);

/// The same on the host, keeping the input order within each label.
inline void write_voxel_instances(const core::GridView& grid,
                                  std::span<const Key> keys,
                                  std::span<const VoxelLabel> labels,
                                  const LabelRanges& ranges,
                                  VoxelInstance* out) {
  std::uint32_t cursor[3] = {};
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto l = static_cast<int>(labels[i]);
    if (l < 3 && cursor[l] < ranges.count[l]) {
      out[ranges.first[l] + cursor[l]++] = make_voxel_instance(grid, keys[i], labels[i]);
    }
  }
}

}  // namespace voxhash::viewer
