// The seam between the backend-neutral entry points (dispatch.cpp) and the two backends: one
// BackendImpl per backend, made in its own translation unit (cpu_backend.cpp, cuda_backend.cu) as
// ExecBackend<Exec> for its executor. Plain C++, so dispatch.cpp needs no CUDA header.
#pragma once

#include "clash/clash_raw.hpp"
#include "pipeline/pipeline_backend.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/device_limits.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/join.hpp>
#include <voxhash/keys.hpp>
#include <voxhash/partitioned.hpp>
#include <voxhash/sorted_array.hpp>
#include <voxhash/timer.hpp>

#include <cstddef>
#include <memory>
#include <string>

namespace voxhash::detail {

enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };

class BackendImpl {
 public:
  virtual ~BackendImpl() = default;

  // Memory (see buffer.hpp).
  virtual void* allocate(std::size_t bytes)                                            = 0;
  virtual void deallocate(void* ptr) noexcept                                          = 0;
  virtual void* allocate_pinned(std::size_t bytes)                                     = 0;
  virtual void deallocate_pinned(void* ptr) noexcept                                   = 0;
  virtual void copy(void* dst, const void* src, std::size_t bytes, CopyKind kind)      = 0;
  virtual void fill_bytes_async(void* ptr, int byte, std::size_t bytes, Stream stream) = 0;

  // The device (see backend.hpp, device_limits.hpp).
  [[nodiscard]] virtual std::string describe_device()                  = 0;
  [[nodiscard]] virtual std::size_t free_memory()                      = 0;
  [[nodiscard]] virtual std::string driver_version()                   = 0;
  virtual void synchronize()                                           = 0;
  [[nodiscard]] virtual DeviceLimits measure_device_limits(bool quick) = 0;

  // What runs on it.
  [[nodiscard]] virtual std::unique_ptr<HashTable> make_table(TableKind kind,
                                                              const BuildOptions& options) = 0;
  /// A 64-bit-key table of any kind.
  [[nodiscard]] virtual std::unique_ptr<HashTable64> make_table64(TableKind kind,
                                                                  const BuildOptions& options) = 0;
  [[nodiscard]] virtual std::unique_ptr<SortedArray> make_sorted_array()                       = 0;
  [[nodiscard]] virtual std::unique_ptr<PipelineBackend> make_pipeline()                       = 0;
  [[nodiscard]] virtual std::unique_ptr<MarkTimer> make_mark_timer(int marks, Stream stream)   = 0;
  virtual void generate_keys(Key* out, std::size_t n, const KeySpec& spec, Stream stream)      = 0;
  [[nodiscard]] virtual JoinResult join(const JoinInput& left,
                                        const JoinInput& right,
                                        const JoinOptions& options,
                                        Stream stream)                                         = 0;
  /// A table, and a join, over the communicator's ranks (multi/partitioned_impl.hpp).
  [[nodiscard]] virtual std::unique_ptr<PartitionedTable> make_partitioned_table(
      TableKind kind, Communicator& communicator, const BuildOptions& options)             = 0;
  [[nodiscard]] virtual PartitionedJoinResult partitioned_join(Communicator& communicator,
                                                               std::span<const JoinInput> left,
                                                               std::span<const JoinInput> right,
                                                               const JoinOptions& options) = 0;
  /// The clash pass over a pipeline of this backend (clash/clash_impl.hpp): its clash regions,
  /// and for two mesh models their parts' solids and part-pair clashes (clash/part_clashes_impl.hpp).
  [[nodiscard]] virtual clash::RawClash find_clashes(const PipelineBackend& pipeline,
                                                     const Grid& grid,
                                                     const clash::ClashPass& pass) = 0;
};

/// The backend's implementation; throws InvalidInput for Cuda in a build without CUDA.
[[nodiscard]] BackendImpl& backend_impl(Backend backend);

BackendImpl& cpu_backend();
/// The backend that allocates pinned host memory: Cuda when available, else Cpu.
BackendImpl& pinned_memory_backend();
/// Defined only in builds with CUDA (cuda_backend.cu).
BackendImpl& cuda_backend();
/// Number of usable CUDA devices; on 0, `reason` says why. Defined only in builds with CUDA.
int cuda_device_count(std::string& reason);

}  // namespace voxhash::detail
