// ExecBackend<Exec>: the part of a BackendImpl that is the same on every backend, written once
// over the executor: the tables, the sorted array, the joins, the pipeline, the clash pass (each
// a concern of entry_points.hpp, instantiated in its own translation units), the timer, and the
// device limits. Each backend's translation unit derives from it (memory, device queries, the
// limits' sizes).
#pragma once

#include "backends/backend_impl.hpp"
#include "backends/device_limits_impl.hpp"
#include "backends/entry_points.hpp"
#include "exec/exec_timer.hpp"

#include <memory>

namespace voxhash::backends {

template <class Exec>
class ExecBackend : public detail::BackendImpl {
 public:
  std::unique_ptr<HashTable> make_table(TableKind kind, const BuildOptions& options) final {
    return TableEntries<Exec>::make_table(kind, options);
  }
  std::unique_ptr<HashTable64> make_table64(TableKind kind, const BuildOptions& options) final {
    return TableEntries<Exec>::make_table64(kind, options);
  }
  std::unique_ptr<SortedArray> make_sorted_array() final {
    return TableEntries<Exec>::make_sorted_array();
  }
  void generate_keys(Key* out, std::size_t n, const KeySpec& spec, Stream stream) final {
    TableEntries<Exec>::generate_keys(out, n, spec, stream);
  }
  std::unique_ptr<detail::PipelineBackend> make_pipeline() final {
    return FrameEntries<Exec>::make_pipeline();
  }
  std::unique_ptr<detail::MarkTimer> make_mark_timer(int marks, Stream stream) final {
    return std::make_unique<ExecMarkTimer<Exec>>(marks, stream);
  }
  JoinResult join(const JoinInput& left,
                  const JoinInput& right,
                  const JoinOptions& options,
                  Stream stream) final {
    return JoinEntries<Exec>::join(left, right, options, stream);
  }
  std::unique_ptr<PartitionedTable> make_partitioned_table(TableKind kind,
                                                           Communicator& communicator,
                                                           const BuildOptions& options) final {
    return JoinEntries<Exec>::make_partitioned_table(kind, communicator, options);
  }
  PartitionedJoinResult partitioned_join(Communicator& communicator,
                                         std::span<const JoinInput> left,
                                         std::span<const JoinInput> right,
                                         const JoinOptions& options) final {
    return JoinEntries<Exec>::partitioned_join(communicator, left, right, options);
  }
  clash::RawClash find_clashes(const detail::PipelineBackend& pipeline,
                               const Grid& grid,
                               const clash::ClashPass& pass) final {
    return ClashEntries<Exec>::find_clashes(pipeline, grid, pass);
  }

  DeviceLimits measure_device_limits(bool quick) final {
    return measure_limits<Exec>(limit_plan(quick), describe_device());
  }

 protected:
  /// The sizes this backend measures its limits with.
  [[nodiscard]] virtual LimitPlan limit_plan(bool quick) = 0;
};

}  // namespace voxhash::backends
