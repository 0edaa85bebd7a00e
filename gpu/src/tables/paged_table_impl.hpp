// PagedCuckooTableImpl<Exec, K>: the Starfish paged table's host logic, written once for both
// backends (on the CPU the "device" page slots and the host pages are two sets of host buffers and
// streams do not exist, so CI runs the same code path) and both key widths. Per-element work:
// core/paged.hpp and core/cuckoo.hpp.
//
// Layout: P pages (chosen by core's page_of, a hash independent of the pages' cuckoo functions),
// each S = ceil(space * capacity) slots and a stash, 8 bytes a slot (16 for 64-bit keys). The
// budget holds R page slots (each with an overflow list) and one page of rebuild scratch. P <= R:
// every page stays resident and an operation is one pass over its input. P > R: the pages live in
// pinned host memory; an operation partitions its input by page (tables/page_partition.hpp, shared
// with the join over pages), then streams the pages with input through the slots (tables/
// page_stream.hpp, shared with the join too): upload (or a fill for a build), kernels on the
// table's stream, download, the slots reused round robin. A page left in a slot stays resident, and
// the next operation does those pages first. A page whose chains overflowed its stash is rebuilt
// alone, from its own entries, with new constants.
#pragma once

#include "core/paged.hpp"
#include "tables/build_retry.hpp"
#include "tables/build_status.hpp"
#include "tables/page_partition.hpp"
#include "tables/page_stream.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>
#include <voxhash/paged_table.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace voxhash::tables {

/// A page may hold this share of its slots (the stash aside) before the table needs more pages.
inline constexpr double kMaxPageLoad = 0.875;

/// What the pages' kernels do with their share of an operation's input.
enum class PageWork { Build, Insert, Update, Erase, Find, Contains };

[[nodiscard]] constexpr bool modifies(PageWork w) {
  return w != PageWork::Find && w != PageWork::Contains;
}

// ---- the loops (thin: one element each, the work in core/paged.hpp and core/cuckoo.hpp) --------

/// The key type of a slot entry (Key for CuckooEntry, Key64 for CuckooEntry64).
template <class Entry>
using EntryKey = decltype(detail::entry_key(Entry{}));

/// Resident table: kQueryBatch queries per thread (strided, so loads stay coalesced), each looked
/// up in its page; out[i] = the value (find) or 1 / 0 (contains).
template <class Exec, class KeyT, class Out>
void paged_find_resident(
    Exec& exec, BasicPagedRef<KeyT> r, const KeyT* q, std::uint32_t n, Out* out, bool find) {
  constexpr int K            = kQueryBatch;
  const std::uint32_t stride = (n + K - 1) / K;
  exec.for_each(stride, [=] VOXHASH_LAMBDA(std::uint32_t t) {
    KeyT key[K];
    std::uint32_t page[K];
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      const std::uint32_t i = t + k * stride;
      key[k]                = i < n ? q[i] : kEmptyKeyOf<KeyT>;
      page[k]               = r.page(key[k]);
    }
    std::uint32_t slot[K];
    CuckooEntryOf<KeyT> entry[K];
    detail::find_batch<K>(
        core::PagesOf<KeyT>{r.pages, page}, key, slot, entry, detail::LiveEntry{});
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      const std::uint32_t i = t + k * stride;
      if (i >= n) continue;
      const Value value = slot[k] == kNotFound ? kNotFound : detail::entry_value(entry[k]);
      out[i]            = static_cast<Out>(find ? value : static_cast<Value>(slot[k] != kNotFound));
    }
  });
}

/// Where a resident table's pages and their lists are: page p at slots + p * entries.
template <class KeyT>
struct ResidentPages {
  BasicPagedRef<KeyT> ref;
  CuckooEntryOf<KeyT>* slots;
  CuckooEntryOf<KeyT>* overflow;
  core::PageStatus* status;
  std::size_t entries;
};

/// Resident table: inserts each valid pair into its page (skipping keys present already when
/// `skip_present`: an insert's second phase).
template <class Exec, class KeyT>
void paged_insert_resident(Exec& exec,
                           ResidentPages<KeyT> t,
                           const KeyT* keys,
                           const Value* values,
                           std::uint32_t n,
                           bool skip_present,
                           core::PagedOpStatus* op,
                           std::uint32_t max_chain) {
  exec.for_each(
      n,
      [=] VOXHASH_LAMBDA(std::uint32_t i) {
        const KeyT key    = keys[i];
        const Value value = value_or_index(values, i);
        if (!core::valid_pair(op, key, value, true)) return;
        const std::uint32_t p            = t.ref.page(key);
        const BasicCuckooRef<KeyT>& page = t.ref.pages[p].table;
        if (skip_present && page.find_slot(key, detail::LiveEntry{}) != kNotFound) return;
        core::page_insert(page,
                          t.slots + p * t.entries,
                          t.overflow + std::size_t{p} * core::kPageOverflow,
                          t.status + p,
                          op,
                          key,
                          value,
                          max_chain);
      },
      128);
}

/// Resident table: writes each pair's value (or the deleted marker) into its key's live copies.
template <class Exec, class KeyT>
void paged_assign_resident(Exec& exec,
                           ResidentPages<KeyT> t,
                           const KeyT* keys,
                           const Value* values,
                           std::uint32_t n,
                           bool erase) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const KeyT key = keys[i];
    if (key == kEmptyKeyOf<KeyT>) return;
    const std::uint32_t p = t.ref.page(key);
    const Value value     = erase ? kDeletedValue : value_or_index(values, i);
    core::cuckoo_assign(
        t.ref.pages[p].table, t.slots + p * t.entries, key, value, detail::LiveEntry{});
  });
}

