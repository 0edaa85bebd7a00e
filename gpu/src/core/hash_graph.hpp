// Per-element HashGraph building (Green, 2021), shared by both backends: packing an edge, the
// clean-up's first-edge test, and the bucket records read off vertex-grouped edges (V1's and V2's
// alike). Lookups are the public HashGraphRef's. Over the key width: a 32-bit key's edge is packed
// in one word. mark_run_end also serves the paged table's page offsets.
#pragma once

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

/// Bucket records from the n vertex-grouped edges of g (g.buckets unused), step one, for edge i.
/// Where i starts its vertex v's list: v's begin and first edge, the end of the list before
/// (vertex u), and the records of the edgeless vertices between u and v that share u's or v's
/// chunk; the last edge also ends v's list and writes the edgeless vertices after v in its chunk.
/// The last edge of each chunk marks chunk_ends[chunk + 1] = i + 1 (as mark_run_end, for the
/// prefix-max that finds the chunks with no edges).
template <class K>
VOXHASH_HD void write_edge_buckets(const BasicHashGraphRef<K>& g,
                                   std::uint32_t n,
                                   std::uint32_t i,
                                   BasicHashGraphBucket<K>* buckets,
                                   std::uint32_t* chunk_ends) {
  const BasicHashGraphEdge<K> edge = g.edges[i];
  const std::uint32_t v            = g.vertex(edge.key);
  const bool last                  = i + 1 == n;
  if (last || g.vertex(g.edges[i + 1].key) / kBucketChunk != v / kBucketChunk) {
    chunk_ends[v / kBucketChunk + 1] = i + 1;
  }
  const std::uint32_t u = i == 0 ? v : g.vertex(g.edges[i - 1].key);
  if (i == 0 || u != v) {
    buckets[v].begin   = i;
    buckets[v].first   = edge;
    std::uint32_t in_v = v / kBucketChunk * kBucketChunk;  // first gap vertex in v's chunk
    if (i != 0) {
      buckets[u].end           = i;
      const std::uint32_t in_u = chunk_limit(u, g.range) < v ? chunk_limit(u, g.range) : v;
      for (std::uint32_t w = u + 1; w < in_u; ++w)
        buckets[w] = empty_bucket<K>(i);
      if (in_u > in_v) in_v = in_u;
    }
    for (std::uint32_t w = in_v; w < v; ++w)
      buckets[w] = empty_bucket<K>(i);
  }
  if (last) {
    buckets[v].end            = n;
    const std::uint32_t limit = chunk_limit(v, g.range);
    for (std::uint32_t w = v + 1; w < limit; ++w)
      buckets[w] = empty_bucket<K>(n);
  }
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
