// Device limits on the CPU backend: the GPU measurement's random-read and 64-bit exchange loops
// over a large and a cache-sized table, run on the thread pool, plus a parallel memcpy and the
// backend's own pair sort; timed with std::chrono (best of several repetitions after one warm-up).
#include "cpu/thread_pool.hpp"
#include "device_limits_backends.hpp"
#include "exec/cpu_exec.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/core/hash.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <unistd.h>

namespace voxhash::cpu {
namespace {

constexpr int kAccessesPerItem   = 16;  // independent accesses per loop item
constexpr std::size_t kKiB       = std::size_t{1} << 10;
constexpr std::size_t kMiB       = std::size_t{1} << 20;
constexpr std::size_t kCopyBlock = 4 * kKiB;

/// Runs run(0) as a warm-up, then run(1..reps); the fastest, in seconds.
template <class F>
double best_seconds(int reps, F run) {
  run(0);
  double best = std::numeric_limits<double>::infinity();
  for (int rep = 1; rep <= reps; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    run(rep);
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

std::uint32_t rep_seed(int rep) {
  return 0x9e3779b9u * static_cast<std::uint32_t>(rep + 1);
}

std::uint32_t random_index(std::size_t item, int j, std::uint32_t seed, std::uint32_t mask) {
  return core::murmur_mix(static_cast<std::uint32_t>(item * kAccessesPerItem + j), seed) & mask;
}

/// G random reads of T per second from a table of `bytes` (a power of two).
template <class T>
double read_rate(int reps, const std::byte* bytes_ptr, std::size_t bytes, std::size_t accesses) {
  const T* table  = reinterpret_cast<const T*>(bytes_ptr);
  const auto mask = static_cast<std::uint32_t>(bytes / sizeof(T) - 1);
  std::atomic<std::uint64_t> sink{0};
  const double s = best_seconds(reps, [&](int rep) {
    const std::uint32_t seed = rep_seed(rep);
    parallel_for(accesses / kAccessesPerItem, [&](std::size_t begin, std::size_t end) {
      T acc = 0;
      for (std::size_t i = begin; i < end; ++i) {
        T v[kAccessesPerItem];
        for (int j = 0; j < kAccessesPerItem; ++j)
          v[j] = table[random_index(i, j, seed, mask)];
        for (int j = 0; j < kAccessesPerItem; ++j)
          acc ^= v[j];
      }
      sink.fetch_xor(acc, std::memory_order_relaxed);
    });
  });
  return static_cast<double>(accesses) / s * 1e-9;
}

/// G random 64-bit atomic exchanges per second on a table of `bytes` (a power of two).
double exchange_rate(int reps, std::byte* bytes_ptr, std::size_t bytes, std::size_t accesses) {
  auto* table     = reinterpret_cast<std::uint64_t*>(bytes_ptr);
  const auto mask = static_cast<std::uint32_t>(bytes / sizeof(std::uint64_t) - 1);
  std::atomic<std::uint64_t> sink{0};
  const double s = best_seconds(reps, [&](int rep) {
    const std::uint32_t seed = rep_seed(rep);
    parallel_for(accesses / kAccessesPerItem, [&](std::size_t begin, std::size_t end) {
      std::uint64_t acc = 0;
      for (std::size_t i = begin; i < end; ++i) {
        for (int j = 0; j < kAccessesPerItem; ++j) {
          acc ^= std::atomic_ref<std::uint64_t>(table[random_index(i, j, seed, mask)])
                     .exchange(i, std::memory_order_relaxed);
        }
      }
      sink.fetch_xor(acc, std::memory_order_relaxed);
    });
  });
  return static_cast<double>(accesses) / s * 1e-9;
}

/// GB/s of a parallel memcpy of `bytes` (a multiple of kCopyBlock), read and write counted.
double copy_rate(int reps, std::byte* dst, const std::byte* src, std::size_t bytes) {
  const double s = best_seconds(reps, [&](int) {
    parallel_for(bytes / kCopyBlock, [&](std::size_t begin, std::size_t end) {
      std::memcpy(dst + begin * kCopyBlock, src + begin * kCopyBlock, (end - begin) * kCopyBlock);
    });
  });
  return 2.0 * static_cast<double>(bytes) / s * 1e-9;
}

/// G u32 pairs per second through the CPU backend's sort_pairs (what HashGraph V2 builds with).
double sort_rate(int reps, std::size_t n) {
  Buffer<std::uint32_t> keys_in(Backend::Cpu, n), keys_out(Backend::Cpu, n);
  Buffer<std::uint32_t> values_in(Backend::Cpu, n), values_out(Backend::Cpu, n);
  for (std::size_t i = 0; i < n; ++i) {
    keys_in.data()[i]   = core::murmur_mix(static_cast<std::uint32_t>(i), 0x2545f491u);
    values_in.data()[i] = static_cast<std::uint32_t>(i);
  }
  CpuExec exec;
  const double s = best_seconds(reps, [&](int) {
    exec.sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n, 32);
  });
  return static_cast<double>(n) / s * 1e-9;
}

/// A table half the size of one core's L2 (a power of two in [128 KiB, 32 MiB]).
std::size_t cache_table_bytes() {
  const long l2   = sysconf(_SC_LEVEL2_CACHE_SIZE);
  const auto half = l2 > 0 ? static_cast<std::size_t>(l2) / 2 : 512 * kKiB;
  return std::bit_floor(std::clamp(half, 128 * kKiB, 32 * kMiB));
}

}  // namespace

DeviceLimits measure_device_limits(bool quick) {
  DeviceLimits limits;
  limits.device                 = describe_device(Backend::Cpu);
  const int reps                = quick ? 2 : 3;
  const std::size_t dram_bytes  = quick ? 64 * kMiB : 256 * kMiB;
  const std::size_t cache_bytes = cache_table_bytes();
  const std::size_t accesses    = quick ? std::size_t{1} << 22 : std::size_t{1} << 24;
  limits.dram_table_gib         = static_cast<double>(dram_bytes) / (1024.0 * kMiB);
  limits.l2_table_mib           = static_cast<double>(cache_bytes) / kMiB;

  Buffer<std::byte> dram(Backend::Cpu, dram_bytes);
  Buffer<std::byte> cache(Backend::Cpu, cache_bytes);
  parallel_for(dram_bytes / kCopyBlock, [&](std::size_t begin, std::size_t end) {
    std::memset(dram.data() + begin * kCopyBlock, 0, (end - begin) * kCopyBlock);
  });
  std::memset(cache.data(), 0, cache_bytes);

  limits.read4_dram = read_rate<std::uint32_t>(reps, dram.data(), dram_bytes, accesses);
  limits.read8_dram = read_rate<std::uint64_t>(reps, dram.data(), dram_bytes, accesses);
  limits.read4_l2   = read_rate<std::uint32_t>(reps, cache.data(), cache_bytes, accesses);
  limits.read8_l2   = read_rate<std::uint64_t>(reps, cache.data(), cache_bytes, accesses);
  limits.exch8_dram = exchange_rate(reps, dram.data(), dram_bytes, accesses);
  limits.exch8_l2   = exchange_rate(reps, cache.data(), cache_bytes, accesses);
  limits.copy_gbs   = copy_rate(reps, dram.data() + dram_bytes / 2, dram.data(), dram_bytes / 2);
  limits.sort_pairs = sort_rate(reps, quick ? std::size_t{1} << 20 : std::size_t{1} << 22);
  return limits;
}

}  // namespace voxhash::cpu