/// Validates every pair; with `counts`, also counts the valid ones per page.
template <class Exec, class KeyT>
void paged_validate(Exec& exec,
                    const KeyT* keys,
                    const Value* values,
                    std::uint32_t n,
                    core::PagedOpStatus* op,
                    std::uint32_t seed,
                    std::uint32_t pages,
                    std::uint32_t* counts) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const KeyT key = keys[i];
    if (core::valid_pair(op, key, value_or_index(values, i), true) && counts) {
      core::atomic_add(&counts[detail::page_of(key, seed, pages)], 1u);
    }
  });
}

/// Counts the occupied slots of `pages` consecutive pages of `per` slots each into counts[page].
template <class Exec, class Entry>
void paged_count_slots(
    Exec& exec, const Entry* slots, std::uint32_t pages, std::uint32_t per, std::uint32_t* counts) {
  exec.for_each(std::size_t{pages} * per, [=] VOXHASH_LAMBDA(std::uint32_t j) {
    core::aggregate_add_at(
        counts, j / per, detail::entry_key(slots[j]) != kEmptyKeyOf<EntryKey<Entry>>);
  });
}

/// A page's rebuild, step one: its first live copies and overflow items into `out`.
template <class Exec, class KeyT>
void paged_collect(Exec& exec,
                   BasicCuckooRef<KeyT> page,
                   std::uint32_t count,
                   const CuckooEntryOf<KeyT>* overflow,
                   core::PageStatus* status,
                   CuckooEntryOf<KeyT>* out) {
  exec.for_each(count, [=] VOXHASH_LAMBDA(std::uint32_t j) {
    core::page_collect(page, j, overflow, status, out);
  });
}

/// Inserts entries[0..n) into one page (skipping keys present already when `skip_present`).
template <class Exec, class KeyT>
void paged_insert_entries(Exec& exec,
                          BasicCuckooRef<KeyT> page,
                          CuckooEntryOf<KeyT>* slots,
                          CuckooEntryOf<KeyT>* overflow,
                          core::PageStatus* status,
                          core::PagedOpStatus* op,
                          const CuckooEntryOf<KeyT>* entries,
                          std::uint32_t n,
                          bool skip_present,
                          std::uint32_t max_chain) {
  exec.for_each(
      n,
      [=] VOXHASH_LAMBDA(std::uint32_t i) {
        const CuckooEntryOf<KeyT> e = entries[i];
        const KeyT key              = detail::entry_key(e);
        if (skip_present && page.find_slot(key, detail::LiveEntry{}) != kNotFound) return;
        core::page_insert(
            page, slots, overflow, status, op, key, detail::entry_value(e), max_chain);
      },
      128);
}

/// Writes each entry's value (or the deleted marker) into its key's live copies in one page.
template <class Exec, class KeyT>
void paged_assign_entries(Exec& exec,
                          BasicCuckooRef<KeyT> page,
                          CuckooEntryOf<KeyT>* slots,
                          const CuckooEntryOf<KeyT>* entries,
                          std::uint32_t n,
                          bool erase) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const CuckooEntryOf<KeyT> e = entries[i];
    core::cuckoo_assign(page,
                        slots,
                        detail::entry_key(e),
                        erase ? kDeletedValue : detail::entry_value(e),
                        detail::LiveEntry{});
  });
}

/// Looks up one page's queries (entries: the key and the query index); answers go to out[index].
template <class Exec, class KeyT, class Out>
void paged_find_entries(Exec& exec,
                        BasicCuckooRef<KeyT> page,
                        const CuckooEntryOf<KeyT>* entries,
                        std::uint32_t n,
                        Out* out,
                        bool find) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const CuckooEntryOf<KeyT> e = entries[i];
    const std::uint32_t s       = page.find_slot(detail::entry_key(e), detail::LiveEntry{});
    const Value value           = s == kNotFound ? kNotFound : detail::entry_value(page.slots[s]);
    out[detail::entry_value(e)] =
        static_cast<Out>(find ? value : static_cast<Value>(s != kNotFound));
  });
}

/// Counts one page's occupied slots into its status.
template <class Exec, class Entry>
void paged_count_page(Exec& exec,
                      const Entry* slots,
                      std::uint32_t entries,
                      core::PageStatus* status) {
  exec.for_each(entries, [=] VOXHASH_LAMBDA(std::uint32_t j) {
    core::aggregate_add(&status->entries,
                        detail::entry_key(slots[j]) != kEmptyKeyOf<EntryKey<Entry>>);
  });
}

template <class Exec, class K = Key>
class PagedCuckooTableImpl final : public BasicPagedCuckooTable<K> {
  static constexpr std::uint32_t kNone = PageStream<Exec>::kNone;

  using Entry     = CuckooEntryOf<K>;
  using Ref       = BasicCuckooRef<K>;
  using PageRefK  = BasicPageRef<K>;
  using PagedRefK = BasicPagedRef<K>;

  /// The host's record of one page.
  struct PageInfo {
    detail::CuckooHashConstants hash[detail::kCuckooFunctions]{};
    std::uint32_t entries = 0;  // occupied slots (deleted entries included)
    int attempts          = 0;  // builds the last operation took on it
    int forced_failures   = 0;  // test hook
  };

