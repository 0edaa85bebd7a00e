// CUDA backend: device discovery, memory and the table factory (the tables themselves are the
// shared templates in tables/ instantiated with CudaExec).
#include "cuda/cuda_backend.hpp"
#include "exec/cuda_exec.cuh"
#include "tables/cuckoo_table_impl.hpp"
#include "tables/hash_graph_impl.hpp"

#include <sstream>

namespace voxhash::cuda {

int device_count(std::string& reason) {
  int count                = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    reason =
        std::string("no usable CUDA device (cudaGetDeviceCount: ") + cudaGetErrorName(status) + ")";
    (void)cudaGetLastError();
    return 0;
  }
  if (count == 0) reason = "no CUDA device found";
  return count;
}

std::string describe_device() {
  int device = 0;
  VOXHASH_CUDA_TRY(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  VOXHASH_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  int driver = 0;
  VOXHASH_CUDA_TRY(cudaDriverGetVersion(&driver));
  std::ostringstream s;
  s << prop.name << " (sm_" << prop.major << prop.minor << ", " << prop.multiProcessorCount
    << " SMs, " << (prop.totalGlobalMem >> 20) << " MiB, L2 " << (prop.l2CacheSize >> 20)
    << " MiB, driver CUDA " << driver / 1000 << "." << (driver % 1000) / 10 << ")";
  return s.str();
}

void* allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* ptr                = nullptr;
  const cudaError_t status = cudaMalloc(&ptr, bytes);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    std::ostringstream s;
    s << "GPU out of memory: could not allocate " << (bytes >> 20) << " MiB (" << (free >> 20)
      << " MiB free of " << (total >> 20) << " MiB): " << cudaGetErrorString(status);
    throw OutOfMemory(s.str());
  }
  return ptr;
}

void deallocate(void* ptr) noexcept {
  cudaFree(ptr);
}

void copy(void* dst, const void* src, std::size_t bytes, CopyKind kind) {
  if (bytes == 0) return;
  const cudaMemcpyKind k = kind == CopyKind::HostToDevice   ? cudaMemcpyHostToDevice
                           : kind == CopyKind::DeviceToHost ? cudaMemcpyDeviceToHost
                                                            : cudaMemcpyDeviceToDevice;
  VOXHASH_CUDA_TRY(cudaMemcpy(dst, src, bytes, k));
}

void fill_bytes_async(void* ptr, int byte, std::size_t bytes, Stream stream) {
  if (bytes == 0) return;
  VOXHASH_CUDA_TRY(cudaMemsetAsync(ptr, byte, bytes, reinterpret_cast<cudaStream_t>(stream)));
}

std::unique_ptr<HashTable> make_table(TableKind kind, const BuildOptions& options) {
  if (kind == TableKind::Cuckoo)
    return std::make_unique<tables::CuckooTableImpl<CudaExec>>(options);
  return std::make_unique<tables::HashGraphImpl<CudaExec>>(kind, options);
}

}  // namespace voxhash::cuda
