// The few atomic read-modify-writes the algorithms need, one spelling for both backends:
// CUDA atomics in device code, std::atomic_ref (relaxed) on the host; and a read-only load.
// 16-byte exchange and compare-and-swap (the 64-bit-key tables' slots): Hopper's 128-bit atomics
// (sm_90, CUDA 12.4+) on the GPU, GCC's __atomic builtins on the host (libatomic: cmpxchg16b).
#pragma once

#include <voxhash/detail/host_device.hpp>

#include <cstdint>
#include <type_traits>
#if !defined(__CUDA_ARCH__)
#include <atomic>
#endif

namespace voxhash::core {

/// *address for data no thread writes during the kernel: through the read-only (non-coherent)
/// path on the GPU, as a `const T* __restrict__` kernel parameter would be read.
template <class T>
VOXHASH_HD T load_read_only(const T* address) {
#if defined(__CUDA_ARCH__)
  return __ldg(address);
#else
  return *address;
#endif
}

VOXHASH_HD std::uint64_t atomic_exchange(std::uint64_t* address, std::uint64_t value) {
#if defined(__CUDA_ARCH__)
  return atomicExch(reinterpret_cast<unsigned long long*>(address), value);
#else
  return std::atomic_ref<std::uint64_t>(*address).exchange(value, std::memory_order_relaxed);
#endif
}

/// Atomically replaces `*address` with `value` if it holds `expected`; returns the old value.
VOXHASH_HD std::uint64_t atomic_cas(std::uint64_t* address,
                                    std::uint64_t expected,
                                    std::uint64_t value) {
#if defined(__CUDA_ARCH__)
  return atomicCAS(reinterpret_cast<unsigned long long*>(address),
                   static_cast<unsigned long long>(expected),
                   static_cast<unsigned long long>(value));
#else
  std::atomic_ref<std::uint64_t>(*address).compare_exchange_strong(
      expected, value, std::memory_order_relaxed);
  return expected;
#endif
}

/// Exchanges a 16-byte, 16-byte aligned trivially copyable value (a 64-bit-key slot) whole.
template <class T, std::enable_if_t<sizeof(T) == 16, int> = 0>
VOXHASH_HD T atomic_exchange(T* address, T value) {
#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 900
  return atomicExch(address, value);
#else
  __trap();  // 128-bit atomics need sm_90: 64-bit-key tables run on Hopper and later
  return value;
#endif
#else
  T old;
  __atomic_exchange(address, &value, &old, __ATOMIC_RELAXED);
  return old;
#endif
}

/// Compare-and-swap of a 16-byte value (bitwise, padding included); returns the old value.
template <class T, std::enable_if_t<sizeof(T) == 16, int> = 0>
VOXHASH_HD T atomic_cas(T* address, T expected, T value) {
#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 900
  return atomicCAS(address, expected, value);
#else
  __trap();
  return value;
#endif
#else
  __atomic_compare_exchange(address, &expected, &value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
#endif
}

/// Reads two neighbouring 8-byte words (16-byte aligned) that other threads may be writing, each
/// read whole: on the GPU one 16-byte relaxed load from L2 (never a stale L1 line), on the CPU two
/// relaxed atomic loads.
VOXHASH_HD void atomic_load_pair(const std::uint64_t* address,
                                 std::uint64_t& first,
                                 std::uint64_t& second) {
#if defined(__CUDA_ARCH__)
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
               : "=l"(first), "=l"(second)
               : "l"(address)
               : "memory");
#else
  auto* words = const_cast<std::uint64_t*>(address);
  first       = std::atomic_ref<std::uint64_t>(words[0]).load(std::memory_order_relaxed);
  second      = std::atomic_ref<std::uint64_t>(words[1]).load(std::memory_order_relaxed);
#endif
}

VOXHASH_HD std::uint32_t atomic_add(std::uint32_t* address, std::uint32_t value) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(address, value);
#else
  return std::atomic_ref<std::uint32_t>(*address).fetch_add(value, std::memory_order_relaxed);
#endif
}

VOXHASH_HD void atomic_add(std::uint64_t* address, std::uint64_t value) {
#if defined(__CUDA_ARCH__)
  atomicAdd(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value));
