// A steady-clock stopwatch for the viewer's per-step times (milliseconds between laps).
#pragma once

#include <chrono>

namespace voxhash::viewer {

class Stopwatch {
 public:
  /// Milliseconds since construction or the previous lap.
  double lap() {
    const auto now  = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - m_last).count();
    m_last          = now;
    return ms;
  }

 private:
  std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
};

}  // namespace voxhash::viewer
