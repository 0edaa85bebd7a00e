// Loops over host memory on oneTBB's threads: the CPU executor's for_each, surface sampling and a
// scene's placement all run through parallel_chunks, which tells ThreadSanitizer what TBB
// synchronizes (tsan_tbb.hpp) so each loop body stays fully checked.
#pragma once

#include "exec/tsan_tbb.hpp"

#include <cstddef>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

namespace voxhash {

/// Calls f(begin, end) on chunks that together cover [0, n) exactly once, on oneTBB's threads,
/// and returns when all are done; chunks hold at most `grain` elements (TBB splits down to it).
/// Under `grain` elements the calling thread runs f(0, n) alone.
template <class F>
void parallel_chunks(std::size_t n, std::size_t grain, F&& f) {
  if (n < grain) {
    f(std::size_t{0}, n);
    return;
  }
  tsan::ParallelLoop loop;  // what TBB synchronizes, told to ThreadSanitizer (TSan builds only)
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, n, grain),
                            [&](const oneapi::tbb::blocked_range<std::size_t>& range) {
                              loop.chunk_begin();
                              f(range.begin(), range.end());
                              loop.chunk_end();
                            });
}

}  // namespace voxhash
