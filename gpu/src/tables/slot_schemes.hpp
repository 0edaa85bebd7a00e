// The two layouts SlotTableImpl (tables/slot_table_impl.hpp) runs over, and only what differs
// between them: the Ref and its slot layout, the size formula, the stash, and the per-element
// insert, lookup and assign steps with their launch shape. SingleSlot is Alcantara's cuckoo table
// (one slot per hash function, a thread per key, core/cuckoo.hpp); BucketTile the bucketed cuckoo
// table (a bucket of 8 slots per hash function, a tile of kBucketLanes lanes per key,
// core/bucketed_cuckoo.hpp), as BGHT's bcht makes the bucket a parameter of one design.
#pragma once

#include "core/atomics.hpp"
#include "core/bucketed_cuckoo.hpp"
#include "core/cuckoo.hpp"
#include "tables/build_status.hpp"

#include <voxhash/bucketed_cuckoo_table.hpp>
#include <voxhash/cuckoo_table.hpp>
#include <voxhash/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>

namespace voxhash::tables {

/// Lanes of a GPU tile per key: 4 lanes × 16 bytes read a 64-byte bucket in one coalesced load,
/// and a warp works on 8 keys at once (the CPU's tile is one thread).
inline constexpr int kBucketLanes = 4;

/// Queries a tile looks up at once in the bulk lookups, as the single-slot table's kQueryBatch.
/// Eight (twice the buckets in flight per round trip) needs 72 registers instead of 42 and
/// measured slower for hits and misses: the resident warps it costs are worth more than the
/// longer batches (docs/ALGORITHMS.md, bucketed cuckoo).
inline constexpr int kBucketQueryBatch = 4;

/// What a change's loops report back to the host in one small read (insert, erase, update).
struct SlotOpStatus {
  std::uint32_t sentinel_key = 0;  // 1 if an input key equals the sentinel
  std::uint32_t bad_value    = 0;  // 1 if an input value equals kDeletedValue
  std::uint32_t filled       = 0;  // slots the insertions filled (a count: occupied slots)
  std::uint32_t unplaced     = 0;  // items no chain (nor the stash) placed: the overflow list's
  std::uint32_t stashed      = 0;  // entries placed in the stash
};

/// One slot per hash function: Alcantara et al.'s cuckoo table with the set variant and CUDPP's
/// stash. A thread per key; lookups kQueryBatch keys per thread.
struct SingleSlot {
  template <class K>
  using Ref = BasicCuckooRef<K>;
  template <class K>
  using Interface = BasicCuckooTable<K>;

  static constexpr const char* kName      = "cuckoo table";
  static constexpr std::size_t kUnitSlots = 1;  // slots in one unit of the Ref's size

  /// Slots for `keys` keys at the configured space.
  static std::uint32_t units_for(const BuildOptions& options, std::size_t keys) {
    return static_cast<std::uint32_t>(
        std::max<double>(std::ceil(options.cuckoo_space * static_cast<double>(keys)), 1.0));
  }
  /// The stash a build gives the table.
  static std::uint32_t stash_for(const BuildOptions& options) { return options.stash_slots; }

  template <class K>
  static VOXHASH_HD std::uint32_t units(const Ref<K>& v) {
    return v.size;
  }
  /// Slots of the table and its stash as lookups see it (the flag passes run over them).
  template <class K>
  static VOXHASH_HD std::uint32_t slot_count(const Ref<K>& v) {
    return v.size + v.stash_size;
  }
  template <class K>
  static void set_stash(Ref<K>& v, std::uint32_t stash) {
    v.stash_size = stash;
  }
  template <class K>
  static VOXHASH_HD std::uint32_t is_first_copy(const Ref<K>& v, std::uint32_t s) {
    return core::is_first_copy(v, s);
  }

  /// A build's insertions: keys[0..n) into the (already emptied) table, a thread per key;
  /// records failures, copies met, stash entries and chain lengths.
  template <class Exec, class K>
  static void insert_all(Exec& exec,
                         Ref<K> view,
                         CuckooEntryOf<K>* slots,
                         const K* keys,
                         const Value* values,
                         std::uint32_t n,
                         std::uint32_t max_chain,
                         BuildStatus* status) {
    exec.for_each(
        n,
        [=] VOXHASH_LAMBDA(std::uint32_t i) {
          const K key = keys[i];
          if (key == kEmptyKeyOf<K>) {
            core::atomic_store(&status->sentinel_key, 1u);
            return;
          }
          // This attempt is lost already: stop early (a relaxed read; a stale 0 only costs work).
          if (core::load_hint(&status->failed)) return;
          const core::BasicInsertResult<K> r =
              core::cuckoo_insert(view, slots, key, value_or_index(values, i), max_chain);
          if (!r.placed) core::atomic_store(&status->failed, 1u);
          if (r.placed && !r.filled) core::atomic_store(&status->met_copy, 1u);
          if (r.stashed) core::atomic_add(&status->stashed, 1u);
          core::record_max(&status->longest_chain, r.chain);
        },
        128);
  }

