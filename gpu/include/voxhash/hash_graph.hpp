// HashGraph: Green's static hash table as CSR, behind the HashTable interface. V1 builds it with
// per-vertex atomic counters, a prefix sum and an atomic scatter (the paper's Alg. 1); V2 bins the
// edges by vertex first (here with CUB's radix sort, which is binning carried to the end) and reads
// the offsets off the sorted vertices. Probing is "standard" (walk the query's bucket list) or
// "intersect" (the paper's new probe: a HashGraph of the queries, bucket lists intersected).
#pragma once

#include <voxhash/buffer.hpp>
#include <voxhash/core/hash_graph.hpp>
#include <voxhash/hash_table.hpp>

namespace voxhash {

enum class ProbeMethod { Standard, Intersect };

/// All matches of a batch of queries: query i's values are values[offsets[i] .. offsets[i+1]).
struct MatchList {
  Buffer<std::uint32_t> offsets;  // queries + 1
  Buffer<Value> values;
};

class HashGraph : public HashTable {
 public:
  /// Selects how find/contains/count/find_id probe; both methods give the same answers.
  virtual void set_probe_method(ProbeMethod method)      = 0;
  [[nodiscard]] virtual ProbeMethod probe_method() const = 0;

  /// Every match of every query (synchronizes the stream: the output size is read back).
  [[nodiscard]] virtual MatchList find_all(const Key* queries,
                                           std::size_t n,
                                           Stream stream = nullptr) const = 0;

  /// The CSR as device code (or CPU loops) see it. Valid until the next build.
  [[nodiscard]] virtual core::HashGraphView view() const = 0;
};

}  // namespace voxhash
