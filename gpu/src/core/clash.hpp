// Per-element steps of the clash report, shared by both backends: the running sums of one clash
// region (voxel count, cell box, cell sums for the centroid) that every voxel of the region adds
// itself to, and the (region, part of A, part of B) records its part pairs are counted from.
#pragma once

#include "core/atomics.hpp"

#include <voxhash/detail/host_device.hpp>
#include <voxhash/grid.hpp>

#include <cstdint>

namespace voxhash::core {

/// A clash region's sums in grid cells, accumulated with atomics (64-bit cell sums: a region may
/// hold more voxels than 2^32 / resolution).
struct RegionSums {
  std::uint32_t voxels = 0;
  std::uint32_t min[3] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
  std::uint32_t max[3] = {0, 0, 0};
  std::uint32_t unused = 0;
  std::uint64_t sum[3] = {0, 0, 0};
};

/// A part of model A and a part of model B meeting in `voxels` voxels of region `region`.
struct PartTriple {
  std::uint32_t region = 0, part_a = 0, part_b = 0, voxels = 0;
};

/// Adds the voxel at cell c to regions[region]. On the GPU the lanes of a warp in the same region
/// combine first and one of them writes (most of a clash band is one region); the cell sums are
/// reduced in 16-bit halves, so no lane sum can overflow.
VOXHASH_HD void add_to_region(RegionSums* regions, std::uint32_t region, Int3 c) {
  RegionSums& r               = regions[region];
  const std::uint32_t cell[3] = {static_cast<std::uint32_t>(c.x),
                                 static_cast<std::uint32_t>(c.y),
                                 static_cast<std::uint32_t>(c.z)};
#if defined(__CUDA_ARCH__)
  const unsigned peers = __match_any_sync(__activemask(), region);
  const bool leader    = (threadIdx.x & 31) == static_cast<unsigned>(__ffs(peers) - 1);
  std::uint32_t lo[3], hi[3], mn[3], mx[3];
  for (int a = 0; a < 3; ++a) {
    mn[a] = __reduce_min_sync(peers, cell[a]);
    mx[a] = __reduce_max_sync(peers, cell[a]);
    lo[a] = __reduce_add_sync(peers, cell[a] & 0xFFFFu);
    hi[a] = __reduce_add_sync(peers, cell[a] >> 16);
  }
  if (!leader) return;
  atomicAdd(&r.voxels, static_cast<std::uint32_t>(__popc(peers)));
  for (int a = 0; a < 3; ++a) {
    atomicMin(&r.min[a], mn[a]);
    atomicMax(&r.max[a], mx[a]);
    atomic_add(&r.sum[a], (static_cast<std::uint64_t>(hi[a]) << 16) + lo[a]);
  }
#else
  atomic_add(&r.voxels, 1u);
  for (int a = 0; a < 3; ++a) {
    atomic_min(&r.min[a], cell[a]);
    atomic_max(&r.max[a], cell[a]);
    atomic_add(&r.sum[a], std::uint64_t{cell[a]});
  }
#endif
}

}  // namespace voxhash::core
