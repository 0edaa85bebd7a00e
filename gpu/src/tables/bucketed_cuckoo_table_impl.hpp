// BucketedCuckooTableImpl<Exec>: the bucketed cuckoo table's host logic, written once for both
// backends. Exec is CpuExec or CudaExec; the per-element work is core/bucketed_cuckoo.hpp and the
// public BucketedCuckooRef, run on the executor's tiles (kBucketLanes lanes per key on the GPU).
//
// Build: fill the buckets with ∅, one insertion per key (eviction chains of at most 7 lg n),
// restart with fresh constants if any chain hit the limit; then the compacting clean-up of the
// cuckoo table: flag the first copy of each key, prefix-sum the flags into dense ids, list the
// unique keys and count each key's multiplicity. Multivalue (only when asked) as the cuckoo
// table's: sort, run-length encode, insert each unique key once with its dense id
// (tables/multivalue_lists.hpp). K is the key width: 32-bit keys in 64-byte buckets (the fast
// path), 64-bit keys in 128-byte buckets of 16-byte slots.
#pragma once

#include "core/bucketed_cuckoo.hpp"
#include "tables/build_retry.hpp"
#include "tables/build_status.hpp"
#include "tables/multivalue_lists.hpp"

#include <voxhash/bucketed_cuckoo_table.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>

#include <algorithm>
#include <cmath>
#include <random>
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

/// Inserts keys[0..n) into the (already emptied) table, one tile per key; records failures and
/// chain lengths.
template <class Exec, class K>
void bucketed_insert_all(Exec& exec,
                         BasicBucketedCuckooRef<K> view,
                         CuckooEntryOf<K>* slots,
                         const K* keys,
                         const Value* values,
                         std::uint32_t n,
                         std::uint32_t max_chain,
                         BuildStatus* status) {
  using Tile = typename Exec::template Tile<kBucketLanes>;
  exec.template for_each_tile<kBucketLanes>(n, [=] VOXHASH_LAMBDA(Tile tile, std::uint32_t i) {
    const K key = keys[i];
    if (key == kEmptyKeyOf<K>) {
      if (tile.rank() == 0) core::atomic_store(&status->sentinel_key, 1u);
      return;
    }
    // This attempt is lost already: stop early (a relaxed read; a stale 0 only costs work). Lane
    // 0's reading decides for the whole tile, which must stay together.
    if (tile.shfl(core::load_hint(&status->failed), 0)) return;
    const core::BucketInsertResult r =
        core::bucketed_insert(tile, view, slots, key, value_or_index(values, i), max_chain);
    if (tile.rank() != 0) return;
    if (!r.placed) core::atomic_store(&status->failed, 1u);
    // Read before writing: in a frame most insertions meet a copy, and a store from each of them
    // to one word serializes them there; once set, the flag is only read.
    if (r.met_copy && !core::load_hint(&status->met_copy))
      core::atomic_store(&status->met_copy, 1u);
    core::record_max(&status->longest_chain, r.chain);
  });
}

/// Compacting clean-up, step one: flags[s] = 1 where slot s holds the first copy of its key.
template <class Exec, class K>
void bucketed_flag_first_copies(Exec& exec, BasicBucketedCuckooRef<K> view, std::uint32_t* flags) {
  exec.for_each(view.buckets * std::size_t{detail::kBucketSlots},
                [=] VOXHASH_LAMBDA(std::uint32_t s) { flags[s] = core::is_first_copy(view, s); });
}

/// Sets *flag where a slot holds a later copy of its key (a key stored twice).
template <class Exec, class K>
void bucketed_flag_later_copies(Exec& exec, BasicBucketedCuckooRef<K> view, std::uint32_t* flag) {
  exec.for_each(
      view.buckets * std::size_t{detail::kBucketSlots}, [=] VOXHASH_LAMBDA(std::uint32_t s) {
        if (detail::entry_key(view.slots[s]) != kEmptyKeyOf<K> && !core::is_first_copy(view, s))
          core::atomic_store(flag, 1u);
      });
}

/// Step two (after the scan): list each unique key at its dense id.
template <class Exec, class K>
void bucketed_list_unique(Exec& exec,
                          BasicBucketedCuckooRef<K> view,
                          const std::uint32_t* flags,
                          K* unique_keys) {
  exec.for_each(view.buckets * std::size_t{detail::kBucketSlots},
                [=] VOXHASH_LAMBDA(std::uint32_t s) {
                  if (flags[s]) unique_keys[view.slot_rank[s]] = detail::entry_key(view.slots[s]);
                });
}