 public:
  explicit PagedCuckooTableImpl(const BuildOptions& options)
      : m_rng(options.seed), m_run(m_run_stream.get(), &m_run_temp) {
    set_options(options);
  }

  void set_options(const BuildOptions& options) override {
    if (!(options.cuckoo_space >= 1.0)) {
      throw InvalidInput("paged table: space must be at least 1.0 slots per key");
    }
    if (options.max_attempts < 1) throw InvalidInput("paged table: max_attempts must be >= 1");
    if (options.page_capacity < 1 || options.page_capacity >= 0x40000000ull) {
      throw InvalidInput("paged table: page capacity must be in [1, 2^30) pairs");
    }
    if (!(options.page_fill > 0.0 && options.page_fill <= 1.0)) {
      throw InvalidInput("paged table: page fill must be in (0, 1]");
    }
    if (options.stash_slots > 0x10000u) {
      throw InvalidInput("paged table: a stash of at most 65536 slots");
    }
    const auto main = static_cast<std::uint32_t>(
        std::ceil(options.cuckoo_space * static_cast<double>(options.page_capacity)));
    const std::uint32_t entries = main + options.stash_slots;
    const std::size_t slot      = slot_bytes(entries);
    const std::size_t scratch   = scratch_bytes(entries);
    if (options.page_budget < slot + scratch) {
      std::ostringstream msg;
      msg << "paged table: page budget " << format_bytes(options.page_budget)
          << " is smaller than one page needs: " << format_bytes(slot + scratch) << " (a page of "
          << options.page_capacity << " pairs is " << format_bytes(sizeof(Entry) * entries) << ", "
          << main << " slots and a stash of " << options.stash_slots << ", " << sizeof(Entry)
          << " bytes each; with its overflow list and one page of rebuild scratch); raise "
          << "the budget or lower the page capacity";
      throw InvalidInput(msg.str());
    }
    const auto page_slots = static_cast<std::uint32_t>(
        std::min<std::size_t>((options.page_budget - scratch) / slot, 0x7FFFFFFFu / entries));
    if (main != m_main || entries != m_entries || page_slots != m_page_slots) clear();
    m_options       = options;
    m_main          = main;
    m_entries       = entries;
    m_page_slots    = page_slots;
    m_max_page_keys = std::max<std::uint32_t>(
        1, static_cast<std::uint32_t>(kMaxPageLoad * static_cast<double>(main)));
    m_max_chain = chain_limit(options.max_chain, static_cast<double>(main));
  }

  [[nodiscard]] Backend backend() const override { return Exec::kBackend; }

  BuildStats build(const K* keys, const Value* values, std::size_t n, Stream stream) override {
    check_size(n, "paged table");
    const auto start = std::chrono::steady_clock::now();
    begin_op();
    if (n == 0) {
      clear();
      return finish_build(0, start);
    }
    auto pages = static_cast<std::uint32_t>(paged_page_count(m_options, n));
    for (int round = 0;; ++round) {
      try {
        if (pages <= m_page_slots) {
          build_resident(keys, values, n, pages, stream);
        } else {
          build_streamed(keys, values, n, pages, stream);
        }
        break;
      } catch (const PageOverfull&) {
        // A page got more keys than it can hold: more pages (the table is being replaced anyway).
        clear();
        if (round == 3) {
          throw BuildFailed("paged table: build of " + std::to_string(n) + " keys into pages of " +
                            std::to_string(m_options.page_capacity) +
                            " pairs failed: pages overfilled four times");
        }
        pages += pages / 8 + 1;
      }
    }
    return finish_build(n, start);
  }

  void insert(const K* keys, const Value* values, std::size_t n, Stream stream) override {
    check_size(n, "paged table");
    if (n == 0) return;
    if (m_pages == 0) {
      build(keys, values, n, stream);
      return;
    }
    modify(PageWork::Insert, keys, values, n, stream);
  }

  void erase(const K* keys, std::size_t n, Stream stream) override {
    check_size(n, "paged table");
    if (n == 0 || m_pages == 0) return;
    modify(PageWork::Erase, keys, nullptr, n, stream);
  }

  void update(const K* keys, const Value* values, std::size_t n, Stream stream) override {
    check_size(n, "paged table");
    if (n == 0 || m_pages == 0) return;
    modify(PageWork::Update, keys, values, n, stream);
  }

  void find_async(const K* q, std::size_t n, Value* out, Stream stream) const override {
    lookup(PageWork::Find, q, n, out, stream);
  }
  void contains_async(const K* q, std::size_t n, std::uint8_t* out, Stream stream) const override {
    lookup(PageWork::Contains, q, n, out, stream);
  }
  void count_async(const K*, std::size_t, std::uint32_t*, Stream) const override {
    no_dense_ids("count");
  }
  void find_id_async(const K*, std::size_t, std::uint32_t*, Stream) const override {
    no_dense_ids("find_id");
  }
  [[nodiscard]] std::size_t unique_count() const override { no_dense_ids("unique_count"); }
  [[nodiscard]] const K* unique_keys() const override { no_dense_ids("unique_keys"); }
  [[nodiscard]] const BuildStats& stats() const override { return m_build_stats; }
  [[nodiscard]] const PagedStats& paged_stats() const override { return m_stats; }

  [[nodiscard]] PageRefK page_ref(std::size_t page) const override {
    if (page >= m_pages || m_stream.slot_of(static_cast<std::uint32_t>(page)) == kNone) {
      throw InvalidInput("paged table: page " + std::to_string(page) + " is not resident");
    }
    const auto p = static_cast<std::uint32_t>(page);
    return PageRefK{page_view(p, m_stream.slot_of(p))};
  }

