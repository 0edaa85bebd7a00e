// The CPU backend's parallel loop: splits [0, n) into contiguous chunks over a fixed pool of worker
// threads (one per hardware thread) that lives for the whole process, so per-frame loops do not
// create threads.
#pragma once

#include <cstddef>
#include <functional>

namespace voxhash::cpu {

/// Calls body(begin, end) on disjoint chunks covering [0, n), in parallel, and waits for all.
/// Small loops run inline on the calling thread. Exceptions from a chunk are rethrown here.
void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body);

/// Worker threads the pool runs (at least 1).
[[nodiscard]] unsigned thread_count();

}  // namespace voxhash::cpu
