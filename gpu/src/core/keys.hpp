// Per-element key generation shared by both backends (generate_keys in voxhash/keys.hpp): key j
// of a universe is a murmur bijection of j, draws walk a pseudo-random permutation of [0, n), and
// misses come from a disjoint range of j.
#pragma once

#include <voxhash/detail/hash.hpp>
#include <voxhash/detail/host_device.hpp>
#include <voxhash/error.hpp>
#include <voxhash/keys.hpp>
#include <voxhash/types.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace voxhash::core {

inline constexpr std::uint32_t kMissFirst = 0x80000000u;  // misses are universe keys 2^31 + j

/// Key j (< 2^32 - 1) of a universe: distinct j give distinct keys, never kEmptyKey.
VOXHASH_HD Key universe_key(std::uint32_t j, std::uint32_t universe) {
  const Key key = detail::murmur_mix(j, universe);
  return key == kEmptyKey ? detail::murmur_mix(kEmptyKey, universe) : key;
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
    const bool miss       = detail::murmur_mix(i, miss_seed) < miss_threshold;
    return universe_key(miss ? kMissFirst + j : j, universe);
  }
};

inline KeyDraw make_key_draw(std::size_t n, const KeySpec& spec) {
  if (spec.distinct == 0 || spec.distinct >= kMissFirst - 1 || n >= kMissFirst) {
    throw InvalidInput(
        "generate_keys: key draws need 0 < distinct < 2^31 - 1 and fewer than 2^31 keys");
  }
  const auto count         = static_cast<std::uint32_t>(std::max<std::size_t>(n, 1));
  const int bits           = std::max(1, static_cast<int>(std::bit_width(count - 1)));
  const std::uint32_t mask = bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
  KeyDraw d;
  d.order     = Permutation{count,
                        mask,
                        static_cast<std::uint32_t>((bits + 1) / 2),
                        detail::murmur_mix(spec.order, 0x51ed270bu)};
  d.distinct  = static_cast<std::uint32_t>(spec.distinct);
  d.universe  = spec.universe;
  d.miss_seed = detail::murmur_mix(spec.order, 0x68e31da4u);
  d.miss_threshold =
      static_cast<std::uint64_t>(std::clamp(spec.miss_fraction, 0.0, 1.0) * 4294967296.0);
  return d;
}

/// generate_keys() over an executor.
template <class Exec>
void generate_keys_with(Exec& exec, Key* out, std::size_t n, const KeySpec& spec) {
  const KeyDraw draw = make_key_draw(n, spec);
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) { out[i] = draw(i); });
}

}  // namespace voxhash::core
