// CuckooRef: the trivially copyable view of a built cuckoo table that kernels (and the CPU
// backend's loops) probe through, like cuCollections' static_set_ref. Lookups only: at most four
// probes per key (Alcantara et al., GPU Computing Gems ch. 4), then an optional stash (the paged
// table's pages have one; the flat table none); CuckooTable::ref() hands one out. MultiRef
// adds the chapter's multivalue lists (every value of a key, in one more read) to it or to the
// bucketed table's ref. BasicCuckooRef<K> for 32-bit keys (8-byte slots) and 64-bit keys (16-byte
// slots, exchanged whole by 128-bit atomics: docs/ALGORITHMS.md).
#pragma once

#include <voxhash/detail/hash.hpp>
#include <voxhash/detail/host_device.hpp>
#include <voxhash/types.hpp>

#include <cstdint>
#include <type_traits>
#if !defined(__CUDA_ARCH__)
#include <atomic>
#endif

namespace voxhash {

/// The value an erased key's entries hold (its key stays, so the slot is not empty to lookups):
/// the slot tables and the paged table reject it as a caller's value in their inserts. A lookup
/// that reaches such an entry finds nothing (find's kNotFound is this value).
inline constexpr Value kDeletedValue = kNotFound;

/// A slot: `key << 32 | value`; the empty slot holds kEmptyKey.
using CuckooEntry = std::uint64_t;

/// A slot of a 64-bit-key table: 16 bytes, 16-byte aligned, so one 128-bit atomic exchanges it
/// whole (an eviction moves key and value together). pad is always 0; the empty slot's key is
/// kEmptyKeyOf<Key64>.
struct alignas(16) CuckooEntry64 {
  Key64 key;
  Value value;
  std::uint32_t pad;

  friend VOXHASH_HD bool operator==(const CuckooEntry64& a, const CuckooEntry64& b) {
    return a.key == b.key && a.value == b.value;
  }
  friend VOXHASH_HD bool operator!=(const CuckooEntry64& a, const CuckooEntry64& b) {
    return !(a == b);
  }
};
static_assert(sizeof(CuckooEntry64) == 16);

/// The slot type of a table of keys of width K.
template <class K>
using CuckooEntryOf = std::conditional_t<std::is_same_v<K, Key>, CuckooEntry, CuckooEntry64>;

namespace detail {
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

VOXHASH_HD CuckooEntry64 make_entry(Key64 key, Value value) {
  return CuckooEntry64{key, value, 0u};
}
VOXHASH_HD Key64 entry_key(const CuckooEntry64& e) {
  return e.key;
}
VOXHASH_HD Value entry_value(const CuckooEntry64& e) {
  return e.value;
}

/// The empty slot of a table of keys of width K (kEmptyEntry for 32-bit keys).
template <class K>
VOXHASH_HD CuckooEntryOf<K> empty_entry() {
  if constexpr (std::is_same_v<K, Key>) {
    return kEmptyEntry;
  } else {
    return CuckooEntry64{kEmptyKeyOf<Key64>, 0u, 0u};
  }
}

/// Reads a slot. The paged table looks keys up while other threads of the same loop exchange
/// entries (an insert's check for a key present already), so on the host the read is a relaxed
/// atomic load (a plain load on x86, and what ThreadSanitizer checks); on the GPU a plain load.
VOXHASH_HD CuckooEntry load_entry(const CuckooEntry* slot) {
#if defined(__CUDA_ARCH__)
  return *slot;
#else
  return std::atomic_ref<CuckooEntry>(*const_cast<CuckooEntry*>(slot))
      .load(std::memory_order_relaxed);
#endif
}

/// The same for a 16-byte slot: on the host its key and its value each read atomically (only
/// the key decides a probe; a value is read from a slot no insertion changes any more).
VOXHASH_HD CuckooEntry64 load_entry(const CuckooEntry64* slot) {
#if defined(__CUDA_ARCH__)
  return *slot;
#else
  auto* e = const_cast<CuckooEntry64*>(slot);
  return CuckooEntry64{std::atomic_ref<Key64>(e->key).load(std::memory_order_relaxed),
                       std::atomic_ref<Value>(e->value).load(std::memory_order_relaxed),
                       0u};
#endif
}

/// Every entry holding the key counts (the flat table: it has no deleted entries).
struct AnyEntry {
  template <class Entry>
  VOXHASH_HD bool operator()(const Entry&) const {
    return true;
  }
};

/// The same table for every key of a batch.
template <class Ref>
struct SameRef {
  const Ref* ref;
  VOXHASH_HD const Ref& operator()(int) const { return *ref; }
};

template <int K, class RefOf, class Live, class KeyT, class Entry>
VOXHASH_HD void find_batch(
    RefOf ref_of, const KeyT (&key)[K], std::uint32_t (&slot)[K], Entry (&entry)[K], Live live);
}  // namespace detail

/// A cuckoo table as kernels see it; valid until the table's next build. Slots are never emptied
/// after a build fills them, and every insertion starts at h_0, so a key at h_j(k) implies
/// h_0..h_{j-1}(k) are full: a lookup may stop at the first empty slot it meets. A key that no
/// eviction chain could place sits in the stash, slots[size .. size + stash_size), found by linear
/// probing from its stash hash (stash slots are never emptied either); it is searched only after
/// the four probes fail, and only when stash_size is not 0.
template <class KeyT>
struct BasicCuckooRef {
  using key_type = KeyT;
  using Entry    = CuckooEntryOf<KeyT>;

