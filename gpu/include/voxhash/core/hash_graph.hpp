// Per-element HashGraph (Green, 2021), shared by both backends: a static hash table stored as CSR.
// Vertices are hash values in [0, range); vertex v's edges (bucket list) are
// edges[bucket_offsets[v] .. bucket_offsets[v+1]), each edge holding a key and its value (the
// key's input index unless the caller gave values). HashGraphView is what kernels receive.
#pragma once

#include <voxhash/core/atomics.hpp>
#include <voxhash/core/hash.hpp>
#include <voxhash/core/host_device.hpp>
#include <voxhash/types.hpp>

#include <cstdint>

namespace voxhash::core {

struct HashGraphEdge {
  Key key;
  Value value;
};
static_assert(sizeof(HashGraphEdge) == 8);

VOXHASH_HD std::uint64_t pack_edge(Key key, Value value) {
  return (static_cast<std::uint64_t>(value) << 32) | key;  // little-endian layout of HashGraphEdge
}

struct HashGraphView {
  const std::uint32_t* bucket_offsets = nullptr;  // range + 1 entries
  const HashGraphEdge* edges          = nullptr;  // one per input key, grouped by vertex
  const std::uint32_t* edge_rank      = nullptr;  // dense id of the key whose first edge this is
  std::uint32_t range                 = 0;        // number of vertices (hash values)
  std::uint32_t seed                  = 0;

  VOXHASH_HD std::uint32_t vertex(Key key) const { return hash_graph_vertex(key, seed, range); }

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

  /// 1 if edge `e` is the first edge of its key in its bucket list, else 0.
  VOXHASH_HD std::uint32_t is_first_edge(std::uint32_t e) const {
    return find_edge(edges[e].key) == e ? 1u : 0u;
  }
};

/// V2's CSR from vertex-sorted edges, step one: the thread at the last edge i of a run of equal
/// vertices v writes offsets[v + 1] = i + 1 (where the next vertex's list starts). Vertices with
/// no edges keep 0, and an inclusive prefix-max over offsets then fills every entry, because
/// bucket_offsets[v] is the number of edges with a vertex below v. No thread walks a gap.
VOXHASH_HD void mark_run_end(const std::uint32_t* sorted_vertex,
                             std::uint32_t n,
                             std::uint32_t i,
                             std::uint32_t* offsets) {
  if (i + 1 == n || sorted_vertex[i] != sorted_vertex[i + 1]) offsets[sorted_vertex[i] + 1] = i + 1;
}

}  // namespace voxhash::core
