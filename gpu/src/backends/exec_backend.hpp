// ExecBackend<Exec>: the part of a BackendImpl that is the same on every backend, written once
// over the executor: the tables, the sorted array, the joins, the pipeline, the clash regions,
// the timer, key generation and the device limits. Each backend's translation unit derives from it
// (memory, device queries, the limits' sizes) and is the only place these templates are
// instantiated for its executor.
#pragma once

#include "backends/backend_impl.hpp"
#include "backends/device_limits_impl.hpp"
#include "clash/clash_impl.hpp"
#include "core/keys.hpp"
#include "exec/exec_timer.hpp"
#include "join/join_impl.hpp"
#include "multi/partitioned_impl.hpp"
#include "pipeline/pipeline_impl.hpp"
#include "tables/hash_graph_impl.hpp"
#include "tables/paged_table_impl.hpp"
#include "tables/slot_table_impl.hpp"
#include "tables/sorted_array_impl.hpp"

#include <memory>

namespace voxhash::backends {

template <class Exec>
class ExecBackend : public detail::BackendImpl {
 public:
  std::unique_ptr<HashTable> make_table(TableKind kind, const BuildOptions& options) final {
    if (kind == TableKind::Cuckoo) return std::make_unique<tables::CuckooTableImpl<Exec>>(options);
    if (kind == TableKind::BucketedCuckoo) {
      return std::make_unique<tables::BucketedCuckooTableImpl<Exec>>(options);
    }
    if (kind == TableKind::PagedCuckoo) {
      return std::make_unique<tables::PagedCuckooTableImpl<Exec>>(options);
    }
    return std::make_unique<tables::HashGraphImpl<Exec>>(kind, options);
  }
  std::unique_ptr<HashTable64> make_table64(TableKind kind, const BuildOptions& options) final {
    if (kind == TableKind::Cuckoo) {
      return std::make_unique<tables::CuckooTableImpl<Exec, Key64>>(options);
    }
    if (kind == TableKind::BucketedCuckoo) {
      return std::make_unique<tables::BucketedCuckooTableImpl<Exec, Key64>>(options);
    }
    if (kind == TableKind::PagedCuckoo) {
      return std::make_unique<tables::PagedCuckooTableImpl<Exec, Key64>>(options);
    }
    return std::make_unique<tables::HashGraphImpl<Exec, Key64>>(kind, options);
  }
  std::unique_ptr<SortedArray> make_sorted_array() final {
    return std::make_unique<tables::SortedArrayImpl<Exec>>();
  }
  std::unique_ptr<detail::PipelineBackend> make_pipeline() final {
    return std::make_unique<pipeline::PipelineImpl<Exec>>();
  }
  std::unique_ptr<detail::MarkTimer> make_mark_timer(int marks, Stream stream) final {
    return std::make_unique<ExecMarkTimer<Exec>>(marks, stream);
  }
  void generate_keys(Key* out, std::size_t n, const KeySpec& spec, Stream stream) final {
    Exec exec(stream);
    core::generate_keys_with(exec, out, n, spec);
  }
  JoinResult join(const JoinInput& left,
                  const JoinInput& right,
                  const JoinOptions& options,
                  Stream stream) final {
    return joins::JoinRun<Exec>(options, stream).run(left, right);
  }

  std::unique_ptr<PartitionedTable> make_partitioned_table(TableKind kind,
                                                           Communicator& communicator,
                                                           const BuildOptions& options) final {
    return std::make_unique<multi::PartitionedTableImpl<Exec>>(
        kind, communicator, options, [this, kind, options] { return make_table(kind, options); });
  }
  PartitionedJoinResult partitioned_join(Communicator& communicator,
                                         std::span<const JoinInput> left,
                                         std::span<const JoinInput> right,
                                         const JoinOptions& options) final {
    return multi::partitioned_join_with<Exec>(communicator, left, right, options);
  }

  clash::RawClash find_clashes(const detail::PipelineBackend& pipeline,
                               const Grid& grid,
                               const clash::ClashPass& pass) final {
    return clash::find_clashes<Exec>(pipeline, grid, pass);
  }

  DeviceLimits measure_device_limits(bool quick) final {
    return measure_limits<Exec>(limit_plan(quick), describe_device());
  }

 protected:
  /// The sizes this backend measures its limits with.
  [[nodiscard]] virtual LimitPlan limit_plan(bool quick) = 0;
};

}  // namespace voxhash::backends