  [[nodiscard]] PagedRefK ref() const override {
    if (!all_resident()) {
      throw InvalidInput("paged table: ref() needs every page resident (" +
                         std::to_string(m_pages) + " pages, " + std::to_string(m_page_slots) +
                         " page slots in the budget)");
    }
    return PagedRefK{m_refs.data(), m_pages, m_seed};
  }

  [[nodiscard]] int page_attempts(std::size_t page) const override {
    return page < m_pages ? m_info[page].attempts : 0;
  }

  void force_page_failures(std::size_t page, int times) override {
    if (page >= m_info.size()) m_forced.resize(page + 1, 0);
    if (page < m_info.size()) m_info[page].forced_failures = times;
    if (page < m_forced.size()) m_forced[page] = times;
  }

 private:
  /// Thrown inside a build when a page cannot take its keys; the build adds pages.
  struct PageOverfull {};

  [[noreturn]] static void no_dense_ids(const char* what) {
    throw InvalidInput(std::string("paged table: ") + what +
                       " is not available (the paged table keeps no dense ids or unique key "
                       "list; use find or contains)");
  }

  static std::size_t slot_bytes(std::uint32_t entries) {
    return sizeof(Entry) * (entries + core::kPageOverflow) + sizeof(core::PageStatus) +
           sizeof(PageRefK) + sizeof(std::uint32_t);
  }
  static std::size_t scratch_bytes(std::uint32_t entries) {
    return sizeof(Entry) * (entries + core::kPageOverflow);
  }

  [[nodiscard]] bool all_resident() const { return m_pages != 0 && m_pages <= m_page_slots; }

  // ---- the table's state ---------------------------------------------------------------------

  void clear() {
    m_pages = 0;
    m_info.clear();
    m_stream.set_pages(0);
    m_host.resize(0);
    update_table_stats();
  }

  /// Page slots (and their lists, statuses, refs, counters) for at least `slots` pages (at most
  /// the budget's), and the rebuild scratch. Throws OutOfMemory before anything changes.
  void reserve_slots(std::uint32_t slots) {
    if (m_stream.slots() >= slots && m_slots.size() == std::size_t{m_stream.slots()} * m_entries)
      return;
    Buffer<Entry> fresh(Exec::kBackend, std::size_t{slots} * m_entries);
    Buffer<Entry> overflow(Exec::kBackend, std::size_t{slots} * core::kPageOverflow);
    Buffer<core::PageStatus> status(Exec::kBackend, slots);
    Buffer<PageRefK> refs(Exec::kBackend, slots);
    Buffer<std::uint32_t> counts(Exec::kBackend, slots);
    Buffer<Entry> scratch(Exec::kBackend, m_entries + core::kPageOverflow);
    auto host_status = Buffer<core::PageStatus>::pinned_host(slots);
    m_slots.swap(fresh);
    m_overflow.swap(overflow);
    m_status.swap(status);
    m_refs.swap(refs);
    m_counts.swap(counts);
    m_scratch.swap(scratch);
    m_host_status.swap(host_status);
    m_stream.set_slots(slots);
  }

  /// Pinned host memory for `pages` pages when the table's is too small (else an empty Buffer).
  /// Throws OutOfMemory, saying the table is unchanged.
  Buffer<Entry> host_pages_for(std::uint32_t pages) {
    const std::size_t need = std::size_t{pages} * m_entries;
    if (m_host.pinned() && m_host.bytes() >= need * sizeof(Entry)) return {};
    try {
      return Buffer<Entry>::pinned_host(need);
    } catch (const OutOfMemory& e) {
      throw OutOfMemory("paged table: pinned host memory for " + std::to_string(pages) +
                        " pages (" + format_bytes(need * sizeof(Entry)) +
                        ") could not be allocated; the table is unchanged: " + e.what());
    }
  }

  /// A fresh table of `pages` empty pages: new page seed, new constants per page.
  void start_table(std::uint32_t pages) {
    m_pages = pages;
    m_seed  = static_cast<std::uint32_t>(m_rng());
    m_info.assign(pages, PageInfo{});
    for (std::uint32_t p = 0; p < pages; ++p) {
      draw_cuckoo_constants(m_rng, m_info[p].hash);
      if (p < m_forced.size()) m_info[p].forced_failures = m_forced[p];
    }
    m_stream.set_pages(pages);
  }

  [[nodiscard]] Ref page_view(std::uint32_t page, std::uint32_t slot) const {
    Ref v{};
    v.slots = m_slots.data() + std::size_t{slot} * m_entries;
    v.size  = m_main;
    for (int i = 0; i < detail::kCuckooFunctions; ++i)
      v.hash[i] = m_info[page].hash[i];
    v.stash_size = m_options.stash_slots;
    return v;
  }
  [[nodiscard]] Entry* slot_entries(std::uint32_t slot) {
    return m_slots.data() + std::size_t{slot} * m_entries;
  }
  [[nodiscard]] Entry* host_page(std::uint32_t page) {
    return m_host.data() + std::size_t{page} * m_entries;
  }

  /// The device refs of the resident pages (all of them when the table fits its budget).
  void upload_refs(Exec& exec) {
    m_host_refs.assign(m_stream.slots(), PageRefK{});
    for (std::uint32_t p = 0; p < m_pages; ++p) {
      const std::uint32_t slot = m_stream.slot_of(p);
      if (slot != kNone) m_host_refs[slot] = PageRefK{page_view(p, slot)};
    }
    exec.transfer_async(m_refs.data(), m_host_refs.data(), m_host_refs.size() * sizeof(PageRefK));
  }

