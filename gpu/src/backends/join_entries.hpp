// JoinEntries<Exec> defined (see entry_points.hpp): the hash join on one device and the table and
// join partitioned over a communicator's ranks. Included only by cpu_joins.cpp and cuda_joins.cu.
#pragma once

#include "backends/entry_points.hpp"
#include "join/join_impl.hpp"
#include "multi/partitioned_impl.hpp"

namespace voxhash::backends {

template <class Exec>
JoinResult JoinEntries<Exec>::join(const JoinInput& left,
                                   const JoinInput& right,
                                   const JoinOptions& options,
                                   Stream stream) {
  return joins::JoinRun<Exec>(options, stream).run(left, right);
}

template <class Exec>
std::unique_ptr<PartitionedTable> JoinEntries<Exec>::make_partitioned_table(
    TableKind kind, Communicator& communicator, const BuildOptions& options) {
  return std::make_unique<multi::PartitionedTableImpl<Exec>>(
      kind, communicator, options, [kind, options] {
        return TableEntries<Exec>::make_table(kind, options);
      });
}

template <class Exec>
PartitionedJoinResult JoinEntries<Exec>::partitioned_join(Communicator& communicator,
                                                          std::span<const JoinInput> left,
                                                          std::span<const JoinInput> right,
                                                          const JoinOptions& options) {
  return multi::partitioned_join_with<Exec>(communicator, left, right, options);
}

}  // namespace voxhash::backends
