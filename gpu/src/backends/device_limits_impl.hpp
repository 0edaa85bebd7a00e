// measure_device_limits() written once over the executors: random-address reads and 64-bit
// atomic exchanges over a DRAM-sized and a cache-sized table (one thread per 16 accesses, all
// issued before any is used), a device-to-device copy, copies between pinned host memory and the
// device each way, and the executor's pair sort, each the best
// of several repetitions after a warm-up, timed with the executor's events on the default stream.
// Each backend's translation unit chooses the sizes (LimitPlan) and instantiates it.
#pragma once

#include "core/atomics.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/detail/hash.hpp>
#include <voxhash/device_limits.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

namespace voxhash::backends {

/// The sizes one backend measures with.
struct LimitPlan {
  int reps                   = 3;  // timed repetitions after the warm-up
  std::size_t dram_bytes     = 0;  // a power of two, far larger than the caches
  std::size_t cache_bytes    = 0;  // a power of two that fits the last-level cache
  std::uint32_t accesses     = 0;  // random accesses per timed run (a multiple of 16)
  std::uint32_t sort_pairs   = 0;  // pairs sorted per timed run
  std::size_t transfer_bytes = 0;  // bytes copied each way between pinned host and the device
};

inline constexpr int kAccessesPerItem = 16;  // independent accesses in flight per thread

/// Index of the j-th access of item t: murmur of its global access number, masked to the table.
VOXHASH_HD std::uint32_t random_index(std::uint32_t t,
                                      int j,
                                      std::uint32_t seed,
                                      std::uint32_t mask) {
  return detail::murmur_mix(t * kAccessesPerItem + j, seed) & mask;
}

inline std::uint32_t rep_seed(int rep) {
  return 0x9e3779b9u * static_cast<std::uint32_t>(rep + 1);
}

/// Runs run(0) as a warm-up, then run(1..reps) one by one; the fastest, in seconds.
template <class Exec, class F>
double best_seconds(Exec& exec, int reps, F run) {
  run(0);
  typename Exec::Event start, stop;
  double best = std::numeric_limits<double>::infinity();
  for (int rep = 1; rep <= reps; ++rep) {
    start.record(exec);
    run(rep);
    stop.record(exec);
    best = std::min(best, start.elapsed_ms(stop));
  }
  return best * 1e-3;
}

/// G random reads of T per second from a table of `bytes` (a power of two). Item t reads its 16
/// elements and folds them; the fold is stored only on an impossible value (the table holds
/// zeros), so no load is dropped.
template <class T, class Exec>
double read_rate(
    Exec& exec, const LimitPlan& plan, const std::byte* bytes_ptr, std::size_t bytes, T* sink) {
  const T* table  = reinterpret_cast<const T*>(bytes_ptr);
  const auto mask = static_cast<std::uint32_t>(bytes / sizeof(T) - 1);
  const double s  = best_seconds(exec, plan.reps, [&](int rep) {
    const std::uint32_t seed = rep_seed(rep);
    exec.for_each(plan.accesses / kAccessesPerItem, [=] VOXHASH_LAMBDA(std::uint32_t t) {
      T v[kAccessesPerItem];
      VOXHASH_UNROLL
      for (int j = 0; j < kAccessesPerItem; ++j)
        v[j] = core::load_read_only(&table[random_index(t, j, seed, mask)]);
      T acc = 0;
      VOXHASH_UNROLL
      for (int j = 0; j < kAccessesPerItem; ++j)
        acc ^= v[j];
      if (acc == static_cast<T>(~T{0})) *sink = acc;
    });
  });
  return plan.accesses / s * 1e-9;
}

/// G random 64-bit atomic exchanges per second on a table of `bytes` (a power of two). Item t
/// exchanges its index into 16 random slots and folds the old values (as a cuckoo insert uses
/// them); stored indices are below 2^32, so the fold is never all ones.
template <class Exec>
double exchange_rate(Exec& exec,
                     const LimitPlan& plan,
                     std::byte* bytes_ptr,
                     std::size_t bytes,
                     std::uint64_t* sink) {
  auto* table     = reinterpret_cast<std::uint64_t*>(bytes_ptr);
  const auto mask = static_cast<std::uint32_t>(bytes / sizeof(std::uint64_t) - 1);
  const double s  = best_seconds(exec, plan.reps, [&](int rep) {
    const std::uint32_t seed = rep_seed(rep);
    exec.for_each(plan.accesses / kAccessesPerItem, [=] VOXHASH_LAMBDA(std::uint32_t t) {
      std::uint64_t v[kAccessesPerItem];
      VOXHASH_UNROLL
      for (int j = 0; j < kAccessesPerItem; ++j)
        v[j] = core::atomic_exchange(&table[random_index(t, j, seed, mask)], std::uint64_t{t});
      std::uint64_t acc = 0;
      VOXHASH_UNROLL
      for (int j = 0; j < kAccessesPerItem; ++j)
        acc ^= v[j];
      if (acc == ~std::uint64_t{0}) *sink = acc;
    });
  });
  return plan.accesses / s * 1e-9;
}

/// G u32 pairs per second through the executor's pair sort over all 32 key bits, its scratch
/// allocated once outside the timed runs. The count is 32-bit, so CUB sorts with 32-bit offsets
/// (the limit as it was always measured).
template <class Exec>
double sort_rate(Exec& exec, const LimitPlan& plan) {
  const std::uint32_t n = plan.sort_pairs;
  Buffer<std::uint32_t> keys_in(Exec::kBackend, n), keys_out(Exec::kBackend, n);
  Buffer<std::uint32_t> values_in(Exec::kBackend, n), values_out(Exec::kBackend, n);
  std::uint32_t* keys   = keys_in.data();
  std::uint32_t* values = values_in.data();
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    keys[i]   = detail::murmur_mix(i, 0x2545f491u);
    values[i] = i;
  });
  const std::size_t scratch_bytes =
      exec.template sort_pairs_scratch_bytes<std::uint32_t, std::uint32_t>(n, 32);
  Buffer<std::byte> scratch(Exec::kBackend, scratch_bytes);
  const double s = best_seconds(exec, plan.reps, [&](int) {
    exec.sort_pairs(keys_in.data(),
                    keys_out.data(),
                    values_in.data(),
                    values_out.data(),
                    n,
                    32,
                    scratch.data(),
                    scratch_bytes);
  });
  return n / s * 1e-9;
}