  void begin_op() {
    m_stats.bytes_to_device  = 0;
    m_stats.bytes_to_host    = 0;
    m_stats.pages_streamed   = 0;
    m_stats.page_rebuilds    = 0;
    m_stats.upload_seconds   = 0;
    m_stats.download_seconds = 0;
    m_stats.kernel_seconds   = 0;
    m_stream.reset_times();
    m_longest_chain = 0;
    for (PageInfo& info : m_info)
      info.attempts = 0;
  }

  void finish_op(std::chrono::steady_clock::time_point start) {
    m_stats.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    m_stats.upload_seconds   = m_stream.times().bring_ms * 1e-3;
    m_stats.kernel_seconds   = m_stream.times().work_ms * 1e-3;
    m_stats.download_seconds = m_stream.times().back_ms * 1e-3;
    update_table_stats();
  }

  /// The stats that describe the table rather than the last operation.
  void update_table_stats() {
    m_stats.pages         = m_pages;
    m_stats.page_slots    = m_page_slots;
    m_stats.page_capacity = m_options.page_capacity;
    m_stats.page_bytes    = sizeof(Entry) * m_entries;
    m_stats.max_page_keys = m_max_page_keys;
    m_stats.all_resident  = all_resident();
    m_stats.backend_bytes = m_slots.bytes() + m_overflow.bytes() + m_status.bytes() +
                            m_refs.bytes() + m_counts.bytes() + m_scratch.bytes();
    m_stats.host_bytes     = m_host.bytes();
    m_stats.scratch_bytes  = m_partition.bytes() + m_run_temp.bytes();
    m_stats.resident_pages = m_stream.resident();
    m_stats.entries        = 0;
    for (const PageInfo& info : m_info)
      m_stats.entries += info.entries;
  }

  BuildStats finish_build(std::size_t n, std::chrono::steady_clock::time_point start) {
    finish_op(start);
    BuildStats stats;
    stats.keys          = n;
    stats.chain_limit   = m_max_chain;
    stats.slots         = std::size_t{m_pages} * m_main;
    stats.bytes         = m_stats.backend_bytes;
    stats.longest_chain = m_longest_chain;
    for (const PageInfo& info : m_info)
      stats.attempts = std::max(stats.attempts, info.attempts);
    return m_build_stats = stats;
  }

  // ---- builds --------------------------------------------------------------------------------

  /// P <= R: every page in its own slot; one insertion pass over the input, page by page_of.
  void build_resident(
      const K* keys, const Value* values, std::size_t n, std::uint32_t pages, Stream stream) {
    reserve_slots(pages);
    m_host.resize(0);
    start_table(pages);
    for (std::uint32_t p = 0; p < pages; ++p)
      m_stream.place(p, p);
    Exec exec(stream, &m_run_temp);
    exec.fill(m_slots.data(), std::size_t{pages} * m_entries, detail::empty_entry<K>());
    upload_refs(exec);
    const auto status = reset_status(exec, pages);
    paged_insert_resident(exec,
                          resident_pages(),
                          keys,
                          values,
                          static_cast<std::uint32_t>(n),
                          false,
                          status.op,
                          m_max_chain);
    check_op(exec, status.op, true);
    settle_resident(exec, true);
  }

  /// P > R: partition by page, then every page through the slots (filled, built, downloaded).
  void build_streamed(
      const K* keys, const Value* values, std::size_t n, std::uint32_t pages, Stream stream) {
    // Everything this build allocates comes before anything changes (a build that fails for
    // memory leaves the table as it was). A page's input count includes duplicates, which the set
    // variant merges, so an overfull page shows only when it fails to build.
    Buffer<Entry> host = host_pages_for(pages);
    Partition part     = partition(keys, values, n, pages, m_rng(), true, stream);
    reserve_slots(m_page_slots);
    check_op(m_run, part.op, true);
    if (!host.empty()) m_host.swap(host);
    m_host.resize(std::size_t{pages} * m_entries);
    start_table(pages);
    m_seed = part.seed;
    std::vector<std::uint32_t> order(pages);
    for (std::uint32_t p = 0; p < pages; ++p)
      order[p] = p;
    stream_pages(PageWork::Build, order, part, static_cast<Value*>(nullptr));
  }

  // ---- modifying operations ------------------------------------------------------------------

