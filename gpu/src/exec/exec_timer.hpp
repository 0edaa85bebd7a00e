// ExecMarkTimer<Exec>: Timer's backend half over an executor's Event (a CUDA event recorded on the
// stream, or a steady-clock timestamp); made by each backend's make_mark_timer.
#pragma once

#include <voxhash/timer.hpp>

#include <memory>

namespace voxhash {

template <class Exec>
class ExecMarkTimer final : public detail::MarkTimer {
 public:
  ExecMarkTimer(int marks, Stream stream)
      : m_exec(stream), m_events(std::make_unique<typename Exec::Event[]>(marks)) {}

  void set_stream(Stream stream) override { m_exec.set_stream(stream); }
  void record(int mark) override { m_events[mark].record(m_exec); }
  [[nodiscard]] double elapsed_ms(int from, int to) override {
    return m_events[from].elapsed_ms(m_events[to]);
  }

 private:
  Exec m_exec;  // only its stream: records and waits, never launches
  std::unique_ptr<typename Exec::Event[]> m_events;
};

}  // namespace voxhash
