// Per-element cuckoo insertion (Alcantara et al., GPU Computing Gems ch. 4), shared by both
// backends: atomicExch eviction chains in round-robin function order, the set variant's stop on
// meeting a copy of the same key, and the compacting clean-up's first-copy test. Lookups are the
// public CuckooRef's.
#pragma once

#include "core/atomics.hpp"

#include <voxhash/cuckoo_ref.hpp>
#include <voxhash/detail/host_device.hpp>
#include <voxhash/types.hpp>

#include <cstdint>

namespace voxhash::core {

using detail::entry_key;
using detail::kEmptyEntry;
using detail::make_entry;

/// The slot an item evicted from `from` moves to: the function after the one that maps it there,
/// skipping functions that map it to the same slot (the chapter's note on short-circuiting).
VOXHASH_HD std::uint32_t next_location(const CuckooRef& t, Key key, std::uint32_t from) {
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

struct InsertResult {
  bool placed;
  std::uint32_t chain;  // atomic exchanges this insertion performed
};

/// Inserts one key-value pair (Listing 4.1) into `slots` (the table `t` describes): exchange into
/// h_0, and while the exchange returns an item, move that item to its next slot. Stops when a slot
/// was empty, or when the exchange returned a copy of the key it placed (set variant: one copy
/// stays), or after `max_chain` exchanges, which means the build must restart with new constants.
VOXHASH_HD InsertResult cuckoo_insert(
    const CuckooRef& t, CuckooEntry* slots, Key key, Value value, std::uint32_t max_chain) {
  CuckooEntry entry = make_entry(key, value);
  std::uint32_t loc = t.location(0, key);
  for (std::uint32_t chain = 1; chain <= max_chain; ++chain) {
    const CuckooEntry evicted = atomic_exchange(&slots[loc], entry);
    const Key evicted_key     = entry_key(evicted);
    if (evicted_key == kEmptyKey || evicted_key == entry_key(entry)) return {true, chain};
    entry = evicted;
    loc   = next_location(t, evicted_key, loc);
  }
  return {false, max_chain};
}

/// 1 if slot `s` holds the first copy (in probe order) of its key, else 0. The set variant may
/// leave several copies of a key; the compacting clean-up numbers only the first. Only the slots
/// probed before `s` are read.
VOXHASH_HD std::uint32_t is_first_copy(const CuckooRef& t, std::uint32_t s) {
  const Key k = entry_key(t.slots[s]);
  if (k == kEmptyKey) return 0;
  for (int i = 0; i < detail::kCuckooFunctions; ++i) {
    const std::uint32_t loc = t.location(i, k);
    if (loc == s) return 1;
    if (entry_key(t.slots[loc]) == k) return 0;
  }
  return 0;
}

}  // namespace voxhash::core