  const Entry* slots = nullptr;
  std::uint32_t size = 0;  // number of slots (the stash excluded)
  detail::CuckooHashConstants hash[detail::kCuckooFunctions]{};
  const std::uint32_t* slot_rank = nullptr;  // dense id of the key whose first copy is in a slot
  const std::uint32_t* counts    = nullptr;  // multiplicity per dense id
  std::uint32_t stash_size       = 0;        // stash slots after the table's (0: no stash)

  VOXHASH_HD std::uint32_t location(int function, KeyT key) const {
    return detail::cuckoo_hash(hash[function], key, size);
  }

  /// Where the stash's linear probing for `key` starts (an index into the stash).
  VOXHASH_HD std::uint32_t stash_start(KeyT key) const {
    return detail::fast_range(detail::murmur_mix(key, hash[0].b), stash_size);
  }

  /// The stash slot (an index into slots) of the first entry of `key` that `live` accepts, or
  /// kNotFound; stops at the first empty stash slot.
  template <class Live>
  VOXHASH_HD std::uint32_t find_in_stash(KeyT key, Live live) const {
    const std::uint32_t start = stash_start(key);
    for (std::uint32_t t = 0; t < stash_size; ++t) {
      std::uint32_t j = start + t;
      if (j >= stash_size) j -= stash_size;
      const Entry e = detail::load_entry(&slots[size + j]);
      const KeyT k  = detail::entry_key(e);
      if (k == key && live(e)) return size + j;
      if (k == kEmptyKeyOf<KeyT>) return kNotFound;
    }
    return kNotFound;
  }

  /// The slot holding the first copy of `key` in probe order that `live` accepts (h_0..h_3, then
  /// the stash), or kNotFound.
  template <class Live>
  VOXHASH_HD std::uint32_t find_slot(KeyT key, Live live) const {
    if (key == kEmptyKeyOf<KeyT> || size == 0) return kNotFound;
    VOXHASH_UNROLL
    for (int i = 0; i < detail::kCuckooFunctions; ++i) {
      const std::uint32_t loc = location(i, key);
      const Entry e           = detail::load_entry(&slots[loc]);
      const KeyT k            = detail::entry_key(e);
      if (k == key && live(e)) return loc;
      if (k == kEmptyKeyOf<KeyT>) break;
    }
    return stash_size == 0 ? kNotFound : find_in_stash(key, live);
  }

  /// The slot holding the first copy of `key` in probe order, or kNotFound.
  VOXHASH_HD std::uint32_t find_slot(KeyT key) const { return find_slot(key, detail::AnyEntry{}); }

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

