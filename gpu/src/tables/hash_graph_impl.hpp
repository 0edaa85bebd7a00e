// HashGraphImpl<Exec>: HashGraph's host logic (Green, 2021), written once for both backends.
//
// V1 (Alg. 1): count edges per vertex with atomics, exclusive prefix sum into bucket_offsets,
//   scatter each edge to its offset plus an atomic cursor. Three random read-modify-writes a key.
// V2: write (vertex, edge) pairs, radix-sort them by vertex (the paper bins by vertex ranges to
//   make the scatter cache-friendly; a radix sort is that binning carried through every digit,
//   and CUB's onesweep does it at streaming speed), then read the offsets off the sorted vertices.
// Probing: "standard" walks each query's bucket list; "intersect" builds a HashGraph of the
//   queries over the same vertices and intersects the two graphs' bucket lists vertex by vertex.
#pragma once

#include "tables/build_status.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>
#include <voxhash/hash_graph.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

namespace voxhash::tables {

/// The CSR arrays of one HashGraph, and the scratch its V2 build sorts in.
struct HashGraphArrays {
  explicit HashGraphArrays(Backend b)
      : offsets(b, 0), edges(b, 0), vertex_in(b, 0), vertex_out(b, 0), edge_in(b, 0) {}
  Buffer<std::uint32_t> offsets;
  Buffer<std::uint64_t> edges;  // HashGraphEdge, packed
  Buffer<std::uint32_t> vertex_in, vertex_out;
  Buffer<std::uint64_t> edge_in;
};

inline core::HashGraphView graph_view(const HashGraphArrays& a,
                                      std::uint32_t range,
                                      std::uint32_t seed) {
  core::HashGraphView v;
  v.bucket_offsets = a.offsets.data();
  v.edges          = reinterpret_cast<const core::HashGraphEdge*>(a.edges.data());
  v.range          = range;
  v.seed           = seed;
  return v;
}

/// V1, loop 3 of Alg. 1: counts[vertex(k)] += 1 for every key; flags sentinel keys.
template <class Exec>
void hash_graph_count(Exec& exec,
                      core::HashGraphView g,
                      const Key* keys,
                      std::uint32_t n,
                      std::uint32_t* counts,
                      BuildStatus* status) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const Key key = keys[i];
    if (key == kEmptyKey) core::atomic_store(&status->sentinel_key, 1u);
    core::atomic_add(&counts[g.vertex(key)], 1u);
  });
}

/// V1, loop 6: each edge goes to bucket_offsets[v] + (atomic cursor of v).
template <class Exec>
void hash_graph_scatter(Exec& exec,
                        core::HashGraphView g,
                        const Key* keys,
                        const Value* values,
                        std::uint32_t n,
                        std::uint32_t* cursor,
                        std::uint64_t* edges) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const Key key         = keys[i];
    const std::uint32_t v = g.vertex(key);
    const std::uint32_t e = g.bucket_offsets[v] + core::atomic_add(&cursor[v], 1u);
    edges[e]              = core::pack_edge(key, value_or_index(values, i));
  });
}

/// V2, binning input: vertex and packed edge of every key; flags sentinel keys.
template <class Exec>
void hash_graph_bin_input(Exec& exec,
                          core::HashGraphView g,
                          const Key* keys,
                          const Value* values,
                          std::uint32_t n,
                          std::uint32_t* vertices,
                          std::uint64_t* edges,
                          BuildStatus* status) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const Key key = keys[i];
    if (key == kEmptyKey) core::atomic_store(&status->sentinel_key, 1u);
    vertices[i] = g.vertex(key);
    edges[i]    = core::pack_edge(key, value_or_index(values, i));
  });
}

/// V2, offsets: mark where each run of equal sorted vertices ends (then a prefix-max fills in).
template <class Exec>
void hash_graph_mark_runs(Exec& exec,
                          const std::uint32_t* sorted_vertex,
                          std::uint32_t n,
                          std::uint32_t* offsets) {
  exec.for_each(
      n, [=] VOXHASH_LAMBDA(std::uint32_t i) { core::mark_run_end(sorted_vertex, n, i, offsets); });
}

