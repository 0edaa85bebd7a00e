// The arrays of one HashGraph (bucket records and edges, plus the scratch its builds count or sort
// in), and what a ProbeScratch holds: the intersect probe's query graph (its grouped edges only,
// one per key width), its build status and CUB's scratch.
#pragma once

#include "tables/build_status.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/hash_graph.hpp>
#include <voxhash/hash_graph_ref.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace voxhash {
namespace tables {

/// How an edge of key width K is stored and sorted: 32-bit keys' edges packed in one 64-bit word,
/// 64-bit keys' as the 16-byte edge itself.
template <class K>
using EdgeWord = std::conditional_t<std::is_same_v<K, Key>, std::uint64_t, HashGraphEdge64>;

/// Whether V2 with keys of width K sorts (murmur_mix(key), value) pairs, from which the keys come
/// back by the mix's inverse (32-bit keys), rather than (vertex, edge) pairs (64-bit keys, whose
/// vertex is a fold of a 64-bit mix and so no bijection).
template <class K>
inline constexpr bool kSortsHashes = std::is_same_v<K, Key>;

/// What V2's sort carries beside its 32-bit sort key: the value (32-bit keys) or the whole edge.
template <class K>
using SortValue = std::conditional_t<kSortsHashes<K>, Value, HashGraphEdge64>;

template <class K = Key>
struct HashGraphArrays {
  explicit HashGraphArrays(Backend b)
      : buckets(b, 0),
        edges(b, 0),
        sort_keys_in(b, 0),
        sort_keys_out(b, 0),
        sort_values_in(b, 0),
        sort_values_out(b, 0) {}
  Buffer<BasicHashGraphBucket<K>> buckets;
  Buffer<EdgeWord<K>> edges;  // BasicHashGraphEdge<K>
  // V2's sort: keys (the hash with 32-bit keys, the vertex with 64-bit keys) and values, in and
  // out. With 64-bit keys the sorted edges go straight to `edges` and sort_values_out stays empty.
  // V1 and the record pass reuse the 32-bit arrays as per-vertex or per-chunk scratch.
  Buffer<std::uint32_t> sort_keys_in, sort_keys_out;
  Buffer<SortValue<K>> sort_values_in, sort_values_out;
};

template <class K>
BasicHashGraphRef<K> graph_ref(const HashGraphArrays<K>& a,
                               std::uint32_t range,
                               std::uint32_t seed) {
  BasicHashGraphRef<K> r;
  r.buckets = a.buckets.data();
  r.edges   = reinterpret_cast<const BasicHashGraphEdge<K>*>(a.edges.data());
  r.range   = range;
  r.seed    = seed;
  return r;
}

}  // namespace tables

struct ProbeScratch::State {
  explicit State(Backend b) : graph(b), graph64(b), status(b, 1), temp(b, 0) {}
  tables::HashGraphArrays<Key> graph;
  tables::HashGraphArrays<Key64> graph64;  // a 64-bit-key table's query graph
  Buffer<tables::BuildStatus> status;
  Buffer<std::byte> temp;  // the query graph's sort scratch (CUB's temporary storage)

  /// The query graph for keys of width K.
  template <class K>
  tables::HashGraphArrays<K>& graph_of() {
    if constexpr (std::is_same_v<K, Key>) {
      return graph;
    } else {
      return graph64;
    }
  }
};

}  // namespace voxhash
