// A minimal fork-join pool for the CPU backend: workers wait on a condition variable for a job
// (a chunked loop), run their share of chunks, and the caller joins by counting finished chunks.
#include "cpu/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace voxhash::cpu {
namespace {

class Pool {
 public:
  Pool() {
    const unsigned n = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 1; i < n; ++i)
      m_workers.emplace_back([this] { work(); });
    m_threads = n;
  }
  ~Pool() {
    {
      std::lock_guard lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_all();
    for (auto& t : m_workers)
      t.join();
  }

  unsigned threads() const { return m_threads; }

  void run(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body) {
    std::lock_guard serial(m_run_mutex);  // one parallel loop at a time
    const std::size_t chunks = std::min<std::size_t>(n, std::size_t{m_threads} * 8);
    {
      std::lock_guard lock(m_mutex);
      m_body   = &body;
      m_n      = n;
      m_chunks = chunks;
      m_next.store(0);
      m_done  = 0;
      m_error = nullptr;
      ++m_generation;
    }
    m_wake.notify_all();
    run_chunks();
    std::unique_lock lock(m_mutex);
    m_finished.wait(lock, [&] { return m_done == m_chunks; });
    m_body = nullptr;
    if (m_error) std::rethrow_exception(m_error);
  }

 private:
  void run_chunks() {
    std::size_t finished = 0;
    std::exception_ptr error;
    for (std::size_t c; (c = m_next.fetch_add(1)) < m_chunks;) {
      const std::size_t begin = m_n * c / m_chunks;
      const std::size_t end   = m_n * (c + 1) / m_chunks;
      try {
        (*m_body)(begin, end);
      } catch (...) {
        error = std::current_exception();
      }
      ++finished;
    }
    if (finished == 0) return;
    std::lock_guard lock(m_mutex);
    if (error && !m_error) m_error = error;
    m_done += finished;
    if (m_done == m_chunks) m_finished.notify_all();
  }

  void work() {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock lock(m_mutex);
        m_wake.wait(lock, [&] { return m_stop || (m_generation != seen && m_body); });
        if (m_stop) return;
        seen = m_generation;
      }
      run_chunks();
    }
  }

  std::vector<std::thread> m_workers;
  unsigned m_threads = 1;
  std::mutex m_run_mutex;
  std::mutex m_mutex;
  std::condition_variable m_wake, m_finished;
  const std::function<void(std::size_t, std::size_t)>* m_body = nullptr;
  std::size_t m_n = 0, m_chunks = 0, m_done = 0;
  std::atomic<std::size_t> m_next{0};
  std::uint64_t m_generation = 0;
  std::exception_ptr m_error;
  bool m_stop = false;
};

Pool& pool() {
  static Pool instance;
  return instance;
}

}  // namespace

void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body) {
  if (n == 0) return;
  if (n < 4096 || pool().threads() == 1) {
    body(0, n);
    return;
  }
  pool().run(n, body);
}

unsigned thread_count() {
  return pool().threads();
}

}  // namespace voxhash::cpu
