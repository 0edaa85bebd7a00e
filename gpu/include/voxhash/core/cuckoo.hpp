// Per-element cuckoo hashing (Alcantara et al., GPU Computing Gems ch. 4), shared by both backends:
// 64-bit slots `key << 32 | value`, four hash functions, atomicExch eviction chains in round-robin
// function order, the set variant's stop on meeting a copy of the same key, retrieval in at most
// four probes. CuckooView is the trivially copyable view kernels receive.
#pragma once

#include <voxhash/core/atomics.hpp>
#include <voxhash/core/hash.hpp>
#include <voxhash/core/host_device.hpp>
#include <voxhash/types.hpp>

#include <cstdint>

namespace voxhash::core {

using CuckooEntry = std::uint64_t;

inline constexpr CuckooEntry kEmptyEntry = static_cast<CuckooEntry>(kEmptyKey) << 32;

VOXHASH_HD CuckooEntry make_entry(Key key, Value value) {
  return (static_cast<CuckooEntry>(key) << 32) | value;
}
VOXHASH_HD Key entry_key(CuckooEntry e) {
  return static_cast<Key>(e >> 32);
}
VOXHASH_HD Value entry_value(CuckooEntry e) {
  return static_cast<Value>(e & 0xFFFFFFFFu);
}

/// A cuckoo table as kernels see it. Slots are never emptied after a build fills them, and every
/// insertion starts at h_0, so a key at h_j(k) implies h_0..h_{j-1}(k) are full: a lookup may stop
/// at the first empty slot it meets.
struct CuckooView {
  CuckooEntry* slots = nullptr;
  std::uint32_t size = 0;  // number of slots
  CuckooHashConstants hash[kCuckooFunctions]{};
  const std::uint32_t* slot_rank = nullptr;  // dense id of the key whose first copy is in a slot
  const std::uint32_t* counts    = nullptr;  // multiplicity per dense id

  VOXHASH_HD std::uint32_t location(int function, Key key) const {
    return cuckoo_hash(hash[function], key, size);
  }

  /// The slot holding the first copy of `key` in probe order, or kNotFound.
  VOXHASH_HD std::uint32_t find_slot(Key key) const {
    if (key == kEmptyKey || size == 0) return kNotFound;
    VOXHASH_UNROLL
    for (int i = 0; i < kCuckooFunctions; ++i) {
      const std::uint32_t loc = location(i, key);
      const Key k             = entry_key(slots[loc]);
      if (k == key) return loc;
      if (k == kEmptyKey) return kNotFound;
    }
    return kNotFound;
  }

  /// The value stored with `key`, or kNotFound.
  VOXHASH_HD Value find(Key key) const {
    const std::uint32_t s = find_slot(key);
    return s == kNotFound ? kNotFound : entry_value(slots[s]);
  }

  VOXHASH_HD bool contains(Key key) const { return find_slot(key) != kNotFound; }

  /// Dense id in [0, unique keys) of `key`, or kNotFound. Needs a build with unique ids.
  VOXHASH_HD std::uint32_t find_id(Key key) const {
    const std::uint32_t s = find_slot(key);
    return s == kNotFound ? kNotFound : slot_rank[s];
  }

  /// Batched find_id (see find_batch): dense ids of K keys, kNotFound where absent.
  template <int K>
  VOXHASH_HD void find_id_batch(const Key (&key)[K], std::uint32_t (&id)[K]) const;

