// The bench's device helpers on the CPU backend (CpuExec, the steady clock, /proc/meminfo), and the
// backend-neutral entry points, which hand Cuda requests to bench_device_cuda.cu when compiled in.
#include "bench/bench_device.hpp"
#include "bench/bench_device_impl.hpp"
#include "exec/cpu_exec.hpp"

#include <voxhash/error.hpp>

#include <chrono>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace voxhash::bench {
namespace {

class HostStopwatch final : public Stopwatch {
 public:
  void start() override { m_start = std::chrono::steady_clock::now(); }
  double stop_seconds() override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  }

 private:
  std::chrono::steady_clock::time_point m_start;
};

/// MemAvailable from /proc/meminfo, else the free pages sysconf reports.
std::size_t host_free_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.starts_with("MemAvailable:")) {
      std::istringstream fields(line.substr(13));
      std::size_t kib = 0;
      if (fields >> kib) return kib * 1024;
    }
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long size  = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(size)
                               : 0;
}

#if !VOXHASH_HAS_CUDA
[[noreturn]] void no_cuda() {
  throw InvalidInput(cuda_unavailable_reason());
}
#endif

}  // namespace

#if VOXHASH_HAS_CUDA
#define VOXHASH_BENCH_ON_CUDA(call) \
  if (backend == Backend::Cuda) return cuda_side::call
#else
#define VOXHASH_BENCH_ON_CUDA(call) \
  if (backend == Backend::Cuda) no_cuda()
#endif

void generate_keys(Backend backend, Key* out, std::size_t n, const KeySpec& spec) {
  VOXHASH_BENCH_ON_CUDA(generate_keys(out, n, spec));
  CpuExec exec;
  generate_keys_with(exec, out, n, spec);
}

std::unique_ptr<Stopwatch> make_stopwatch(Backend backend) {
  VOXHASH_BENCH_ON_CUDA(make_stopwatch());
  return std::make_unique<HostStopwatch>();
}

std::unique_ptr<SortedArray> make_sorted_array(Backend backend) {
  VOXHASH_BENCH_ON_CUDA(make_sorted_array());
  return std::make_unique<SortedArrayImpl<CpuExec>>();
}

std::size_t free_memory(Backend backend) {
  VOXHASH_BENCH_ON_CUDA(free_memory());
  return host_free_memory();
}

std::string driver_version(Backend backend) {
  VOXHASH_BENCH_ON_CUDA(driver_version());
  return "none (CPU backend)";
}

void synchronize(Backend backend) {
  VOXHASH_BENCH_ON_CUDA(synchronize());
}

#undef VOXHASH_BENCH_ON_CUDA

}  // namespace voxhash::bench