  /// Looks up every query, kQueryBatch per thread (strided, so loads stay coalesced), and calls
  /// f(i, slot, entry) with the first copy's slot (or kNotFound) and entry.
  template <class Exec, class K, class F>
  static void query(Stream stream, Ref<K> v, const K* q, std::uint32_t count, F f) {
    constexpr int B            = kQueryBatch;
    const std::uint32_t stride = (count + B - 1) / B;
    Exec exec(stream);
    exec.for_each(stride, [=] VOXHASH_LAMBDA(std::uint32_t t) {
      K key[B];
      std::uint32_t slot[B];
      CuckooEntryOf<K> entry[B];
      VOXHASH_UNROLL
      for (int k = 0; k < B; ++k) {
        const std::uint32_t i = t + k * stride;
        key[k]                = i < count ? q[i] : kEmptyKeyOf<K>;
      }
      v.template find_batch<B>(key, slot, entry);
      VOXHASH_UNROLL
      for (int k = 0; k < B; ++k) {
        const std::uint32_t i = t + k * stride;
        if (i < count) f(i, slot[k], entry[k]);
      }
    });
  }

  /// A change's first step: each pair's value (or kDeletedValue, erasing) into every copy of its
  /// key, a thread per key; nothing is inserted meanwhile.
  template <class Exec, class K>
  static void assign_all(Exec& exec,
                         Ref<K> view,
                         CuckooEntryOf<K>* slots,
                         const K* keys,
                         const Value* values,
                         std::uint32_t n,
                         bool erase) {
    exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
      const Value value = erase ? kDeletedValue : value_or_index(values, i);
      core::cuckoo_assign(view, slots, keys[i], value, detail::AnyEntry{});
    });
  }

  /// An insert's second step: each key not in the table yet inserted, a thread per key; an item
  /// no chain nor the stash could place goes to overflow[op->unplaced++].
  template <class Exec, class K>
  static void insert_new_all(Exec& exec,
                             Ref<K> view,
                             CuckooEntryOf<K>* slots,
                             const K* keys,
                             const Value* values,
                             std::uint32_t n,
                             std::uint32_t max_chain,
                             SlotOpStatus* op,
                             CuckooEntryOf<K>* overflow) {
    exec.for_each(
        n,
        [=] VOXHASH_LAMBDA(std::uint32_t i) {
          const K key = keys[i];
          if (view.find_slot(key) != kNotFound) return;
          const core::BasicInsertResult<K> r =
              core::cuckoo_insert(view, slots, key, value_or_index(values, i), max_chain);
          if (r.filled) core::atomic_add(&op->filled, 1u);
          if (r.stashed) core::atomic_add(&op->stashed, 1u);
          if (!r.placed) overflow[core::atomic_add(&op->unplaced, 1u)] = r.unplaced;
        },
        128);
  }
};

/// A bucket of detail::kBucketSlots slots per hash function, searched by a tile: the bucketed
/// cuckoo table (BCHT). No stash.
struct BucketTile {
  template <class K>
  using Ref = BasicBucketedCuckooRef<K>;
  template <class K>
  using Interface = BasicBucketedCuckooTable<K>;
  template <class Exec>
  using Tile = typename Exec::template Tile<kBucketLanes>;

  static constexpr const char* kName      = "bucketed cuckoo table";
  static constexpr std::size_t kUnitSlots = detail::kBucketSlots;

  /// Buckets for `keys` keys at the configured space; slot indices must stay below kNotFound.
  static std::uint32_t units_for(const BuildOptions& options, std::size_t keys) {
    const double slots = std::max(std::ceil(options.cuckoo_space * static_cast<double>(keys)), 1.0);
    const double buckets = std::ceil(slots / detail::kBucketSlots);
    if (buckets * detail::kBucketSlots >= static_cast<double>(kNotFound)) {
      std::ostringstream msg;
      msg << kName << ": " << keys << " keys at space " << options.cuckoo_space
          << " need more than 2^32 - 1 slots";
      throw InvalidInput(msg.str());
    }
    return static_cast<std::uint32_t>(buckets);
  }
  static std::uint32_t stash_for(const BuildOptions&) { return 0; }

  template <class K>
  static VOXHASH_HD std::uint32_t units(const Ref<K>& v) {
    return v.buckets;
  }
  template <class K>
  static VOXHASH_HD std::uint32_t slot_count(const Ref<K>& v) {
    return v.buckets * static_cast<std::uint32_t>(detail::kBucketSlots);
  }
  template <class K>
  static void set_stash(Ref<K>&, std::uint32_t) {}
  template <class K>
  static VOXHASH_HD std::uint32_t is_first_copy(const Ref<K>& v, std::uint32_t s) {
    return core::is_first_copy(v, s);
  }

