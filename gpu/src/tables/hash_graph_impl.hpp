// HashGraphImpl<Exec>: HashGraph's host logic (Green, 2021), written once for both backends.
//
// V1 (Alg. 1): count edges per vertex with atomics, exclusive prefix sum into offsets, scatter
//   each edge to its offset plus an atomic cursor. Three random read-modify-writes a key.
// V2: radix-sort the edges by vertex (the paper bins by vertex ranges to make the scatter
//   cache-friendly; a radix sort is that binning carried through every digit, and CUB's onesweep
//   does it at streaming speed). 32-bit keys sort 8-byte (murmur_mix(key), value) pairs: the
//   vertex is monotone in the mix and the mix is a bijection, so the record pass below recovers
//   each key as it writes the edges. 64-bit keys sort (vertex, edge) pairs.
// Both then read each vertex's bucket record (its list's bounds and first edge, inline) off the
//   grouped edges in one pass, so a lookup that ends at a bucket's first edge reads one sector.
// Probing: "standard" walks each query's bucket list; "intersect" builds a HashGraph of the
//   queries over the same vertices (in the caller's ProbeScratch) and intersects the two graphs'
//   bucket lists vertex by vertex. Lookups keep no state in the table: they run on the stream they
//   are given, with a local executor.
// K is the key width: 32-bit keys' edges are packed 8-byte words (the fast path), 64-bit keys'
// 16-byte edges; the sort's keys (hashes or vertices) are 32-bit either way.
#pragma once

#include "core/atomics.hpp"
#include "core/hash_graph.hpp"
#include "tables/build_status.hpp"
#include "tables/hash_graph_arrays.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>
#include <voxhash/hash_graph.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

namespace voxhash::tables {

/// V1, loop 3 of Alg. 1: counts[vertex(k)] += 1 for every key; flags sentinel keys.
template <class Exec, class K>
void hash_graph_count(Exec& exec,
                      BasicHashGraphRef<K> g,
                      const K* keys,
                      std::uint32_t n,
                      std::uint32_t* counts,
                      BuildStatus* status) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const K key = keys[i];
    if (key == kEmptyKeyOf<K>) core::atomic_store(&status->sentinel_key, 1u);
    core::atomic_add(&counts[g.vertex(key)], 1u);
  });
}

/// V1, loop 6: each edge goes to offsets[v] + (atomic cursor of v).
template <class Exec, class K>
void hash_graph_scatter(Exec& exec,
                        BasicHashGraphRef<K> g,
                        const K* keys,
                        const Value* values,
                        std::uint32_t n,
                        const std::uint32_t* offsets,
                        std::uint32_t* cursor,
                        EdgeWord<K>* edges) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const K key           = keys[i];
    const std::uint32_t v = g.vertex(key);
    const std::uint32_t e = offsets[v] + core::atomic_add(&cursor[v], 1u);
    edges[e]              = core::pack_edge(key, value_or_index(values, i));
  });
}

/// V2 with 64-bit keys, binning input: vertex and edge of every key; flags sentinel keys.
template <class Exec>
void hash_graph_bin_input(Exec& exec,
                          BasicHashGraphRef<Key64> g,
                          const Key64* keys,
                          const Value* values,
                          std::uint32_t n,
                          std::uint32_t* vertices,
                          HashGraphEdge64* edges,
                          BuildStatus* status) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const Key64 key = keys[i];
    if (key == kEmptyKeyOf<Key64>) core::atomic_store(&status->sentinel_key, 1u);
    vertices[i] = g.vertex(key);
    edges[i]    = core::pack_edge(key, value_or_index(values, i));
  });
}

/// V2 with 32-bit keys, binning input: the hash murmur_mix(key, seed) (the vertex is fast_range of
/// it, so sorting by it groups by vertex, and it gives the key back) and the value of every key;
/// flags sentinel keys.
template <class Exec>
void hash_graph_bin_hashes(Exec& exec,
                           std::uint32_t seed,
                           const Key* keys,
                           const Value* values,
                           std::uint32_t n,
                           std::uint32_t* hashes,
                           Value* sort_values,
                           BuildStatus* status) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const Key key = keys[i];
    if (key == kEmptyKeyOf<Key>) core::atomic_store(&status->sentinel_key, 1u);
    hashes[i]      = detail::murmur_mix(key, seed);
    sort_values[i] = value_or_index(values, i);
  });
}

