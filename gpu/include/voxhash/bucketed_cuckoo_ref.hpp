// BucketedCuckooRef: the trivially copyable view of a built bucketed cuckoo table (BCHT, Awad et
// al., "Better GPU Hash Tables"; BGHT's bcht) that kernels and the CPU backend's loops probe
// through. Buckets of 8 slots (one 64-byte, 64-byte aligned block: two sectors fetched together),
// three hash functions; a lookup reads at most three buckets and stops at the first one with a
// free slot. Lookups run on a tile (detail/tile.hpp): one thread, or lanes sharing the bucket.
// BasicBucketedCuckooRef<K>: 32-bit keys (8-byte slots) or 64-bit keys (16-byte slots, 128-byte
// buckets).
#pragma once

#include <voxhash/cuckoo_ref.hpp>
#include <voxhash/detail/hash.hpp>
#include <voxhash/detail/host_device.hpp>
#include <voxhash/detail/tile.hpp>
#include <voxhash/types.hpp>

#include <cstdint>
#if !defined(__CUDA_ARCH__)
#include <bit>
#endif

namespace voxhash {

namespace detail {
inline constexpr int kBucketSlots              = 8;  // 8 pairs of 8 bytes: 64 bytes, two sectors
inline constexpr int kBucketFunctions          = 3;  // bucket() selects among three
inline constexpr std::uint32_t kBucketSlotMask = (1u << kBucketSlots) - 1;

/// Index of the lowest set bit of a non-zero x.
VOXHASH_HD int lowest_bit(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __ffs(static_cast<int>(x)) - 1;
#else
  return std::countr_zero(x);
#endif
}

/// Two neighbouring slots, read with one 16-byte load on the GPU.
struct alignas(16) SlotPair {
  CuckooEntry entry[2];
};

/// A lane's S slots of a bucket, first = its first slot's index in the bucket: bit j set where
/// slot j holds `key`, bit kBucketSlots + j where slot j is empty.
template <int S, class Entry, class KeyT>
VOXHASH_HD std::uint32_t bucket_masks(const Entry (&e)[S], int first, KeyT key) {
  std::uint32_t m = 0;
  VOXHASH_UNROLL
  for (int j = 0; j < S; ++j) {
    const KeyT k = entry_key(e[j]);
    m |= static_cast<std::uint32_t>(k == key) << (first + j);
    m |= static_cast<std::uint32_t>(k == kEmptyKeyOf<KeyT>) << (kBucketSlots + first + j);
  }
  return m;
}

/// Reads a lane's S slots starting at `part` (a table no thread writes to any more): in 16-byte
/// loads on the GPU (two 8-byte slots, or one 16-byte slot, a load).
template <int S, class Entry>
VOXHASH_HD void load_part(const Entry* part, Entry (&e)[S]) {
#if defined(__CUDA_ARCH__)
  constexpr bool kPairs = S % 2 == 0 && sizeof(Entry) == sizeof(CuckooEntry);
#else
  constexpr bool kPairs = false;
#endif
  if constexpr (kPairs) {
    const auto* pairs = reinterpret_cast<const SlotPair*>(part);
    VOXHASH_UNROLL
    for (int j = 0; j < S / 2; ++j) {
      const SlotPair p = pairs[j];
      e[2 * j]         = p.entry[0];
      e[2 * j + 1]     = p.entry[1];
    }
  } else {
    VOXHASH_UNROLL
    for (int j = 0; j < S; ++j)
      e[j] = part[j];
  }
}

/// The value of the first among a lane's slots whose key is `key` (or of the last slot). Only the
/// value: the key is the one looked up, and a value is half the registers of an entry.
template <int S, class Entry, class KeyT>
VOXHASH_HD Value first_value_with_key(const Entry (&e)[S], KeyT key) {
  Value found = entry_value(e[S - 1]);
  VOXHASH_UNROLL
  for (int j = S - 1; j >= 0; --j) {
    if (entry_key(e[j]) == key) found = entry_value(e[j]);
  }
  return found;
}
}  // namespace detail

/// A bucketed cuckoo table as kernels see it; valid until the table's next build. Slots are never
/// emptied after a build fills them, and an item is placed in bucket h_j(k) only after h_0..h_{j-1}
/// were seen full, so a lookup may stop at the first bucket with a free slot (a miss reads ~1.6
/// buckets at load 0.8 instead of 3). Slot s is slots[s]; bucket b holds slots [8b, 8b + 8).
template <class KeyT>
struct BasicBucketedCuckooRef {
  using key_type = KeyT;
  using Entry    = CuckooEntryOf<KeyT>;

  const Entry* slots    = nullptr;
  std::uint32_t buckets = 0;
  detail::CuckooHashConstants hash[detail::kBucketFunctions]{};
  const std::uint32_t* slot_rank = nullptr;  // dense id of the key whose first copy is in a slot
  const std::uint32_t* counts    = nullptr;  // multiplicity per dense id

  /// The bucket function `function` maps `key` to. The constants are selected, not indexed, so a
  /// run-time function (an insertion's) does not put the ref in local memory on the GPU.
  VOXHASH_HD std::uint32_t bucket(int function, KeyT key) const {
    const detail::CuckooHashConstants c = function == 0   ? hash[0]
                                          : function == 1 ? hash[1]
                                                          : hash[2];
    return detail::cuckoo_hash(c, key, buckets);
  }

