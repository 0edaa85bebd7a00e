// Per-element cuckoo insertion (Alcantara et al., GPU Computing Gems ch. 4), shared by both
// backends and by both tables (flat and paged): atomicExch eviction chains in round-robin function
// order, the set variant's stop on meeting a copy of the same key, a stash for the item a chain
// could not place (Starfish's pages), entries a chain may drop (the paged table's deleted ones),
// writing a value into every copy of a key, and the compacting clean-up's first-copy test. Lookups
// are the public CuckooRef's. Written over the key width (BasicCuckooRef<KeyT>): 8-byte slots for
// 32-bit keys, 16-byte slots exchanged by 128-bit atomics for 64-bit keys.
#pragma once

#include "core/atomics.hpp"

#include <voxhash/cuckoo_ref.hpp>
#include <voxhash/detail/host_device.hpp>
#include <voxhash/types.hpp>

#include <cstdint>

namespace voxhash::core {

using detail::empty_entry;
using detail::entry_key;
using detail::kEmptyEntry;
using detail::make_entry;

/// The slot an item evicted from `from` moves to: the function after the one that maps it there,
/// skipping functions that map it to the same slot (the chapter's note on short-circuiting).
template <class KeyT>
VOXHASH_HD std::uint32_t next_location(const BasicCuckooRef<KeyT>& t,
                                       KeyT key,
                                       std::uint32_t from) {
  std::uint32_t loc[detail::kCuckooFunctions];
  VOXHASH_UNROLL
  for (int i = 0; i < detail::kCuckooFunctions; ++i)
    loc[i] = t.location(i, key);
  int current = detail::kCuckooFunctions - 1;  // an item not found at any slot restarts at h_0
  VOXHASH_UNROLL
  for (int i = detail::kCuckooFunctions - 1; i >= 0; --i) {
    if (loc[i] == from) current = i;
  }
  VOXHASH_UNROLL
  for (int step = 1; step < detail::kCuckooFunctions; ++step) {
    const std::uint32_t next = loc[(current + step) % detail::kCuckooFunctions];
    if (next != from) return next;
  }
  return from;  // all four functions agree: nowhere else to go
}

template <class KeyT>
struct BasicInsertResult {
  bool placed;
  std::uint32_t chain;  // atomic exchanges this insertion performed
  bool filled;          // an empty slot (or stash slot) now holds an entry
  CuckooEntryOf<KeyT>
      unplaced;  // when !placed: the entry in hand when the chain stopped (not in the table)
  bool stashed = false;  // the entry in hand when the chain stopped went to the stash
};
using InsertResult = BasicInsertResult<Key>;

/// Nothing may be dropped: every entry an exchange returns is placed again (the flat table).
struct KeepAll {
  template <class Entry>
  VOXHASH_HD bool operator()(const Entry&) const {
    return false;
  }
};

/// Places `entry` in the stash (t.stash_size slots after the table's): linear probing from its
/// stash hash, claiming the first empty slot with a compare-and-swap; a stash slot holding the
/// same key, or an entry `droppable` accepts, is taken over instead. False when the stash is full.
template <class KeyT, class Droppable>
VOXHASH_HD bool stash_insert(const BasicCuckooRef<KeyT>& t,
                             CuckooEntryOf<KeyT>* slots,
                             CuckooEntryOf<KeyT> entry,
                             Droppable droppable,
                             bool& filled) {
  using Entry               = CuckooEntryOf<KeyT>;
  const Entry empty         = empty_entry<KeyT>();
  const KeyT key            = entry_key(entry);
  const std::uint32_t start = t.stash_start(key);
  for (std::uint32_t step = 0; step < t.stash_size; ++step) {
    std::uint32_t j = start + step;
    if (j >= t.stash_size) j -= t.stash_size;
    Entry* slot = &slots[t.size + j];
    Entry seen  = atomic_cas(slot, empty, entry);
    while (true) {
      if (seen == empty) {
        filled = true;
        return true;
      }
      if (entry_key(seen) != key && !droppable(seen)) break;
      const Entry before = atomic_cas(slot, seen, entry);
      if (before == seen) return true;
      seen = before;
    }
  }
  return false;
}

/// Inserts one key-value pair (Listing 4.1) into `slots` (the table `t` describes): exchange into
/// h_0, and while the exchange returns an item, move that item to its next slot. Stops when a slot
/// was empty, or when the exchange returned a copy of the key it placed (set variant: one copy
/// stays) or an entry `droppable` accepts (Starfish: a deleted entry's slot is reused), or after
/// `max_chain` exchanges. Then the item in hand goes to the stash when the table has one; if it
/// cannot, the insertion fails (the flat table restarts with new constants; the paged table keeps
/// the item and rebuilds the page).
template <class KeyT, class Droppable = KeepAll>
VOXHASH_HD BasicInsertResult<KeyT> cuckoo_insert(const BasicCuckooRef<KeyT>& t,
                                                 CuckooEntryOf<KeyT>* slots,
                                                 KeyT key,
                                                 Value value,
                                                 std::uint32_t max_chain,
                                                 Droppable droppable = {}) {
  using Entry       = CuckooEntryOf<KeyT>;
  const Entry empty = empty_entry<KeyT>();
  Entry entry       = make_entry(key, value);
  std::uint32_t loc = t.location(0, key);
  for (std::uint32_t chain = 1; chain <= max_chain; ++chain) {
    const Entry evicted    = atomic_exchange(&slots[loc], entry);
    const KeyT evicted_key = entry_key(evicted);
    if (evicted_key == kEmptyKeyOf<KeyT>) return {true, chain, true, empty};
    if (evicted_key == entry_key(entry) || droppable(evicted)) {
      return {true, chain, false, empty};
    }
    entry = evicted;
    loc   = next_location(t, evicted_key, loc);
  }
  bool filled = false;
  if (t.stash_size != 0 && stash_insert(t, slots, entry, droppable, filled)) {
    return {true, max_chain, filled, empty, true};
  }
  return {false, max_chain, false, entry};
}

/// Writes `value` into every copy of `key` that `live` accepts (h_0..h_3 up to the first empty
/// slot, then the stash); true if there was one. Run with no insertion in flight, so no copy moves.
template <class KeyT, class Live>
VOXHASH_HD bool cuckoo_assign(
    const BasicCuckooRef<KeyT>& t, CuckooEntryOf<KeyT>* slots, KeyT key, Value value, Live live) {
  using Entry = CuckooEntryOf<KeyT>;
  if (key == kEmptyKeyOf<KeyT> || t.size == 0) return false;
  const Entry entry = make_entry(key, value);
  bool found        = false;
  for (int i = 0; i < detail::kCuckooFunctions; ++i) {
    const std::uint32_t loc = t.location(i, key);
    const Entry e           = detail::load_entry(&slots[loc]);
    if (entry_key(e) == kEmptyKeyOf<KeyT>) break;
    if (entry_key(e) == key && live(e)) {
      atomic_exchange(&slots[loc], entry);
      found = true;
    }
  }
  const std::uint32_t start = t.stash_size ? t.stash_start(key) : 0;
  for (std::uint32_t step = 0; step < t.stash_size; ++step) {
    std::uint32_t j = start + step;
    if (j >= t.stash_size) j -= t.stash_size;
    const Entry e = detail::load_entry(&slots[t.size + j]);
    if (entry_key(e) == kEmptyKeyOf<KeyT>) break;
    if (entry_key(e) == key && live(e)) {
      atomic_exchange(&slots[t.size + j], entry);
      found = true;
    }
  }
  return found;
}

/// 1 if slot `s` (of the table or its stash) holds the first copy (in probe order) of its key that
/// `live` accepts, else 0. The set variant may leave several copies of a key; the compacting
/// clean-up numbers only the first, and a paged page's rebuild keeps only the first. Only the slots
/// probed before `s` are read.
template <class KeyT, class Live = detail::AnyEntry>
VOXHASH_HD std::uint32_t is_first_copy(const BasicCuckooRef<KeyT>& t,
                                       std::uint32_t s,
                                       Live live = {}) {
  using Entry   = CuckooEntryOf<KeyT>;
  const Entry e = t.slots[s];
  const KeyT k  = entry_key(e);
  if (k == kEmptyKeyOf<KeyT> || !live(e)) return 0;
  for (int i = 0; i < detail::kCuckooFunctions; ++i) {
    const std::uint32_t loc = t.location(i, k);
    if (loc == s) return 1;
    const Entry other = t.slots[loc];
    if (entry_key(other) == k && live(other)) return 0;
  }
  return t.stash_size != 0 && t.find_in_stash(k, live) == s ? 1u : 0u;
}

}  // namespace voxhash::core
