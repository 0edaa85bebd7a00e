// Timer<Mark>: timestamps of the work queued on a backend's stream at named marks (a front end's
// or the pipeline's enum), CUDA events recorded on the stream for Cuda (GPU time between marks),
// the steady clock for Cpu. The one timer the pipeline's stages, the device limits and the
// benchmarks use.
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/types.hpp>

#include <memory>

namespace voxhash {
namespace detail {
/// A backend's timestamps, indexed 0..marks-1 (made by make_mark_timer).
class MarkTimer {
 public:
  virtual ~MarkTimer()                              = default;
  virtual void set_stream(Stream stream)            = 0;
  virtual void record(int mark)                     = 0;
  [[nodiscard]] virtual double elapsed_ms(int, int) = 0;
};
[[nodiscard]] std::unique_ptr<MarkTimer> make_mark_timer(Backend backend, int marks, Stream stream);
}  // namespace detail

/// `Mark` is an enum class whose enumerators are the mark names, ending with `Count`.
template <class Mark>
class Timer {
 public:
  explicit Timer(Backend backend, Stream stream = nullptr)
      : m_impl(detail::make_mark_timer(backend, static_cast<int>(Mark::Count), stream)) {}

  /// Later marks are recorded on `stream`.
  void set_stream(Stream stream) { m_impl->set_stream(stream); }

  /// Records `mark` now: after the work queued on the stream so far. Does not synchronize;
  /// recording a mark again replaces it.
  void record(Mark mark) { m_impl->record(static_cast<int>(mark)); }

  /// Milliseconds between two recorded marks; waits until the work before `to` is done.
  [[nodiscard]] double elapsed_ms(Mark from, Mark to) {
    return m_impl->elapsed_ms(static_cast<int>(from), static_cast<int>(to));
  }

 private:
  std::unique_ptr<detail::MarkTimer> m_impl;
};

}  // namespace voxhash
