// PageStream on the CPU executor (label cpu): the order of its stages and the slot each page takes,
// written out by hand for the paged table's use (three slots, no page ahead, pages sent back, one
// page in a slot already) and the join's (two slots, one page ahead, pages passed over, a slot
// whose page waits for its work never taken); every page's work sees that page's data.
#include "exec/cpu_exec.hpp"
#include "tables/page_stream.hpp"

#include <gtest/gtest.h>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using voxhash::CpuExec;
using voxhash::tables::PageStream;

/// Pages of `width` values each (page p holds p * 100 + i) streamed through slot buffers, with a
/// line per stage in `log`.
struct Trace {
  explicit Trace(std::uint32_t pages, std::uint32_t slots)
      : host(pages * kWidth), slot_data(slots * kWidth, -1) {
    for (std::uint32_t p = 0; p < pages; ++p)
      for (std::uint32_t i = 0; i < kWidth; ++i)
        host[p * kWidth + i] = static_cast<int>(p * 100 + i);
  }

  void run(PageStream<CpuExec>& stream, const std::vector<std::uint32_t>& order) {
    CpuExec exec;
    stream.run(
        exec,
        order,
        [&](CpuExec& copy, std::uint32_t p, std::uint32_t s, bool resident) {
          log.push_back("bring " + std::to_string(p) + " " + std::to_string(s) +
                        (resident ? " resident" : ""));
          if (!resident) {
            copy.transfer_async(
                slot_data.data() + s * kWidth, host.data() + p * kWidth, kWidth * sizeof(int));
          }
        },
        [&](CpuExec&, std::uint32_t p, std::uint32_t s) {
          log.push_back("work " + std::to_string(p) + " " + std::to_string(s));
          for (std::uint32_t i = 0; i < kWidth; ++i)
            EXPECT_EQ(slot_data[s * kWidth + i], static_cast<int>(p * 100 + i))
                << "page " << p << " in slot " << s;
        },
        [&](CpuExec&, std::uint32_t p, std::uint32_t s) {
          log.push_back("back " + std::to_string(p) + " " + std::to_string(s));
        },
        [&](std::uint32_t p, std::uint32_t s) {
          log.push_back("settle " + std::to_string(p) + " " + std::to_string(s));
        });
  }

  /// Puts page p in slot s as a user would outside the stream (its data copied there).
  void place(PageStream<CpuExec>& stream, std::uint32_t p, std::uint32_t s) {
    stream.place(p, s);
    for (std::uint32_t i = 0; i < kWidth; ++i)
      slot_data[s * kWidth + i] = host[p * kWidth + i];
  }

  static constexpr std::uint32_t kWidth = 4;
  std::vector<int> host, slot_data;
  std::vector<std::string> log;
};

TEST(PageStream, NoPageAheadWithPagesSentBack) {
  PageStream<CpuExec> stream(0, true);
  stream.set_slots(3);
  stream.set_pages(7);
  Trace t(7, 3);
  t.place(stream, 5, 1);
  t.run(stream, {5, 0, 1, 2, 3, 4, 6});
  const std::vector<std::string> want = {
      "bring 5 1 resident", "work 5 1",   "back 5 1",                // already in, no copy
      "bring 0 0",          "work 0 0",   "back 0 0",                // round robin from slot 0
      "settle 5 1",         "bring 1 1",  "work 1 1",   "back 1 1",  // slot 1 settled, then reused
      "bring 2 2",          "work 2 2",   "back 2 2",   "settle 0 0", "bring 3 0",
      "work 3 0",           "back 3 0",   "settle 1 1", "bring 4 1",  "work 4 1",
      "back 4 1",           "settle 2 2", "bring 6 2",  "work 6 2",   "back 6 2",
      "settle 3 0",         "settle 4 1", "settle 6 2"};  // the rest at the end
  EXPECT_EQ(t.log, want);
  EXPECT_EQ(stream.slot_of(5), PageStream<CpuExec>::kNone) << "page 5 left slot 1 for page 1";
  EXPECT_EQ(stream.slot_of(3), 0u);
  EXPECT_EQ(stream.page_in(2), 6u);
  EXPECT_EQ(stream.resident(), 3u);
}

TEST(PageStream, OnePageAheadOverlapsTheNextCopyWithTheWork) {
  PageStream<CpuExec> stream(1, false);
  stream.set_slots(2);
  stream.set_pages(5);
  Trace t(5, 2);
  t.place(stream, 0, 0);
  t.place(stream, 1, 1);
  t.run(stream, {1, 2, 4});  // pages 0 and 3 passed over
  const std::vector<std::string> want = {"bring 1 1 resident",
                                         "bring 2 0",  // page 2 comes in before page 1 is worked on
                                         "work 1 1",
                                         "settle 1 1",
                                         "bring 4 1",
                                         "work 2 0",
                                         "work 4 1",
                                         "settle 2 0",
                                         "settle 4 1"};
  EXPECT_EQ(t.log, want);
  EXPECT_EQ(stream.slot_of(0), PageStream<CpuExec>::kNone);
}

TEST(PageStream, NeverTakesTheSlotOfAPageWaitingForItsWork) {
  PageStream<CpuExec> stream(1, false);
  stream.set_slots(2);
  stream.set_pages(4);
  Trace t(4, 2);
  t.place(stream, 0, 0);
  t.run(stream, {0, 3});  // round robin would give page 3 slot 0, where page 0 waits
  const std::vector<std::string> want = {
      "bring 0 0 resident", "bring 3 1", "work 0 0", "work 3 1", "settle 0 0", "settle 3 1"};
  EXPECT_EQ(t.log, want);
}

TEST(PageStream, RefusesFewerSlotsThanPagesAhead) {
  PageStream<CpuExec> stream(1, false);
  stream.set_slots(1);
  stream.set_pages(2);
  Trace t(2, 1);
  try {
    t.run(stream, {0, 1});
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("1 slots cannot hold the page being worked on and 1 ahead"),
        std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(t.log.empty());
}

}  // namespace