/// Builds the CSR of keys[0..n) over `range` vertices into `a` (V1 or V2).
template <class Exec>
void build_hash_graph(Exec& exec,
                      TableKind kind,
                      HashGraphArrays& a,
                      std::uint32_t range,
                      std::uint32_t seed,
                      const Key* keys,
                      const Value* values,
                      std::uint32_t n,
                      BuildStatus* status) {
  a.offsets.resize(std::size_t{range} + 1);
  a.edges.resize(n);
  core::HashGraphView g = graph_view(a, range, seed);
  if (kind == TableKind::HashGraphV1) {
    Buffer<std::uint32_t>& counts = a.vertex_in;  // reused as the per-vertex cursor
    counts.resize(std::size_t{range} + 1);
    exec.fill(counts.data(), counts.size(), 0u);
    hash_graph_count(exec, g, keys, n, counts.data(), status);
    exec.exclusive_sum(counts.data(), a.offsets.data(), counts.size());
    exec.fill(counts.data(), counts.size(), 0u);
    hash_graph_scatter(exec, g, keys, values, n, counts.data(), a.edges.data());
  } else {
    a.vertex_in.resize(n);
    a.vertex_out.resize(n);
    a.edge_in.resize(n);
    hash_graph_bin_input(exec, g, keys, values, n, a.vertex_in.data(), a.edge_in.data(), status);
    const int end_bit = std::max(1, static_cast<int>(std::bit_width(range - 1)));
    exec.sort_pairs(
        a.vertex_in.data(), a.vertex_out.data(), a.edge_in.data(), a.edges.data(), n, end_bit);
    exec.fill(a.offsets.data(), a.offsets.size(), 0u);
    hash_graph_mark_runs(exec, a.vertex_out.data(), n, a.offsets.data());
    exec.inclusive_max(a.offsets.data(), a.offsets.size());
  }
}

template <class Exec>
class HashGraphImpl final : public HashGraph {
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

  BuildStats build(const Key* keys, const Value* values, std::size_t n, Stream stream) override {
    check_size(n, "hashgraph");
    clear();
    m_exec.set_stream(stream);
    const double vertices = std::ceil(static_cast<double>(n) / m_options.load);
    if (vertices >= 4294967295.0) throw InvalidInput("hashgraph: hash range exceeds 2^32 - 1");
    const auto range = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(vertices));
    const auto seed  = static_cast<std::uint32_t>(m_rng());
    m_status.resize(1);
    m_exec.write(m_status.data(), BuildStatus{});
    build_hash_graph(m_exec,
                     m_kind,
                     m_graph,
                     range,
                     seed,
                     keys,
                     values,
                     static_cast<std::uint32_t>(n),
                     m_status.data());
    if (m_exec.read(m_status.data()).sentinel_key) {
      clear();
      throw_sentinel_key("hashgraph");
    }
    m_view = graph_view(m_graph, range, seed);
    BuildStats stats;
    stats.keys     = n;
    stats.attempts = 1;
    stats.slots    = range;
    if (m_options.unique_ids) stats.unique_keys = number_unique(static_cast<std::uint32_t>(n));
    stats.bytes =
        m_graph.offsets.bytes() + m_graph.edges.bytes() + m_rank.bytes() + m_unique.bytes();
    return m_stats = stats;  // the sort scratch keeps its capacity for the next build
  }

  void find_async(const Key* q, std::size_t n, Value* out, Stream stream) const override {
    probe_first(stream,
                q,
                n,
                [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t, core::HashGraphEdge found) {
                  out[i] = found.value;
                });
  }
  void contains_async(const Key* q,
                      std::size_t n,
                      std::uint8_t* out,
                      Stream stream) const override {
    probe_first(
        stream, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t e, core::HashGraphEdge) {
          out[i] = e != kNotFound;
        });
  }
  void count_async(const Key* q, std::size_t n, std::uint32_t* out, Stream stream) const override {
    const core::HashGraphView t = m_view;
    probe(stream, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, Key key) { out[i] = t.count(key); });
  }
  void find_id_async(const Key* q,
                     std::size_t n,
                     std::uint32_t* out,
                     Stream stream) const override {
    if (m_view.range != 0 && !m_view.edge_rank) {
      throw InvalidInput("hashgraph: find_id needs a build with BuildOptions::unique_ids");
    }
    const core::HashGraphView t = m_view;
    probe_first(
        stream, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, std::uint32_t e, core::HashGraphEdge) {
          out[i] = e == kNotFound ? kNotFound : t.edge_rank[e];
        });
  }

  [[nodiscard]] MatchList find_all(const Key* q, std::size_t n, Stream stream) const override {
    MatchList m{Buffer<std::uint32_t>(Exec::kBackend, n + 1), Buffer<Value>(Exec::kBackend, 0)};
    std::uint32_t* offsets = m.offsets.data();
    count_async(q, n, offsets, stream);
    m_exec.fill(offsets + n, 1, 0u);
    m_exec.exclusive_sum(offsets, offsets, n + 1);
    m.values.resize(m_exec.read(offsets + n));
    Value* values               = m.values.data();
    const core::HashGraphView t = m_view;
    probe(stream, q, n, [=] VOXHASH_LAMBDA(std::uint32_t i, Key key) {
      t.find_all(key, values + offsets[i]);
    });
    m_exec.synchronize();
    return m;
  }

  void set_probe_method(ProbeMethod method) override { m_probe = method; }
  [[nodiscard]] ProbeMethod probe_method() const override { return m_probe; }

  [[nodiscard]] std::size_t unique_count() const override { return m_unique.size(); }
  [[nodiscard]] const Key* unique_keys() const override { return m_unique.data(); }
  [[nodiscard]] const BuildStats& stats() const override { return m_stats; }
  [[nodiscard]] core::HashGraphView view() const override { return m_view; }

  /// Calls op(i, queries[i]) for every query: in input order (standard), or vertex by vertex over
  /// a HashGraph of the queries (intersect), so neighbouring threads walk neighbouring buckets.
  template <class Op>
  void probe(Stream stream, const Key* queries, std::size_t n, Op op) const {
    m_exec.set_stream(stream);
    if (m_view.range == 0 || n == 0) {
      m_exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) { op(i, kEmptyKey); });
      return;
    }
    if (m_probe == ProbeMethod::Standard) {
      m_exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) { op(i, queries[i]); });
      return;
    }
    const core::HashGraphEdge* q = query_graph(queries, n);
    m_exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t j) { op(q[j].value, q[j].key); });
  }

  /// Like probe, for the first match only: f(i, index of the first edge of queries[i] or
  /// kNotFound, that edge (value kNotFound if none)), with
  /// kQueryBatch queries per thread (strided) walked together for memory-level parallelism.
  template <class F>
  void probe_first(Stream stream, const Key* queries, std::size_t n, F f) const {
    constexpr int K             = kQueryBatch;
    const core::HashGraphView t = m_view;
    const auto count            = static_cast<std::uint32_t>(n);
    const std::uint32_t stride  = (count + K - 1) / K;
    m_exec.set_stream(stream);
    // Standard: query i is queries[i]. Intersect: the j-th edge of the queries' HashGraph.
    const core::HashGraphEdge* q =
        m_probe == ProbeMethod::Intersect && t.range != 0 ? query_graph(queries, n) : nullptr;
    m_exec.for_each(stride, [=] VOXHASH_LAMBDA(std::uint32_t s) {
      Key key[K];
      std::uint32_t index[K], edge[K];
      core::HashGraphEdge found[K];
      VOXHASH_UNROLL
      for (int k = 0; k < K; ++k) {
        const std::uint32_t j = s + k * stride;
        index[k]              = j < count ? (q ? q[j].value : j) : kNotFound;
        key[k]                = j < count ? (q ? q[j].key : queries[j]) : kEmptyKey;
      }
      t.find_edge_batch<K>(key, edge, found);
      VOXHASH_UNROLL
      for (int k = 0; k < K; ++k) {
        if (index[k] != kNotFound) f(index[k], edge[k], found[k]);
      }
    });
  }

  /// The queries' own HashGraph over the table's vertices (the intersect probe's first step).
  const core::HashGraphEdge* query_graph(const Key* queries, std::size_t n) const {
    m_query_status.resize(1);
    m_exec.fill(m_query_status.data(), 1, BuildStatus{});
    build_hash_graph(m_exec,
                     TableKind::HashGraphV2,
                     m_queries,
                     m_view.range,
                     m_view.seed,
                     queries,
                     nullptr,
                     static_cast<std::uint32_t>(n),
                     m_query_status.data());
    return reinterpret_cast<const core::HashGraphEdge*>(m_queries.edges.data());
  }

 private:
  void clear() {
    m_view = core::HashGraphView{};
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
  mutable Exec m_exec;
  HashGraphArrays m_graph{Exec::kBackend};
  mutable HashGraphArrays m_queries{Exec::kBackend};
  Buffer<BuildStatus> m_status{Exec::kBackend, 0};
  mutable Buffer<BuildStatus> m_query_status{Exec::kBackend, 0};
  Buffer<std::uint32_t> m_rank{Exec::kBackend, 0};
  Buffer<Key> m_unique{Exec::kBackend, 0};
  core::HashGraphView m_view{};
  BuildStats m_stats{};
};

