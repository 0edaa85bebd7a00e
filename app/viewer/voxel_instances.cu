// The CUDA kernel that turns a model's voxels and labels (the pipeline's device memory) into
// instance records, written straight into the mapped GL buffer on the interop path.
#include "viewer/voxel_instances.hpp"

#include <voxhash/error.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace voxhash::viewer {
namespace {

/// One thread per voxel.
__global__ void write_voxel_instances_kernel(core::GridView grid,
                                             const Key* __restrict__ keys,
                                             const VoxelLabel* __restrict__ labels,
                                             std::uint32_t n,
                                             VoxelInstance* __restrict__ out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = make_voxel_instance(grid, keys[i], labels[i]);
}

}  // namespace

void write_voxel_instances_async(const core::GridView& grid,
                                 const Key* keys,
                                 const VoxelLabel* labels,
                                 std::size_t n,
                                 VoxelInstance* out,
                                 Stream stream) {
  if (n == 0) return;
  constexpr unsigned kBlock = 256;
  const auto blocks         = static_cast<unsigned>((n + kBlock - 1) / kBlock);
  write_voxel_instances_kernel<<<blocks, kBlock, 0, reinterpret_cast<cudaStream_t>(stream)>>>(
      grid, keys, labels, static_cast<std::uint32_t>(n), out);
  if (const cudaError_t status = cudaGetLastError(); status != cudaSuccess) {
    throw CudaError(std::string("write_voxel_instances_kernel: ") + cudaGetErrorName(status) +
                        ": " + cudaGetErrorString(status),
                    static_cast<int>(status));
  }
}

}  // namespace voxhash::viewer
