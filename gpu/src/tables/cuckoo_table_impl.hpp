// CuckooTableImpl<Exec>: the cuckoo table's host logic, written once for both backends. Exec is
// CpuExec or CudaExec; the per-element work is in core/cuckoo.hpp and the public CuckooRef.
//
// Build: fill slots with ∅, one insertion per key (eviction chains of at most 7 lg n exchanges),
// restart with fresh constants if any chain hit the limit; then the compacting clean-up: flag the
// first copy of each key, prefix-sum the flags into dense ids, list the unique keys and count each
// key's multiplicity. Multivalue (only when asked) is the chapter's way instead: radix-sort the
// pairs by key, run-length encode the sorted keys (unique keys, counts; offsets by a scan:
// tables/multivalue_lists.hpp), and insert only the unique keys, each with its dense id as its
// value; a lookup reads the id's two neighbouring offsets for the key's value range. K is the key
// width: 32-bit keys in 8-byte slots (the fast path), 64-bit keys in 16-byte slots.
#pragma once

#include "core/cuckoo.hpp"
#include "tables/build_retry.hpp"
#include "tables/build_status.hpp"
#include "tables/multivalue_lists.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/cuckoo_table.hpp>
#include <voxhash/error.hpp>

#include <algorithm>
#include <cmath>
#include <random>

namespace voxhash::tables {

/// Inserts keys[0..n) into the (already emptied) table; records failures and chain lengths.
template <class Exec, class K>
void cuckoo_insert_all(Exec& exec,
                       BasicCuckooRef<K> view,
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
        core::record_max(&status->longest_chain, r.chain);
      },
      128);
}

/// Compacting clean-up, step one: flags[s] = 1 where slot s holds the first copy of its key.
template <class Exec, class K>
void cuckoo_flag_first_copies(Exec& exec, BasicCuckooRef<K> view, std::uint32_t* flags) {
  exec.for_each(view.size,
                [=] VOXHASH_LAMBDA(std::uint32_t s) { flags[s] = core::is_first_copy(view, s); });
}

/// Sets *flag where a slot holds a later copy of its key (a key stored twice).
template <class Exec, class K>
void cuckoo_flag_later_copies(Exec& exec, BasicCuckooRef<K> view, std::uint32_t* flag) {
  exec.for_each(view.size, [=] VOXHASH_LAMBDA(std::uint32_t s) {
    if (detail::entry_key(view.slots[s]) != kEmptyKeyOf<K> && !core::is_first_copy(view, s)) {
      core::atomic_store(flag, 1u);
    }
  });
}

/// Step two (after the scan): list each unique key at its dense id.
template <class Exec, class K>
void cuckoo_list_unique(Exec& exec,
                        BasicCuckooRef<K> view,
                        const std::uint32_t* flags,
                        K* unique_keys) {
  exec.for_each(view.size, [=] VOXHASH_LAMBDA(std::uint32_t s) {
    if (flags[s]) unique_keys[view.slot_rank[s]] = detail::entry_key(view.slots[s]);
  });
}

/// Step three: counts[id] = multiplicity of the key with that id in the input.
template <class Exec, class K>
void cuckoo_count_input(
    Exec& exec, BasicCuckooRef<K> view, const K* keys, std::uint32_t n, std::uint32_t* counts) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    core::atomic_add(&counts[view.find_id(keys[i])], 1u);
  });
}

template <class Exec, class K = Key>
class CuckooTableImpl final : public BasicCuckooTable<K> {
  using Ref      = BasicCuckooRef<K>;
  using MultiRef = voxhash::MultiRef<Ref>;
  using Entry    = CuckooEntryOf<K>;

 public:
  explicit CuckooTableImpl(const BuildOptions& options) : m_rng(options.seed) {
    set_options(options);
  }

  void set_options(const BuildOptions& options) override {
    if (!(options.cuckoo_space >= 1.0)) {
      throw InvalidInput("cuckoo table: space must be at least 1.0 slots per key");
    }
    if (options.max_attempts < 1) throw InvalidInput("cuckoo table: max_attempts must be >= 1");
    m_options = options;
  }

  [[nodiscard]] Backend backend() const override { return Exec::kBackend; }