/// Whether a build of `kind` leaves its grouped edges as sorted (hash, value) pairs (V2, 32-bit
/// keys) rather than in the edge array.
template <class K>
constexpr bool groups_hashes(TableKind kind) {
  return kSortsHashes<K> && kind == TableKind::HashGraphV2;
}

/// Groups the edges of keys[0..n) by vertex (ascending). V1 counts and scatters into a.edges. V2
/// radix-sorts: with 32-bit keys the pairs (murmur_mix(key, seed), value) over all 32 bits into
/// a.sort_keys_out / a.sort_values_out (8 bytes a pair; ascending hashes are ascending vertices),
/// which write_hash_graph_buckets unpacks into a.edges; with 64-bit keys (vertex, edge) pairs over
/// the vertex bits into a.edges. V2's order within a vertex is by hash (so a key's edges are
/// adjacent), then input order: the sorts are stable, so both backends group identically.
template <class Exec, class K>
void group_hash_graph_edges(Exec& exec,
                            TableKind kind,
                            HashGraphArrays<K>& a,
                            std::uint32_t range,
                            std::uint32_t seed,
                            const K* keys,
                            const Value* values,
                            std::uint32_t n,
                            BuildStatus* status) {
  if (kind == TableKind::HashGraphV1) {
    a.edges.resize(n);
    const BasicHashGraphRef<K> g   = graph_ref(a, range, seed);
    Buffer<std::uint32_t>& counts  = a.sort_keys_in;  // reused as the per-vertex cursor
    Buffer<std::uint32_t>& offsets = a.sort_keys_out;
    counts.resize(std::size_t{range} + 1);
    offsets.resize(std::size_t{range} + 1);
    exec.fill(counts.data(), counts.size(), 0u);
    hash_graph_count(exec, g, keys, n, counts.data(), status);
    exec.exclusive_sum(counts.data(), offsets.data(), counts.size());
    exec.fill(counts.data(), counts.size(), 0u);
    hash_graph_scatter(exec, g, keys, values, n, offsets.data(), counts.data(), a.edges.data());
    return;
  }
  a.sort_keys_in.resize(n);
  a.sort_keys_out.resize(n);
  a.sort_values_in.resize(n);
  if constexpr (kSortsHashes<K>) {
    a.sort_values_out.resize(n);
    hash_graph_bin_hashes(
        exec, seed, keys, values, n, a.sort_keys_in.data(), a.sort_values_in.data(), status);
    exec.sort_pairs(a.sort_keys_in.data(),
                    a.sort_keys_out.data(),
                    a.sort_values_in.data(),
                    a.sort_values_out.data(),
                    n,
                    32);
  } else {
    a.edges.resize(n);
    hash_graph_bin_input(exec,
                         graph_ref(a, range, seed),
                         keys,
                         values,
                         n,
                         a.sort_keys_in.data(),
                         a.sort_values_in.data(),
                         status);
    const int end_bit = std::max(1, static_cast<int>(std::bit_width(range - 1)));
    exec.sort_pairs(a.sort_keys_in.data(),
                    a.sort_keys_out.data(),
                    a.sort_values_in.data(),
                    a.edges.data(),
                    n,
                    end_bit);
  }
}

