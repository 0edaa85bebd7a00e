// Hash functions of both tables, shared by the CUDA and CPU backends and by the device refs.
//  - Cuckoo (Alcantara et al., 4.3.1.1): h_i(k) = ((a_i * k + b_i) mod p) mod tableSize with random
//    constants per build. The chapter's p = 334214459 is below 2^32, so keys congruent mod p would
//    share all four slots and a 50M-key build of full-range keys could never succeed; we take the
//    largest 32-bit prime p = 2^32 - 5 (reduced with shifts, no division) and map [0, p) onto the
//    table by a multiply-shift (Lemire's fast range) instead of a second modulo.
//  - HashGraph (Green): a seeded murmur3 finaliser mapped onto the hash range V the same way; the
//    finaliser's inverse gives a 32-bit key back from its mix (HashGraph V2 sorts mixes, not keys).
//  - 64-bit keys: the key is first mixed with a seed by murmur3's 64-bit finaliser (a bijection)
//    and folded to 32 bits, then hashed as above. (a k + b) mod p on the key itself would not do:
//    voxel keys differing by multiples of p = 2^32 - 5 (x + 5120 with z - 1 on a 2^21 grid) would
//    share all four slots. The 32-bit functions are unchanged.
#pragma once

#include <voxhash/detail/host_device.hpp>

#include <cstdint>
#include <type_traits>

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

/// The inverse of murmur_mix: murmur_unmix(murmur_mix(k, seed), seed) == k for every k. Each step
/// of the finaliser undone in reverse order: a shift-xor by s >= 16 is its own inverse, one by 13
/// is undone by x ^ (x >> 13) ^ (x >> 26), and a multiplication by the odd constant's inverse
/// modulo 2^32.
VOXHASH_HD std::uint32_t murmur_unmix(std::uint32_t h, std::uint32_t seed) {
  h ^= h >> 16;
  h *= 0x7ed1b41du;  // 0xc2b2ae35^-1 mod 2^32
  h ^= (h >> 13) ^ (h >> 26);
  h *= 0xa5cb9243u;  // 0x85ebca6b^-1 mod 2^32
  h ^= h >> 16;
  return h ^ seed;
}

/// The HashGraph vertex (bucket) of `key` in a hash range of `range` vertices: fast_range of the
/// key's murmur_mix, so the vertex is a monotone function of that mix (HashGraph V2 sorts by it).
VOXHASH_HD std::uint32_t hash_graph_vertex(std::uint32_t key,
                                           std::uint32_t seed,
                                           std::uint32_t range) {
  return fast_range(murmur_mix(key, seed), range);
}

/// murmur3's 64-bit finaliser: a full-avalanche bijection of 64-bit values.
VOXHASH_HD std::uint64_t murmur_mix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

/// A 64-bit key mixed with `seed` and folded to 32 bits: what the 64-bit hash functions hash.
VOXHASH_HD std::uint32_t fold_key(std::uint64_t key, std::uint64_t seed) {
  const std::uint64_t h = murmur_mix64(key ^ seed);
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

// The 64-bit overloads below take exactly std::uint64_t (a template, so an int argument still
// picks the 32-bit function, as before they existed).
template <class T>
using IfKey64 = std::enable_if_t<std::is_same_v<T, std::uint64_t>, int>;

/// The cuckoo function of a 64-bit key: its fold, seeded by the function's own constants (so a
/// restart with fresh constants also changes which keys fold alike), hashed as a 32-bit key.
template <class T, IfKey64<T> = 0>
VOXHASH_HD std::uint32_t cuckoo_hash(CuckooHashConstants c, T key, std::uint32_t size) {
  return cuckoo_hash(c, fold_key(key, (static_cast<std::uint64_t>(c.a) << 32) | c.b), size);
}

/// murmur_mix of a 64-bit key (the stash start, the bucketed table's victim slot, sketches).
template <class T, IfKey64<T> = 0>
VOXHASH_HD std::uint32_t murmur_mix(T key, std::uint32_t seed) {
  return fold_key(key, seed);
}

/// The HashGraph vertex of a 64-bit key.
template <class T, IfKey64<T> = 0>
VOXHASH_HD std::uint32_t hash_graph_vertex(T key, std::uint32_t seed, std::uint32_t range) {
  return fast_range(fold_key(key, seed), range);
}

}  // namespace voxhash::detail
