// The CPU backend: host memory (64-byte aligned), the host's free memory and cache size for the
// device limits, and ExecBackend<CpuExec> (oneTBB loops), whose concerns are instantiated in
// cpu_tables.cpp, cpu_joins.cpp, cpu_frame.cpp and cpu_clash.cpp.
#include "backends/exec_backend.hpp"
#include "exec/cpu_exec.hpp"
#include "host_memory.hpp"

#include <voxhash/error.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>
#include <oneapi/tbb/info.h>
#include <string>
#include <unistd.h>

namespace voxhash {
namespace {

constexpr std::size_t kKiB = std::size_t{1} << 10;
constexpr std::size_t kMiB = std::size_t{1} << 20;

/// A table half the size of one core's L2 (a power of two in [128 KiB, 32 MiB]).
std::size_t cache_table_bytes() {
  const long l2   = sysconf(_SC_LEVEL2_CACHE_SIZE);
  const auto half = l2 > 0 ? static_cast<std::size_t>(l2) / 2 : 512 * kKiB;
  return std::bit_floor(std::clamp(half, 128 * kKiB, 32 * kMiB));
}

class CpuBackend final : public backends::ExecBackend<CpuExec> {
 public:
  void* allocate(std::size_t bytes) override {
    if (bytes == 0) return nullptr;
    void* ptr = ::operator new (bytes, std::align_val_t{64}, std::nothrow);
    if (!ptr) {
      throw OutOfMemory("host out of memory: could not allocate " + std::to_string(bytes >> 20) +
                        " MiB");
    }
    return ptr;
  }
  void deallocate(void* ptr) noexcept override { ::operator delete (ptr, std::align_val_t{64}); }
  /// Without CUDA there is nothing to pin: ordinary host memory.
  void* allocate_pinned(std::size_t bytes) override { return allocate(bytes); }
  void deallocate_pinned(void* ptr) noexcept override { deallocate(ptr); }
  void copy(void* dst, const void* src, std::size_t bytes, detail::CopyKind) override {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  void fill_bytes_async(void* ptr, int byte, std::size_t bytes, Stream) override {
    if (bytes) std::memset(ptr, byte, bytes);
  }

  std::string describe_device() override {
    return "CPU, " + std::to_string(oneapi::tbb::info::default_concurrency()) + " threads";
  }

  /// host_free_memory(): MemAvailable, the process's limits and its cgroup's.
  std::size_t free_memory() override { return detail::host_free_memory(); }
  std::string driver_version() override { return "none (CPU backend)"; }
  void synchronize() override {}

 protected:
  backends::LimitPlan limit_plan(bool quick) override {
    backends::LimitPlan plan;
    plan.reps           = quick ? 2 : 3;
    plan.dram_bytes     = quick ? 64 * kMiB : 256 * kMiB;
    plan.cache_bytes    = cache_table_bytes();
    plan.accesses       = quick ? 1u << 22 : 1u << 24;
    plan.sort_pairs     = quick ? 1u << 20 : 1u << 22;
    plan.transfer_bytes = quick ? 16 * kMiB : 64 * kMiB;
    return plan;
  }
};

}  // namespace

detail::BackendImpl& detail::cpu_backend() {
  static auto* const backend = new CpuBackend;  // never destroyed: buffers may outlive statics
  return *backend;
}

}  // namespace voxhash