  void modify(PageWork work, const K* keys, const Value* values, std::size_t n, Stream stream) {
    const auto start = std::chrono::steady_clock::now();
    begin_op();
    const bool check_values = work != PageWork::Erase;
    if (all_resident()) {
      Exec exec(stream, &m_run_temp);
      const auto status = reset_status(exec, m_pages);
      if (work == PageWork::Insert) {
        // Validate and count each page's new pairs before anything changes.
        Buffer<std::uint32_t>& counts = m_counts;
        exec.fill(counts.data(), m_pages, 0u);
        paged_validate(exec,
                       keys,
                       values,
                       static_cast<std::uint32_t>(n),
                       status.op,
                       m_seed,
                       m_pages,
                       counts.data());
        check_op(exec, status.op, false);
        std::vector<std::uint32_t> add(m_pages);
        exec.copy_to_host(add.data(), counts.data(), m_pages);
        for (std::uint32_t p = 0; p < m_pages; ++p)
          check_room(p, add[p]);
        paged_assign_resident(
            exec, resident_pages(), keys, values, static_cast<std::uint32_t>(n), false);
        paged_insert_resident(exec,
                              resident_pages(),
                              keys,
                              values,
                              static_cast<std::uint32_t>(n),
                              true,
                              status.op,
                              m_max_chain);
        settle_resident(exec, false);
      } else {
        if (check_values) {
          paged_validate(exec,
                         keys,
                         values,
                         static_cast<std::uint32_t>(n),
                         status.op,
                         m_seed,
                         m_pages,
                         static_cast<std::uint32_t*>(nullptr));
          check_op(exec, status.op, false);
        }
        paged_assign_resident(exec,
                              resident_pages(),
                              keys,
                              values,
                              static_cast<std::uint32_t>(n),
                              work == PageWork::Erase);
        exec.synchronize();
      }
    } else {
      Partition part = partition(keys, values, n, m_pages, m_seed, check_values, stream);
      check_op(m_run, part.op, false);
      if (work == PageWork::Insert) {
        for (std::uint32_t p = 0; p < m_pages; ++p)
          check_room(p, part.offsets[p + 1] - part.offsets[p]);
      }
      stream_pages(work, pages_with_input(part), part, static_cast<Value*>(nullptr));
    }
    finish_op(start);
  }

  /// Throws InvalidInput when `add` more entries would fill page p beyond max_page_keys.
  void check_room(std::uint32_t p, std::uint32_t add) const {
    if (std::size_t{m_info[p].entries} + add <= m_max_page_keys) return;
    std::ostringstream msg;
    msg << "paged table: insert would put " << m_info[p].entries + std::size_t{add}
        << " entries into page " << p << ", more than the " << m_max_page_keys << " a page of "
        << m_options.page_capacity << " pairs holds; the table is unchanged "
        << "(build it anew for more pages: the page count is fixed by the last build)";
    throw InvalidInput(msg.str());
  }

  // ---- lookups -------------------------------------------------------------------------------

  template <class Out>
  void lookup(PageWork work, const K* q, std::size_t n, Out* out, Stream stream) const {
    check_size(n, "paged table");
    if (n == 0) return;
    // Streaming moves pages between memories (and counts what moved), never their contents.
    auto& self = const_cast<PagedCuckooTableImpl&>(*this);
    if (m_pages == 0) {
      Exec exec(stream);
      const Out none = work == PageWork::Find ? static_cast<Out>(kNotFound) : Out{0};
      exec.fill(out, n, none);
      return;
    }
    if (all_resident()) {
      Exec exec(stream);
      paged_find_resident(exec,
                          PagedRefK{m_refs.data(), m_pages, m_seed},
                          q,
                          static_cast<std::uint32_t>(n),
                          out,
                          work == PageWork::Find);
      return;
    }
    const auto start = std::chrono::steady_clock::now();
    self.begin_op();
    Partition part = self.partition(q, nullptr, n, m_pages, m_seed, false, stream);
    self.stream_pages(work, self.pages_with_input(part), part, out);
    self.finish_op(start);
  }

  // ---- the resident table's passes (one kernel over the whole input) ---------------------------

  struct StatusPtrs {
    core::PagedOpStatus* op;
  };

  StatusPtrs reset_status(Exec& exec, std::uint32_t slots) {
    m_op.resize(1);
    exec.fill(m_op.data(), 1, core::PagedOpStatus{});
    exec.fill(m_status.data(), slots, core::PageStatus{});
    return {m_op.data()};
  }

  [[nodiscard]] ResidentPages<K> resident_pages() {
    return {PagedRefK{m_refs.data(), m_pages, m_seed},
            m_slots.data(),
            m_overflow.data(),
            m_status.data(),
            m_entries};
  }

  /// After a resident pass: rebuild the pages that overflowed, then count every page's entries.
  void settle_resident(Exec& exec, bool in_build) {
    std::vector<core::PageStatus> status(m_pages);
    exec.copy_to_host(status.data(), m_status.data(), m_pages);
    for (std::uint32_t p = 0; p < m_pages; ++p) {
      m_info[p].attempts = 1;
      if (needs_rebuild(p, status[p])) rebuild(exec, p, p, status[p].overflow, in_build);
    }
    count_entries(exec, 0, m_pages);
    exec.synchronize();
  }

  /// Reads the operation's status: sentinel keys and deleted-marker values are InvalidInput
  /// (a build clears the table first, as HashTable::build promises).
  void check_op(Exec& exec, core::PagedOpStatus* op, bool in_build) {
    const core::PagedOpStatus s = exec.read(op);
    m_longest_chain             = std::max(m_longest_chain, s.longest_chain);
    if (!s.sentinel_key && !s.bad_value) return;
    if (in_build) clear();
    if (s.sentinel_key) throw_sentinel_key<K>("paged table");
    throw InvalidInput(
        "paged table: input contains value 0xFFFFFFFF, which marks deleted entries; remap it");
  }

  [[nodiscard]] bool needs_rebuild(std::uint32_t page, const core::PageStatus& s) {
    PageInfo& info = m_info[page];
    if (info.forced_failures > 0) {
      --info.forced_failures;
      if (page < m_forced.size()) m_forced[page] = info.forced_failures;
      return true;
    }
    return s.overflow != 0;
  }