  BuildStats build(const K* keys, const Value* values, std::size_t n, Stream stream) override {
    check_size(n, "cuckoo table");
    clear();
    m_exec.set_stream(stream);
    BuildStats stats;
    stats.keys = n;
    if (n == 0) return m_stats = stats;
    const auto count = static_cast<std::uint32_t>(n);
    if (m_options.multivalue) {
      build_multivalue(keys, values, count, stats);
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
    check_size(n, "cuckoo table");
    clear();
    m_exec.set_stream(stream);
    const auto count = static_cast<std::uint32_t>(n);
    m_view           = queue_set_build<Ref>(
        m_exec,
        m_slots,
        m_status,
        m_rng,
        m_options,
        "cuckoo table",
        count,
        slots_for(n),
        1,
        m_stats,
        [&](const Ref& view, std::uint32_t chain) {
          cuckoo_insert_all(
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
    if (m_view.size != 0 && !m_view.counts) {
      throw InvalidInput(
          "cuckoo table: count needs a build with BuildOptions::unique_ids and multiplicities");
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
    require_unique_ids("find_id");
    const Ref v = m_view;
    query(stream, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t slot, Entry) {
      out[i] = slot == kNotFound ? kNotFound : v.slot_rank[slot];
    });
  }

  /// Looks up every query, kQueryBatch per thread (strided, so loads stay coalesced), and calls
  /// f(i, slot, entry) with the first copy's slot (or kNotFound) and entry.
  template <class F>
  void query(Stream stream, const K* q, std::size_t n, F f) const {
    constexpr int B            = kQueryBatch;
    const Ref v                = m_view;
    const auto count           = static_cast<std::uint32_t>(n);
    const std::uint32_t stride = (count + B - 1) / B;
    Exec exec(stream);
    exec.for_each(stride, [=] VOXHASH_LAMBDA(std::uint32_t t) {
      K key[B];
      std::uint32_t slot[B];
      Entry entry[B];
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
  /// Whether the last build's keys were all distinct, without dense ids: no insertion met a copy
  /// of its own key and no slot holds a later copy of a key (what a join of a unique-key side
  /// needs to know, for one pass over the slots). Synchronizes.
  [[nodiscard]] bool distinct_keys() {
    if (m_met_copy) return false;
    if (m_view.size == 0) return true;
    // The build's status word is the flag: no allocation (and no free) inside a timed join.
    m_exec.write_async(m_status.data(), BuildStatus{});
    cuckoo_flag_later_copies(m_exec, m_view, &m_status.data()->met_copy);
    return m_exec.read(m_status.data()).met_copy == 0;
  }

  [[nodiscard]] MultiRef multi_ref() const override {
    if (m_view.size != 0 && !m_multi.offsets) {
      throw InvalidInput("cuckoo table: multi_ref needs a build with BuildOptions::multivalue");
    }
    return m_multi;
  }

 private:
  void require_unique_ids(const char* what) const {
    if (m_view.size != 0 && !m_view.slot_rank) {
      throw InvalidInput(std::string("cuckoo table: ") + what +
                         " needs a build with BuildOptions::unique_ids");
    }
  }

  [[nodiscard]] std::size_t held_bytes() const {
    return m_slots.bytes() + m_rank.bytes() + m_unique.bytes() + m_counts.bytes() + m_lists.bytes();
  }

  void clear() {
    m_view     = Ref{};
    m_met_copy = false;
    m_multi    = MultiRef{};
    m_lists.clear();
    m_unique.resize(0);
    m_counts.resize(0);
    m_rank.resize(0);
    m_stats = BuildStats{};
  }

  [[nodiscard]] std::uint32_t slots_for(std::size_t keys) const {
    return static_cast<std::uint32_t>(
        std::max<double>(std::ceil(m_options.cuckoo_space * static_cast<double>(keys)), 1.0));
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
        {"cuckoo table", n, expected, 1},
        stats,
        [&](std::size_t k) { return slots_for(k); },
        [&](const Ref& view, std::uint32_t max_chain) {
          cuckoo_insert_all(
              m_exec, view, m_slots.data(), keys, values, n, max_chain, m_status.data());
        },
        [&] { clear(); });
    m_view     = r.view;
    m_met_copy = r.met_copy;
  }

  /// The multivalue build: the pairs sorted by key (stable: input order within a key) and
  /// run-length encoded into unique keys and offsets, then each unique key inserted once with its
  /// dense id. No slot pass and nothing per slot: 8 B per slot + 8 B per unique key + 4 B per
  /// value.
  void build_multivalue(const K* keys, const Value* values, std::uint32_t n, BuildStats& stats) {
    m_status.resize(1);
    if (!m_lists.build(m_exec, keys, values, n, m_status.data())) {
      clear();
      throw_sentinel_key<K>("cuckoo table");
    }
    const std::uint32_t unique = m_lists.unique_count();
    insert(m_lists.unique_keys(), nullptr, unique, unique, stats);
    m_multi           = m_lists.ref(m_view);
    stats.unique_keys = unique;
  }

  void compact(const K* keys, std::uint32_t n, BuildStats& stats) {
    const std::uint32_t slots = m_view.size;
    m_rank.resize(std::size_t{slots} + 1);  // one past the end: the total, read once
    m_flags.resize(std::size_t{slots} + 1);
    cuckoo_flag_first_copies(m_exec, m_view, m_flags.data());
    m_exec.write_async(m_flags.data() + slots, 0u);
    m_exec.exclusive_sum(m_flags.data(), m_rank.data(), std::size_t{slots} + 1);
    const std::uint32_t unique = m_exec.read(m_rank.data() + slots);
    m_view.slot_rank           = m_rank.data();
    m_unique.resize(unique);
    cuckoo_list_unique(m_exec, m_view, m_flags.data(), m_unique.data());
    if (m_options.multiplicities) count_multiplicities(keys, n);
    stats.unique_keys = unique;
    m_flags.resize(0);
  }

  void count_multiplicities(const K* keys, std::uint32_t n) {
    const auto unique = static_cast<std::uint32_t>(m_unique.size());
    m_counts.resize(unique);
    m_exec.fill(m_counts.data(), unique, 0u);
    cuckoo_count_input(m_exec, m_view, keys, n, m_counts.data());
    m_view.counts = m_counts.data();
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