template <class Exec>
void hash_graph_flag_first_edges(Exec& exec,
                                 core::HashGraphView g,
                                 std::uint32_t n,
                                 std::uint32_t* flags) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t e) { flags[e] = g.is_first_edge(e); });
}

template <class Exec>
void hash_graph_list_unique(Exec& exec,
                            core::HashGraphView g,
                            const std::uint32_t* flags,
                            std::uint32_t n,
                            Key* unique_keys) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t e) {
    if (flags[e]) unique_keys[g.edge_rank[e]] = g.edges[e].key;
  });
}

template <class Exec>
std::uint32_t HashGraphImpl<Exec>::number_unique(std::uint32_t n) {
  if (n == 0) {
    m_view.edge_rank = m_rank.data();
    return 0;
  }
  Buffer<std::uint32_t>& flags = m_graph.vertex_out;  // scratch, free after the build
  flags.resize(n);
  m_rank.resize(n);
  hash_graph_flag_first_edges(m_exec, m_view, n, flags.data());
  m_exec.exclusive_sum(flags.data(), m_rank.data(), n);
  const std::uint32_t unique =
      m_exec.read(m_rank.data() + n - 1) + m_exec.read(flags.data() + n - 1);
  m_view.edge_rank = m_rank.data();
  m_unique.resize(unique);
  hash_graph_list_unique(m_exec, m_view, flags.data(), n, m_unique.data());
  m_exec.synchronize();
  return unique;
}

}  // namespace voxhash::tables
