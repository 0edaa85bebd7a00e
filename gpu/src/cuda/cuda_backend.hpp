// The CUDA backend's entry points as plain C++ declarations, so backend-neutral code (memory,
// backend selection, the table factory) can call them without including CUDA headers. Compiled
// only when VOXHASH_HAS_CUDA is set.
#pragma once

#include <voxhash/hash_table.hpp>

#include <cstddef>
#include <memory>
#include <string>

namespace voxhash::cuda {

/// Number of usable devices; on 0, `reason` says why (no driver, no device, ...).
int device_count(std::string& reason);
std::string describe_device();

void* allocate(std::size_t bytes);
void deallocate(void* ptr) noexcept;
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };
void copy(void* dst, const void* src, std::size_t bytes, CopyKind kind);
void fill_bytes_async(void* ptr, int byte, std::size_t bytes, Stream stream);

std::unique_ptr<HashTable> make_table(TableKind kind, const BuildOptions& options);

}  // namespace voxhash::cuda
