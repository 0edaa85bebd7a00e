// Per-element logic of the joins, shared by both backends: the matchers (where the build side's
// matches of a key lie: a cuckoo or bucketed cuckoo multivalue table, a HashGraph bucket, a
// sorted array), how many output rows a probe row yields, and the writing of those rows.
#pragma once

#include "core/atomics.hpp"

#include <voxhash/bucketed_cuckoo_ref.hpp>
#include <voxhash/cuckoo_ref.hpp>
#include <voxhash/detail/host_device.hpp>
#include <voxhash/hash_graph_ref.hpp>
#include <voxhash/types.hpp>

#include <cstdint>

namespace voxhash::core {

// A matcher answers, per probe key: locate(key), the range of its matches (count 0: none; for a
// key with matches `begin` is unique to that key, so it can index per-key flags), and
// locate_batch<K>, the same for K keys with their loads in flight together (kEmptyKey: no lane,
// count 0); each_match(key, range, f), f(value) for every match; find_one(key), the value of a
// match or kNotFound, and find_batch<K>, the same for K keys at once.

/// A slot table (cuckoo or bucketed cuckoo: Lists is CuckooMultiRef or BucketedMultiRef) built
/// with BuildOptions::multivalue: matches are a contiguous value range. A plain table (offsets
/// null: the paper's left join of distinct keys) answers find_one / find_batch only.
template <class Lists>
struct SlotMatcher {
  Lists t;
  VOXHASH_HD ValueRange locate(Key key) const { return t.find_range(key); }
  /// The K keys' slots found together (the table's find_batch), then their K ranges read
  /// together.
  template <int K>
  VOXHASH_HD void locate_batch(const Key (&key)[K], ValueRange (&range)[K]) const {
    std::uint32_t slot[K];
    CuckooEntry entry[K];
    t.table.template find_batch<K>(key, slot, entry);
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k)
      range[k] = slot[k] == kNotFound ? ValueRange{} : t.range_of_id(detail::entry_value(entry[k]));
  }
  template <class F>
  VOXHASH_HD void each_match(Key, ValueRange r, F f) const {
    for (std::uint32_t j = 0; j < r.count; ++j)
      f(t.values[r.begin + j]);
  }
  VOXHASH_HD Value find_one(Key key) const { return t.find(key); }
  template <int K>
  VOXHASH_HD void find_batch(const Key (&key)[K], Value (&value)[K]) const {
    std::uint32_t slot[K];
    CuckooEntry entry[K];
    t.table.template find_batch<K>(key, slot, entry);
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k)
      value[k] = slot[k] == kNotFound ? kNotFound : t.value_of(entry[k]);
  }
};

/// A HashGraph: matches are the key's edges in its bucket list, from the first one on. The bucket
/// record's inline first edge settles a list of one edge without reading the edges.
struct HashGraphMatcher {
  HashGraphRef g;
  /// The matches of `key` in bucket record b.
  VOXHASH_HD ValueRange locate_in(Key key, const HashGraphBucket& b) const {
    ValueRange r{0, 0};
    if (b.begin == b.end) return r;
    if (b.first.key == key) r = ValueRange{b.begin, 1};
    for (std::uint32_t e = b.begin + 1; e < b.end; ++e) {
      if (g.edges[e].key != key) continue;
      if (r.count++ == 0) r.begin = e;
    }
    return r;
  }
  VOXHASH_HD ValueRange locate(Key key) const {
    if (g.range == 0) return ValueRange{0, 0};
    return locate_in(key, g.buckets[g.vertex(key)]);
  }
  /// The K keys' bucket records read together, then each bucket scanned.
  template <int K>
  VOXHASH_HD void locate_batch(const Key (&key)[K], ValueRange (&range)[K]) const {
    HashGraphBucket b[K] = {};
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      if (g.range != 0 && key[k] != kEmptyKey) b[k] = g.buckets[g.vertex(key[k])];
    }
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k)
      range[k] = locate_in(key[k], b[k]);
  }
  template <class F>
  VOXHASH_HD void each_match(Key key, ValueRange r, F f) const {
    for (std::uint32_t e = r.begin, left = r.count; left != 0; ++e) {
      const HashGraphEdge edge = g.edges[e];
      if (edge.key != key) continue;
      f(edge.value);
      --left;
    }
  }
  VOXHASH_HD Value find_one(Key key) const { return g.find(key); }
  template <int K>
  VOXHASH_HD void find_batch(const Key (&key)[K], Value (&value)[K]) const {
    std::uint32_t edge[K];
    HashGraphEdge found[K];
    g.find_edge_batch<K>(key, edge, found);
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k)
      value[k] = found[k].value;
  }
};