/// Measures the limits on Exec's backend (default stream) with the plan's sizes.
template <class Exec>
DeviceLimits measure_limits(const LimitPlan& plan, std::string device) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  DeviceLimits limits;
  limits.device = std::move(device);
  Exec exec;
  Buffer<std::uint64_t> sink(Exec::kBackend, 1);
  {
    Buffer<std::byte> dram(Exec::kBackend, plan.dram_bytes);
    Buffer<std::byte> cache(Exec::kBackend, plan.cache_bytes);
    dram.fill_bytes_async(0);
    cache.fill_bytes_async(0);
    limits.dram_table_gib = static_cast<double>(plan.dram_bytes) / (1024.0 * kMiB);
    limits.l2_table_mib   = static_cast<double>(plan.cache_bytes) / kMiB;

    auto* sink4       = reinterpret_cast<std::uint32_t*>(sink.data());
    limits.read4_dram = read_rate(exec, plan, dram.data(), plan.dram_bytes, sink4);
    limits.read8_dram = read_rate(exec, plan, dram.data(), plan.dram_bytes, sink.data());
    limits.read4_l2   = read_rate(exec, plan, cache.data(), plan.cache_bytes, sink4);
    limits.read8_l2   = read_rate(exec, plan, cache.data(), plan.cache_bytes, sink.data());
    limits.exch8_dram = exchange_rate(exec, plan, dram.data(), plan.dram_bytes, sink.data());
    limits.exch8_l2   = exchange_rate(exec, plan, cache.data(), plan.cache_bytes, sink.data());

    const std::size_t half = plan.dram_bytes / 2;
    const double copy_s    = best_seconds(
        exec, plan.reps, [&](int) { exec.copy_async(dram.data() + half, dram.data(), half); });
    limits.copy_gbs = 2.0 * static_cast<double>(half) / copy_s * 1e-9;
  }
  {
    auto host = Buffer<std::byte>::pinned_host(plan.transfer_bytes);
    Buffer<std::byte> device(Exec::kBackend, plan.transfer_bytes);
    std::fill(host.data(), host.data() + host.size(), std::byte{0});
    device.fill_bytes_async(0);
    const auto bytes    = static_cast<double>(plan.transfer_bytes);
    const double up_s   = best_seconds(exec, plan.reps, [&](int) {
      exec.transfer_async(device.data(), host.data(), plan.transfer_bytes);
    });
    const double down_s = best_seconds(exec, plan.reps, [&](int) {
      exec.transfer_async(host.data(), device.data(), plan.transfer_bytes);
    });
    limits.h2d_gbs      = bytes / up_s * 1e-9;
    limits.d2h_gbs      = bytes / down_s * 1e-9;
  }
  limits.sort_pairs = sort_rate(exec, plan);
  exec.synchronize();
  return limits;
}

}  // namespace voxhash::backends
