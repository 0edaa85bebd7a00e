// The CUDA backend: ExecBackend<CudaExec> (thin kernels, CUB; its concerns instantiated in
// cuda_tables.cu, cuda_joins.cu, cuda_frame.cu and cuda_clash.cu), device discovery, device
// memory, and the sizes of the device-limit measurement (a 2 GiB DRAM table when free memory
// allows, 32 MiB for L2).
#include "backends/exec_backend.hpp"
#include "exec/cuda_exec.cuh"

#include <voxhash/error.hpp>

#include <sstream>
#include <string>

namespace voxhash {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kGiB = std::size_t{1} << 30;

std::string version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

class CudaBackend final : public backends::ExecBackend<CudaExec> {
 public:
  void* allocate(std::size_t bytes) override {
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
  void deallocate(void* ptr) noexcept override { cudaFree(ptr); }
  void* allocate_pinned(std::size_t bytes) override {
    if (bytes == 0) return nullptr;
    void* ptr                = nullptr;
    const cudaError_t status = cudaHostAlloc(&ptr, bytes, cudaHostAllocDefault);
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      throw OutOfMemory("host out of pinned memory: could not allocate " + format_bytes(bytes) +
                        ": " + cudaGetErrorString(status));
    }
    return ptr;
  }
  void deallocate_pinned(void* ptr) noexcept override { cudaFreeHost(ptr); }

  /// cudaMemcpy on the legacy default stream; a host-to-device copy from pageable memory may
  /// return before its DMA ends, so it waits for that stream too (work on other streams reads
  /// what it copied).
  void copy(void* dst, const void* src, std::size_t bytes, detail::CopyKind kind) override {
    if (bytes == 0) return;
    const cudaMemcpyKind k = kind == detail::CopyKind::HostToDevice   ? cudaMemcpyHostToDevice
                             : kind == detail::CopyKind::DeviceToHost ? cudaMemcpyDeviceToHost
                                                                      : cudaMemcpyDeviceToDevice;
    VOXHASH_CUDA_TRY(cudaMemcpy(dst, src, bytes, k));
    if (kind == detail::CopyKind::HostToDevice) VOXHASH_CUDA_TRY(cudaStreamSynchronize(nullptr));
  }
  void fill_bytes_async(void* ptr, int byte, std::size_t bytes, Stream stream) override {
    if (bytes == 0) return;
    VOXHASH_CUDA_TRY(cudaMemsetAsync(ptr, byte, bytes, reinterpret_cast<cudaStream_t>(stream)));
  }

  std::string describe_device() override {
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
  std::size_t free_memory() override {
    std::size_t free = 0, total = 0;
    VOXHASH_CUDA_TRY(cudaMemGetInfo(&free, &total));
    return free;
  }
  std::string driver_version() override {
    int driver = 0, runtime = 0;
    VOXHASH_CUDA_TRY(cudaDriverGetVersion(&driver));
    VOXHASH_CUDA_TRY(cudaRuntimeGetVersion(&runtime));
    return "CUDA driver " + version_text(driver) + ", runtime " + version_text(runtime);
  }
  void synchronize() override { VOXHASH_CUDA_TRY(cudaDeviceSynchronize()); }

 protected:
  backends::LimitPlan limit_plan(bool quick) override {
    backends::LimitPlan plan;
    plan.reps              = quick ? 2 : 5;
    const std::size_t free = free_memory();
    plan.dram_bytes        = !quick && free >= 3 * kGiB ? 2 * kGiB : kGiB;
    plan.cache_bytes       = 32 * kMiB;
    plan.accesses          = 1u << 27;
    plan.sort_pairs        = quick ? 1u << 24 : 1u << 26;
    plan.transfer_bytes    = quick ? 64 * kMiB : 256 * kMiB;
    return plan;
  }
};

}  // namespace

int detail::cuda_device_count(std::string& reason) {
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

detail::BackendImpl& detail::cuda_backend() {
  static auto* const backend = new CudaBackend;  // never destroyed: buffers may outlive statics
  return *backend;
}

}  // namespace voxhash
