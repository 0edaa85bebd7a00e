// Shared by both tables' host logic: what a build's loops report back to the host in one small read
// (a sentinel key seen, an eviction chain at its limit, the longest chain), and small helpers.
#pragma once

#include "core/atomics.hpp"

#include <voxhash/detail/host_device.hpp>
#include <voxhash/error.hpp>
#include <voxhash/types.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace voxhash::tables {

/// The eviction-chain limit of a cuckoo build of n items: `max_chain` when set, else the
/// chapter's 7 lg n.
inline std::uint32_t chain_limit(std::uint32_t max_chain, double n) {
  return max_chain ? max_chain
                   : static_cast<std::uint32_t>(std::ceil(7.0 * std::log2(std::max(n, 2.0))));
}

/// Queries one lookup thread handles at once: the tables' batched lookups (find_batch,
/// find_edge_batch) keep that many independent loads in flight per thread.
inline constexpr int kQueryBatch = 4;

/// Written by many threads at once: every access inside a loop goes through core::atomic_load /
/// atomic_store (relaxed; on the GPU a volatile access, as fast as a plain one) or record_max.
struct BuildStatus {
  std::uint32_t sentinel_key  = 0;  // 1 if some input key equals kEmptyKey
  std::uint32_t failed        = 0;  // 1 if an eviction chain reached its limit
  std::uint32_t longest_chain = 0;
  std::uint32_t met_copy = 0;  // 1 if an insertion stopped on a copy of its own key (both cuckoos)
  std::uint32_t stashed  = 0;  // entries placed in the stash (the single-slot cuckoo's)
};

/// The value stored with input element i: the caller's value, or the input index.
VOXHASH_HD Value value_or_index(const Value* values, std::uint32_t i) {
  return values ? values[i] : i;
}

/// Throws the InvalidInput of a build whose input holds the sentinel of its key width K.
template <class K = Key>
[[noreturn]] void throw_sentinel_key(const char* table) {
  throw InvalidInput(std::string(table) + ": input contains key " +
                     (sizeof(K) == sizeof(Key) ? "0xFFFFFFFF" : "0xFFFFFFFFFFFFFFFF") +
                     ", which is reserved as the empty-slot sentinel; remap it before building");
}

inline void check_size(std::size_t n, const char* table) {
  // Indices and offsets are 32-bit; keep one value free for kNotFound.
  if (n >= 0x80000000ull) {
    throw InvalidInput(std::string(table) + ": " + std::to_string(n) +
                       " keys exceed the supported 2^31 - 1");
  }
}

}  // namespace voxhash::tables
