// Key generation and the sorted-array baseline written once over the library's executors (CpuExec,
// CudaExec), as the tables are; instantiated by bench_device_cpu.cpp and bench_device_cuda.cu. Also
// declares the CUDA side that the backend-neutral dispatch calls.
#pragma once

#include "bench/bench_device.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/core/hash.hpp>
#include <voxhash/core/host_device.hpp>
#include <voxhash/error.hpp>
#include <voxhash/types.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>

namespace voxhash::bench {

inline constexpr std::uint32_t kMissFirst = 0x80000000u;  // misses are universe keys 2^31 + j

/// Key j (< 2^32 - 1) of a universe: distinct j give distinct keys, never kEmptyKey.
VOXHASH_HD Key universe_key(std::uint32_t j, std::uint32_t universe) {
  const Key key = core::murmur_mix(j, universe);
  return key == kEmptyKey ? core::murmur_mix(kEmptyKey, universe) : key;
}

/// A pseudo-random permutation of [0, n): multiply-xorshift rounds, each a bijection of
/// [0, 2^bits), cycle-walked until the value falls in [0, n) (under two rounds on average).
struct Permutation {
  std::uint32_t n, mask, shift, seed;

  VOXHASH_HD std::uint32_t scramble(std::uint32_t x) const {
    x = (x * 0x2c1b3c6du + seed) & mask;
    x ^= x >> shift;
    x = (x * 0x297a2d39u) & mask;
    x ^= x >> shift;
    return x;
  }
  VOXHASH_HD std::uint32_t operator()(std::uint32_t i) const {
    do {
      i = scramble(i);
    } while (i >= n);
    return i;
  }
};

/// Everything a thread needs to produce draw i of a KeySpec.
struct KeyDraw {
  Permutation order;
  std::uint32_t distinct;
  std::uint32_t universe;
  std::uint32_t miss_seed;
  std::uint64_t miss_threshold;  // draw i misses when murmur_mix(i, miss_seed) < this (<= 2^32)

  VOXHASH_HD Key operator()(std::uint32_t i) const {
    const std::uint32_t j = order(i) % distinct;
    const bool miss       = core::murmur_mix(i, miss_seed) < miss_threshold;
    return universe_key(miss ? kMissFirst + j : j, universe);
  }
};

inline KeyDraw make_key_draw(std::size_t n, const KeySpec& spec) {
  if (spec.distinct == 0 || spec.distinct >= kMissFirst - 1 || n >= kMissFirst) {
    throw InvalidInput("bench: key draws need 0 < distinct < 2^31 - 1 and fewer than 2^31 keys");
  }
  const auto count         = static_cast<std::uint32_t>(std::max<std::size_t>(n, 1));
  const int bits           = std::max(1, static_cast<int>(std::bit_width(count - 1)));
  const std::uint32_t mask = bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
  KeyDraw d;
  d.order     = Permutation{count,
                        mask,
                        static_cast<std::uint32_t>((bits + 1) / 2),
                        core::murmur_mix(spec.order, 0x51ed270bu)};
  d.distinct  = static_cast<std::uint32_t>(spec.distinct);
  d.universe  = spec.universe;
  d.miss_seed = core::murmur_mix(spec.order, 0x68e31da4u);
  d.miss_threshold =
      static_cast<std::uint64_t>(std::clamp(spec.miss_fraction, 0.0, 1.0) * 4294967296.0);
  return d;
}

template <class Exec>
void generate_keys_with(Exec& exec, Key* out, std::size_t n, const KeySpec& spec) {
  const KeyDraw draw = make_key_draw(n, spec);
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) { out[i] = draw(i); });
}

/// Staging: keys_in[i] = keys[i], values_in[i] = i.
template <class Exec>
void stage_pairs(Exec& exec, const Key* keys, std::size_t n, Key* keys_in, Value* values_in) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    keys_in[i]   = keys[i];
    values_in[i] = i;
  });
}

/// Lookup: out[i] = values[p] where keys[p] == queries[i] (lower bound by binary search).
template <class Exec>
void sorted_find(Exec& exec,
                 const Key* keys,
                 const Value* values,
                 std::uint32_t size,
                 const Key* queries,
                 std::size_t n,
                 Value* out) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const Key key    = queries[i];
    std::uint32_t lo = 0, hi = size;
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (keys[mid] < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    out[i] = lo < size && keys[lo] == key ? values[lo] : kNotFound;
  });
}

template <class Exec>
class SortedArrayImpl final : public SortedArray {
 public:
  void stage(const Key* keys, std::size_t n) override {
    m_keys_in.resize(n);
    m_values_in.resize(n);
    m_keys.resize(n);
    m_values.resize(n);
    stage_pairs(m_exec, keys, n, m_keys_in.data(), m_values_in.data());
  }
  void build_async() override {
    m_exec.sort_pairs(
        m_keys_in.data(), m_keys.data(), m_values_in.data(), m_values.data(), m_keys.size(), 32);
  }
  void find_async(const Key* queries, std::size_t n, Value* out) const override {
    sorted_find(m_exec,
                m_keys.data(),
                m_values.data(),
                static_cast<std::uint32_t>(m_keys.size()),
                queries,
                n,
                out);
  }
  [[nodiscard]] std::size_t bytes() const override {
    // The sort's scratch is about one more copy of the pairs.
    return m_keys_in.bytes() + m_values_in.bytes() + 2 * (m_keys.bytes() + m_values.bytes());
  }

 private:
  mutable Exec m_exec;
  Buffer<Key> m_keys_in{Exec::kBackend, 0}, m_keys{Exec::kBackend, 0};
  Buffer<Value> m_values_in{Exec::kBackend, 0}, m_values{Exec::kBackend, 0};
};

#if VOXHASH_HAS_CUDA
namespace cuda_side {
void generate_keys(Key* out, std::size_t n, const KeySpec& spec);
std::unique_ptr<Stopwatch> make_stopwatch();
std::unique_ptr<SortedArray> make_sorted_array();
std::size_t free_memory();
std::string driver_version();
void synchronize();
}  // namespace cuda_side
#endif

}  // namespace voxhash::bench