/// Keys sorted ascending with their values: matches are the equal range, found by binary search.
struct SortedMatcher {
  const Key* keys     = nullptr;
  const Value* values = nullptr;
  std::uint32_t size  = 0;

  /// First position whose key is not below `key` (or above it, when `upper`).
  VOXHASH_HD std::uint32_t bound(Key key, bool upper) const {
    std::uint32_t lo = 0, hi = size;
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (keys[mid] < key || (upper && keys[mid] == key)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
  VOXHASH_HD ValueRange locate(Key key) const {
    const std::uint32_t lo = bound(key, false);
    if (lo == size || keys[lo] != key) return ValueRange{lo, 0};
    return ValueRange{lo, bound(key, true) - lo};
  }
  template <int K>
  VOXHASH_HD void locate_batch(const Key (&key)[K], ValueRange (&range)[K]) const {
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k)
      range[k] = key[k] == kEmptyKey ? ValueRange{} : locate(key[k]);
  }
  template <class F>
  VOXHASH_HD void each_match(Key, ValueRange r, F f) const {
    for (std::uint32_t j = 0; j < r.count; ++j)
      f(values[r.begin + j]);
  }
  VOXHASH_HD Value find_one(Key key) const {
    const std::uint32_t lo = bound(key, false);
    return lo < size && keys[lo] == key ? values[lo] : kNotFound;
  }
  template <int K>
  VOXHASH_HD void find_batch(const Key (&key)[K], Value (&value)[K]) const {
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k)
      value[k] = key[k] == kEmptyKey ? kNotFound : find_one(key[k]);
  }
};

/// What a probe row emits:
///   Pairs:       one row per match (inner join);
///   PairsOrNull: one row per match, or one with kNotFound when there is none (left join);
///   Matched:     one row if it has a match (semi join);
///   Unmatched:   one row if it has none (anti join);
///   Nothing:     no row (the pass only marks which build keys were matched).
enum class Emit : std::uint32_t { Pairs, PairsOrNull, Matched, Unmatched, Nothing };

/// Output rows of a probe row with `matches` matches.
VOXHASH_HD std::uint32_t emitted_rows(Emit emit, std::uint32_t matches) {
  switch (emit) {
    case Emit::Pairs:
      return matches;
    case Emit::PairsOrNull:
      return matches ? matches : 1u;
    case Emit::Matched:
      return matches ? 1u : 0u;
    case Emit::Unmatched:
      return matches ? 0u : 1u;
    case Emit::Nothing:
      break;
  }
  return 0;
}

/// The count pass for a probe row whose matches were located in `range`: its output rows. With
/// `matched` (a flag per build position), marks the key's matches as matched; with `matched_in`, a
/// key counts as matched only where an earlier pass marked it (the build side probing itself).
VOXHASH_HD std::uint32_t count_located_row(Emit emit,
                                           ValueRange range,
                                           std::uint32_t* matched,
                                           const std::uint32_t* matched_in) {
  if (matched && range.count != 0) atomic_store(&matched[range.begin], 1u);
  const std::uint32_t matches =
      matched_in ? (range.count != 0 && atomic_load(&matched_in[range.begin]) ? 1u : 0u)
                 : range.count;
  return emitted_rows(emit, matches);
}

/// The write pass for probe row i (value `value`), from output row `out`: probe_col gets the
/// probe row's value, build_col (when not null) each match's value, or kNotFound where the row
/// has no match (PairsOrNull, Matched, Unmatched).
template <class Matcher>
VOXHASH_HD void write_probe_row(const Matcher& m,
                                Emit emit,
                                Key key,
                                Value value,
                                ValueRange range,
                                std::uint64_t out,
                                Value* probe_col,
                                Value* build_col) {
  if ((emit == Emit::Pairs || emit == Emit::PairsOrNull) && range.count != 0) {
    m.each_match(key, range, [&](Value match) {
      probe_col[out] = value;
      build_col[out] = match;
      ++out;
    });
    return;
  }
  probe_col[out] = value;
  if (build_col) build_col[out] = kNotFound;
}

}  // namespace voxhash::core
