// Hash functions of both tables, shared by the CUDA and CPU backends and by the device refs.
//  - Cuckoo (Alcantara et al., 4.3.1.1): h_i(k) = ((a_i * k + b_i) mod p) mod tableSize with random
//    constants per build. The chapter's p = 334214459 is below 2^32, so keys congruent mod p would
//    share all four slots and a 50M-key build of full-range keys could never succeed; we take the
//    largest 32-bit prime p = 2^32 - 5 (reduced with shifts, no division) and map [0, p) onto the
//    table by a multiply-shift (Lemire's fast range) instead of a second modulo.
//  - HashGraph (Green): a seeded murmur3 finaliser mapped onto the hash range V the same way.
#pragma once

#include <voxhash/detail/host_device.hpp>

#include <cstdint>

namespace voxhash::detail {

inline constexpr std::uint32_t kCuckooPrime = 4294967291u;  // 2^32 - 5
inline constexpr int kCuckooFunctions       = 4;

/// Maps a 32-bit value uniformly onto [0, range).
VOXHASH_HD std::uint32_t fast_range(std::uint32_t hash, std::uint32_t range) {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(hash) * range) >> 32);
}

/// x mod (2^32 - 5) for any 64-bit x, using 2^32 ≡ 5.
VOXHASH_HD std::uint32_t mod_cuckoo_prime(std::uint64_t x) {
  x = (x >> 32) * 5u + (x & 0xFFFFFFFFu);  // < 6 * 2^32
  x = (x >> 32) * 5u + (x & 0xFFFFFFFFu);  // < 2^32 + 25
  return static_cast<std::uint32_t>(x >= kCuckooPrime ? x - kCuckooPrime : x);
}

/// Constants of one cuckoo hash function h(k) = ((a k + b) mod p) mod size.
struct CuckooHashConstants {
  std::uint32_t a;  // in [1, p)
  std::uint32_t b;  // in [0, p)
};

VOXHASH_HD std::uint32_t cuckoo_hash(CuckooHashConstants c, std::uint32_t key, std::uint32_t size) {
  const std::uint32_t h = mod_cuckoo_prime(static_cast<std::uint64_t>(c.a) * key + c.b);
  // h < p < 2^32: scale [0, p) onto [0, size).
  return fast_range(h, size);
}

/// murmur3's 32-bit finaliser on key ^ seed: a full-avalanche bijection.
VOXHASH_HD std::uint32_t murmur_mix(std::uint32_t key, std::uint32_t seed) {
  std::uint32_t h = key ^ seed;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

/// The HashGraph vertex (bucket) of `key` in a hash range of `range` vertices.
VOXHASH_HD std::uint32_t hash_graph_vertex(std::uint32_t key,
                                           std::uint32_t seed,
                                           std::uint32_t range) {
  return fast_range(murmur_mix(key, seed), range);
}

}  // namespace voxhash::detail