  /// Batched lookup: finds K keys at once, probing function i of every pending key before
  /// function i + 1 of any, so a thread keeps K independent loads in flight instead of one (hits
  /// stop at different probes; batching hides that divergence). slot[k] = the first copy's slot or
  /// kNotFound; entry[k] = its entry.
  template <int K>
  VOXHASH_HD void find_batch(const KeyT (&key)[K],
                             std::uint32_t (&slot)[K],
                             Entry (&entry)[K]) const {
    detail::find_batch<K>(
        detail::SameRef<BasicCuckooRef>{this}, key, slot, entry, detail::AnyEntry{});
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
};

/// A 32-bit-key cuckoo table (8-byte slots): the fast path.
using CuckooRef = BasicCuckooRef<Key>;
/// A 64-bit-key cuckoo table (16-byte slots).
using CuckooRef64 = BasicCuckooRef<Key64>;

namespace detail {

/// The batched lookup behind CuckooRef::find_batch, for K keys that may each live in a different
/// table (a paged table's pages): ref_of(k) is key k's table, `live` says which entries count.
/// Function i of every pending key is probed before function i + 1 of any; keys that all four miss
/// then search their table's stash (none on the flat table).
template <int K, class RefOf, class Live, class KeyT, class Entry>
VOXHASH_HD void find_batch(
    RefOf ref_of, const KeyT (&key)[K], std::uint32_t (&slot)[K], Entry (&entry)[K], Live live) {
  bool pending[K];
  bool stash[K];
  VOXHASH_UNROLL
  for (int k = 0; k < K; ++k) {
    slot[k]    = kNotFound;
    entry[k]   = empty_entry<KeyT>();
    pending[k] = key[k] != kEmptyKeyOf<KeyT> && ref_of(k).size != 0;
    stash[k]   = pending[k];
  }
  VOXHASH_UNROLL
  for (int i = 0; i < kCuckooFunctions; ++i) {
    std::uint32_t loc[K] = {};
    Entry e[K]           = {};
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      if (pending[k]) {
        loc[k] = ref_of(k).location(i, key[k]);
        e[k]   = load_entry(&ref_of(k).slots[loc[k]]);
      }
    }
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      if (!pending[k]) continue;
      const KeyT found = entry_key(e[k]);
      const bool match = found == key[k] && live(e[k]);
      if (match) {
        slot[k]  = loc[k];
        entry[k] = e[k];
        stash[k] = false;
      }
      pending[k] = !match && found != kEmptyKeyOf<KeyT>;
    }
  }
  VOXHASH_UNROLL
  for (int k = 0; k < K; ++k) {
    if (!stash[k] || ref_of(k).stash_size == 0) continue;
    slot[k] = ref_of(k).find_in_stash(key[k], live);
    if (slot[k] != kNotFound) entry[k] = load_entry(&ref_of(k).slots[slot[k]]);
  }
}

}  // namespace detail

/// Where one key's values lie in a multivalue table's value list.
struct ValueRange {
  std::uint32_t begin = 0;
  std::uint32_t count = 0;
};

/// A slot table (CuckooRef, BucketedCuckooRef) built with BuildOptions::multivalue: the
/// chapter's multivalue table. Each unique key is stored once with its dense id (ids in key
/// order) as its slot value, and its values are values[offsets[id], offsets[id + 1]) (input
/// order within a key); one slot lookup and one read of two neighbouring offsets give the range.
/// Valid until the table's next build. With offsets null it wraps a plain table (slot values are
/// the values): only find() answers then.
template <class Ref>
struct MultiRef {
  using key_type = typename Ref::key_type;
  using Entry    = typename Ref::Entry;

  Ref table;
  const std::uint32_t* offsets = nullptr;  // u + 1 entries, the last = the number of values
  const Value* values          = nullptr;  // every input value, grouped by key

  /// The range of the key with dense id `id`.
  VOXHASH_HD ValueRange range_of_id(std::uint32_t id) const {
    const std::uint32_t begin = offsets[id];
    return ValueRange{begin, offsets[id + 1] - begin};
  }

  /// The range of `key`'s values; count 0 when absent.
  VOXHASH_HD ValueRange find_range(key_type key) const {
    const std::uint32_t s = table.find_slot(key);
    return s == kNotFound ? ValueRange{} : range_of_id(detail::entry_value(table.slots[s]));
  }

  /// The value of a found slot's entry: its key's first value (the entry's own on a plain table).
  VOXHASH_HD Value value_of(const Entry& e) const {
    const Value v = detail::entry_value(e);
    return offsets ? values[offsets[v]] : v;
  }

  /// The first value of `key` in input order, or kNotFound.
  VOXHASH_HD Value find(key_type key) const {
    const std::uint32_t s = table.find_slot(key);
    return s == kNotFound ? kNotFound : value_of(table.slots[s]);
  }

  VOXHASH_HD std::uint32_t count(key_type key) const { return find_range(key).count; }

  /// Writes every value of `key`, in input order, from out[0]; returns how many.
  VOXHASH_HD std::uint32_t find_all(key_type key, Value* out) const {
    const ValueRange r = find_range(key);
    for (std::uint32_t j = 0; j < r.count; ++j)
      out[j] = values[r.begin + j];
    return r.count;
  }
};

/// A multivalue cuckoo table (CuckooTable::multi_ref()).
using CuckooMultiRef   = MultiRef<CuckooRef>;
using CuckooMultiRef64 = MultiRef<CuckooRef64>;

}  // namespace voxhash
