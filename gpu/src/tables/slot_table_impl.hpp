// SlotTableImpl<Exec, K, Scheme>: the slot tables' host logic, written once for both backends, both
// key widths and both layouts, as cuCollections' open_addressing_impl is under static_set and
// static_map. Scheme (tables/slot_schemes.hpp) is what differs: SingleSlot (CuckooTableImpl,
// Alcantara's cuckoo table with a stash) or BucketTile (BucketedCuckooTableImpl, BCHT).
//
// Build: fill slots with ∅, one insertion per key (eviction chains of at most 7 lg n exchanges;
// the single-slot table's chain that fails puts its item in the stash), restart with fresh
// constants if an item could not be placed (tables/build_retry.hpp); then the compacting clean-up:
// flag the first copy of each key, prefix-sum the flags into dense ids, list the unique keys and
// count each key's multiplicity. Multivalue (only when asked) is the chapter's way instead:
// radix-sort the pairs by key, run-length encode the sorted keys (unique keys, counts; offsets by
// a scan: tables/multivalue_lists.hpp), and insert only the unique keys, each with its dense id as
// its value. Changes after a build (insert-or-assign, erase, update; slot_table.hpp): values into
// every copy of the keys present first, then the new keys inserted; an item no chain could place
// goes to an overflow list and the table is rebuilt from its live entries. K is the key width:
// 8-byte slots for 32-bit keys (the fast path), 16-byte slots for 64-bit keys.
#pragma once

#include "core/atomics.hpp"
#include "tables/build_retry.hpp"
#include "tables/build_status.hpp"
#include "tables/multivalue_lists.hpp"
#include "tables/slot_schemes.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

namespace voxhash::tables {

/// flags[s] = 1 where slot s holds the first copy of its key (with kLiveOnly: and it is not
/// erased): the compacting clean-up's first step, and a rebuild's gathering.
template <class Scheme, bool kLiveOnly, class Exec, class Ref>
void slot_flag_first_copies(Exec& exec, Ref view, std::uint32_t* flags) {
  exec.for_each(Scheme::slot_count(view), [=] VOXHASH_LAMBDA(std::uint32_t s) {
    std::uint32_t first = Scheme::is_first_copy(view, s);
    if constexpr (kLiveOnly) first &= detail::entry_value(view.slots[s]) != kDeletedValue;
    flags[s] = first;
  });
}

/// Sets *flag where a slot holds a later copy of its key (a key stored twice).
template <class Scheme, class Exec, class Ref>
void slot_flag_later_copies(Exec& exec, Ref view, std::uint32_t* flag) {
  using K = typename Ref::key_type;
  exec.for_each(Scheme::slot_count(view), [=] VOXHASH_LAMBDA(std::uint32_t s) {
    if (detail::entry_key(view.slots[s]) != kEmptyKeyOf<K> && !Scheme::is_first_copy(view, s))
      core::atomic_store(flag, 1u);
  });
}

/// The clean-up's step two (after the scan): list each unique key at its dense id.
template <class Scheme, class Exec, class Ref>
void slot_list_unique(Exec& exec,
                      Ref view,
                      const std::uint32_t* flags,
                      typename Ref::key_type* unique_keys) {
  exec.for_each(Scheme::slot_count(view), [=] VOXHASH_LAMBDA(std::uint32_t s) {
    if (flags[s]) unique_keys[view.slot_rank[s]] = detail::entry_key(view.slots[s]);
  });
}

/// Step three: counts[id] = multiplicity of the key with that id in the input.
template <class Exec, class Ref>
void slot_count_input(Exec& exec,
                      Ref view,
                      const typename Ref::key_type* keys,
                      std::uint32_t n,
                      std::uint32_t* counts) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    core::atomic_add(&counts[view.find_id(keys[i])], 1u);
  });
}

