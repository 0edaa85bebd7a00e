// CudaTile<Lanes>: the CUDA executor's tile for bucketed tables' per-element functions: a
// cooperative group of Lanes lanes of one warp (cg::tiled_partition) that share one key and read
// its bucket together. The same four operations as detail::SerialTile, so the per-element logic is
// written once; the host pass of nvcc sees bodies it never runs.
#pragma once

#include <voxhash/detail/host_device.hpp>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdint>

namespace voxhash::cuda {

namespace cg = cooperative_groups;

template <int Lanes>
struct CudaTile {
  static constexpr int kSize = Lanes;

  cg::thread_block_tile<Lanes> group;

  VOXHASH_HD int rank() const {
#if defined(__CUDA_ARCH__)
    return static_cast<int>(group.thread_rank());
#else
    return 0;
#endif
  }
  VOXHASH_HD std::uint32_t reduce_or(std::uint32_t value) const {
#if defined(__CUDA_ARCH__)
    return cg::reduce(group, value, cg::bit_or<std::uint32_t>());
#else
    return value;
#endif
  }
  template <class T>
  VOXHASH_HD T shfl(T value, int source) const {
#if defined(__CUDA_ARCH__)
    return group.shfl(value, source);
#else
    (void)source;
    return value;
#endif
  }
};

}  // namespace voxhash::cuda
