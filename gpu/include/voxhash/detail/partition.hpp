// Which partition (GPU) owns a key when a table or a join is spread over G of them: p = h(k) mod G
// with a hash independent of every table's own (cuckoo: (a k + b) mod p; HashGraph and bucketed
// cuckoo: murmur3's finaliser on key ^ seed), so the keys one partition holds still spread evenly
// over its table's slots. Shared by the CUDA and CPU backends (VOXHASH_HD).
#pragma once

#include <voxhash/detail/hash.hpp>
#include <voxhash/detail/host_device.hpp>

#include <cstdint>

namespace voxhash::detail {

/// A fixed seed (the first 32 bits of pi's fraction), never drawn per build: every process and
/// every build must route a key to the same partition.
inline constexpr std::uint32_t kPartitionSeed = 0x243f6a88u;

/// Chris Wellons' "lowbias32" mixer on key ^ kPartitionSeed: a bijection of 32-bit values with
/// full avalanche and constants unrelated to murmur3's, so it is independent of the tables' hashes.
VOXHASH_HD std::uint32_t partition_hash(std::uint32_t key) {
  std::uint32_t h = key ^ kPartitionSeed;
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h;
}

/// The partition in [0, parts) that owns `key`: h(k) mod parts, taken as a multiply-shift of the
/// hash's high bits onto [0, parts) (fast_range, no division; as uniform as a modulo).
VOXHASH_HD std::uint32_t partition_of(std::uint32_t key, std::uint32_t parts) {
  return fast_range(partition_hash(key), parts);
}

}  // namespace voxhash::detail
