// Device limits on CUDA: random-address read and 64-bit atomicExch kernels over a DRAM-sized and an
// L2-sized table, a device-to-device copy and CUB's pair radix sort, each timed with CUDA events
// on the default stream (best of several repetitions after one warm-up).
#include "cuda/cuda_check.cuh"
#include "device_limits_backends.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/core/hash.hpp>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace voxhash::cuda {
namespace {

constexpr int kAccessesPerThread           = 16;  // independent accesses in flight per thread
constexpr int kBlockSize                   = 256;
constexpr std::uint32_t kAccessesPerLaunch = 1u << 27;
constexpr std::size_t kMiB                 = std::size_t{1} << 20;
constexpr std::size_t kGiB                 = std::size_t{1} << 30;
constexpr std::size_t kL2TableBytes        = 32 * kMiB;

/// Index of the j-th access of thread t: murmur of its global access number, masked to the table.
__device__ __forceinline__ std::uint32_t random_index(std::uint32_t t,
                                                      int j,
                                                      std::uint32_t seed,
                                                      std::uint32_t mask) {
  return core::murmur_mix(t * kAccessesPerThread + j, seed) & mask;
}

/// Thread t reads kAccessesPerThread elements at random indices (all loads issued before any is
/// used) and folds them; the fold is stored only on an impossible value, so no load is dropped.
template <class T>
__global__ void random_read_kernel(const T* __restrict__ table,
                                   std::uint32_t mask,
                                   std::uint32_t seed,
                                   T* sink) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  T v[kAccessesPerThread];
#pragma unroll
  for (int j = 0; j < kAccessesPerThread; ++j)
    v[j] = table[random_index(t, j, seed, mask)];
  T acc = 0;
#pragma unroll
  for (int j = 0; j < kAccessesPerThread; ++j)
    acc ^= v[j];
  if (acc == static_cast<T>(~T{0})) *sink = acc;  // the table holds zeros
}

/// Thread t exchanges its id into kAccessesPerThread random slots and folds the old values (as a
/// cuckoo insert uses them); stored ids are below 2^32, so the fold is never all ones.
__global__ void random_exchange_kernel(unsigned long long* table,
                                       std::uint32_t mask,
                                       std::uint32_t seed,
                                       unsigned long long* sink) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long v[kAccessesPerThread];
#pragma unroll
  for (int j = 0; j < kAccessesPerThread; ++j) {
    v[j] = atomicExch(&table[random_index(t, j, seed, mask)], static_cast<unsigned long long>(t));
  }
  unsigned long long acc = 0;
#pragma unroll
  for (int j = 0; j < kAccessesPerThread; ++j)
    acc ^= v[j];
  if (acc == ~0ull) *sink = acc;
}

/// Thread i writes the sort benchmark's input pair i: a random key and its index.
__global__ void sort_input_kernel(std::uint32_t* keys, std::uint32_t* values, std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  keys[i]   = core::murmur_mix(i, 0x2545f491u);
  values[i] = i;
}

class EventTimer {
 public:
  EventTimer() {
    VOXHASH_CUDA_TRY(cudaEventCreate(&m_start));
    VOXHASH_CUDA_TRY(cudaEventCreate(&m_stop));
  }
  ~EventTimer() {
    cudaEventDestroy(m_start);
    cudaEventDestroy(m_stop);
  }
  EventTimer(const EventTimer&)            = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  /// Runs launch(0) as a warm-up, then launch(1..reps) one by one; the fastest, in seconds.
  template <class F>
  double best_seconds(int reps, F launch) {
    launch(0);
    float best = std::numeric_limits<float>::infinity();
    for (int rep = 1; rep <= reps; ++rep) {
      VOXHASH_CUDA_TRY(cudaEventRecord(m_start, nullptr));
      launch(rep);
      VOXHASH_CUDA_TRY(cudaEventRecord(m_stop, nullptr));
      VOXHASH_CUDA_TRY(cudaEventSynchronize(m_stop));
      float ms = 0;
      VOXHASH_CUDA_TRY(cudaEventElapsedTime(&ms, m_start, m_stop));
      best = std::min(best, ms);
    }
    return best * 1e-3;
  }

 private:
  cudaEvent_t m_start = nullptr;
  cudaEvent_t m_stop  = nullptr;
};

std::uint32_t rep_seed(int rep) {
  return 0x9e3779b9u * static_cast<std::uint32_t>(rep + 1);
}

/// G random reads of T per second from a table of `bytes` (a power of two).
template <class T>
double read_rate(
    EventTimer& timer, int reps, const std::byte* table, std::size_t bytes, std::uint64_t* sink) {
  const auto mask = static_cast<std::uint32_t>(bytes / sizeof(T) - 1);
  const double s  = timer.best_seconds(reps, [&](int rep) {
    random_read_kernel<T><<<kAccessesPerLaunch / kAccessesPerThread / kBlockSize, kBlockSize>>>(
        reinterpret_cast<const T*>(table), mask, rep_seed(rep), reinterpret_cast<T*>(sink));
    VOXHASH_CUDA_CHECK_LAUNCH();
  });
  return kAccessesPerLaunch / s * 1e-9;
}

