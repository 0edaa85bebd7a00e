// The backend's work by concern, declared once over the executor: the tables, the joins, the
// frame and the clash pass. Each concern's templates are defined in a header of its own
// (table_entries.hpp, join_entries.hpp, frame_entries.hpp, clash_entries.hpp) and instantiated
// for each executor in a translation unit of its own (cpu_tables.cpp, cuda_tables.cu, ...), so
// an edit to one concern rebuilds its two units, and the concerns compile side by side.
#pragma once

#include "clash/clash_raw.hpp"
#include "pipeline/pipeline_backend.hpp"

#include <voxhash/hash_table.hpp>
#include <voxhash/join.hpp>
#include <voxhash/keys.hpp>
#include <voxhash/partitioned.hpp>
#include <voxhash/sorted_array.hpp>

#include <cstddef>
#include <memory>
#include <span>

namespace voxhash::backends {

/// The hash tables of every kind, the sorted array and key generation (table_entries.hpp).
template <class Exec>
struct TableEntries {
  static std::unique_ptr<HashTable> make_table(TableKind kind, const BuildOptions& options);
  static std::unique_ptr<HashTable64> make_table64(TableKind kind, const BuildOptions& options);
  static std::unique_ptr<SortedArray> make_sorted_array();
  static void generate_keys(Key* out, std::size_t n, const KeySpec& spec, Stream stream);
};

/// The joins, on one device and over the communicator's ranks, and the partitioned table
/// (join_entries.hpp).
template <class Exec>
struct JoinEntries {
  static JoinResult join(const JoinInput& left,
                         const JoinInput& right,
                         const JoinOptions& options,
                         Stream stream);
  static std::unique_ptr<PartitionedTable> make_partitioned_table(TableKind kind,
                                                                  Communicator& communicator,
                                                                  const BuildOptions& options);
  static PartitionedJoinResult partitioned_join(Communicator& communicator,
                                                std::span<const JoinInput> left,
                                                std::span<const JoinInput> right,
                                                const JoinOptions& options);
};

/// The voxel pipeline (frame_entries.hpp).
template <class Exec>
struct FrameEntries {
  static std::unique_ptr<detail::PipelineBackend> make_pipeline();
};

/// The clash pass over a pipeline of this executor (clash_entries.hpp).
template <class Exec>
struct ClashEntries {
  static clash::RawClash find_clashes(const detail::PipelineBackend& pipeline,
                                      const Grid& grid,
                                      const clash::ClashPass& pass);
};

}  // namespace voxhash::backends