  /// Rebuilds the page in `slot` alone from its own entries (first live copies, and the items in
  /// its overflow list) with new constants, up to max_attempts times. Synchronous on `exec`.
  void rebuild(
      Exec& exec, std::uint32_t page, std::uint32_t slot, std::uint32_t overflowed, bool in_build) {
    if (overflowed > core::kPageOverflow) {
      if (in_build) throw PageOverfull{};
      throw BuildFailed("paged table: page " + std::to_string(page) + " could not place " +
                        std::to_string(overflowed) + " entries (more than its overflow list of " +
                        std::to_string(core::kPageOverflow) + " keeps); entries were lost");
    }
    ++m_stats.page_rebuilds;
    PageInfo& info           = m_info[page];
    const Ref old_view       = page_view(page, slot);
    Entry* scratch           = m_scratch.data();
    core::PageStatus* status = m_status.data() + slot;
    const Entry* overflow    = m_overflow.data() + std::size_t{slot} * core::kPageOverflow;
    exec.fill(status, 1, core::PageStatus{});
    paged_collect(exec, old_view, m_entries + overflowed, overflow, status, scratch);
    const std::uint32_t collected = exec.read(status).collected;
    bool built                    = false;
    for (int attempt = 2; attempt <= m_options.max_attempts && !built; ++attempt) {
      info.attempts = attempt;
      draw_cuckoo_constants(m_rng, info.hash);
      const Ref view = page_view(page, slot);
      Entry* slots   = slot_entries(slot);
      Entry* list    = m_overflow.data() + std::size_t{slot} * core::kPageOverflow;
      exec.fill(slots, m_entries, detail::empty_entry<K>());
      exec.fill(status, 1, core::PageStatus{});
      paged_insert_entries(
          exec, view, slots, list, status, m_op.data(), scratch, collected, false, m_max_chain);
      built = !needs_rebuild(page, exec.read(status));
    }
    if (!built) {
      if (in_build) throw PageOverfull{};
      throw BuildFailed("paged table: page " + std::to_string(page) + " (" +
                        std::to_string(collected) + " entries) failed " +
                        std::to_string(m_options.max_attempts) +
                        " builds with fresh constants; the page may miss entries");
    }
    if (m_stream.slot_of(page) != kNone && all_resident()) {
      m_host_refs[slot] = PageRefK{page_view(page, slot)};
      exec.transfer_async(m_refs.data() + slot, &m_host_refs[slot], sizeof(PageRefK));
    }
  }

  /// Counts the occupied entries of the pages in slots [first, first + count) into their records.
  void count_entries(Exec& exec, std::uint32_t first, std::uint32_t count) {
    std::uint32_t* counts = m_counts.data() + first;
    exec.fill(counts, count, 0u);
    paged_count_slots(
        exec, m_slots.data() + std::size_t{first} * m_entries, count, m_entries, counts);
    std::vector<std::uint32_t> host(count);
    exec.copy_to_host(host.data(), counts, count);
    for (std::uint32_t s = 0; s < count; ++s)
      m_info[m_stream.page_in(first + s)].entries = host[s];
  }

  // ---- partition and streaming ---------------------------------------------------------------

  /// An operation's input sorted by page: entries (key and value, or query index for lookups)
  /// grouped by page in input order, and where each page's run starts (on the host).
  struct Partition {
    const Entry* entries = nullptr;      // in the table's partition scratch
    std::vector<std::uint32_t> offsets;  // P + 1
    std::uint32_t seed      = 0;
    core::PagedOpStatus* op = nullptr;
  };

  /// Partitions keys[0..n) (with values, or their indices) by page over `pages` pages with `seed`
  /// on the kernel stream, after the caller's stream; validates pairs when `check_values`.
  /// Synchronizes (reads the page offsets back). The scratch (24 bytes a pair, 40 for 64-bit keys,
  /// and the sort's) is the table's, kept for the next operation: outside the budget, beside the
  /// caller's input.
  Partition partition(const K* keys,
                      const Value* values,
                      std::size_t n,
                      std::uint32_t pages,
                      std::uint32_t seed,
                      bool check_values,
                      Stream stream) {
    Exec caller(stream);
    typename Exec::Event ready;
    ready.record(caller);
    m_run.wait(ready);
    m_op.resize(1);
    m_run.fill(m_op.data(), 1, core::PagedOpStatus{});
    m_partition.run(
        m_run, keys, values, n, pages, seed, check_values ? m_op.data() : nullptr, check_values);
    Partition part;
    part.seed    = seed;
    part.op      = m_op.data();
    part.entries = m_partition.entries();
    part.offsets = m_partition.offsets();
    return part;
  }

  /// The pages with input, those resident first (no upload).
  std::vector<std::uint32_t> pages_with_input(const Partition& part) const {
    std::vector<std::uint32_t> order;
    for (int resident = 1; resident >= 0; --resident) {
      for (std::uint32_t p = 0; p < m_pages; ++p) {
        if (part.offsets[p + 1] > part.offsets[p] &&
            (m_stream.slot_of(p) != kNone) == (resident == 1)) {
          order.push_back(p);
        }
      }
    }
    return order;
  }