  /// A build's insertions: keys[0..n) into the (already emptied) table, one tile per key;
  /// records failures, copies met and chain lengths.
  template <class Exec, class K>
  static void insert_all(Exec& exec,
                         Ref<K> view,
                         CuckooEntryOf<K>* slots,
                         const K* keys,
                         const Value* values,
                         std::uint32_t n,
                         std::uint32_t max_chain,
                         BuildStatus* status) {
    exec.template for_each_tile<kBucketLanes>(
        n, [=] VOXHASH_LAMBDA(Tile<Exec> tile, std::uint32_t i) {
          const K key = keys[i];
          if (key == kEmptyKeyOf<K>) {
            if (tile.rank() == 0) core::atomic_store(&status->sentinel_key, 1u);
            return;
          }
          // This attempt is lost already: stop early (a relaxed read; a stale 0 only costs work).
          // Lane 0's reading decides for the whole tile, which must stay together.
          if (tile.shfl(core::load_hint(&status->failed), 0)) return;
          const core::BucketInsertResult<K> r =
              core::bucketed_insert(tile, view, slots, key, value_or_index(values, i), max_chain);
          if (tile.rank() != 0) return;
          if (!r.placed) core::atomic_store(&status->failed, 1u);
          // Read before writing: in a frame most insertions meet a copy, and a store from each of
          // them to one word serializes them there; once set, the flag is only read.
          if (r.met_copy && !core::load_hint(&status->met_copy))
            core::atomic_store(&status->met_copy, 1u);
          core::record_max(&status->longest_chain, r.chain);
        });
  }

  /// Looks up every query, kBucketQueryBatch per tile (strided, so query loads stay coalesced),
  /// and lane 0 calls f(i, slot, entry) with the first copy's slot (or kNotFound) and entry.
  template <class Exec, class K, class F>
  static void query(Stream stream, Ref<K> v, const K* q, std::uint32_t count, F f) {
    constexpr int B            = kBucketQueryBatch;
    const std::uint32_t stride = (count + B - 1) / B;
    Exec exec(stream);
    exec.template for_each_tile<kBucketLanes>(stride,
                                              [=] VOXHASH_LAMBDA(Tile<Exec> tile, std::uint32_t t) {
                                                K key[B];
                                                std::uint32_t slot[B];
                                                CuckooEntryOf<K> entry[B];
                                                VOXHASH_UNROLL
                                                for (int k = 0; k < B; ++k) {
                                                  const std::uint32_t i = t + k * stride;
                                                  key[k] = i < count ? q[i] : kEmptyKeyOf<K>;
                                                }
                                                v.find_batch(tile, key, slot, entry);
                                                if (tile.rank() != 0) return;
                                                VOXHASH_UNROLL
                                                for (int k = 0; k < B; ++k) {
                                                  const std::uint32_t i = t + k * stride;
                                                  if (i < count) f(i, slot[k], entry[k]);
                                                }
                                              });
  }

  /// A change's first step: each pair's value (or kDeletedValue, erasing) into every copy of its
  /// key, a tile per key; nothing is inserted meanwhile.
  template <class Exec, class K>
  static void assign_all(Exec& exec,
                         Ref<K> view,
                         CuckooEntryOf<K>* slots,
                         const K* keys,
                         const Value* values,
                         std::uint32_t n,
                         bool erase) {
    exec.template for_each_tile<kBucketLanes>(
        n, [=] VOXHASH_LAMBDA(Tile<Exec> tile, std::uint32_t i) {
          const Value value = erase ? kDeletedValue : value_or_index(values, i);
          core::bucketed_assign(tile, view, slots, keys[i], value);
        });
  }

  /// An insert's second step: each key inserted, a tile per key (an insertion that finds its key
  /// in a bucket ends there, so keys present already are left as the first step set them); an
  /// item no chain could place goes to overflow[op->unplaced++].
  template <class Exec, class K>
  static void insert_new_all(Exec& exec,
                             Ref<K> view,
                             CuckooEntryOf<K>* slots,
                             const K* keys,
                             const Value* values,
                             std::uint32_t n,
                             std::uint32_t max_chain,
                             SlotOpStatus* op,
                             CuckooEntryOf<K>* overflow) {
    exec.template for_each_tile<kBucketLanes>(
        n, [=] VOXHASH_LAMBDA(Tile<Exec> tile, std::uint32_t i) {
          const core::BucketInsertResult<K> r = core::bucketed_insert(
              tile, view, slots, keys[i], value_or_index(values, i), max_chain);
          if (tile.rank() != 0) return;
          if (r.placed && !r.met_copy) core::atomic_add(&op->filled, 1u);
          if (!r.placed) overflow[core::atomic_add(&op->unplaced, 1u)] = r.unplaced;
        });
  }
};

}  // namespace voxhash::tables