/// A change's check before anything changes: sentinel keys and (with values) deleted markers.
template <class Exec, class K>
void slot_validate(
    Exec& exec, const K* keys, const Value* values, std::uint32_t n, SlotOpStatus* op) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    if (keys[i] == kEmptyKeyOf<K>) core::atomic_store(&op->sentinel_key, 1u);
    if (values && values[i] == kDeletedValue) core::atomic_store(&op->bad_value, 1u);
  });
}

/// op->filled += the occupied slots of the table and its stash.
template <class Scheme, class Exec, class Ref>
void slot_count_occupied(Exec& exec, Ref view, SlotOpStatus* op) {
  using K = typename Ref::key_type;
  exec.for_each(Scheme::slot_count(view), [=] VOXHASH_LAMBDA(std::uint32_t s) {
    core::aggregate_add_at(&op->filled, 0, detail::entry_key(view.slots[s]) != kEmptyKeyOf<K>);
  });
}

/// A rebuild's gathering (after the scan of slot_flag_first_copies<…, true>): each live first
/// copy's pair at its rank, then the `unplaced` overflow items after the `live` ones.
template <class Scheme, class Exec, class Ref>
void slot_gather(Exec& exec,
                 Ref view,
                 const std::uint32_t* flags,
                 const std::uint32_t* rank,
                 const typename Ref::Entry* overflow,
                 std::uint32_t live,
                 std::uint32_t unplaced,
                 typename Ref::key_type* keys,
                 Value* values) {
  exec.for_each(Scheme::slot_count(view), [=] VOXHASH_LAMBDA(std::uint32_t s) {
    if (!flags[s]) return;
    keys[rank[s]]   = detail::entry_key(view.slots[s]);
    values[rank[s]] = detail::entry_value(view.slots[s]);
  });
  exec.for_each(unplaced, [=] VOXHASH_LAMBDA(std::uint32_t j) {
    keys[live + j]   = detail::entry_key(overflow[j]);
    values[live + j] = detail::entry_value(overflow[j]);
  });
}

template <class Exec, class K, class Scheme>
class SlotTableImpl final : public Scheme::template Interface<K> {
 public:
  using Ref      = typename Scheme::template Ref<K>;
  using MultiRef = voxhash::MultiRef<Ref>;
  using Entry    = CuckooEntryOf<K>;

  explicit SlotTableImpl(const BuildOptions& options) : m_rng(options.seed) {
    set_options(options);
  }

  void set_options(const BuildOptions& options) override {
    if (!(options.cuckoo_space >= 1.0)) {
      throw InvalidInput(std::string(Scheme::kName) + ": space must be at least 1.0 slots per key");
    }
    if (options.max_attempts < 1) {
      throw InvalidInput(std::string(Scheme::kName) + ": max_attempts must be >= 1");
    }
    m_options = options;
  }

  [[nodiscard]] Backend backend() const override { return Exec::kBackend; }

  BuildStats build(const K* keys, const Value* values, std::size_t n, Stream stream) override {
    check_size(n, Scheme::kName);
    clear();
    m_exec.set_stream(stream);
    BuildStats stats;
    stats.keys = n;
    if (n == 0) return m_stats = stats;
    const auto count = static_cast<std::uint32_t>(n);
    if (m_options.multivalue) {
      build_multivalue(keys, values, count, stats);
    } else {
      place(keys, values, count, m_options.expected_unique, 0, stats);
      if (m_options.unique_ids) compact(keys, count, stats);
    }
    stats.bytes    = held_bytes();
    return m_stats = stats;
  }

