// HashGraphRef: the trivially copyable view of a built HashGraph (Green, 2021) that kernels (and
// the CPU backend's loops) probe through. The table is CSR over hash values: vertex v's edges
// (bucket list) are edges[bucket_offsets[v] .. bucket_offsets[v+1]), each edge holding a key and
// its value (the key's input index unless the caller gave values). Lookups only.
// BasicHashGraphRef<K> for 32-bit keys (8-byte edges) and 64-bit keys (16-byte edges, as the
// paper's own).
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

/// A HashGraph as kernels see it; valid until the table's next build.
template <class KeyT>
struct BasicHashGraphRef {
  using key_type = KeyT;
  using Edge     = BasicHashGraphEdge<KeyT>;

  const std::uint32_t* bucket_offsets = nullptr;  // range + 1 entries
  const Edge* edges                   = nullptr;  // one per input key, grouped by vertex
  const std::uint32_t* edge_rank      = nullptr;  // dense id of the key whose first edge this is
  std::uint32_t range                 = 0;        // number of vertices (hash values)
  std::uint32_t seed                  = 0;

  VOXHASH_HD std::uint32_t vertex(KeyT key) const {
    return detail::hash_graph_vertex(key, seed, range);
  }

  /// Index of the first edge of `key` in its bucket list, or kNotFound (probe-standard).
  VOXHASH_HD std::uint32_t find_edge(KeyT key) const {
    if (range == 0) return kNotFound;
    const std::uint32_t v   = vertex(key);
    const std::uint32_t end = bucket_offsets[v + 1];
    for (std::uint32_t e = bucket_offsets[v]; e < end; ++e) {
      if (edges[e].key == key) return e;
    }
    return kNotFound;
  }

  VOXHASH_HD Value find(KeyT key) const {
    const std::uint32_t e = find_edge(key);
    return e == kNotFound ? kNotFound : edges[e].value;
  }

  VOXHASH_HD bool contains(KeyT key) const { return find_edge(key) != kNotFound; }

  VOXHASH_HD std::uint32_t count(KeyT key) const {
    if (range == 0) return 0;
    const std::uint32_t v   = vertex(key);
    const std::uint32_t end = bucket_offsets[v + 1];
    std::uint32_t n         = 0;
    for (std::uint32_t e = bucket_offsets[v]; e < end; ++e)
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
    const std::uint32_t v   = vertex(key);
    const std::uint32_t end = bucket_offsets[v + 1];
    std::uint32_t n         = 0;
    for (std::uint32_t e = bucket_offsets[v]; e < end; ++e) {
      if (edges[e].key == key) out[n++] = edges[e].value;
    }
    return n;
  }

  /// Batched find_edge: K keys at once, each step loading the next edge of every pending key
  /// together, so a thread keeps K independent loads in flight. kEmptyKeyOf<KeyT> marks an unused
  /// lane. found[k] receives the matching edge itself (key and value), read by the same load.
  template <int K>
  VOXHASH_HD void find_edge_batch(const KeyT (&key)[K],
                                  std::uint32_t (&edge)[K],
                                  Edge (&found)[K]) const {
    std::uint32_t e[K] = {}, end[K] = {};
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      edge[k]  = kNotFound;
      found[k] = {kEmptyKeyOf<KeyT>, kNotFound};
      if (range != 0 && key[k] != kEmptyKeyOf<KeyT>) {
        const std::uint32_t v = vertex(key[k]);
        e[k]                  = bucket_offsets[v];
        end[k]                = bucket_offsets[v + 1];
      }
    }
    for (;;) {
      Edge got[K] = {};
      bool any    = false;
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
      if (!any) return;
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