  /// How many times `key` occurred in the build input. Needs a build with unique ids.
  VOXHASH_HD std::uint32_t count(Key key) const {
    const std::uint32_t id = find_id(key);
    return id == kNotFound ? 0u : counts[id];
  }
};

/// The slot an item evicted from `from` moves to: the function after the one that maps it there,
/// skipping functions that map it to the same slot (the chapter's note on short-circuiting).
VOXHASH_HD std::uint32_t next_location(const CuckooView& t, Key key, std::uint32_t from) {
  std::uint32_t loc[kCuckooFunctions];
  VOXHASH_UNROLL
  for (int i = 0; i < kCuckooFunctions; ++i)
    loc[i] = t.location(i, key);
  int current = kCuckooFunctions - 1;  // an item not found at any of its slots restarts at h_0
  VOXHASH_UNROLL
  for (int i = kCuckooFunctions - 1; i >= 0; --i) {
    if (loc[i] == from) current = i;
  }
  VOXHASH_UNROLL
  for (int step = 1; step < kCuckooFunctions; ++step) {
    const std::uint32_t next = loc[(current + step) % kCuckooFunctions];
    if (next != from) return next;
  }
  return from;  // all four functions agree: nowhere else to go
}

struct InsertResult {
  bool placed;
  std::uint32_t chain;  // atomic exchanges this insertion performed
};

/// Inserts one key-value pair (Listing 4.1): exchange into h_0, and while the exchange returns an
/// item, move that item to its next slot. Stops when a slot was empty, or when the exchange
/// returned a copy of the key it placed (set variant: one copy stays), or after `max_chain`
/// exchanges, which means the build must restart with new constants.
VOXHASH_HD InsertResult cuckoo_insert(const CuckooView& t,
                                      Key key,
                                      Value value,
                                      std::uint32_t max_chain) {
  CuckooEntry entry = make_entry(key, value);
  std::uint32_t loc = t.location(0, key);
  for (std::uint32_t chain = 1; chain <= max_chain; ++chain) {
    const CuckooEntry evicted = atomic_exchange(&t.slots[loc], entry);
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
VOXHASH_HD std::uint32_t is_first_copy(const CuckooView& t, std::uint32_t s) {
  const Key k = entry_key(t.slots[s]);
  if (k == kEmptyKey) return 0;
  for (int i = 0; i < kCuckooFunctions; ++i) {
    const std::uint32_t loc = t.location(i, k);
    if (loc == s) return 1;
    if (entry_key(t.slots[loc]) == k) return 0;
  }
  return 0;
}

/// Batched lookup: finds K keys at once, probing function i of every pending key before function
/// i + 1 of any, so a thread keeps K independent loads in flight instead of one (hits stop at
/// different probes; batching hides that divergence). slot[k] = the first copy's slot or
/// kNotFound; entry[k] = its entry.
template <int K>
VOXHASH_HD void find_batch(const CuckooView& t,
                           const Key (&key)[K],
                           std::uint32_t (&slot)[K],
                           CuckooEntry (&entry)[K]) {
  bool pending[K];
  VOXHASH_UNROLL
  for (int k = 0; k < K; ++k) {
    slot[k]    = kNotFound;
    entry[k]   = kEmptyEntry;
    pending[k] = key[k] != kEmptyKey && t.size != 0;
  }
  VOXHASH_UNROLL
  for (int i = 0; i < kCuckooFunctions; ++i) {
    std::uint32_t loc[K] = {};
    CuckooEntry e[K]     = {};
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      if (pending[k]) {
        loc[k] = t.location(i, key[k]);
        e[k]   = t.slots[loc[k]];
      }
    }
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      if (!pending[k]) continue;
      const Key found = entry_key(e[k]);
      if (found == key[k]) {
        slot[k]  = loc[k];
        entry[k] = e[k];
      }
      pending[k] = found != key[k] && found != kEmptyKey;
    }
  }
}

template <int K>
VOXHASH_HD void CuckooView::find_id_batch(const Key (&key)[K], std::uint32_t (&id)[K]) const {
  std::uint32_t slot[K];
  CuckooEntry entry[K];
  find_batch<K>(*this, key, slot, entry);
  VOXHASH_UNROLL
  for (int k = 0; k < K; ++k)
    id[k] = slot[k] == kNotFound ? kNotFound : slot_rank[slot[k]];
}

}  // namespace voxhash::core