/// The bucket records of the edges group_hash_graph_edges grouped (range >= 1), and V2's 32-bit
/// edges themselves, unpacked from the sorted hashes in the same pass: every edge's thread writes
/// its vertex's bounds and first edge and the edgeless vertices beside it within their chunks, a
/// prefix-max over the chunks' last edges finds the chunks with no edges, and one thread per such
/// chunk writes its records. One pass over the edges and one write of the records.
template <class Exec, class K>
void write_hash_graph_buckets(Exec& exec,
                              TableKind kind,
                              HashGraphArrays<K>& a,
                              std::uint32_t range,
                              std::uint32_t seed,
                              std::uint32_t n) {
  a.buckets.resize(range);
  const std::uint32_t chunks        = (range - 1) / core::kBucketChunk + 1;
  Buffer<std::uint32_t>& chunk_ends = a.sort_keys_in;  // free once the edges are grouped
  chunk_ends.resize(std::size_t{chunks} + 1);
  exec.fill(chunk_ends.data(), chunk_ends.size(), 0u);
  BasicHashGraphBucket<K>* buckets = a.buckets.data();
  std::uint32_t* ends              = chunk_ends.data();
  if constexpr (kSortsHashes<K>) {
    if (groups_hashes<K>(kind)) {
      a.edges.resize(n);
      const std::uint32_t* hashes = a.sort_keys_out.data();
      const Value* values         = a.sort_values_out.data();
      std::uint64_t* edges        = a.edges.data();
      exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
        core::write_hashed_edge_buckets(range, seed, hashes, values, n, i, edges, buckets, ends);
      });
    }
  }
  if (!groups_hashes<K>(kind)) {
    const BasicHashGraphRef<K> g = graph_ref(a, range, seed);
    exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
      core::write_edge_buckets(g, n, i, buckets, ends);
    });
  }
  exec.inclusive_max(ends, chunk_ends.size());
  exec.for_each(chunks, [=] VOXHASH_LAMBDA(std::uint32_t c) {
    core::write_empty_chunk(range, ends, c, buckets);
  });
}

/// The intersect probe's query edges, grouped by vertex: the j-th is (a query key, its index).
/// 64-bit keys: the query graph's edge array.
template <class K>
struct QueryEdges {
  const BasicHashGraphEdge<K>* edges = nullptr;
  VOXHASH_HD BasicHashGraphEdge<K> operator[](std::uint32_t j) const { return edges[j]; }
};

/// 32-bit keys: the query graph's sorted (hash, index) pairs, read in place (no edge array).
template <>
struct QueryEdges<Key> {
  const std::uint32_t* hashes = nullptr;
  const Value* values         = nullptr;
  std::uint32_t seed          = 0;
  VOXHASH_HD HashGraphEdge operator[](std::uint32_t j) const {
    return core::hashed_edge(hashes, values, seed, j);
  }
};

template <class Exec, class K = Key>
class HashGraphImpl final : public BasicHashGraph<K> {
  using Ref  = BasicHashGraphRef<K>;
  using Edge = BasicHashGraphEdge<K>;

 public:
  HashGraphImpl(TableKind kind, const BuildOptions& options) : m_kind(kind), m_rng(options.seed) {
    set_options(options);
  }

  void set_options(const BuildOptions& options) override {
    if (!(options.load > 0.0)) throw InvalidInput("hashgraph: load must be positive");
    m_options = options;
  }

  [[nodiscard]] TableKind kind() const override { return m_kind; }
  [[nodiscard]] Backend backend() const override { return Exec::kBackend; }

  BuildStats build(const K* keys, const Value* values, std::size_t n, Stream stream) override {
    const std::uint32_t range = queue(keys, values, n, stream);
    if (m_exec.read(m_status.data()).sentinel_key) {
      clear();
      throw_sentinel_key<K>("hashgraph");
    }
    BuildStats stats;
    stats.keys     = n;
    stats.attempts = 1;
    stats.slots    = range;
    if (m_options.unique_ids) stats.unique_keys = number_unique(static_cast<std::uint32_t>(n));
    stats.bytes =
        m_graph.buckets.bytes() + m_graph.edges.bytes() + m_rank.bytes() + m_unique.bytes();
    return m_stats = stats;  // the sort scratch keeps its capacity for the next build
  }

  /// The frame's build (a VoxelList: distinct keys, none the sentinel; options without ids,
  /// multiplicities or multivalue): one attempt queued on `stream`, nothing read. status() says,
  /// once the stream has run it, whether every key was placed (a HashGraph build places every
  /// key; BuildStatus::sentinel_key: build() again, which throws).
  void queue_build(const K* keys, std::size_t n, Stream stream) {
    if (m_options.unique_ids) throw InvalidInput("hashgraph: a queued build keeps no ids");
    const std::uint32_t range = queue(keys, nullptr, n, stream);
    m_stats                   = BuildStats{};
    m_stats.keys              = n;
    m_stats.attempts          = 1;
    m_stats.slots             = range;
    m_stats.bytes             = m_graph.buckets.bytes() + m_graph.edges.bytes();
  }
  /// The last build's status word (device memory): see queue_build.
  [[nodiscard]] const BuildStatus* status() const { return m_status.data(); }