/// G random 64-bit atomic exchanges per second on a table of `bytes` (a power of two).
double exchange_rate(
    EventTimer& timer, int reps, std::byte* table, std::size_t bytes, std::uint64_t* sink) {
  const auto mask = static_cast<std::uint32_t>(bytes / sizeof(unsigned long long) - 1);
  const double s  = timer.best_seconds(reps, [&](int rep) {
    random_exchange_kernel<<<kAccessesPerLaunch / kAccessesPerThread / kBlockSize, kBlockSize>>>(
        reinterpret_cast<unsigned long long*>(table),
        mask,
        rep_seed(rep),
        reinterpret_cast<unsigned long long*>(sink));
    VOXHASH_CUDA_CHECK_LAUNCH();
  });
  return kAccessesPerLaunch / s * 1e-9;
}

/// G u32 pairs per second through cub::DeviceRadixSort::SortPairs over all 32 key bits.
double sort_rate(EventTimer& timer, int reps, std::uint32_t n) {
  Buffer<std::uint32_t> keys_in(Backend::Cuda, n), keys_out(Backend::Cuda, n);
  Buffer<std::uint32_t> values_in(Backend::Cuda, n), values_out(Backend::Cuda, n);
  sort_input_kernel<<<(n + kBlockSize - 1) / kBlockSize, kBlockSize>>>(
      keys_in.data(), values_in.data(), n);
  VOXHASH_CUDA_CHECK_LAUNCH();
  std::size_t temp_bytes = 0;
  VOXHASH_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr,
                                                   temp_bytes,
                                                   keys_in.data(),
                                                   keys_out.data(),
                                                   values_in.data(),
                                                   values_out.data(),
                                                   n,
                                                   0,
                                                   32));
  Buffer<std::byte> temp(Backend::Cuda, temp_bytes);
  const double s = timer.best_seconds(reps, [&](int) {
    VOXHASH_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temp.data(),
                                                     temp_bytes,
                                                     keys_in.data(),
                                                     keys_out.data(),
                                                     values_in.data(),
                                                     values_out.data(),
                                                     n,
                                                     0,
                                                     32));
  });
  return n / s * 1e-9;
}

}  // namespace

DeviceLimits measure_device_limits(bool quick) {
  DeviceLimits limits;
  limits.device  = voxhash::describe_device(Backend::Cuda);
  const int reps = quick ? 2 : 5;
  EventTimer timer;
  Buffer<std::uint64_t> sink(Backend::Cuda, 1);

  {
    std::size_t free = 0, total = 0;
    VOXHASH_CUDA_TRY(cudaMemGetInfo(&free, &total));
    const std::size_t dram_bytes = !quick && free >= 3 * kGiB ? 2 * kGiB : kGiB;
    Buffer<std::byte> dram(Backend::Cuda, dram_bytes);
    Buffer<std::byte> l2(Backend::Cuda, kL2TableBytes);
    dram.fill_bytes_async(0);
    l2.fill_bytes_async(0);
    limits.dram_table_gib = static_cast<double>(dram_bytes) / kGiB;
    limits.l2_table_mib   = static_cast<double>(kL2TableBytes) / kMiB;

    limits.read4_dram = read_rate<std::uint32_t>(timer, reps, dram.data(), dram_bytes, sink.data());
    limits.read8_dram = read_rate<std::uint64_t>(timer, reps, dram.data(), dram_bytes, sink.data());
    limits.read4_l2 = read_rate<std::uint32_t>(timer, reps, l2.data(), kL2TableBytes, sink.data());
    limits.read8_l2 = read_rate<std::uint64_t>(timer, reps, l2.data(), kL2TableBytes, sink.data());
    limits.exch8_dram = exchange_rate(timer, reps, dram.data(), dram_bytes, sink.data());
    limits.exch8_l2   = exchange_rate(timer, reps, l2.data(), kL2TableBytes, sink.data());

    const std::size_t half = dram_bytes / 2;
    const double copy_s    = timer.best_seconds(reps, [&](int) {
      VOXHASH_CUDA_TRY(cudaMemcpyAsync(
          dram.data() + half, dram.data(), half, cudaMemcpyDeviceToDevice, nullptr));
    });
    limits.copy_gbs        = 2.0 * static_cast<double>(half) / copy_s * 1e-9;
  }
  limits.sort_pairs = sort_rate(timer, reps, quick ? 1u << 24 : 1u << 26);
  VOXHASH_CUDA_TRY(cudaDeviceSynchronize());
  return limits;
}

}  // namespace voxhash::cuda
