// Progress of long runs: nothing for a run shorter than a second; plain lines at each tenth of the
// way (not a terminal), with the time left; a bar redrawn in place on a terminal, at most ten
// times a second, ended by one newline.
#include "progress/progress.hpp"

#include <algorithm>
#include <cstdio>
#include <gtest/gtest.h>
#include <string>

namespace voxhash::test {
namespace {

/// What a Progress wrote into a temporary file.
std::string contents(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  char chunk[256];
  while (const std::size_t n = std::fread(chunk, 1, sizeof chunk, file))
    text.append(chunk, n);
  return text;
}

std::size_t count(const std::string& text, char c) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), c));
}

TEST(Progress, ShortRunPrintsNothing) {
  std::FILE* out = std::tmpfile();
  double now     = 0;
  {
    Progress progress("[view] frames", 10, out, false, [&] { return now; });
    for (int f = 1; f <= 10; ++f) {
      now += 0.05;
      progress.update(f);
    }
  }
  EXPECT_EQ(contents(out), "");
  std::fclose(out);
}

TEST(Progress, PlainLinesAtEachTenthWithTheTimeLeft) {
  std::FILE* out = std::tmpfile();
  double now     = 0;
  Progress progress("[frame] frames", 120, out, false, [&] { return now; });
  for (int f = 1; f <= 120; ++f) {
    now += 0.325;  // 39 s for 120 frames, as the CPU took for the demo
    progress.update(f);
  }
  progress.finish();
  progress.finish();  // once only
  const std::string text = contents(out);
  std::fclose(out);
  EXPECT_EQ(count(text, '\n'), 10u) << text;  // 10 % ... 90 %, then the end
  EXPECT_EQ(count(text, '\r'), 0u);
  EXPECT_NE(text.find("[frame] frames 12/120 (10 %), 3.9 s, about 35 s left\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("[frame] frames 108/120 (90 %)"), std::string::npos) << text;
  EXPECT_TRUE(text.ends_with("[frame] frames 120/120 (100 %), 39.0 s\n")) << text;
}

TEST(Progress, TerminalBarRedrawnInPlace) {
  std::FILE* out = std::tmpfile();
  double now     = 0;
  {
    Progress progress("[view] frames", 1000, out, true, [&] { return now; });
    for (int f = 1; f <= 1000; ++f) {
      now += 0.01;  // 10 s: the bar at most every 0.1 s after the first second
      progress.update(f);
    }
  }
  const std::string text = contents(out);
  std::fclose(out);
  EXPECT_EQ(count(text, '\n'), 1u) << "one line, ended once";
  EXPECT_GE(count(text, '\r'), 80u);
  EXPECT_LE(count(text, '\r'), 92u);
  EXPECT_NE(text.find("[view] frames [##########..........]  5"), std::string::npos) << text;
  EXPECT_NE(text.find("[####################] 100 % 1000/1000, 10.0 s"), std::string::npos);
  // Every line fits an 80-column terminal: no padding that wraps (it was 100 columns).
  std::size_t longest = 0, start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\r' || text[i] == '\n') {
      longest = std::max(longest, i - start);
      start   = i + 1;
    }
  }
  EXPECT_LE(longest, 80u);
}

}  // namespace
}  // namespace voxhash::test