#else
  std::atomic_ref<std::uint64_t>(*address).fetch_add(value, std::memory_order_relaxed);
#endif
}

/// A double sum (the order of additions, and so the last bits, may differ from run to run).
VOXHASH_HD void atomic_add(double* address, double value) {
#if defined(__CUDA_ARCH__)
  atomicAdd(address, value);
#else
  std::atomic_ref<double>(*address).fetch_add(value, std::memory_order_relaxed);
#endif
}

VOXHASH_HD void atomic_max(std::uint32_t* address, std::uint32_t value) {
#if defined(__CUDA_ARCH__)
  atomicMax(address, value);
#else
  std::atomic_ref<std::uint32_t> ref(*address);
  std::uint32_t seen = ref.load(std::memory_order_relaxed);
  while (seen < value && !ref.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
#endif
}

/// Atomically replaces `*address` with `value` if it holds `expected`; returns the old value.
VOXHASH_HD std::uint32_t atomic_cas(std::uint32_t* address,
                                    std::uint32_t expected,
                                    std::uint32_t value) {
#if defined(__CUDA_ARCH__)
  return atomicCAS(address, expected, value);
#else
  std::atomic_ref<std::uint32_t>(*address).compare_exchange_strong(
      expected, value, std::memory_order_relaxed);
  return expected;
#endif
}

VOXHASH_HD void atomic_store(std::uint32_t* address, std::uint32_t value) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<volatile std::uint32_t*>(address) = value;
#else
  std::atomic_ref<std::uint32_t>(*address).store(value, std::memory_order_relaxed);
#endif
}

VOXHASH_HD void atomic_min(std::uint32_t* address, std::uint32_t value) {
#if defined(__CUDA_ARCH__)
  atomicMin(address, value);
#else
  std::atomic_ref<std::uint32_t> ref(*address);
  std::uint32_t seen = ref.load(std::memory_order_relaxed);
  while (seen > value && !ref.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
#endif
}

/// 64-bit atomic minimum; returns the old value.
VOXHASH_HD std::uint64_t atomic_min(std::uint64_t* address, std::uint64_t value) {
#if defined(__CUDA_ARCH__)
  return atomicMin(reinterpret_cast<unsigned long long*>(address), value);
#else
  std::atomic_ref<std::uint64_t> ref(*address);
  std::uint64_t seen = ref.load(std::memory_order_relaxed);
  while (seen > value && !ref.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
  return seen;
#endif
}

VOXHASH_HD void atomic_or(std::uint32_t* address, std::uint32_t bits) {
#if defined(__CUDA_ARCH__)
  atomicOr(address, bits);
#else
  std::atomic_ref<std::uint32_t>(*address).fetch_or(bits, std::memory_order_relaxed);
#endif
}

/// Reads a word where a stale value costs work, never correctness (a flag steering an early exit,
/// a union-find parent): on the GPU a plain load that L1 may serve (a volatile one goes to L2 from
/// every thread, which measurably slowed the frame's cuckoo build), on the CPU a relaxed atomic
/// load, which is what ThreadSanitizer checks.
VOXHASH_HD std::uint32_t load_hint(const std::uint32_t* address) {
#if defined(__CUDA_ARCH__)
  return *address;
#else
  return std::atomic_ref<std::uint32_t>(*const_cast<std::uint32_t*>(address))
      .load(std::memory_order_relaxed);
#endif
}

VOXHASH_HD std::uint64_t load_hint(const std::uint64_t* address) {
#if defined(__CUDA_ARCH__)
  return *address;
#else
  return std::atomic_ref<std::uint64_t>(*const_cast<std::uint64_t*>(address))
      .load(std::memory_order_relaxed);
#endif
}

VOXHASH_HD std::uint32_t atomic_load(const std::uint32_t* address) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const volatile std::uint32_t*>(address);
#else
  return std::atomic_ref<std::uint32_t>(*const_cast<std::uint32_t*>(address))
      .load(std::memory_order_relaxed);
#endif
}

VOXHASH_HD std::uint64_t atomic_load(const std::uint64_t* address) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const volatile std::uint64_t*>(address);
#else
  return std::atomic_ref<std::uint64_t>(*const_cast<std::uint64_t*>(address))
      .load(std::memory_order_relaxed);
#endif
}

}  // namespace voxhash::core

