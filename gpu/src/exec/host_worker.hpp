// HostWorker: a host thread of one's own that runs one posted job at a time, so the caller can do
// two things at once (the pipeline runs model 1's steps on it while model 0's run on the caller:
// one model's waits for sizes never hold the other's launches). Hand-over is two atomic counters,
// so ThreadSanitizer sees every ordering; each side spins on its counter for up to kSpin before
// it sleeps (C++20 atomic wait, a futex): a frame's hand-overs come microseconds apart, and waking
// a sleeping thread costs tens of microseconds, while the GPU waits for the next launch.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <thread>
#include <utility>

namespace voxhash {

class HostWorker {
 public:
  HostWorker() : m_thread([this] { loop(); }) {}
  HostWorker(const HostWorker&)            = delete;
  HostWorker& operator=(const HostWorker&) = delete;
  ~HostWorker() {
    m_stop.store(true, std::memory_order_relaxed);
    m_posted.fetch_add(1, std::memory_order_release);
    m_posted.notify_one();
    m_thread.join();
  }

  /// Starts `job` on the worker thread; the job posted before must have been waited for.
  void post(std::function<void()> job) {
    m_job = std::move(job);
    m_posted.fetch_add(1, std::memory_order_release);
    m_posted.notify_one();
  }

  /// Returns when the posted job has returned; rethrows what it threw.
  void wait() {
    const std::uint32_t target = m_posted.load(std::memory_order_relaxed);
    for (std::uint32_t done; (done = m_done.load(std::memory_order_acquire)) != target;)
      await_change(m_done, done);
    if (m_error) std::rethrow_exception(std::exchange(m_error, nullptr));
  }

 private:
  /// How long a side spins for the other's hand-over before it sleeps.
  static constexpr std::chrono::microseconds kSpin{250};

  /// Returns once `counter` may differ from `old`: spins for up to kSpin, then sleeps on it.
  static void await_change(const std::atomic<std::uint32_t>& counter, std::uint32_t old) {
    const auto until = std::chrono::steady_clock::now() + kSpin;
    for (int i = 1;; ++i) {
      if (counter.load(std::memory_order_acquire) != old) return;
      if (i % 64 == 0 && std::chrono::steady_clock::now() > until) break;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    counter.wait(old, std::memory_order_acquire);
  }

  void loop() {
    std::uint32_t seen = 0;
    for (;;) {
      await_change(m_posted, seen);
      seen = m_posted.load(std::memory_order_acquire);
      if (m_stop.load(std::memory_order_relaxed)) return;
      try {
        m_job();
      } catch (...) {
        m_error = std::current_exception();
      }
      m_job = nullptr;
      m_done.store(seen, std::memory_order_release);
      m_done.notify_one();
    }
  }

  std::function<void()> m_job;
  std::exception_ptr m_error;
  std::atomic<std::uint32_t> m_posted{0}, m_done{0};
  std::atomic<bool> m_stop{false};
  std::thread m_thread;  // last: it starts once the members above exist
};

}  // namespace voxhash
