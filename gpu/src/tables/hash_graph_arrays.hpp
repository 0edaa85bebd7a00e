// The arrays of one HashGraph (CSR plus the scratch its V2 build sorts in), and what a
// ProbeScratch holds: the intersect probe's query graph, its build status and CUB's scratch.
#pragma once

#include "tables/build_status.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/hash_graph.hpp>
#include <voxhash/hash_graph_ref.hpp>

#include <cstddef>
#include <cstdint>

namespace voxhash {
namespace tables {

struct HashGraphArrays {
  explicit HashGraphArrays(Backend b)
      : offsets(b, 0), edges(b, 0), vertex_in(b, 0), vertex_out(b, 0), edge_in(b, 0) {}
  Buffer<std::uint32_t> offsets;
  Buffer<std::uint64_t> edges;  // HashGraphEdge, packed
  Buffer<std::uint32_t> vertex_in, vertex_out;
  Buffer<std::uint64_t> edge_in;
};

inline HashGraphRef graph_ref(const HashGraphArrays& a, std::uint32_t range, std::uint32_t seed) {
  HashGraphRef r;
  r.bucket_offsets = a.offsets.data();
  r.edges          = reinterpret_cast<const HashGraphEdge*>(a.edges.data());
  r.range          = range;
  r.seed           = seed;
  return r;
}

}  // namespace tables

struct ProbeScratch::State {
  explicit State(Backend b) : graph(b), status(b, 1), temp(b, 0) {}
  tables::HashGraphArrays graph;
  Buffer<tables::BuildStatus> status;
  Buffer<std::byte> temp;  // the query graph's sort scratch (CUB's temporary storage)
};

}  // namespace voxhash
