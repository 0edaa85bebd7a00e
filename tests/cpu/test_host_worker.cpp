// HostWorker (exec/host_worker.hpp), the frame's second host thread: posted jobs run on a thread
// of their own, one at a time and in order, while the caller works; wait() returns once the job
// returned and rethrows what it threw, and the worker goes on after a throw. Under TSan (the
// sanitize preset) this is what checks the hand-over's ordering.
#include "exec/host_worker.hpp"

#include <gtest/gtest.h>
#include <stdexcept>
#include <thread>
#include <vector>

namespace voxhash::test {
namespace {

TEST(HostWorker, RunsEachJobOnItsOwnThreadWhileTheCallerWorks) {
  HostWorker worker;
  std::vector<int> done;  // written by the jobs, read here after each wait
  std::thread::id job_thread;
  for (int i = 0; i < 200; ++i) {
    worker.post([&done, &job_thread, i] {
      done.push_back(i);
      job_thread = std::this_thread::get_id();
    });
    int mine = 0;
    for (int k = 0; k < 1000; ++k)  // the caller's share of the work, meanwhile
      mine += k;
    EXPECT_EQ(mine, 499500);
    worker.wait();
    ASSERT_EQ(done.size(), static_cast<std::size_t>(i + 1));
    EXPECT_EQ(done.back(), i);
    EXPECT_NE(job_thread, std::this_thread::get_id());
  }
}

TEST(HostWorker, WaitRethrowsAndTheWorkerGoesOn) {
  HostWorker worker;
  worker.post([] { throw std::runtime_error("job failed"); });
  EXPECT_THROW(worker.wait(), std::runtime_error);
  bool ran = false;
  worker.post([&ran] { ran = true; });
  worker.wait();  // no exception left over from the first job
  EXPECT_TRUE(ran);
}

TEST(HostWorker, EndsWithAndWithoutJobs) {
  { HostWorker idle; }
  HostWorker worker;
  int n = 0;
  worker.post([&n] { ++n; });
  worker.wait();
  EXPECT_EQ(n, 1);
}

}  // namespace
}  // namespace voxhash::test