  /// The frame's build (a VoxelList: distinct keys, none the sentinel; options without ids,
  /// multiplicities or multivalue): one attempt without a stash queued on `stream`, nothing read.
  /// status() says, once the stream has run it, whether every key was placed
  /// (BuildStatus::failed: build() again, which retries).
  void queue_build(const K* keys, std::size_t n, Stream stream) {
    check_size(n, Scheme::kName);
    clear();
    m_exec.set_stream(stream);
    const auto count = static_cast<std::uint32_t>(n);
    m_view           = queue_set_build<Ref>(m_exec,
                                  m_slots,
                                  m_status,
                                  m_rng,
                                  m_options,
                                  Scheme::kName,
                                  count,
                                  Scheme::units_for(m_options, n),
                                  Scheme::kUnitSlots,
                                  m_stats,
                                  [&](const Ref& view, std::uint32_t chain) {
                                    Scheme::insert_all(m_exec,
                                                       view,
                                                       m_slots.data(),
                                                       keys,
                                                       static_cast<const Value*>(nullptr),
                                                       count,
                                                       chain,
                                                       m_status.data());
                                  });
    m_stats.bytes    = held_bytes();
  }
  /// The last build's status word (device memory): see queue_build.
  [[nodiscard]] const BuildStatus* status() const { return m_status.data(); }