/// Step three: counts[id] = multiplicity of the key with that id in the input.
template <class Exec, class K>
void bucketed_count_input(Exec& exec,
                          BasicBucketedCuckooRef<K> view,
                          const K* keys,
                          std::uint32_t n,
                          std::uint32_t* counts) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    core::atomic_add(&counts[view.find_id(keys[i])], 1u);
  });
}

template <class Exec, class K = Key>
class BucketedCuckooTableImpl final : public BasicBucketedCuckooTable<K> {
  using Ref      = BasicBucketedCuckooRef<K>;
  using MultiRef = voxhash::MultiRef<Ref>;
  using Entry    = CuckooEntryOf<K>;

 public:
  explicit BucketedCuckooTableImpl(const BuildOptions& options) : m_rng(options.seed) {
    set_options(options);
  }

  void set_options(const BuildOptions& options) override {
    if (!(options.cuckoo_space >= 1.0)) {
      throw InvalidInput("bucketed cuckoo table: space must be at least 1.0 slots per key");
    }
    if (options.max_attempts < 1) {
      throw InvalidInput("bucketed cuckoo table: max_attempts must be >= 1");
    }
    m_options = options;
  }

  [[nodiscard]] Backend backend() const override { return Exec::kBackend; }

  BuildStats build(const K* keys, const Value* values, std::size_t n, Stream stream) override {
    check_size(n, "bucketed cuckoo table");
    clear();
    m_exec.set_stream(stream);
    BuildStats stats;
    stats.keys = n;
    if (n == 0) return m_stats = stats;
    const auto count = static_cast<std::uint32_t>(n);
    if (m_options.multivalue) {
      m_status.resize(1);
      if (!m_lists.build(m_exec, keys, values, count, m_status.data())) {
        clear();
        throw_sentinel_key<K>("bucketed cuckoo table");
      }
      const std::uint32_t unique = m_lists.unique_count();
      insert(m_lists.unique_keys(), nullptr, unique, unique, stats);
      m_multi           = m_lists.ref(m_view);
      stats.unique_keys = unique;
    } else {
      insert(keys, values, count, m_options.expected_unique, stats);
      if (m_options.unique_ids) compact(keys, count, stats);
    }
    stats.bytes    = held_bytes();
    return m_stats = stats;
  }

