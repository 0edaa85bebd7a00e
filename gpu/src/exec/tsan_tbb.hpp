// ThreadSanitizer and oneTBB (TSan builds only; empty otherwise). Debian's libtbb is not
// instrumented, so TSan sees neither the synchronization inside TBB's scheduler nor TBB's own
// header code run on its behalf consistently, and reports races that are not there. CpuExec tells
// TSan exactly what TBB guarantees and no more: TBB's code is ignored (the header code on the
// calling thread, and everything a worker runs outside our loop bodies), the loop start happens
// before every chunk, and every chunk happens before the loop returns. Our loop bodies stay fully
// checked, chunks against each other on real worker threads (docs/RELIABILITY.md).
#pragma once

#if defined(__SANITIZE_THREAD__)
#define VOXHASH_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define VOXHASH_TSAN 1
#endif
#endif

#ifdef VOXHASH_TSAN
#include <oneapi/tbb/task_scheduler_observer.h>
#include <sanitizer/tsan_interface.h>

extern "C" {
// The runtime's dynamic annotations (tsan_interface_ann.cpp); no header declares them.
void AnnotateIgnoreReadsBegin(const char* file, int line);
void AnnotateIgnoreReadsEnd(const char* file, int line);
void AnnotateIgnoreWritesBegin(const char* file, int line);
void AnnotateIgnoreWritesEnd(const char* file, int line);
}
#endif

namespace voxhash::tsan {

#ifdef VOXHASH_TSAN

/// Memory accesses of this thread are not checked until the matching ignore_end (they nest).
inline void ignore_begin() {
  AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
  AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
}
inline void ignore_end() {
  AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
  AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
}

/// TBB worker threads ignore their accesses from the moment they join the arena until they leave
/// it or end (TSan requires a thread to end without ignores); loop bodies switch checking on for
/// their own span.
class IgnoreTbbWorkers final : public oneapi::tbb::task_scheduler_observer {
 public:
  IgnoreTbbWorkers() { observe(true); }
  void on_scheduler_entry(bool worker) override {
    if (worker) state().set(true);
  }
  void on_scheduler_exit(bool worker) override {
    if (worker) state().set(false);
  }

 private:
  /// Whether this thread ignores; its destructor, at thread exit, ends the ignore.
  struct WorkerState {
    bool ignoring = false;
    void set(bool ignore) {
      if (ignore == ignoring) return;
      ignore ? ignore_begin() : ignore_end();
      ignoring = ignore;
    }
    ~WorkerState() { set(false); }
  };
  static WorkerState& state() {
    thread_local WorkerState worker;
    return worker;
  }
};

/// Brackets one parallel loop: construct before starting it, call chunk_begin / chunk_end around
/// each chunk of the body, destroy after it returned.
class ParallelLoop {
 public:
  ParallelLoop() {
    static IgnoreTbbWorkers workers;  // before the first loop starts any worker
    __tsan_release(&m_fork);
    ignore_begin();
  }
  ~ParallelLoop() {
    ignore_end();
    __tsan_acquire(&m_join);
  }
  ParallelLoop(const ParallelLoop&)            = delete;
  ParallelLoop& operator=(const ParallelLoop&) = delete;

  void chunk_begin() {
    ignore_end();
    __tsan_acquire(&m_fork);
  }
  void chunk_end() {
    __tsan_release(&m_join);
    ignore_begin();
  }

 private:
  char m_fork = 0, m_join = 0;  // the addresses are TSan's synchronization objects
};

#else

struct ParallelLoop {
  void chunk_begin() {}
  void chunk_end() {}
};

#endif

}  // namespace voxhash::tsan