namespace voxhash::core {

/// atomic_max for values many threads report at once (a longest chain, a failure flag): reads
/// first and only writes a larger value; on the GPU one lane per warp writes the warp's maximum.
VOXHASH_HD void record_max(std::uint32_t* address, std::uint32_t value) {
#if defined(__CUDA_ARCH__)
  const unsigned mask   = __activemask();
  const std::uint32_t m = __reduce_max_sync(mask, value);
  if ((threadIdx.x & 31) == static_cast<unsigned>(__ffs(mask) - 1) && m > atomic_load(address)) {
    atomicMax(address, m);
  }
#else
  if (value > atomic_load(address)) atomic_max(address, value);
#endif
}

/// record_max's twin: atomic_min of a value many threads share, the warp's minimum written once
/// and only when it lowers the stored value.
VOXHASH_HD void record_min(std::uint32_t* address, std::uint32_t value) {
#if defined(__CUDA_ARCH__)
  const unsigned mask   = __activemask();
  const std::uint32_t m = __reduce_min_sync(mask, value);
  if ((threadIdx.x & 31) == static_cast<unsigned>(__ffs(mask) - 1) && m < atomic_load(address)) {
    atomicMin(address, m);
  }
#else
  if (value < atomic_load(address)) atomic_min(address, value);
#endif
}

/// atomic_add for counters many threads bump at once: on the GPU the warp adds its sum once.
VOXHASH_HD void aggregate_add(std::uint32_t* address, std::uint32_t value) {
#if defined(__CUDA_ARCH__)
  const unsigned mask   = __activemask();
  const std::uint32_t s = __reduce_add_sync(mask, value);
  if ((threadIdx.x & 31) == static_cast<unsigned>(__ffs(mask) - 1) && s) atomicAdd(address, s);
#else
  if (value) atomic_add(address, value);
#endif
}

/// atomic_min(&base[index], value) for many threads that share few indices (every voxel of a
/// component updating the component's root): on the GPU lanes with the same index combine first,
/// and a write happens only when it lowers the stored value.
VOXHASH_HD void aggregate_min_at(std::uint32_t* base, std::uint32_t index, std::uint32_t value) {
#if defined(__CUDA_ARCH__)
  const unsigned peers  = __match_any_sync(__activemask(), index);
  const std::uint32_t m = __reduce_min_sync(peers, value);
  if ((threadIdx.x & 31) == static_cast<unsigned>(__ffs(peers) - 1) &&
      m < atomic_load(&base[index])) {
    atomicMin(&base[index], m);
  }
#else
  if (value < atomic_load(&base[index])) atomic_min(&base[index], value);
#endif
}

/// atomic_add(&base[index], value) for many threads that share few indices (the entries of one
/// page counted into the page's counter): on the GPU lanes with the same index add once.
VOXHASH_HD void aggregate_add_at(std::uint32_t* base, std::uint32_t index, std::uint32_t value) {
#if defined(__CUDA_ARCH__)
  const unsigned peers  = __match_any_sync(__activemask(), index);
  const std::uint32_t s = __reduce_add_sync(peers, value);
  if ((threadIdx.x & 31) == static_cast<unsigned>(__ffs(peers) - 1) && s) {
    atomicAdd(&base[index], s);
  }
#else
  if (value) atomic_add(&base[index], value);
#endif
}

/// Claims the next slot of counter cursors[group] (returns the counter's old value plus this
/// thread's rank): on the GPU the lanes of a warp in the same group share one atomic add.
VOXHASH_HD std::uint32_t claim_slot(std::uint32_t* cursors, std::uint32_t group) {
#if defined(__CUDA_ARCH__)
  const unsigned peers = __match_any_sync(__activemask(), group);
  const unsigned lane  = threadIdx.x & 31;
  const int leader     = __ffs(peers) - 1;
  std::uint32_t base   = 0;
  if (static_cast<int>(lane) == leader) base = atomicAdd(&cursors[group], __popc(peers));
  base = __shfl_sync(peers, base, leader);
  return base + __popc(peers & ((1u << lane) - 1u));
#else
  return atomic_add(&cursors[group], 1u);
#endif
}

}  // namespace voxhash::core
