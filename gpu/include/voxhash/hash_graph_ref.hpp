// HashGraphRef: the trivially copyable view of a built HashGraph (Green, 2021) that kernels (and
// the CPU backend's loops) probe through: CSR over hash values, vertex v's edges (key, value) in
// edges[buckets[v].begin .. buckets[v].end), with a copy of its first edge inline in buckets[v], so
// a lookup that ends at the first edge reads one 32-byte sector. Lookups only; 32-bit keys (8-byte
// edges, 16-byte bucket records) or 64-bit keys (16-byte edges, as the paper's, 32-byte records).
#pragma once

#include <voxhash/detail/hash.hpp>
#include <voxhash/detail/host_device.hpp>
#include <voxhash/types.hpp>

#include <cstdint>

namespace voxhash {

/// An edge: a key and its value.
template <class K>
struct BasicHashGraphEdge {
  K key;
  Value value;
};
using HashGraphEdge   = BasicHashGraphEdge<Key>;
using HashGraphEdge64 = BasicHashGraphEdge<Key64>;
static_assert(sizeof(HashGraphEdge) == 8);
static_assert(sizeof(HashGraphEdge64) == 16);

/// A vertex's bucket record: where its edges lie and its first edge. A vertex with no edges has
/// begin == end (the number of edges of lower vertices, as the CSR's offsets) and first =
/// {kEmptyKeyOf<K>, kNotFound}. Aligned to its power-of-two size, so it never straddles a sector.
template <class K>
struct alignas(sizeof(K) == 4 ? 16 : 32) BasicHashGraphBucket {
  std::uint32_t begin;
  std::uint32_t end;
  BasicHashGraphEdge<K> first;  // edges[begin] when begin < end
};
using HashGraphBucket   = BasicHashGraphBucket<Key>;
using HashGraphBucket64 = BasicHashGraphBucket<Key64>;
static_assert(sizeof(HashGraphBucket) == 16);
static_assert(sizeof(HashGraphBucket64) == 32);

/// A HashGraph as kernels see it; valid until the table's next build.
template <class KeyT>
struct BasicHashGraphRef {
  using key_type = KeyT;
  using Edge     = BasicHashGraphEdge<KeyT>;
  using Bucket   = BasicHashGraphBucket<KeyT>;

  const Bucket* buckets          = nullptr;  // one per vertex
  const Edge* edges              = nullptr;  // one per input key, grouped by vertex
  const std::uint32_t* edge_rank = nullptr;  // dense id of the key whose first edge this is
  std::uint32_t range            = 0;        // number of vertices (hash values)
  std::uint32_t seed             = 0;

  VOXHASH_HD std::uint32_t vertex(KeyT key) const {
    return detail::hash_graph_vertex(key, seed, range);
  }

  /// Index of the first edge of `key` in its bucket list, or kNotFound (probe-standard); the
  /// edge itself in `found` (read from the bucket record when it is the first).
  VOXHASH_HD std::uint32_t find_edge(KeyT key, Edge& found) const {
    if (range == 0) return kNotFound;
    const Bucket b = buckets[vertex(key)];
    if (b.begin == b.end) return kNotFound;
    if (b.first.key == key) {
      found = b.first;
      return b.begin;
    }
    for (std::uint32_t e = b.begin + 1; e < b.end; ++e) {
      const Edge edge = edges[e];
      if (edge.key == key) {
        found = edge;
        return e;
      }
    }
    return kNotFound;
  }

  VOXHASH_HD std::uint32_t find_edge(KeyT key) const {
    Edge found{};
    return find_edge(key, found);
  }

  VOXHASH_HD Value find(KeyT key) const {
    Edge found{};
    return find_edge(key, found) == kNotFound ? kNotFound : found.value;
  }

  VOXHASH_HD bool contains(KeyT key) const { return find_edge(key) != kNotFound; }

  VOXHASH_HD std::uint32_t count(KeyT key) const {
    if (range == 0) return 0;
    const Bucket b = buckets[vertex(key)];
    if (b.begin == b.end) return 0;
    std::uint32_t n = b.first.key == key;
    for (std::uint32_t e = b.begin + 1; e < b.end; ++e)
      n += edges[e].key == key;
    return n;
  }

  /// Dense id in [0, unique keys) of `key`, or kNotFound. Needs a build with unique ids.
  VOXHASH_HD std::uint32_t find_id(KeyT key) const {
    const std::uint32_t e = find_edge(key);
    return e == kNotFound ? kNotFound : edge_rank[e];
  }

  /// Writes the values of every edge of `key`, in bucket order, from out[0]; returns how many.
  VOXHASH_HD std::uint32_t find_all(KeyT key, Value* out) const {
    if (range == 0) return 0;
    const Bucket b = buckets[vertex(key)];
    if (b.begin == b.end) return 0;
    std::uint32_t n = 0;
    if (b.first.key == key) out[n++] = b.first.value;
    for (std::uint32_t e = b.begin + 1; e < b.end; ++e) {
      if (edges[e].key == key) out[n++] = edges[e].value;
    }
    return n;
  }

  /// Batched find_edge: K keys at once, their K bucket records loaded together, then each step
  /// loading the next edge of every key not yet settled, so a thread keeps K independent loads in
  /// flight. kEmptyKeyOf<KeyT> marks an unused lane. found[k] receives the matching edge itself
  /// (key and value), read by the same load; {kEmptyKeyOf<KeyT>, kNotFound} where none.
  template <int K>
  VOXHASH_HD void find_edge_batch(const KeyT (&key)[K],
                                  std::uint32_t (&edge)[K],
                                  Edge (&found)[K]) const {
    std::uint32_t e[K] = {}, end[K] = {};
    Bucket b[K] = {};
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      if (range != 0 && key[k] != kEmptyKeyOf<KeyT>) b[k] = buckets[vertex(key[k])];
    }
    bool any = false;
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      const bool first = b[k].begin != b[k].end && b[k].first.key == key[k];
      edge[k]          = first ? b[k].begin : kNotFound;
      found[k]         = first ? b[k].first : Edge{kEmptyKeyOf<KeyT>, kNotFound};
      e[k]             = b[k].begin + 1;
      end[k]           = first ? 0 : b[k].end;
      any |= e[k] < end[k];
    }
    while (any) {
      Edge got[K] = {};
      any         = false;
      VOXHASH_UNROLL
      for (int k = 0; k < K; ++k) {
        if (e[k] < end[k]) got[k] = edges[e[k]];
      }
      VOXHASH_UNROLL
      for (int k = 0; k < K; ++k) {
        if (e[k] >= end[k]) continue;
        if (got[k].key == key[k]) {
          edge[k]  = e[k];
          found[k] = got[k];
          end[k]   = e[k];
        } else {
          ++e[k];
          any |= e[k] < end[k];
        }
      }
    }
  }

  /// Batched find_id: dense ids of K keys, kNotFound where absent.
  template <int K>
  VOXHASH_HD void find_id_batch(const KeyT (&key)[K], std::uint32_t (&id)[K]) const {
    std::uint32_t edge[K];
    Edge found[K];
    find_edge_batch<K>(key, edge, found);
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k)
      id[k] = edge[k] == kNotFound ? kNotFound : edge_rank[edge[k]];
  }
};

/// A 32-bit-key HashGraph: the fast path.
using HashGraphRef = BasicHashGraphRef<Key>;
/// A 64-bit-key HashGraph.
using HashGraphRef64 = BasicHashGraphRef<Key64>;

}  // namespace voxhash
