// Per-element bucketed cuckoo insertion (BCHT, Awad et al.; BGHT's bcht), shared by both backends
// through the tile abstraction (detail/tile.hpp): the tile reads a bucket in one load, finds the
// key or a free slot by one OR-reduction of per-lane bit masks, claims the free slot with a CAS,
// and when all of the item's buckets are full exchanges a pseudo-randomly chosen slot and carries
// the evicted item on. Lookups are the public BucketedCuckooRef's. Written over the key width:
// 16-byte slots (64-bit keys) are read with one relaxed 16-byte load each and exchanged or
// claimed by 128-bit atomics.
#pragma once

#include "core/atomics.hpp"

#include <voxhash/bucketed_cuckoo_ref.hpp>
#include <voxhash/detail/hash.hpp>
#include <voxhash/detail/host_device.hpp>
#include <voxhash/types.hpp>

#include <cstdint>

namespace voxhash::core {

using detail::entry_key;
using detail::kBucketFunctions;
using detail::kBucketSlots;

/// A lane's S slots starting at `part`, while other tiles insert (every slot read whole).
template <int S>
VOXHASH_HD void load_part_relaxed(const CuckooEntry* part, CuckooEntry (&e)[S]) {
  static_assert(S % 2 == 0, "a lane reads its slots in pairs");
  VOXHASH_UNROLL
  for (int j = 0; j < S; j += 2)
    atomic_load_pair(part + j, e[j], e[j + 1]);
}

/// The same for 16-byte slots: each slot's two words in one relaxed 16-byte load (only the key
/// word decides an insertion; values are read from the item an exchange returns).
template <int S>
VOXHASH_HD void load_part_relaxed(const CuckooEntry64* part, CuckooEntry64 (&e)[S]) {
  VOXHASH_UNROLL
  for (int j = 0; j < S; ++j) {
    std::uint64_t value_word = 0;
    atomic_load_pair(reinterpret_cast<const std::uint64_t*>(part + j), e[j].key, value_word);
    e[j].value = static_cast<Value>(value_word);  // little-endian: value, then pad
    e[j].pad   = 0;
  }
}

/// The function an item stored in bucket `b` was placed by (the first that maps it there).
template <class KeyT>
VOXHASH_HD int function_of(const BasicBucketedCuckooRef<KeyT>& t, KeyT key, std::uint32_t b) {
  VOXHASH_UNROLL
  for (int f = 0; f < kBucketFunctions - 1; ++f) {
    if (t.bucket(f, key) == b) return f;
  }
  return kBucketFunctions - 1;
}

template <class KeyT>
struct BucketInsertResult {
  bool placed;
  std::uint32_t chain;  // evictions this insertion performed
  bool met_copy;        // it ended on a copy of its key (the input's keys were not distinct)
  CuckooEntryOf<KeyT> unplaced;  // when !placed: the item in hand (not in the table)
};

/// Inserts one key-value pair into `slots` (the table `t` describes) on `tile`. The item tries its
/// buckets in function order (a new key from h_0, an evicted one from the function after the
/// bucket it left) and takes the first free slot (CAS; read again if another tile took it); a
/// bucket holding a copy of the key ends the insertion (set variant: one copy stays). When all of
/// its buckets are full the item exchanges the slot murmur(key, chain) mod 8 of the last one and
/// the evicted item goes on, at most `max_chain` times; then the build must restart with new
/// constants (the item in hand is returned). An item lands in h_j only after h_0..h_{j-1} were seen
/// full, and full buckets stay full, which is what lets lookups stop at the first bucket with a
/// free slot.
template <class Tile, class KeyT>
VOXHASH_HD BucketInsertResult<KeyT> bucketed_insert(const Tile& tile,
                                                    const BasicBucketedCuckooRef<KeyT>& t,
                                                    CuckooEntryOf<KeyT>* slots,
                                                    KeyT key,
                                                    Value value,
                                                    std::uint32_t max_chain) {
  using Entry         = CuckooEntryOf<KeyT>;
  constexpr int S     = kBucketSlots / Tile::kSize;
  const int lane      = tile.rank();
  const Entry empty   = detail::empty_entry<KeyT>();
  Entry item          = detail::make_entry(key, value);
  int function        = 0;  // whose bucket the item reads next
  int full            = 0;  // the item's buckets seen full since it last moved
  std::uint32_t chain = 0;
  for (;;) {
    const KeyT k          = entry_key(item);
    const std::uint32_t b = t.bucket(function, k);
    Entry* bucket         = slots + std::size_t{b} * kBucketSlots;
    Entry e[S];
    load_part_relaxed(bucket + lane * S, e);
    const std::uint32_t m = tile.reduce_or(detail::bucket_masks(e, lane * S, k));
    if (m & detail::kBucketSlotMask) return {true, chain, true, empty};
    if (const std::uint32_t free = m >> kBucketSlots) {
      const int s       = detail::lowest_bit(free);
      std::uint32_t won = 0;
      if (lane == s / S) won = atomic_cas(&bucket[s], empty, item) == empty;
      if (tile.shfl(won, s / S)) return {true, chain, false, empty};
      continue;  // another tile took the slot: read the bucket again
    }
    if (++full < kBucketFunctions) {
      function = (function + 1) % kBucketFunctions;
      continue;
    }
    if (chain == max_chain) return {false, chain, false, item};
    ++chain;
    const int victim = static_cast<int>(detail::murmur_mix(k, chain) % kBucketSlots);
    Entry evicted    = empty;
    if (lane == victim / S) evicted = atomic_exchange(&bucket[victim], item);
    item = tile.shfl(evicted, victim / S);
    // A copy of the item's own key, stored since the bucket was read: one copy stays.
    if (entry_key(item) == k) return {true, chain, true, empty};
    function = (function_of(t, entry_key(item), b) + 1) % kBucketFunctions;
    full     = 1;
  }
}

/// Writes `value` into every copy of `key` on `tile` (its buckets in probe order, up to the first
/// with a free slot); true if there was one. Run with no insertion in flight, so no copy moves.
template <class Tile, class KeyT>
VOXHASH_HD bool bucketed_assign(const Tile& tile,
                                const BasicBucketedCuckooRef<KeyT>& t,
                                CuckooEntryOf<KeyT>* slots,
                                KeyT key,
                                Value value) {
  using Entry     = CuckooEntryOf<KeyT>;
  constexpr int S = kBucketSlots / Tile::kSize;
  const int lane  = tile.rank();
  if (key == kEmptyKeyOf<KeyT> || t.buckets == 0) return false;
  const Entry entry = detail::make_entry(key, value);
  bool found        = false;
  for (int f = 0; f < kBucketFunctions; ++f) {
    Entry* part = slots + std::size_t{t.bucket(f, key)} * kBucketSlots + lane * S;
    Entry e[S];
    load_part_relaxed(part, e);
    VOXHASH_UNROLL
    for (int j = 0; j < S; ++j) {
      if (entry_key(e[j]) == key) atomic_exchange(&part[j], entry);
    }
    const std::uint32_t m = tile.reduce_or(detail::bucket_masks(e, lane * S, key));
    found |= (m & detail::kBucketSlotMask) != 0;
    if (m >> kBucketSlots) break;
  }
  return found;
}

/// 1 if slot `s` holds the first copy (in probe order) of its key, else 0: the compacting
/// clean-up numbers only first copies (racing insertions of one key may leave several).
template <class KeyT>
VOXHASH_HD std::uint32_t is_first_copy(const BasicBucketedCuckooRef<KeyT>& t, std::uint32_t s) {
  const KeyT k = entry_key(t.slots[s]);
  return k != kEmptyKeyOf<KeyT> && t.find_slot(k) == s;
}

}  // namespace voxhash::core
