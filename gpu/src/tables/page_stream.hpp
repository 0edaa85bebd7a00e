// PageStream<Exec>: Starfish's page stream, written once over the executor for the paged table
// (its pages through the budget's page slots) and the join over pages (the build pages through two
// slots). A ring of page slots; a page is brought into a free slot on a copy stream, worked on by
// the consumer's executor once it is in, sent back on a second copy stream when the user asks, and
// its slot recycled once that is done. On the CPU the copies are copies and the waits no-ops.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace voxhash::tables {

/// The time a page stream's stages took, summed over the pages settled since reset_times().
struct PageStreamTimes {
  double bring_ms = 0;  // bringing pages into their slots (copies from the host, or fills)
  double work_ms  = 0;  // the consumer's work on them
  double back_ms  = 0;  // sending them back to the host
};

template <class Exec>
class PageStream {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  /// `ahead`: pages brought in ahead of the one being worked on — 0 where the work is queued
  /// without waiting (each page's copy is queued just before its work), 1 or more where the work
  /// waits for itself (the next pages' copies then overlap it); fewer than the slots. `back`:
  /// pages may go back to the host after their work, on a stream of their own.
  PageStream(std::uint32_t ahead, bool back) : m_ahead(ahead), m_bring(m_bring_stream.get()) {
    if (!back) return;
    m_return_stream.emplace();
    m_return.emplace(m_return_stream->get());
  }
  PageStream(const PageStream&)            = delete;
  PageStream& operator=(const PageStream&) = delete;

  /// A ring of `slots` empty slots (no page in any); their events are fresh.
  void set_slots(std::uint32_t slots) {
    m_slot_page.assign(slots, kNone);
    std::fill(m_page_slot.begin(), m_page_slot.end(), kNone);
    m_events.clear();
    for (std::uint32_t s = 0; s < slots; ++s)
      m_events.push_back(std::make_unique<SlotEvents>());
  }
  /// `pages` pages, none in a slot.
  void set_pages(std::uint32_t pages) {
    m_page_slot.assign(pages, kNone);
    std::fill(m_slot_page.begin(), m_slot_page.end(), kNone);
  }
  /// Page `page` put in `slot` by the user, outside the stream (it is in when run() needs it).
  void place(std::uint32_t page, std::uint32_t slot) {
    const std::uint32_t old = m_slot_page[slot];
    if (old != kNone) m_page_slot[old] = kNone;
    m_slot_page[slot] = page;
    m_page_slot[page] = slot;
  }

  [[nodiscard]] std::uint32_t slots() const {
    return static_cast<std::uint32_t>(m_slot_page.size());
  }
  /// The slot holding `page`, or kNone.
  [[nodiscard]] std::uint32_t slot_of(std::uint32_t page) const { return m_page_slot[page]; }
  /// The page in `slot`, or kNone.
  [[nodiscard]] std::uint32_t page_in(std::uint32_t slot) const { return m_slot_page[slot]; }
  /// How many pages are in slots.
  [[nodiscard]] std::uint32_t resident() const {
    std::uint32_t n = 0;
    for (const std::uint32_t p : m_slot_page)
      n += p != kNone;
    return n;
  }

  [[nodiscard]] const PageStreamTimes& times() const { return m_times; }
  void reset_times() { m_times = {}; }

