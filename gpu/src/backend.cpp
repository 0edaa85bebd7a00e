// Backend selection and the backend-neutral entry points (memory, table factory), dispatching to
// the CPU backend or, when compiled in, the CUDA backend.
#include "cpu/cpu_tables.hpp"
#include "cpu/thread_pool.hpp"
#if VOXHASH_HAS_CUDA
#include "cuda/cuda_backend.hpp"
#endif

#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>
#include <voxhash/hash_table.hpp>

#include <cstring>
#include <new>
#include <string>

namespace voxhash {

std::string cuda_unavailable_reason() {
#if VOXHASH_HAS_CUDA
  static const std::string reason = [] {
    std::string why;
    return cuda::device_count(why) > 0 ? std::string() : why;
  }();
  return reason;
#else
  return "voxhash was built without CUDA";
#endif
}

bool cuda_available() {
  return cuda_unavailable_reason().empty();
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
#if VOXHASH_HAS_CUDA
  if (backend == Backend::Cuda) return cuda::describe_device();
#endif
  (void)backend;
  return "CPU, " + std::to_string(cpu::thread_count()) + " threads";
}

std::string_view to_string(TableKind kind) {
  switch (kind) {
    case TableKind::Cuckoo:
      return "cuckoo";
    case TableKind::HashGraphV1:
      return "hashgraph-v1";
    case TableKind::HashGraphV2:
      return "hashgraph-v2";
  }
  return "?";
}

TableKind parse_table_kind(std::string_view name) {
  if (name == "cuckoo") return TableKind::Cuckoo;
  if (name == "hashgraph-v1" || name == "v1") return TableKind::HashGraphV1;
  if (name == "hashgraph-v2" || name == "v2") return TableKind::HashGraphV2;
  throw InvalidInput("unknown algorithm '" + std::string(name) +
                     "' (expected cuckoo, hashgraph-v1 or hashgraph-v2)");
}

std::unique_ptr<HashTable> make_table(TableKind kind,
                                      Backend backend,
                                      const BuildOptions& options) {
#if VOXHASH_HAS_CUDA
  if (backend == Backend::Cuda) return cuda::make_table(kind, options);
#endif
  if (backend == Backend::Cuda) throw InvalidInput(cuda_unavailable_reason());
  return cpu::make_table(kind, options);
}

namespace detail {

void* allocate(Backend backend, std::size_t bytes) {
#if VOXHASH_HAS_CUDA
  if (backend == Backend::Cuda) return cuda::allocate(bytes);
#endif
  if (backend == Backend::Cuda) throw InvalidInput(cuda_unavailable_reason());
  if (bytes == 0) return nullptr;
  void* ptr = ::operator new (bytes, std::align_val_t{64}, std::nothrow);
  if (!ptr) {
    throw OutOfMemory("host out of memory: could not allocate " + std::to_string(bytes >> 20) +
                      " MiB");
  }
  return ptr;
}

void deallocate(Backend backend, void* ptr) noexcept {
#if VOXHASH_HAS_CUDA
  if (backend == Backend::Cuda) return cuda::deallocate(ptr);
#endif
  (void)backend;
  ::operator delete (ptr, std::align_val_t{64});
}

void copy_bytes(
    void* dst, Backend dst_backend, const void* src, Backend src_backend, std::size_t bytes) {
  if (bytes == 0) return;
#if VOXHASH_HAS_CUDA
  if (dst_backend == Backend::Cuda || src_backend == Backend::Cuda) {
    const auto kind = dst_backend == Backend::Cpu   ? cuda::CopyKind::DeviceToHost
                      : src_backend == Backend::Cpu ? cuda::CopyKind::HostToDevice
                                                    : cuda::CopyKind::DeviceToDevice;
    return cuda::copy(dst, src, bytes, kind);
  }
#endif
  (void)dst_backend;
  (void)src_backend;
  std::memcpy(dst, src, bytes);
}

void fill_bytes_async(Backend backend, void* ptr, int byte, std::size_t bytes, Stream stream) {
#if VOXHASH_HAS_CUDA
  if (backend == Backend::Cuda) return cuda::fill_bytes_async(ptr, byte, bytes, stream);
#endif
  (void)backend;
  (void)stream;
  if (bytes) std::memset(ptr, byte, bytes);
}

}  // namespace detail
}  // namespace voxhash
