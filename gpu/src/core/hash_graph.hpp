// Per-element HashGraph building (Green, 2021), shared by both backends: packing an edge, the
// clean-up's first-edge test, and the bucket records read off vertex-grouped edges (V1's and V2's
// alike; V2's 32-bit edges come as sorted hashes and are unpacked by the same pass). Lookups are
// the public HashGraphRef's. A 32-bit key's edge is packed in one word. mark_run_end also serves
// the paged table's page offsets.
#pragma once

#include <voxhash/detail/hash.hpp>
#include <voxhash/detail/host_device.hpp>
#include <voxhash/hash_graph_ref.hpp>
#include <voxhash/types.hpp>

#include <cstdint>

namespace voxhash::core {

/// Vertices per chunk of the bucket records: an edge's thread writes the records of the edgeless
/// vertices beside its own only within their chunks (at most 3 (kBucketChunk - 1) records), and
/// one thread per chunk with no edges at all writes that chunk's, so no thread walks a long gap.
inline constexpr std::uint32_t kBucketChunk = 32;

VOXHASH_HD std::uint64_t pack_edge(Key key, Value value) {
  return (static_cast<std::uint64_t>(value) << 32) | key;  // little-endian layout of HashGraphEdge
}

VOXHASH_HD HashGraphEdge64 pack_edge(Key64 key, Value value) {
  return HashGraphEdge64{key, value};
}

/// 1 if edge `e` is the first edge of its key in its bucket list, else 0.
template <class KeyT>
VOXHASH_HD std::uint32_t is_first_edge(const BasicHashGraphRef<KeyT>& g, std::uint32_t e) {
  return g.find_edge(g.edges[e].key) == e ? 1u : 0u;
}

/// is_first_edge where each key's edges are adjacent (V2 with 32-bit keys, whose buckets are in
/// hash order): the edge before differs. Edges of other vertices have other keys.
template <class KeyT>
VOXHASH_HD std::uint32_t starts_key_run(const BasicHashGraphRef<KeyT>& g, std::uint32_t e) {
  return e == 0 || g.edges[e - 1].key != g.edges[e].key ? 1u : 0u;
}

/// Offsets from sorted runs, step one: the thread at the last element i of a run of equal values
/// v writes offsets[v + 1] = i + 1 (where the next value's run starts). Values with no run keep 0,
/// and an inclusive prefix-max over offsets then fills every entry, because offsets[v] is the
/// number of elements below v. No thread walks a gap.
VOXHASH_HD void mark_run_end(const std::uint32_t* sorted_vertex,
                             std::uint32_t n,
                             std::uint32_t i,
                             std::uint32_t* offsets) {
  if (i + 1 == n || sorted_vertex[i] != sorted_vertex[i + 1]) offsets[sorted_vertex[i] + 1] = i + 1;
}

/// The record of a vertex with no edges, where `begin` edges have lower vertices.
template <class K>
VOXHASH_HD BasicHashGraphBucket<K> empty_bucket(std::uint32_t begin) {
  return BasicHashGraphBucket<K>{begin, begin, {kEmptyKeyOf<K>, kNotFound}};
}

/// One past the last vertex of w's chunk.
VOXHASH_HD std::uint32_t chunk_limit(std::uint32_t w, std::uint32_t range) {
  const std::uint32_t limit = (w / kBucketChunk + 1) * kBucketChunk;
  return limit < range ? limit : range;
}

/// Bucket records from n vertex-grouped edges, step one, for edge i (`edge`, of vertex v; u is the
/// vertex of edge i - 1, `next` that of edge i + 1, each ignored where there is none). Where i
/// starts v's list: v's begin and first edge, the end of the list before (vertex u), and the
/// records of the edgeless vertices between u and v that share u's or v's chunk; the last edge
/// also ends v's list and writes the edgeless vertices after v in its chunk. The last edge of each
/// chunk marks chunk_ends[chunk + 1] = i + 1 (as mark_run_end, for the prefix-max that finds the
/// chunks with no edges).
template <class K>
VOXHASH_HD void write_edge_records(std::uint32_t range,
                                   std::uint32_t n,
                                   std::uint32_t i,
                                   const BasicHashGraphEdge<K>& edge,
                                   std::uint32_t u,
                                   std::uint32_t v,
                                   std::uint32_t next,
                                   BasicHashGraphBucket<K>* buckets,
                                   std::uint32_t* chunk_ends) {
  const bool last = i + 1 == n;
  if (last || next / kBucketChunk != v / kBucketChunk) chunk_ends[v / kBucketChunk + 1] = i + 1;
  if (i == 0 || u != v) {
    buckets[v].begin   = i;
    buckets[v].first   = edge;
    std::uint32_t in_v = v / kBucketChunk * kBucketChunk;  // first gap vertex in v's chunk
    if (i != 0) {
      buckets[u].end           = i;
      const std::uint32_t in_u = chunk_limit(u, range) < v ? chunk_limit(u, range) : v;
      for (std::uint32_t w = u + 1; w < in_u; ++w)
        buckets[w] = empty_bucket<K>(i);
      if (in_u > in_v) in_v = in_u;
    }
    for (std::uint32_t w = in_v; w < v; ++w)
      buckets[w] = empty_bucket<K>(i);
  }
  if (last) {
    buckets[v].end            = n;
    const std::uint32_t limit = chunk_limit(v, range);
    for (std::uint32_t w = v + 1; w < limit; ++w)
      buckets[w] = empty_bucket<K>(n);
  }
}

/// write_edge_records for edge i of the n vertex-grouped edges of g (g.buckets unused), each
/// edge's vertex re-hashed from its key (V1, and V2 with 64-bit keys).
template <class K>
VOXHASH_HD void write_edge_buckets(const BasicHashGraphRef<K>& g,
                                   std::uint32_t n,
                                   std::uint32_t i,
                                   BasicHashGraphBucket<K>* buckets,
                                   std::uint32_t* chunk_ends) {
  const BasicHashGraphEdge<K> edge = g.edges[i];
  const std::uint32_t v            = g.vertex(edge.key);
  const std::uint32_t u            = i == 0 ? v : g.vertex(g.edges[i - 1].key);
  const std::uint32_t next         = i + 1 == n ? v : g.vertex(g.edges[i + 1].key);
  write_edge_records(g.range, n, i, edge, u, v, next, buckets, chunk_ends);
}

/// Edge i of V2's 32-bit grouping: the sorted hashes h = murmur_mix(key, seed) (ascending, so
/// grouped by vertex = fast_range(h, range)) and their values. The key is murmur_unmix(h, seed).
VOXHASH_HD HashGraphEdge hashed_edge(const std::uint32_t* hashes,
                                     const Value* values,
                                     std::uint32_t seed,
                                     std::uint32_t i) {
  return HashGraphEdge{detail::murmur_unmix(hashes[i], seed), values[i]};
}

/// V2 with 32-bit keys, edge i of n sorted (hash, value) pairs: writes the edge itself (key
/// recovered from its hash) to edges[i] and its records as write_edge_records, the vertices read
/// off the hashes (no key is re-hashed).
VOXHASH_HD void write_hashed_edge_buckets(std::uint32_t range,
                                          std::uint32_t seed,
                                          const std::uint32_t* hashes,
                                          const Value* values,
                                          std::uint32_t n,
                                          std::uint32_t i,
                                          std::uint64_t* edges,
                                          HashGraphBucket* buckets,
                                          std::uint32_t* chunk_ends) {
  const HashGraphEdge edge = hashed_edge(hashes, values, seed, i);
  edges[i]                 = pack_edge(edge.key, edge.value);
  const std::uint32_t v    = detail::fast_range(hashes[i], range);
  const std::uint32_t u    = i == 0 ? v : detail::fast_range(hashes[i - 1], range);
  const std::uint32_t next = i + 1 == n ? v : detail::fast_range(hashes[i + 1], range);
  write_edge_records(range, n, i, edge, u, v, next, buckets, chunk_ends);
}

/// Step two, for chunk c after the prefix-max over chunk_ends: a chunk with no edges gets empty
/// records, each beginning where the edges of lower chunks end.
template <class K>
VOXHASH_HD void write_empty_chunk(std::uint32_t range,
                                  const std::uint32_t* chunk_ends,
                                  std::uint32_t c,
                                  BasicHashGraphBucket<K>* buckets) {
  const std::uint32_t begin = chunk_ends[c];
  if (begin != chunk_ends[c + 1]) return;
  const std::uint32_t first = c * kBucketChunk;
  const std::uint32_t limit = chunk_limit(first, range);
  for (std::uint32_t w = first; w < limit; ++w)
    buckets[w] = empty_bucket<K>(begin);
}

}  // namespace voxhash::core
