// Progress of a long run (offscreen renders of many frames, frame benchmarks) on stderr: on a
// terminal one bar redrawn in place, otherwise plain lines at each tenth of the way, so that logs
// stay short. A run that ends within its first second prints nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace voxhash {

class Progress {
 public:
  /// Seconds since some fixed point; the steady clock unless a test gives its own.
  using Clock = std::function<double()>;

  /// `what`: the line's prefix ("[frame] frames"); `total`: the steps of the run. `terminal`:
  /// draw a bar (a terminal) or plain lines; by default isatty(stderr).
  Progress(std::string what, std::uint64_t total);
  Progress(std::string what, std::uint64_t total, std::FILE* out, bool terminal, Clock clock);
  Progress(const Progress&)            = delete;
  Progress& operator=(const Progress&) = delete;
  /// finish() if it was not called.
  ~Progress();

  /// `done` of the total steps are done; prints when something is due (cheap otherwise).
  void update(std::uint64_t done);
  /// The last line (the total reached, the time it took) if anything was printed.
  void finish();

  /// The bar or line for `done` steps after `seconds` (with the time left once it can be told).
  [[nodiscard]] std::string line(std::uint64_t done, double seconds) const;

 private:
  std::string m_what;
  std::uint64_t m_total;
  std::FILE* m_out;
  bool m_terminal;
  Clock m_clock;
  double m_start       = 0;
  double m_last_draw   = -1;  // when the bar was last drawn
  std::uint64_t m_done = 0;
  int m_tenths_printed = 0;  // plain lines: the tenths of the way already reported
  bool m_printed       = false;
  bool m_finished      = false;
};

}  // namespace voxhash
