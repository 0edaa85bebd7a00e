// Basic types shared by every part of voxhash: key/value widths (32-bit keys, the fast path, and
// 64-bit keys for grids beyond 31 key bits), the reserved sentinel of each key width and the
// "not found" marker. Plain C++: included by the CPU backend, the CUDA backend and the front ends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

struct CUstream_st;  // the CUDA runtime's stream type, declared here so no CUDA header is needed

namespace voxhash {

using Key   = std::uint32_t;
using Key64 = std::uint64_t;
using Value = std::uint32_t;

/// The key widths tables, joins of voxel keys and the pipeline are instantiated for.
template <class K>
inline constexpr bool kIsKeyType = std::is_same_v<K, Key> || std::is_same_v<K, Key64>;

/// The one key value of width K no table accepts: all bits set. It marks an empty cuckoo slot
/// (Alcantara's "∅"); every producer of keys (the voxel encoder included) must avoid it, and builds
/// reject it.
template <class K>
inline constexpr K kEmptyKeyOf = static_cast<K>(~K{0});

/// The 32-bit sentinel, 0xFFFFFFFF.
inline constexpr Key kEmptyKey = kEmptyKeyOf<Key>;

/// Returned by lookups for queries that are not in the table.
inline constexpr Value kNotFound = 0xFFFFFFFFu;

/// Opaque CUDA stream handle (a `cudaStream_t`), so plain C++ headers need no CUDA include.
/// nullptr is the default stream. Ignored by the CPU backend.
using Stream = ::CUstream_st*;

}  // namespace voxhash
