// ModelLanes<Exec>: the frame's two models side by side. Each model has a lane: an executor on a
// stream of its own (a non-blocking CUDA stream; the CPU runs work in order anyway) and, for
// model 1, a host thread of its own (HostWorker), so one model's waits for sizes never hold the
// other's launches and the two models' small kernels share the GPU. fork and join order the lanes
// after the frame's stream and it after them; exchange orders each lane after the other's work so
// far (a model's probe and fill read the other's table). A step run on a lane touches its own
// model's buffers, and the other model's only after an exchange.
#pragma once

#include "exec/host_worker.hpp"

#include <array>
#include <exception>
#include <optional>

namespace voxhash::pipeline {

template <class Exec>
class ModelLanes {
 public:
  Exec& exec(int i) { return m_exec[i]; }
  [[nodiscard]] Stream stream(int i) const { return m_streams[i].get(); }

  /// Both lanes' later work waits for what `frame` has queued so far.
  void fork(Exec& frame) {
    m_events[2].record(frame);
    for (Exec& e : m_exec)
      e.wait(m_events[2]);
  }
  /// `frame`'s later work waits for both lanes'.
  void join(Exec& frame) {
    for (int i = 0; i < 2; ++i) {
      m_events[i].record(m_exec[i]);
      frame.wait(m_events[i]);
    }
  }
  /// Each lane's later work waits for both lanes' work so far.
  void exchange() {
    for (int i = 0; i < 2; ++i)
      m_events[i].record(m_exec[i]);
    for (int i = 0; i < 2; ++i)
      m_exec[i].wait(m_events[1 - i]);
  }

  /// Calls step(0) on this thread and step(1) on the worker at once (one after the other when
  /// !side_by_side) and returns when both have returned; their queued work may still run.
  /// Rethrows the first exception (model 0's before model 1's) once both are done.
  template <class Step>
  void run(bool side_by_side, Step&& step) {
    if (!side_by_side) {
      step(0);
      step(1);
      return;
    }
    if (!m_worker) m_worker.emplace();  // its thread starts with the first side-by-side run
    m_worker->post([&step] { step(1); });
    std::exception_ptr first;
    try {
      step(0);
    } catch (...) {
      first = std::current_exception();
    }
    try {
      m_worker->wait();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
    if (first) std::rethrow_exception(first);
  }

 private:
  std::array<typename Exec::OwnedStream, 2> m_streams;
  std::array<Exec, 2> m_exec{Exec(m_streams[0].get()), Exec(m_streams[1].get())};
  // Each lane's, and the frame's fork: they only order the streams.
  std::array<typename Exec::Event, 3> m_events{
      typename Exec::Event{false}, typename Exec::Event{false}, typename Exec::Event{false}};
  std::optional<HostWorker> m_worker;
};

}  // namespace voxhash::pipeline