  /// Streams `order`'s pages through the page slots (PageStream: a page's slot is the one it is
  /// in, else the next round robin, after the slot's previous page is settled): an upload of its
  /// host copy (or a fill for a build), its share of the work on the table's stream, a count of its
  /// entries, and a download when it changed. `out`: the lookups' answers. Synchronizes.
  template <class Out = Value>
  void stream_pages(PageWork work,
                    const std::vector<std::uint32_t>& order,
                    const Partition& part,
                    Out* out) {
    const std::size_t bytes = sizeof(Entry) * m_entries;
    m_stream.run(
        m_run,
        order,
        [&](Exec& up, std::uint32_t page, std::uint32_t slot, bool resident) {
          ++m_stats.pages_streamed;
          m_info[page].attempts = 1;
          if (work == PageWork::Build) {
            up.fill(slot_entries(slot), m_entries, detail::empty_entry<K>());
          } else if (!resident) {
            up.transfer_async(slot_entries(slot), host_page(page), bytes);
            m_stats.bytes_to_device += bytes;
          }
        },
        [&](Exec& run, std::uint32_t page, std::uint32_t slot) {
          const std::uint32_t begin = part.offsets[page];
          const std::uint32_t count = part.offsets[page + 1] - begin;
          core::PageStatus* status  = m_status.data() + slot;
          run.fill(status, 1, core::PageStatus{});
          run_page(work,
                   page_view(page, slot),
                   slot_entries(slot),
                   slot,
                   part.entries + begin,
                   count,
                   out);
          if (modifies(work)) paged_count_page(run, slot_entries(slot), m_entries, status);
        },
        [&](Exec& down, std::uint32_t page, std::uint32_t slot) {
          if (!modifies(work)) return;
          down.transfer_async(host_page(page), slot_entries(slot), bytes);
          down.transfer_async(
              m_host_status.data() + slot, m_status.data() + slot, sizeof(core::PageStatus));
          m_stats.bytes_to_host += bytes;
        },
        [&](std::uint32_t page, std::uint32_t slot) { settle_page(work, page, slot); });
    if (modifies(work)) {
      m_longest_chain = std::max(m_longest_chain, m_run.read(m_op.data()).longest_chain);
    }
  }

  /// One page's share of the work, on the kernel stream.
  template <class Out>
  void run_page(PageWork work,
                const Ref& view,
                Entry* slots,
                std::uint32_t slot,
                const Entry* input,
                std::uint32_t count,
                Out* out) {
    if (count == 0) return;
    core::PageStatus* status      = m_status.data() + slot;
    Entry* overflow               = m_overflow.data() + std::size_t{slot} * core::kPageOverflow;
    core::PagedOpStatus* op       = m_op.data();
    const std::uint32_t max_chain = m_max_chain;
    switch (work) {
      case PageWork::Insert:
        paged_assign_entries(m_run, view, slots, input, count, false);
        paged_insert_entries(
            m_run, view, slots, overflow, status, op, input, count, true, max_chain);
        return;
      case PageWork::Build:
        paged_insert_entries(
            m_run, view, slots, overflow, status, op, input, count, false, max_chain);
        return;
      case PageWork::Update:
      case PageWork::Erase:
        paged_assign_entries(m_run, view, slots, input, count, work == PageWork::Erase);
        return;
      case PageWork::Find:
      case PageWork::Contains:
        paged_find_entries(m_run, view, input, count, out, work == PageWork::Find);
        return;
    }
  }

  /// After a page's trip through its slot: records its entries, and rebuilds it when it
  /// overflowed (and downloads it again).
  void settle_page(PageWork work, std::uint32_t page, std::uint32_t slot) {
    if (!modifies(work)) return;
    const core::PageStatus s = m_host_status.data()[slot];
    m_info[page].entries     = s.entries;
    if (!needs_rebuild(page, s)) return;
    rebuild(m_run, page, slot, s.overflow, work == PageWork::Build);
    count_entries(m_run, slot, 1);
    m_run.transfer_async(host_page(page), slot_entries(slot), sizeof(Entry) * m_entries);
    m_stats.bytes_to_host += sizeof(Entry) * m_entries;
    m_run.synchronize();
  }

  BuildOptions m_options;
  std::mt19937_64 m_rng;
  std::uint32_t m_main          = 0;  // cuckoo slots per page
  std::uint32_t m_entries       = 0;  // slots and stash per page
  std::uint32_t m_page_slots    = 0;  // pages the budget holds at once
  std::uint32_t m_max_page_keys = 0;
  std::uint32_t m_max_chain     = 0;

  std::uint32_t m_pages = 0;
  std::uint32_t m_seed  = 0;
  std::vector<PageInfo> m_info;
  std::vector<int> m_forced;  // force_page_failures, by page, across builds
  std::vector<PageRefK> m_host_refs;
  std::uint32_t m_longest_chain = 0;

  Buffer<Entry> m_slots{Exec::kBackend, 0};
  Buffer<Entry> m_overflow{Exec::kBackend, 0};
  Buffer<core::PageStatus> m_status{Exec::kBackend, 0};
  Buffer<core::PagedOpStatus> m_op{Exec::kBackend, 0};
  Buffer<PageRefK> m_refs{Exec::kBackend, 0};
  Buffer<std::uint32_t> m_counts{Exec::kBackend, 0};
  Buffer<Entry> m_scratch{Exec::kBackend, 0};
  Buffer<Entry> m_host;                    // pinned host pages (streaming tables only)
  PagePartition<Exec, K> m_partition;      // an operation's input by page (streaming tables only)
  Buffer<core::PageStatus> m_host_status;  // pinned: the streamed pages' statuses

  typename Exec::OwnedStream m_run_stream;  // the kernels'
  Buffer<std::byte> m_run_temp{Exec::kBackend, 0};
  Exec m_run;
  PageStream<Exec> m_stream{0, true};  // each page's upload queued just before its kernels

  PagedStats m_stats;
  BuildStats m_build_stats;
};

}  // namespace voxhash::tables