  /// Streams `order`'s pages (each once) through the slots. A page in a slot stays there; any
  /// other goes into the next slot round robin that no page waiting for its work holds, once the
  /// slot's last page is settled. Per page, in order: bring(copy, page, slot, resident) on the
  /// copy stream (`resident`: the page was in its slot already), then, once that is done,
  /// work(exec, page, slot) on `exec`, then (with `back`) back(copy, page, slot) on the return
  /// stream after the work. settle(page, slot) runs on the host once all of a page's stages are
  /// done: before its slot takes another page, or at the end. Synchronizes; on an exception the
  /// streams are drained before it goes on.
  template <class Bring, class Work, class Back, class Settle>
  void run(Exec& exec,
           const std::vector<std::uint32_t>& order,
           Bring bring,
           Work work,
           Back back,
           Settle settle) {
    const std::uint32_t slots = this->slots();
    if (!order.empty() && slots <= m_ahead) {
      throw std::logic_error("page stream: " + std::to_string(slots) +
                             " slots cannot hold the page being worked on and " +
                             std::to_string(m_ahead) + " ahead");
    }
    std::vector<bool> used(slots, false);     // a page went through the slot in this run
    std::vector<bool> waiting(slots, false);  // its page is in, its work not yet queued
    std::uint32_t next     = 0;               // round robin over the slots
    const auto settle_slot = [&](std::uint32_t s) {
      SlotEvents& ev = *m_events[s];
      (m_return ? ev.back_end : ev.work_end).synchronize();
      m_times.bring_ms += ev.bring_start.elapsed_ms(ev.bring_end);
      m_times.work_ms += ev.work_start.elapsed_ms(ev.work_end);
      if (m_return) m_times.back_ms += ev.back_start.elapsed_ms(ev.back_end);
      used[s] = false;
      settle(m_slot_page[s], s);
    };
    const auto bring_in = [&](std::uint32_t page) {
      std::uint32_t s     = m_page_slot[page];
      const bool resident = s != kNone;
      if (!resident) {
        do {
          s    = next;
          next = (next + 1) % slots;
        } while (waiting[s]);
        if (used[s]) settle_slot(s);
        place(page, s);
      } else if (used[s]) {
        settle_slot(s);
      }
      used[s]        = true;
      waiting[s]     = true;
      SlotEvents& ev = *m_events[s];
      m_bring.wait(m_return ? ev.back_end : ev.work_end);  // the slot's last page is out
      ev.bring_start.record(m_bring);
      bring(m_bring, page, s, resident);
      ev.bring_end.record(m_bring);
    };
    try {
      std::size_t brought = 0;
      for (std::size_t i = 0; i < order.size(); ++i) {
        for (; brought < order.size() && brought <= i + m_ahead; ++brought)
          bring_in(order[brought]);
        const std::uint32_t page = order[i];
        const std::uint32_t s    = m_page_slot[page];
        SlotEvents& ev           = *m_events[s];
        exec.wait(ev.bring_end);
        ev.work_start.record(exec);
        work(exec, page, s);
        ev.work_end.record(exec);
        waiting[s] = false;
        if (!m_return) continue;
        m_return->wait(ev.work_end);
        ev.back_start.record(*m_return);
        back(*m_return, page, s);
        ev.back_end.record(*m_return);
      }
      for (std::uint32_t s = 0; s < slots; ++s) {
        if (used[s]) settle_slot(s);
      }
      synchronize(exec);
    } catch (...) {
      drain(exec);
      throw;
    }
  }

 private:
  /// Events of one slot's latest page, in stage order.
  struct SlotEvents {
    typename Exec::Event bring_start, bring_end, work_start, work_end, back_start, back_end;
  };

  void synchronize(Exec& exec) {
    m_bring.synchronize();
    exec.synchronize();
    if (m_return) m_return->synchronize();
  }

  /// Waits for every stream, whatever happened on them (after a failure in the middle).
  void drain(Exec& exec) noexcept {
    try {
      synchronize(exec);
    } catch (...) {  // the failure being reported matters more
    }
  }

  std::uint32_t m_ahead;
  std::vector<std::uint32_t> m_slot_page;  // the page in each slot, or kNone
  std::vector<std::uint32_t> m_page_slot;  // the slot of each page, or kNone
  std::vector<std::unique_ptr<SlotEvents>> m_events;
  PageStreamTimes m_times;

  typename Exec::OwnedStream m_bring_stream;
  std::optional<typename Exec::OwnedStream> m_return_stream;  // with `back` only
  Exec m_bring;
  std::optional<Exec> m_return;
};

}  // namespace voxhash::tables
