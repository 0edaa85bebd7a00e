// Basic types shared by every part of voxhash: key/value widths, the reserved sentinel and the
// "not found" marker. Plain C++: included by the CPU backend, the CUDA backend and the front ends.
#pragma once

#include <cstddef>
#include <cstdint>

struct CUstream_st;  // the CUDA runtime's stream type, declared here so no CUDA header is needed

namespace voxhash {

using Key   = std::uint32_t;
using Value = std::uint32_t;

/// The one key value no table accepts: it marks an empty cuckoo slot (Alcantara's "∅").
/// Every producer of keys (the voxel encoder included) must avoid it; builds reject it.
inline constexpr Key kEmptyKey = 0xFFFFFFFFu;

/// Returned by lookups for queries that are not in the table.
inline constexpr Value kNotFound = 0xFFFFFFFFu;

/// Opaque CUDA stream handle (a `cudaStream_t`), so plain C++ headers need no CUDA include.
/// nullptr is the default stream. Ignored by the CPU backend.
using Stream = ::CUstream_st*;

}  // namespace voxhash
