// The CUDA kernel that turns a model's voxels and labels (the pipeline's device memory) into
// instance records, written straight into the mapped GL buffer on the interop path.
#include "viewer/voxel_instances.hpp"

#include <voxhash/error.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace voxhash::viewer {
namespace {

/// One thread per voxel. A slot in its label's range is claimed with one atomic per warp and
/// label (warp-aggregated: the three counters would otherwise take every thread's atomic).
__global__ void write_voxel_instances_kernel(core::GridView grid,
                                             const Key* __restrict__ keys,
                                             const VoxelLabel* __restrict__ labels,
                                             std::uint32_t n,
                                             LabelRanges ranges,
                                             std::uint32_t* __restrict__ cursors,
                                             VoxelInstance* __restrict__ out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane   = threadIdx.x % 32;
  const int label       = i < n ? static_cast<int>(labels[i]) : -1;
  std::uint32_t slot    = 0;
  for (int l = 0; l < 3; ++l) {
    const unsigned mask = __ballot_sync(0xffffffffu, label == l);
    if (mask == 0) continue;
    const int leader   = __ffs(mask) - 1;
    std::uint32_t base = 0;
    if (static_cast<int>(lane) == leader) base = atomicAdd(&cursors[l], __popc(mask));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (label == l) slot = base + __popc(mask & ((1u << lane) - 1u));
  }
  if (label >= 0 && label < 3 && slot < ranges.count[label]) {
    out[ranges.first[label] + slot] =
        make_voxel_instance(grid, keys[i], static_cast<VoxelLabel>(label));
  }
}

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();
  throw CudaError(
      std::string(what) + ": " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status),
      static_cast<int>(status));
}

}  // namespace

void write_voxel_instances_async(const core::GridView& grid,
                                 const Key* keys,
                                 const VoxelLabel* labels,
                                 std::size_t n,
                                 const LabelRanges& ranges,
                                 std::uint32_t* d_cursors,
                                 VoxelInstance* out,
                                 Stream stream) {
  if (n == 0) return;
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  check(cudaMemsetAsync(d_cursors, 0, 3 * sizeof(std::uint32_t), s), "cudaMemsetAsync (cursors)");
  constexpr unsigned kBlock = 256;  // a multiple of the warp size: every lane takes part in ballots
  const auto blocks         = static_cast<unsigned>((n + kBlock - 1) / kBlock);
  write_voxel_instances_kernel<<<blocks, kBlock, 0, s>>>(
      grid, keys, labels, static_cast<std::uint32_t>(n), ranges, d_cursors, out);
  check(cudaGetLastError(), "write_voxel_instances_kernel");
}

}  // namespace voxhash::viewer