  void find_async(const K* q, std::size_t n, Value* out, Stream stream) const override {
    with_scratch([&](ProbeScratch* s) { find(q, n, out, s, stream); });
  }
  void contains_async(const K* q, std::size_t n, std::uint8_t* out, Stream stream) const override {
    with_scratch([&](ProbeScratch* s) { contains(q, n, out, s, stream); });
  }
  void count_async(const K* q, std::size_t n, std::uint32_t* out, Stream stream) const override {
    with_scratch([&](ProbeScratch* s) { count(q, n, out, s, stream); });
  }
  void find_id_async(const K* q, std::size_t n, std::uint32_t* out, Stream stream) const override {
    with_scratch([&](ProbeScratch* s) { find_id(q, n, out, s, stream); });
  }

  void find_async(
      const K* q, std::size_t n, Value* out, ProbeScratch& scratch, Stream stream) const override {
    find(q, n, out, checked(scratch), stream);
  }
  void contains_async(const K* q,
                      std::size_t n,
                      std::uint8_t* out,
                      ProbeScratch& scratch,
                      Stream stream) const override {
    contains(q, n, out, checked(scratch), stream);
  }
  void count_async(const K* q,
                   std::size_t n,
                   std::uint32_t* out,
                   ProbeScratch& scratch,
                   Stream stream) const override {
    count(q, n, out, checked(scratch), stream);
  }
  void find_id_async(const K* q,
                     std::size_t n,
                     std::uint32_t* out,
                     ProbeScratch& scratch,
                     Stream stream) const override {
    find_id(q, n, out, checked(scratch), stream);
  }

