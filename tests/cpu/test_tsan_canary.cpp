// The CPU executor under ThreadSanitizer (label cpu; runs its checks in TSan builds, skips
// elsewhere): what exec/tsan_tbb.hpp tells TSan about oneTBB must not hide real races. A loop whose
// chunks write one variable without atomics is reported; the same loop with an atomic is not, and
// neither is data written by the chunks and read after the loop (TBB's join).
#include "exec/cpu_exec.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <gtest/gtest.h>
#include <oneapi/tbb/info.h>
#include <thread>
#include <vector>

namespace voxhash::test {
namespace {

#ifdef VOXHASH_TSAN
constexpr bool kTsan = true;
#else
constexpr bool kTsan = false;
#endif

constexpr std::size_t kElements = 1 << 18;  // many chunks of CpuExec::kGrain, on every worker

TEST(TsanCanary, RaceBetweenChunksIsReported) {
  if (!kTsan) GTEST_SKIP() << "not a ThreadSanitizer build";
  if (oneapi::tbb::info::default_concurrency() < 2) GTEST_SKIP() << "one thread: no race to see";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        CpuExec exec;
        std::uint32_t shared = 0;
        // A loaded machine may let the calling thread run every chunk before a worker wakes, and
        // then there is no race to report. So each thread's first element, after its racy write,
        // waits (up to 10 s) until a second thread has written too. The meeting uses relaxed
        // atomics only: TSan sees no ordering in them, so the two writes stay unordered.
        std::atomic<int> arrived{0};
        exec.for_each(kElements, [&](std::uint32_t i) {
          shared += i & 1;
          thread_local bool met = false;
          if (met) return;
          met = true;
          arrived.fetch_add(1, std::memory_order_relaxed);
          auto const give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
          while (arrived.load(std::memory_order_relaxed) < 2 &&
                 std::chrono::steady_clock::now() < give_up)
            std::this_thread::yield();
        });
        std::exit(shared == 0 ? 1 : 0);  // TSan's exit code (66) tells the two apart
      },
      "ThreadSanitizer: data race");
}

TEST(TsanCanary, AtomicsAndTheLoopsJoinAreNotRaces) {
  if (!kTsan) GTEST_SKIP() << "not a ThreadSanitizer build";
  CpuExec exec;
  std::vector<std::uint32_t> out(kElements);
  std::uint32_t odd = 0;
  for (int round = 0; round < 4; ++round) {
    exec.for_each(kElements, [&](std::uint32_t i) {
      out[i] = i + round;
      if (i & 1) std::atomic_ref<std::uint32_t>(odd).fetch_add(1, std::memory_order_relaxed);
    });
    for (std::size_t i = 0; i < kElements; i += 997)
      ASSERT_EQ(out[i], i + round);
  }
  EXPECT_EQ(odd, 4 * kElements / 2);
}

}  // namespace
}  // namespace voxhash::test