  /// The frame's build (a VoxelList: distinct keys, none the sentinel; options without ids,
  /// multiplicities or multivalue): one attempt queued on `stream`, nothing read. status() says,
  /// once the stream has run it, whether every key was placed (BuildStatus::failed: build()
  /// again, which retries).
  void queue_build(const K* keys, std::size_t n, Stream stream) {
    check_size(n, "bucketed cuckoo table");
    clear();
    m_exec.set_stream(stream);
    const auto count = static_cast<std::uint32_t>(n);
    m_view           = queue_set_build<Ref>(
        m_exec,
        m_slots,
        m_status,
        m_rng,
        m_options,
        "bucketed cuckoo table",
        count,
        buckets_for(n),
        detail::kBucketSlots,
        m_stats,
        [&](const Ref& view, std::uint32_t chain) {
          bucketed_insert_all(
              m_exec, view, m_slots.data(), keys, nullptr, count, chain, m_status.data());
        });
    m_stats.bytes = held_bytes();
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
    query(stream, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t slot, Entry e) {
      out[i] = slot == kNotFound ? kNotFound : detail::entry_value(e);
    });
  }
  void contains_async(const K* q, std::size_t n, std::uint8_t* out, Stream stream) const override {
    query(stream, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t slot, Entry) {
      out[i] = slot != kNotFound;
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
    if (m_view.buckets != 0 && !m_view.counts) {
      throw InvalidInput(
          "bucketed cuckoo table: count needs a build with BuildOptions::unique_ids and "
          "multiplicities");
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
    if (m_view.buckets != 0 && !m_view.slot_rank) {
      throw InvalidInput(
          "bucketed cuckoo table: find_id needs a build with BuildOptions::unique_ids");
    }
    const Ref v = m_view;
    query(stream, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t slot, Entry) {
      out[i] = slot == kNotFound ? kNotFound : v.slot_rank[slot];
    });
  }

  /// Looks up every query, kBucketQueryBatch per tile (strided, so query loads stay coalesced), and
  /// lane 0 calls f(i, slot, entry) with the first copy's slot (or kNotFound) and entry.
  template <class F>
  void query(Stream stream, const K* q, std::size_t n, F f) const {
    constexpr int B            = kBucketQueryBatch;
    using Tile                 = typename Exec::template Tile<kBucketLanes>;
    const Ref v                = m_view;
    const auto count           = static_cast<std::uint32_t>(n);
    const std::uint32_t stride = (count + B - 1) / B;
    Exec exec(stream);
    exec.template for_each_tile<kBucketLanes>(stride,
                                              [=] VOXHASH_LAMBDA(Tile tile, std::uint32_t t) {
                                                K key[B];
                                                std::uint32_t slot[B];
                                                Entry entry[B];
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
    if (m_view.buckets != 0 && !m_multi.offsets) {
      throw InvalidInput(
          "bucketed cuckoo table: multi_ref needs a build with BuildOptions::multivalue");
    }
    return m_multi;
  }

  /// Whether the last build's keys were all distinct, without dense ids: no insertion met a copy
  /// of its own key and no slot holds a later copy of a key (racing insertions of one key can
  /// leave two). What a join of a unique-key side needs to know, in one pass over the slots that
  /// mostly re-reads the slot's own bucket. Synchronizes.
  [[nodiscard]] bool distinct_keys() {
    if (m_met_copy) return false;
    if (m_view.buckets == 0) return true;
    // The build's status word is the flag: no allocation (and no free) inside a timed join.
    m_exec.write_async(m_status.data(), BuildStatus{});
    bucketed_flag_later_copies(m_exec, m_view, &m_status.data()->met_copy);
    return m_exec.read(m_status.data()).met_copy == 0;
  }

 private:
  [[nodiscard]] std::size_t held_bytes() const {
    return m_slots.bytes() + m_rank.bytes() + m_unique.bytes() + m_counts.bytes() + m_lists.bytes();
  }

  void clear() {
    m_view     = Ref{};
    m_multi    = MultiRef{};
    m_met_copy = false;
    m_lists.clear();
    m_unique.resize(0);
    m_counts.resize(0);
    m_rank.resize(0);
    m_stats = BuildStats{};
  }

  /// Buckets for `keys` keys at the configured space; slot indices must stay below kNotFound.
  [[nodiscard]] std::uint32_t buckets_for(std::size_t keys) const {
    const double slots =
        std::max(std::ceil(m_options.cuckoo_space * static_cast<double>(keys)), 1.0);
    const double buckets = std::ceil(slots / detail::kBucketSlots);
    if (buckets * detail::kBucketSlots >= static_cast<double>(kNotFound)) {
      std::ostringstream msg;
      msg << "bucketed cuckoo table: " << keys << " keys at space " << m_options.cuckoo_space
          << " need more than 2^32 - 1 slots";
      throw InvalidInput(msg.str());
    }
    return static_cast<std::uint32_t>(buckets);
  }

  /// Inserts keys[0..n) (values or indices), sized for `expected` unique keys (0: n), retrying
  /// with fresh constants; sets m_view or throws.
  void insert(const K* keys,
              const Value* values,
              std::uint32_t n,
              std::size_t expected,
              BuildStats& stats) {
    const CuckooRetryResult<Ref> r = insert_with_retries<Ref>(
        m_exec,
        m_slots,
        m_status,
        m_rng,
        m_options,
        {"bucketed cuckoo table", n, expected, detail::kBucketSlots},
        stats,
        [&](std::size_t k) { return buckets_for(k); },
        [&](const Ref& view, std::uint32_t max_chain) {
          bucketed_insert_all(
              m_exec, view, m_slots.data(), keys, values, n, max_chain, m_status.data());
        },
        [&] { clear(); });
    m_view     = r.view;
    m_met_copy = r.met_copy;
  }

  void compact(const K* keys, std::uint32_t n, BuildStats& stats) {
    const std::size_t slots = m_slots.size();
    m_rank.resize(std::size_t{slots} + 1);  // one past the end: the total, read once
    m_flags.resize(std::size_t{slots} + 1);
    bucketed_flag_first_copies(m_exec, m_view, m_flags.data());
    m_exec.write_async(m_flags.data() + slots, 0u);
    m_exec.exclusive_sum(m_flags.data(), m_rank.data(), std::size_t{slots} + 1);
    const std::uint32_t unique = m_exec.read(m_rank.data() + slots);
    m_view.slot_rank           = m_rank.data();
    m_unique.resize(unique);
    bucketed_list_unique(m_exec, m_view, m_flags.data(), m_unique.data());
    if (m_options.multiplicities) {
      m_counts.resize(unique);
      m_exec.fill(m_counts.data(), unique, 0u);
      bucketed_count_input(m_exec, m_view, keys, n, m_counts.data());
      m_view.counts = m_counts.data();
    }
    stats.unique_keys = unique;
    m_flags.resize(0);
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
  MultivalueLists<Exec, K> m_lists;
  Ref m_view{};
  MultiRef m_multi{};
  bool m_met_copy = false;  // an insertion of the last build stopped on a copy of its key
  BuildStats m_stats{};
};

}  // namespace voxhash::tables