  [[nodiscard]] MatchList find_all(const K* q, std::size_t n, Stream stream) const override {
    MatchList m{Buffer<std::uint32_t>(Exec::kBackend, n + 1), Buffer<Value>(Exec::kBackend, 0)};
    with_scratch([&](ProbeScratch* scratch) {
      Exec exec(stream);
      std::uint32_t* offsets = m.offsets.data();
      count(q, n, offsets, scratch, stream);
      exec.fill(offsets + n, 1, 0u);
      exec.exclusive_sum(offsets, offsets, n + 1);
      m.values.resize(exec.read(offsets + n));
      Value* values = m.values.data();
      const Ref t   = m_ref;
      probe(stream, scratch, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, K key) {
        t.find_all(key, values + offsets[i]);
      });
      exec.synchronize();
    });
    return m;
  }

  void set_probe_method(ProbeMethod method) override { m_probe = method; }
  [[nodiscard]] ProbeMethod probe_method() const override { return m_probe; }

  [[nodiscard]] std::size_t unique_count() const override { return m_unique.size(); }
  [[nodiscard]] const K* unique_keys() const override { return m_unique.data(); }
  [[nodiscard]] const BuildStats& stats() const override { return m_stats; }
  [[nodiscard]] Ref ref() const override { return m_ref; }

  // The lookups' bodies (public only because nvcc's extended lambdas need a public enclosing
  // function).
  void find(const K* q, std::size_t n, Value* out, ProbeScratch* s, Stream stream) const {
    probe_first(stream, s, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t, Edge found) {
      out[i] = found.value;
    });
  }
  void contains(
      const K* q, std::size_t n, std::uint8_t* out, ProbeScratch* s, Stream stream) const {
    probe_first(stream, s, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t e, Edge) {
      out[i] = e != kNotFound;
    });
  }
  void count(const K* q, std::size_t n, std::uint32_t* out, ProbeScratch* s, Stream stream) const {
    const Ref t = m_ref;
    probe(stream, s, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, K key) { out[i] = t.count(key); });
  }
  void find_id(
      const K* q, std::size_t n, std::uint32_t* out, ProbeScratch* s, Stream stream) const {
    if (m_ref.range != 0 && !m_ref.edge_rank) {
      throw InvalidInput("hashgraph: find_id needs a build with BuildOptions::unique_ids");
    }
    const Ref t = m_ref;
    probe_first(stream, s, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t e, Edge) {
      out[i] = e == kNotFound ? kNotFound : t.edge_rank[e];
    });
  }

  /// Whether lookups now build a query graph (intersect probe on a non-empty table).
  [[nodiscard]] bool intersecting() const {
    return m_probe == ProbeMethod::Intersect && m_ref.range != 0;
  }

  /// Runs lookup(scratch): with a scratch made for the call when the intersect probe needs one
  /// (freeing it waits for the device), else with none.
  template <class Lookup>
  void with_scratch(Lookup lookup) const {
    if (!intersecting()) {
      lookup(nullptr);
      return;
    }
    ProbeScratch scratch(Exec::kBackend);
    lookup(&scratch);
  }

  [[nodiscard]] static ProbeScratch* checked(ProbeScratch& scratch) {
    if (scratch.backend() != Exec::kBackend) {
      throw InvalidInput("hashgraph: the probe scratch is in another backend's memory");
    }
    return &scratch;
  }

  /// Calls op(i, queries[i]) for every query: in input order (standard), or vertex by vertex over
  /// a HashGraph of the queries (intersect), so neighbouring threads walk neighbouring buckets.
  template <class Op>
  void probe(Stream stream, ProbeScratch* scratch, const K* queries, std::size_t n, Op op) const {
    Exec exec(stream);
    if (m_ref.range == 0 || n == 0) {
      exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) { op(i, kEmptyKeyOf<K>); });
      return;
    }
    if (m_probe == ProbeMethod::Standard) {
      exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) { op(i, queries[i]); });
      return;
    }
    const QueryEdges<K> q = query_graph(stream, *scratch, queries, n);
    exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t j) {
      const Edge e = q[j];
      op(e.value, e.key);
    });
  }

  /// Like probe, for the first match only: f(i, index of the first edge of queries[i] or
  /// kNotFound, that edge (value kNotFound if none)), with
  /// kQueryBatch queries per thread (strided) walked together for memory-level parallelism.
  template <class F>
  void probe_first(
      Stream stream, ProbeScratch* scratch, const K* queries, std::size_t n, F f) const {
    constexpr int B            = kQueryBatch;
    const Ref t                = m_ref;
    const auto count           = static_cast<std::uint32_t>(n);
    const std::uint32_t stride = (count + B - 1) / B;
    // Standard: query i is queries[i]. Intersect: the j-th edge of the queries' HashGraph.
    const bool intersect  = intersecting();
    const QueryEdges<K> q = intersect ? query_graph(stream, *scratch, queries, n) : QueryEdges<K>{};
    Exec exec(stream);
    exec.for_each(stride, [=] VOXHASH_LAMBDA(std::uint32_t s) {
      K key[B];
      std::uint32_t index[B], edge[B];
      Edge found[B];
      VOXHASH_UNROLL
      for (int k = 0; k < B; ++k) {
        const std::uint32_t j = s + k * stride;
        const Edge query      = j >= count  ? Edge{kEmptyKeyOf<K>, kNotFound}
                                : intersect ? q[j]
                                            : Edge{queries[j], j};
        index[k]              = query.value;
        key[k]                = query.key;
      }
      t.template find_edge_batch<B>(key, edge, found);
      VOXHASH_UNROLL
      for (int k = 0; k < B; ++k) {
        if (index[k] != kNotFound) f(index[k], edge[k], found[k]);
      }
    });
  }

  /// The queries' own HashGraph over the table's vertices (the intersect probe's first step),
  /// built in `scratch` on `stream`: its edges grouped by vertex (V2), which is all the
  /// intersection walks, so no bucket records (and, with 32-bit keys, no edge array: the sorted
  /// hashes are read in place).
  QueryEdges<K> query_graph(Stream stream,
                            ProbeScratch& scratch,
                            const K* queries,
                            std::size_t n) const {
    ProbeScratch::State& s    = scratch.state();
    HashGraphArrays<K>& graph = s.template graph_of<K>();
    Exec exec(stream, &s.temp);
    exec.fill(s.status.data(), 1, BuildStatus{});
    group_hash_graph_edges(exec,
                           TableKind::HashGraphV2,
                           graph,
                           m_ref.range,
                           m_ref.seed,
                           queries,
                           nullptr,
                           static_cast<std::uint32_t>(n),
                           s.status.data());
    if constexpr (kSortsHashes<K>) {
      return QueryEdges<K>{graph.sort_keys_out.data(), graph.sort_values_out.data(), m_ref.seed};
    } else {
      return QueryEdges<K>{reinterpret_cast<const Edge*>(graph.edges.data())};
    }
  }

 private:
  /// Queues the build's sort and buckets (its sentinel check into m_status) and sets the ref;
  /// returns the hash range.
  std::uint32_t queue(const K* keys, const Value* values, std::size_t n, Stream stream) {
    check_size(n, "hashgraph");
    clear();
    m_exec.set_stream(stream);
    const double vertices = std::ceil(static_cast<double>(n) / m_options.load);
    if (vertices >= 4294967295.0) throw InvalidInput("hashgraph: hash range exceeds 2^32 - 1");
    const auto range = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(vertices));
    const auto seed  = static_cast<std::uint32_t>(m_rng());
    m_status.resize(1);
    m_exec.fill(m_status.data(), 1, BuildStatus{});
    group_hash_graph_edges(m_exec,
                           m_kind,
                           m_graph,
                           range,
                           seed,
                           keys,
                           values,
                           static_cast<std::uint32_t>(n),
                           m_status.data());
    write_hash_graph_buckets(m_exec, m_kind, m_graph, range, seed, static_cast<std::uint32_t>(n));
    m_ref = graph_ref(m_graph, range, seed);
    return range;
  }

  void clear() {
    m_ref = Ref{};
    m_rank.resize(0);
    m_unique.resize(0);
    m_stats = BuildStats{};
  }

  /// Dense ids: flag each key's first edge, prefix-sum the flags, list the unique keys.
  std::uint32_t number_unique(std::uint32_t n);

  TableKind m_kind;
  BuildOptions m_options;
  std::mt19937_64 m_rng;
  ProbeMethod m_probe = ProbeMethod::Standard;
  Exec m_exec;
  HashGraphArrays<K> m_graph{Exec::kBackend};
  Buffer<BuildStatus> m_status{Exec::kBackend, 0};

  Buffer<std::uint32_t> m_rank{Exec::kBackend, 0};
  Buffer<K> m_unique{Exec::kBackend, 0};
  Ref m_ref{};
  BuildStats m_stats{};
};

