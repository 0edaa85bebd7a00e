// HashGraphRef: the trivially copyable view of a built HashGraph (Green, 2021) that kernels (and
// the CPU backend's loops) probe through. The table is CSR over hash values: vertex v's edges
// (bucket list) are edges[bucket_offsets[v] .. bucket_offsets[v+1]), each edge holding a key and
// its value (the key's input index unless the caller gave values). Lookups only.
#pragma once

#include <voxhash/detail/hash.hpp>
#include <voxhash/detail/host_device.hpp>
#include <voxhash/types.hpp>

#include <cstdint>

namespace voxhash {

struct HashGraphEdge {
  Key key;
  Value value;
};
static_assert(sizeof(HashGraphEdge) == 8);

/// A HashGraph as kernels see it; valid until the table's next build.
struct HashGraphRef {
  const std::uint32_t* bucket_offsets = nullptr;  // range + 1 entries
  const HashGraphEdge* edges          = nullptr;  // one per input key, grouped by vertex
  const std::uint32_t* edge_rank      = nullptr;  // dense id of the key whose first edge this is
  std::uint32_t range                 = 0;        // number of vertices (hash values)
  std::uint32_t seed                  = 0;

  VOXHASH_HD std::uint32_t vertex(Key key) const {
    return detail::hash_graph_vertex(key, seed, range);
  }

  /// Index of the first edge of `key` in its bucket list, or kNotFound (probe-standard).
  VOXHASH_HD std::uint32_t find_edge(Key key) const {
    if (range == 0) return kNotFound;
    const std::uint32_t v   = vertex(key);
    const std::uint32_t end = bucket_offsets[v + 1];
    for (std::uint32_t e = bucket_offsets[v]; e < end; ++e) {
      if (edges[e].key == key) return e;
    }
    return kNotFound;
  }

  VOXHASH_HD Value find(Key key) const {
    const std::uint32_t e = find_edge(key);
    return e == kNotFound ? kNotFound : edges[e].value;
  }

  VOXHASH_HD bool contains(Key key) const { return find_edge(key) != kNotFound; }

  VOXHASH_HD std::uint32_t count(Key key) const {
    if (range == 0) return 0;
    const std::uint32_t v   = vertex(key);
    const std::uint32_t end = bucket_offsets[v + 1];
    std::uint32_t n         = 0;
    for (std::uint32_t e = bucket_offsets[v]; e < end; ++e)
      n += edges[e].key == key;
    return n;
  }

  /// Dense id in [0, unique keys) of `key`, or kNotFound. Needs a build with unique ids.
  VOXHASH_HD std::uint32_t find_id(Key key) const {
    const std::uint32_t e = find_edge(key);
    return e == kNotFound ? kNotFound : edge_rank[e];
  }

  /// Writes the values of every edge of `key`, in bucket order, from out[0]; returns how many.
  VOXHASH_HD std::uint32_t find_all(Key key, Value* out) const {
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
  /// together, so a thread keeps K independent loads in flight. kEmptyKey marks an unused lane.
  /// found[k] receives the matching edge itself (key and value), read by the same load.
  template <int K>
  VOXHASH_HD void find_edge_batch(const Key (&key)[K],
                                  std::uint32_t (&edge)[K],
                                  HashGraphEdge (&found)[K]) const {
    std::uint32_t e[K] = {}, end[K] = {};
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      edge[k]  = kNotFound;
      found[k] = {kEmptyKey, kNotFound};
      if (range != 0 && key[k] != kEmptyKey) {
        const std::uint32_t v = vertex(key[k]);
        e[k]                  = bucket_offsets[v];
        end[k]                = bucket_offsets[v + 1];
      }
    }
    for (;;) {
      HashGraphEdge got[K] = {};
      bool any             = false;
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
  VOXHASH_HD void find_id_batch(const Key (&key)[K], std::uint32_t (&id)[K]) const {
    std::uint32_t edge[K];
    HashGraphEdge found[K];
    find_edge_batch<K>(key, edge, found);
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k)
      id[k] = edge[k] == kNotFound ? kNotFound : edge_rank[edge[k]];
  }
};

}  // namespace voxhash