  /// Finds K keys at once on `tile` (every lane gets the same answers), reading function i's
  /// bucket of every pending key before function i + 1's of any, so K independent loads are in
  /// flight. slot[k] = the first copy's slot in probe order (bucket order, then slot order), or
  /// kNotFound; entry[k] = its entry.
  template <class Tile, int K>
  VOXHASH_HD void find_batch(const Tile& tile,
                             const KeyT (&key)[K],
                             std::uint32_t (&slot)[K],
                             Entry (&entry)[K]) const {
    constexpr int S = detail::kBucketSlots / Tile::kSize;
    const int lane  = tile.rank();
    bool pending[K];
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      slot[k]    = kNotFound;
      entry[k]   = detail::empty_entry<KeyT>();
      pending[k] = key[k] != kEmptyKeyOf<KeyT> && buckets != 0;
    }
    VOXHASH_UNROLL
    for (int f = 0; f < detail::kBucketFunctions; ++f) {
      std::uint32_t b[K] = {}, mask[K] = {};
      Value first[K] = {};  // the value of the lane's first entry with the key, if it has one
      VOXHASH_UNROLL
      for (int k = 0; k < K; ++k) {
        if (!pending[k]) continue;
        b[k] = bucket(f, key[k]);
        Entry e[S];
        detail::load_part(slots + std::size_t{b[k]} * detail::kBucketSlots + lane * S, e);
        mask[k]  = detail::bucket_masks(e, lane * S, key[k]);
        first[k] = detail::first_value_with_key(e, key[k]);
      }
      VOXHASH_UNROLL
      for (int k = 0; k < K; ++k) {
        if (!pending[k]) continue;  // the same on every lane of the tile
        const std::uint32_t m     = tile.reduce_or(mask[k]);
        const std::uint32_t match = m & detail::kBucketSlotMask;
        if (match) {
          const int s = detail::lowest_bit(match);
          slot[k]     = b[k] * detail::kBucketSlots + static_cast<std::uint32_t>(s);
          entry[k]    = detail::make_entry(key[k], tile.shfl(first[k], s / S));
        }
        pending[k] = !match && !(m >> detail::kBucketSlots);
      }
    }
  }

  /// The same on the calling thread alone.
  template <int K>
  VOXHASH_HD void find_batch(const KeyT (&key)[K],
                             std::uint32_t (&slot)[K],
                             Entry (&entry)[K]) const {
    find_batch(detail::SerialTile{}, key, slot, entry);
  }

  /// The slot holding the first copy of `key` in probe order, or kNotFound.
  VOXHASH_HD std::uint32_t find_slot(KeyT key) const {
    const KeyT keys[1] = {key};
    std::uint32_t slot[1];
    Entry entry[1];
    find_batch<1>(keys, slot, entry);
    return slot[0];
  }

  /// The value stored with `key`, or kNotFound.
  VOXHASH_HD Value find(KeyT key) const {
    const std::uint32_t s = find_slot(key);
    return s == kNotFound ? kNotFound : detail::entry_value(slots[s]);
  }

  /// Whether `key` is in the table and not erased.
  VOXHASH_HD bool contains(KeyT key) const { return find(key) != kDeletedValue; }

  /// Dense id in [0, unique keys) of `key`, or kNotFound. Needs a build with unique ids.
  VOXHASH_HD std::uint32_t find_id(KeyT key) const {
    const std::uint32_t s = find_slot(key);
    return s == kNotFound ? kNotFound : slot_rank[s];
  }

  /// How many times `key` occurred in the build input. Needs a build with unique ids.
  VOXHASH_HD std::uint32_t count(KeyT key) const {
    const std::uint32_t id = find_id(key);
    return id == kNotFound ? 0u : counts[id];
  }

  /// Batched find_id (see find_batch): dense ids of K keys, kNotFound where absent.
  template <int K>
  VOXHASH_HD void find_id_batch(const KeyT (&key)[K], std::uint32_t (&id)[K]) const {
    std::uint32_t slot[K];
    Entry entry[K];
    find_batch<K>(key, slot, entry);
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k)
      id[k] = slot[k] == kNotFound ? kNotFound : slot_rank[slot[k]];
  }

  /// Buckets a lookup of `key` reads (1 to 3): what a lookup costs, for measuring.
  VOXHASH_HD int probes(KeyT key) const {
    if (buckets == 0) return 0;
    for (int f = 0; f < detail::kBucketFunctions; ++f) {
      const Entry* b = slots + std::size_t{bucket(f, key)} * detail::kBucketSlots;
      for (int j = 0; j < detail::kBucketSlots; ++j) {
        const KeyT k = detail::entry_key(b[j]);
        if (k == key || k == kEmptyKeyOf<KeyT>) return f + 1;
      }
    }
    return detail::kBucketFunctions;
  }
};

/// A 32-bit-key bucketed cuckoo table (64-byte buckets): the fast path.
using BucketedCuckooRef = BasicBucketedCuckooRef<Key>;
/// A 64-bit-key bucketed cuckoo table (128-byte buckets).
using BucketedCuckooRef64 = BasicBucketedCuckooRef<Key64>;

/// A multivalue bucketed cuckoo table (BucketedCuckooTable::multi_ref()): every value of a key.
using BucketedMultiRef   = MultiRef<BucketedCuckooRef>;
using BucketedMultiRef64 = MultiRef<BucketedCuckooRef64>;

}  // namespace voxhash