/// flags[e] = 1 where edge e is its key's first in its bucket: a comparison with the edge before
/// where the keys' edges are adjacent (V2, 32-bit keys), else a walk of the bucket.
template <class Exec, class K>
void hash_graph_flag_first_edges(
    Exec& exec, TableKind kind, BasicHashGraphRef<K> g, std::uint32_t n, std::uint32_t* flags) {
  if (groups_hashes<K>(kind)) {
    exec.for_each(n,
                  [=] VOXHASH_LAMBDA(std::uint32_t e) { flags[e] = core::starts_key_run(g, e); });
  } else {
    exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t e) { flags[e] = core::is_first_edge(g, e); });
  }
}

template <class Exec, class K>
void hash_graph_list_unique(Exec& exec,
                            BasicHashGraphRef<K> g,
                            const std::uint32_t* flags,
                            std::uint32_t n,
                            K* unique_keys) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t e) {
    if (flags[e]) unique_keys[g.edge_rank[e]] = g.edges[e].key;
  });
}

template <class Exec, class K>
std::uint32_t HashGraphImpl<Exec, K>::number_unique(std::uint32_t n) {
  if (n == 0) {
    m_ref.edge_rank = m_rank.data();
    return 0;
  }
  Buffer<std::uint32_t>& flags = m_graph.sort_keys_out;  // scratch, free after the build
  flags.resize(n);
  m_rank.resize(n);
  hash_graph_flag_first_edges(m_exec, m_kind, m_ref, n, flags.data());
  m_exec.exclusive_sum(flags.data(), m_rank.data(), n);
  const std::uint32_t unique =
      m_exec.read(m_rank.data() + n - 1) + m_exec.read(flags.data() + n - 1);
  m_ref.edge_rank = m_rank.data();
  m_unique.resize(unique);
  hash_graph_list_unique(m_exec, m_ref, flags.data(), n, m_unique.data());
  m_exec.synchronize();
  return unique;
}

}  // namespace voxhash::tables
