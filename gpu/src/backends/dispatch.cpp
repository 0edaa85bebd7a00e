// Picking the backend at run time: CUDA availability, backend names, and every backend-neutral
// entry point of the public API (copies, device queries, tables, joins, keys, timers; allocations
// go through memory.cpp), each handing its call to the chosen backend's BackendImpl. The only
// place that knows whether CUDA is compiled in.
#include "backends/backend_impl.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/communicator.hpp>
#include <voxhash/device_limits.hpp>
#include <voxhash/error.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/join.hpp>
#include <voxhash/keys.hpp>
#include <voxhash/partitioned.hpp>
#include <voxhash/sorted_array.hpp>
#include <voxhash/timer.hpp>

#include <cstring>
#include <string>
#include <type_traits>

namespace voxhash {

std::string cuda_unavailable_reason() {
#if VOXHASH_HAS_CUDA
  static const std::string reason = [] {
    std::string why;
    return detail::cuda_device_count(why) > 0 ? std::string() : why;
  }();
  return reason;
#else
  return "voxhash was built without CUDA";
#endif
}

detail::BackendImpl& detail::backend_impl(Backend backend) {
  if (backend == Backend::Cpu) return cpu_backend();
#if VOXHASH_HAS_CUDA
  return cuda_backend();
#else
  throw InvalidInput(cuda_unavailable_reason());
#endif
}

detail::BackendImpl& detail::pinned_memory_backend() {
#if VOXHASH_HAS_CUDA
  if (cuda_unavailable_reason().empty()) return cuda_backend();
#endif
  return cpu_backend();
}

bool cuda_available() {
  return cuda_unavailable_reason().empty();
}

int cuda_device_count() {
#if VOXHASH_HAS_CUDA
  std::string why;
  return detail::cuda_device_count(why);
#else
  return 0;
#endif
}

Backend default_backend() {
  return cuda_available() ? Backend::Cuda : Backend::Cpu;
}

Backend parse_backend(std::string_view name) {
  if (name == "auto") return default_backend();
  if (name == "cpu") return Backend::Cpu;
  if (name == "cuda") {
    if (!cuda_available()) {
      throw InvalidInput("backend 'cuda' requested but unavailable: " + cuda_unavailable_reason());
    }
    return Backend::Cuda;
  }
  throw InvalidInput("unknown backend '" + std::string(name) + "' (expected cpu, cuda or auto)");
}

std::string_view to_string(Backend backend) {
  return backend == Backend::Cuda ? "cuda" : "cpu";
}

std::string describe_device(Backend backend) {
  return detail::backend_impl(backend).describe_device();
}

std::size_t free_memory(Backend backend) {
  return detail::backend_impl(backend).free_memory();
}

std::string driver_version(Backend backend) {
  return detail::backend_impl(backend).driver_version();
}

void synchronize(Backend backend) {
  detail::backend_impl(backend).synchronize();
}

DeviceLimits measure_device_limits(Backend backend, bool quick) {
  return detail::backend_impl(backend).measure_device_limits(quick);
}

std::unique_ptr<HashTable> make_table(TableKind kind,
                                      Backend backend,
                                      const BuildOptions& options) {
  return detail::backend_impl(backend).make_table(kind, options);
}

template <class K>
std::unique_ptr<BasicHashTable<K>> make_table(TableKind kind,
                                              Backend backend,
                                              const BuildOptions& options) {
  if constexpr (std::is_same_v<K, Key>) {
    return detail::backend_impl(backend).make_table(kind, options);
  } else {
    return detail::backend_impl(backend).make_table64(kind, options);
  }
}

template std::unique_ptr<HashTable> make_table<Key>(TableKind, Backend, const BuildOptions&);
template std::unique_ptr<HashTable64> make_table<Key64>(TableKind, Backend, const BuildOptions&);

std::unique_ptr<HashTable64> make_table64(TableKind kind,
                                          Backend backend,
                                          const BuildOptions& options) {
  return make_table<Key64>(kind, backend, options);
}

std::unique_ptr<SortedArray> make_sorted_array(Backend backend) {
  return detail::backend_impl(backend).make_sorted_array();
}

JoinResult join(Backend backend,
                const JoinInput& left,
                const JoinInput& right,
                const JoinOptions& options,
                Stream stream) {
  return detail::backend_impl(backend).join(left, right, options, stream);
}

std::unique_ptr<PartitionedTable> make_partitioned_table(TableKind kind,
                                                         Communicator& communicator,
                                                         const BuildOptions& options) {
  return detail::backend_impl(communicator.backend())
      .make_partitioned_table(kind, communicator, options);
}

PartitionedJoinResult partitioned_join(Communicator& communicator,
                                       std::span<const JoinInput> left,
                                       std::span<const JoinInput> right,
                                       const JoinOptions& options) {
  return detail::backend_impl(communicator.backend())
      .partitioned_join(communicator, left, right, options);
}

void generate_keys(Backend backend, Key* out, std::size_t n, const KeySpec& spec, Stream stream) {
  detail::backend_impl(backend).generate_keys(out, n, spec, stream);
}

void copy_bytes(
    void* dst, Backend dst_backend, const void* src, Backend src_backend, std::size_t bytes) {
  if (bytes == 0) return;
  if (dst_backend == Backend::Cpu && src_backend == Backend::Cpu) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const auto kind = dst_backend == Backend::Cpu   ? detail::CopyKind::DeviceToHost
                    : src_backend == Backend::Cpu ? detail::CopyKind::HostToDevice
                                                  : detail::CopyKind::DeviceToDevice;
  detail::backend_impl(Backend::Cuda).copy(dst, src, bytes, kind);
}

namespace detail {

void fill_bytes_async(Backend backend, void* ptr, int byte, std::size_t bytes, Stream stream) {
  backend_impl(backend).fill_bytes_async(ptr, byte, bytes, stream);
}

std::unique_ptr<MarkTimer> make_mark_timer(Backend backend, int marks, Stream stream) {
  return backend_impl(backend).make_mark_timer(marks, stream);
}

std::unique_ptr<PipelineBackend> make_pipeline_backend(Backend backend) {
  return backend_impl(backend).make_pipeline();
}

}  // namespace detail

clash::RawClash clash::find_clashes(Backend backend,
                                    const detail::PipelineBackend& pipeline,
                                    const Grid& grid,
                                    const ClashPass& pass) {
  return detail::backend_impl(backend).find_clashes(pipeline, grid, pass);
}

}  // namespace voxhash
