// Pinned staging blocks for the CUDA executor's small reads to the host (sizes, counts, statuses):
// lent from a pool that keeps its blocks, as executors come and go with every call (memory.cpp).
#pragma once

#include <cstddef>

namespace voxhash::detail {

inline constexpr std::size_t kStagingBlockBytes = 256;
/// A block of kStagingBlockBytes of pinned host memory; throws OutOfMemory.
void* borrow_staging_block();
/// Gives back what borrow_staging_block returned (nullptr: nothing).
void return_staging_block(void* block) noexcept;

}  // namespace voxhash::detail
