// Progress: the bar ("\r" and the line padded over the previous one), the plain lines, and the
// estimate of the time left (the rate so far).
#include "progress/progress.hpp"

#include <algorithm>
#include <unistd.h>
#include <utility>

namespace voxhash {
namespace {

constexpr double kQuietSeconds = 1.0;  // a run shorter than this prints nothing
constexpr double kRedrawEvery  = 0.1;  // the bar at most ten times a second
constexpr int kBarWidth        = 20;   // the line fits 80 columns

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

Progress::Progress(std::string what, std::uint64_t total)
    : Progress(std::move(what), total, stderr, isatty(fileno(stderr)) != 0, steady_seconds) {}

Progress::Progress(
    std::string what, std::uint64_t total, std::FILE* out, bool terminal, Clock clock)
    : m_what(std::move(what)),
      m_total(std::max<std::uint64_t>(total, 1)),
      m_out(out),
      m_terminal(terminal),
      m_clock(std::move(clock)),
      m_start(m_clock()) {}

Progress::~Progress() {
  finish();
}

std::string Progress::line(std::uint64_t done, double seconds) const {
  const double fraction = std::min(1.0, static_cast<double>(done) / static_cast<double>(m_total));
  char text[160];
  int n = 0;
  if (m_terminal) {
    const int filled = static_cast<int>(fraction * kBarWidth);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(kBarWidth - filled), '.');
    n = std::snprintf(text,
                      sizeof text,
                      "%s [%s] %3.0f %% %llu/%llu, %.1f s",
                      m_what.c_str(),
                      bar.c_str(),
                      100 * fraction,
                      static_cast<unsigned long long>(done),
                      static_cast<unsigned long long>(m_total),
                      seconds);
  } else {
    n = std::snprintf(text,
                      sizeof text,
                      "%s %llu/%llu (%.0f %%), %.1f s",
                      m_what.c_str(),
                      static_cast<unsigned long long>(done),
                      static_cast<unsigned long long>(m_total),
                      100 * fraction,
                      seconds);
  }
  std::string out(text, static_cast<std::size_t>(std::clamp(n, 0, int(sizeof text) - 1)));
  if (done > 0 && done < m_total) {
    const double left = seconds * static_cast<double>(m_total - done) / static_cast<double>(done);
    std::snprintf(text, sizeof text, ", about %.0f s left", left);
    out += text;
  }
  return out;
}

void Progress::update(std::uint64_t done) {
  m_done             = done;
  const double now   = m_clock();
  const double spent = now - m_start;
  if (spent < kQuietSeconds || m_finished) return;
  if (m_terminal) {
    if (now - m_last_draw < kRedrawEvery) return;
    m_last_draw = now;
    // Erased to the end of the line after it (ANSI EL), so a shorter line leaves nothing of the
    // previous one behind, without padding that wraps an 80-column terminal.
    std::fprintf(m_out, "\r%s\x1b[K", line(done, spent).c_str());
    std::fflush(m_out);
    m_printed = true;
    return;
  }
  const int tenths = static_cast<int>(10 * std::min(done, m_total) / m_total);
  if (tenths <= m_tenths_printed || tenths >= 10) return;
  m_tenths_printed = tenths;
  std::fprintf(m_out, "%s\n", line(done, spent).c_str());
  std::fflush(m_out);
  m_printed = true;
}

void Progress::finish() {
  if (m_finished) return;
  m_finished = true;
  if (!m_printed) return;
  const std::string last = line(m_done, m_clock() - m_start);
  if (m_terminal) {
    std::fprintf(m_out, "\r%s\x1b[K\n", last.c_str());
  } else {
    std::fprintf(m_out, "%s\n", last.c_str());
  }
  std::fflush(m_out);
}

}  // namespace voxhash
