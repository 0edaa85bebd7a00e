// The bench's device helpers on CUDA: key generation and the sorted-array baseline (CUB radix sort
// of pairs + a binary-search kernel, one thread per query) through CudaExec, a CUDA-event
// stopwatch on the default stream, cudaMemGetInfo and the driver/runtime versions.
#include "bench/bench_device.hpp"
#include "bench/bench_device_impl.hpp"
#include "cuda/cuda_check.cuh"
#include "exec/cuda_exec.cuh"

#include <string>

namespace voxhash::bench::cuda_side {
namespace {

class EventStopwatch final : public Stopwatch {
 public:
  EventStopwatch() {
    VOXHASH_CUDA_TRY(cudaEventCreate(&m_start));
    VOXHASH_CUDA_TRY(cudaEventCreate(&m_stop));
  }
  ~EventStopwatch() override {
    cudaEventDestroy(m_start);
    cudaEventDestroy(m_stop);
  }
  EventStopwatch(const EventStopwatch&)            = delete;
  EventStopwatch& operator=(const EventStopwatch&) = delete;

  void start() override { VOXHASH_CUDA_TRY(cudaEventRecord(m_start, nullptr)); }
  double stop_seconds() override {
    VOXHASH_CUDA_TRY(cudaEventRecord(m_stop, nullptr));
    VOXHASH_CUDA_TRY(cudaEventSynchronize(m_stop));
    float ms = 0;
    VOXHASH_CUDA_TRY(cudaEventElapsedTime(&ms, m_start, m_stop));
    return ms * 1e-3;
  }

 private:
  cudaEvent_t m_start = nullptr;
  cudaEvent_t m_stop  = nullptr;
};

std::string version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

}  // namespace

void generate_keys(Key* out, std::size_t n, const KeySpec& spec) {
  CudaExec exec;
  generate_keys_with(exec, out, n, spec);
}

std::unique_ptr<Stopwatch> make_stopwatch() {
  return std::make_unique<EventStopwatch>();
}

std::unique_ptr<SortedArray> make_sorted_array() {
  return std::make_unique<SortedArrayImpl<CudaExec>>();
}

std::size_t free_memory() {
  std::size_t free = 0, total = 0;
  VOXHASH_CUDA_TRY(cudaMemGetInfo(&free, &total));
  return free;
}

std::string driver_version() {
  int driver = 0, runtime = 0;
  VOXHASH_CUDA_TRY(cudaDriverGetVersion(&driver));
  VOXHASH_CUDA_TRY(cudaRuntimeGetVersion(&runtime));
  return "CUDA driver " + version_text(driver) + ", runtime " + version_text(runtime);
}

void synchronize() {
  VOXHASH_CUDA_TRY(cudaDeviceSynchronize());
}

}  // namespace voxhash::bench::cuda_side
