// Per-element HashGraph building (Green, 2021), shared by both backends: packing an edge, the
// clean-up's first-edge test and V2's offsets read off vertex-sorted edges. Lookups are the public
// HashGraphRef's. Over the key width: a 32-bit key's edge is packed in one word.
#pragma once

#include <voxhash/detail/host_device.hpp>
#include <voxhash/hash_graph_ref.hpp>
#include <voxhash/types.hpp>

#include <cstdint>

namespace voxhash::core {

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