  void find_async(const K* q, std::size_t n, Value* out, Stream stream) const override {
    if (m_multi.offsets) {
      const MultiRef m = m_multi;
      query(stream, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t slot, Entry e) {
        out[i] = slot == kNotFound ? kNotFound : m.value_of(e);
      });
      return;
    }
    // An erased key's entry holds kDeletedValue, which is kNotFound.
    query(stream, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t slot, Entry e) {
      out[i] = slot == kNotFound ? kNotFound : detail::entry_value(e);
    });
  }
  void contains_async(const K* q, std::size_t n, std::uint8_t* out, Stream stream) const override {
    // An erased key's entry holds kDeletedValue (a multivalue table's values are ids, never it).
    query(stream, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t slot, Entry e) {
      out[i] = slot != kNotFound && detail::entry_value(e) != kDeletedValue;
    });
  }
  void count_async(const K* q, std::size_t n, std::uint32_t* out, Stream stream) const override {
    if (m_multi.offsets) {
      const MultiRef m = m_multi;
      query(stream, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t slot, Entry e) {
        out[i] = slot == kNotFound ? 0u : m.range_of_id(detail::entry_value(e)).count;
      });
      return;
    }
    if (Scheme::units(m_view) != 0 && !m_view.counts) {
      throw InvalidInput(std::string(Scheme::kName) +
                         ": count needs a build with BuildOptions::unique_ids and multiplicities");
    }
    const Ref v = m_view;
    query(stream, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t slot, Entry) {
      out[i] = slot == kNotFound ? 0u : v.counts[v.slot_rank[slot]];
    });
  }
  void find_id_async(const K* q, std::size_t n, std::uint32_t* out, Stream stream) const override {
    if (m_multi.offsets) {
      query(stream, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t slot, Entry e) {
        out[i] = slot == kNotFound ? kNotFound : detail::entry_value(e);
      });
      return;
    }
    if (Scheme::units(m_view) != 0 && !m_view.slot_rank) {
      throw InvalidInput(std::string(Scheme::kName) +
                         ": find_id needs a build with BuildOptions::unique_ids");
    }
    const Ref v = m_view;
    query(stream, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t slot, Entry) {
      out[i] = slot == kNotFound ? kNotFound : v.slot_rank[slot];
    });
  }

  /// Looks up every query in the scheme's launch shape and calls f(i, slot, entry) with the first
  /// copy's slot (or kNotFound) and entry.
  template <class F>
  void query(Stream stream, const K* q, std::size_t n, F f) const {
    Scheme::template query<Exec>(stream, m_view, q, static_cast<std::uint32_t>(n), f);
  }

  void insert(const K* keys, const Value* values, std::size_t n, Stream stream) override {
    change(Change::Insert, keys, values, n, stream);
  }
  void erase(const K* keys, std::size_t n, Stream stream) override {
    change(Change::Erase, keys, nullptr, n, stream);
  }
  void update(const K* keys, const Value* values, std::size_t n, Stream stream) override {
    change(Change::Update, keys, values, n, stream);
  }

  [[nodiscard]] std::size_t unique_count() const override {
    return m_multi.offsets ? m_lists.unique_count() : m_unique.size();
  }
  [[nodiscard]] const K* unique_keys() const override {
    return m_multi.offsets ? m_lists.unique_keys() : m_unique.data();
  }
  [[nodiscard]] const BuildStats& stats() const override { return m_stats; }
  /// The table as kernels see it. After a multivalue build each slot's value is its key's dense
  /// id and slot_rank / counts are null: multi_ref() reaches the values.
  [[nodiscard]] Ref ref() const override { return m_view; }

  [[nodiscard]] MultiRef multi_ref() const override {
    if (Scheme::units(m_view) != 0 && !m_multi.offsets) {
      throw InvalidInput(std::string(Scheme::kName) +
                         ": multi_ref needs a build with BuildOptions::multivalue");
    }
    return m_multi;
  }

  /// Whether the last build's keys were all distinct, without dense ids: no insertion met a copy
  /// of its own key and no slot holds a later copy of a key (racing insertions of one key can
  /// leave two). What a join of a unique-key side needs to know, in one pass over the slots.
  /// Synchronizes.
  [[nodiscard]] bool distinct_keys() {
    if (m_met_copy) return false;
    if (Scheme::units(m_view) == 0) return true;
    // The build's status word is the flag: no allocation (and no free) inside a timed join.
    m_exec.write_async(m_status.data(), BuildStatus{});
    slot_flag_later_copies<Scheme>(m_exec, m_view, &m_status.data()->met_copy);
    return m_exec.read(m_status.data()).met_copy == 0;
  }

 private:
  enum class Change { Insert, Erase, Update };
  static constexpr std::size_t kUnknown = std::numeric_limits<std::size_t>::max();

  [[nodiscard]] std::size_t held_bytes() const {
    return m_slots.bytes() + m_rank.bytes() + m_unique.bytes() + m_counts.bytes() + m_lists.bytes();
  }

  void clear() {
    m_view     = Ref{};
    m_multi    = MultiRef{};
    m_met_copy = false;
    m_stash    = 0;
    m_entries  = kUnknown;
    m_lists.clear();
    m_unique.resize(0);
    m_counts.resize(0);
    m_rank.resize(0);
    m_stats = BuildStats{};
  }

  /// The view a change works on: the stash as the build allocated it, no dense ids.
  [[nodiscard]] Ref change_view() const {
    Ref v       = m_view;
    v.slot_rank = nullptr;
    v.counts    = nullptr;
    Scheme::set_stash(v, m_stash);
    return v;
  }

  /// Inserts keys[0..n) (values or indices), sized for `expected` unique keys (0: n) and `extra`
  /// more, retrying with fresh constants; sets m_view (its stash only when a key went there) or
  /// throws.
  void place(const K* keys,
             const Value* values,
             std::uint32_t n,
             std::size_t expected,
             std::size_t extra,
             BuildStats& stats) {
    const std::uint32_t stash      = Scheme::stash_for(m_options);
    const CuckooRetryResult<Ref> r = insert_with_retries<Ref>(
        m_exec,
        m_slots,
        m_status,
        m_rng,
        m_options,
        {Scheme::kName, n, expected, Scheme::kUnitSlots, stash},
        stats,
        [&](std::size_t k) { return Scheme::units_for(m_options, k + extra); },
        [&](const Ref& view, std::uint32_t max_chain) {
          Scheme::insert_all(
              m_exec, view, m_slots.data(), keys, values, n, max_chain, m_status.data());
        },
        [&] { clear(); });
    m_view              = r.view;
    m_stash             = stash;
    m_met_copy          = r.status.met_copy != 0;
    stats.stash_entries = r.status.stashed;
    Scheme::set_stash(m_view, r.status.stashed ? stash : 0);
  }

  /// The multivalue build: the pairs sorted by key (stable: input order within a key) and
  /// run-length encoded into unique keys and offsets, then each unique key inserted once with its
  /// dense id. No slot pass and nothing per slot: a slot per unique key + 8 B per unique key +
  /// 4 B per value.
  void build_multivalue(const K* keys, const Value* values, std::uint32_t n, BuildStats& stats) {
    m_status.resize(1);
    if (!m_lists.build(m_exec, keys, values, n, m_status.data())) {
      clear();
      throw_sentinel_key<K>(Scheme::kName);
    }
    const std::uint32_t unique = m_lists.unique_count();
    place(m_lists.unique_keys(), nullptr, unique, unique, 0, stats);
    m_multi           = m_lists.ref(m_view);
    stats.unique_keys = unique;
  }

  void compact(const K* keys, std::uint32_t n, BuildStats& stats) {
    const std::size_t slots = Scheme::slot_count(m_view);
    m_rank.resize(slots + 1);  // one past the end: the total, read once
    m_flags.resize(slots + 1);
    slot_flag_first_copies<Scheme, false>(m_exec, m_view, m_flags.data());
    m_exec.write_async(m_flags.data() + slots, 0u);
    m_exec.exclusive_sum(m_flags.data(), m_rank.data(), slots + 1);
    const std::uint32_t unique = m_exec.read(m_rank.data() + slots);
    m_view.slot_rank           = m_rank.data();
    m_unique.resize(unique);
    slot_list_unique<Scheme>(m_exec, m_view, m_flags.data(), m_unique.data());
    if (m_options.multiplicities) {
      m_counts.resize(unique);
      m_exec.fill(m_counts.data(), unique, 0u);
      slot_count_input(m_exec, m_view, keys, n, m_counts.data());
      m_view.counts = m_counts.data();
    }
    stats.unique_keys = unique;
    m_flags.resize(0);
  }

  /// insert / erase / update: checked first (the table unchanged on bad input), then the values
  /// into every copy of the keys present, then (insert) the other keys inserted; rebuilt from its
  /// live entries when it has no room or an item found no slot.
  void change(Change what, const K* keys, const Value* values, std::size_t n, Stream stream) {
    check_size(n, Scheme::kName);
    if (m_multi.offsets) {
      throw InvalidInput(std::string(Scheme::kName) +
                         ": insert, erase and update need a table built without "
                         "BuildOptions::multivalue");
    }
    if (n == 0) return;
    m_exec.set_stream(stream);
    const auto count = static_cast<std::uint32_t>(n);
    m_op.resize(1);
    m_exec.write_async(m_op.data(), SlotOpStatus{});
    slot_validate(m_exec, keys, what == Change::Erase ? nullptr : values, count, m_op.data());
    const SlotOpStatus checked = m_exec.read(m_op.data());
    if (checked.sentinel_key) throw_sentinel_key<K>(Scheme::kName);
    if (checked.bad_value) {
      throw InvalidInput(std::string(Scheme::kName) +
                         ": a value equals kDeletedValue (0xFFFFFFFF), the erased-key marker");
    }
    drop_ids();
    if (what != Change::Insert) {
      if (Scheme::units(m_view) != 0) {
        Scheme::assign_all(
            m_exec, change_view(), m_slots.data(), keys, values, count, what == Change::Erase);
      }
      m_exec.synchronize();
      return;
    }
    if (m_entries == kUnknown) m_entries = occupied_slots();
    const double room =
        static_cast<double>(Scheme::units(m_view) * Scheme::kUnitSlots) / m_options.cuckoo_space;
    if (static_cast<double>(m_entries + n) > room) rebuild(n, 0);
    const Ref view = change_view();
    Scheme::assign_all(m_exec, view, m_slots.data(), keys, values, count, false);
    m_overflow.resize(n);
    m_exec.write_async(m_op.data(), SlotOpStatus{});
    Scheme::insert_new_all(m_exec,
                           view,
                           m_slots.data(),
                           keys,
                           values,
                           count,
                           chain_limit(m_options.max_chain, static_cast<double>(m_entries + n)),
                           m_op.data(),
                           m_overflow.data());
    const SlotOpStatus s = m_exec.read(m_op.data());
    m_entries += s.filled;
    if (s.stashed) Scheme::set_stash(m_view, m_stash);
    if (s.unplaced) rebuild(0, s.unplaced);
    m_overflow.resize(0);
    m_stats.bytes = held_bytes();
  }

  /// A change ends the last build's dense ids and multiplicities.
  void drop_ids() {
    m_view.slot_rank = nullptr;
    m_view.counts    = nullptr;
    m_unique.resize(0);
    m_counts.resize(0);
    m_rank.resize(0);
    m_stats.unique_keys = 0;
  }

  /// Occupied slots of the table and its stash (erased entries included). Synchronizes.
  std::size_t occupied_slots() {
    if (Scheme::units(m_view) == 0) return 0;
    m_exec.write_async(m_op.data(), SlotOpStatus{});
    slot_count_occupied<Scheme>(m_exec, change_view(), m_op.data());
    return m_exec.read(m_op.data()).filled;
  }

  /// Rebuilds the table with fresh constants from its live first copies and the first `unplaced`
  /// items of m_overflow, sized for them and `extra` more keys.
  void rebuild(std::size_t extra, std::uint32_t unplaced) {
    const Ref view          = change_view();
    const std::size_t slots = Scheme::units(view) == 0 ? 0 : Scheme::slot_count(view);
    m_flags.resize(slots + 1);
    m_rank.resize(slots + 1);
    if (slots != 0) slot_flag_first_copies<Scheme, true>(m_exec, view, m_flags.data());
    m_exec.write_async(m_flags.data() + slots, 0u);
    m_exec.exclusive_sum(m_flags.data(), m_rank.data(), slots + 1);
    const std::uint32_t live  = m_exec.read(m_rank.data() + slots);
    const std::uint32_t total = live + unplaced;
    Buffer<K> keys(Exec::kBackend, total);
    Buffer<Value> values(Exec::kBackend, total);
    if (slots != 0 || unplaced != 0) {
      slot_gather<Scheme>(m_exec,
                          view,
                          m_flags.data(),
                          m_rank.data(),
                          m_overflow.data(),
                          slots != 0 ? live : 0,
                          unplaced,
                          keys.data(),
                          values.data());
    }
    m_flags.resize(0);
    m_rank.resize(0);
    BuildStats stats;
    stats.keys = total;
    place(keys.data(), values.data(), total, 0, extra, stats);
    m_entries   = total;
    stats.bytes = held_bytes();
    m_stats     = stats;
  }

  BuildOptions m_options;
  std::mt19937_64 m_rng;
  Exec m_exec;
  Buffer<Entry> m_slots{Exec::kBackend, 0};
  Buffer<BuildStatus> m_status{Exec::kBackend, 0};
  Buffer<std::uint32_t> m_flags{Exec::kBackend, 0};
  Buffer<std::uint32_t> m_rank{Exec::kBackend, 0};
  Buffer<K> m_unique{Exec::kBackend, 0};
  Buffer<std::uint32_t> m_counts{Exec::kBackend, 0};
  Buffer<SlotOpStatus> m_op{Exec::kBackend, 0};
  Buffer<Entry> m_overflow{Exec::kBackend, 0};
  MultivalueLists<Exec, K> m_lists;
  Ref m_view{};
  MultiRef m_multi{};
  std::uint32_t m_stash = 0;         // stash slots allocated after the table's (lookups see them
                                     // only once a key went there)
  std::size_t m_entries = kUnknown;  // occupied slots, counted at the first insert after a build
  bool m_met_copy       = false;     // an insertion of the last build stopped on a copy of its key
  BuildStats m_stats{};
};

/// Alcantara's cuckoo table with a stash: one slot per hash function, a thread per key.
template <class Exec, class K = Key>
using CuckooTableImpl = SlotTableImpl<Exec, K, SingleSlot>;

/// The bucketed cuckoo table: a bucket of 8 slots per hash function, a tile per key.
template <class Exec, class K = Key>
using BucketedCuckooTableImpl = SlotTableImpl<Exec, K, BucketTile>;

}  // namespace voxhash::tables
