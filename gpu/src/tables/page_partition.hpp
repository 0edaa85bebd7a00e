// PagePartition<Exec>: an input's pairs grouped by Starfish page (core's page_of), shared by the
// paged table (an operation's input, streamed through its page slots) and the join over pages
// (both sides, so one key's rows land in the same page on each). A CUB radix sort of
// (page, key << 32 | value) pairs over ceil(lg P) bits, then run ends and a prefix max give each
// page's range, read back to the host. The scratch (24 bytes a pair; 40 with 64-bit keys, whose
// entries are the 16-byte slots) is kept for the next call.
#pragma once

#include "core/hash_graph.hpp"
#include "core/paged.hpp"
#include "tables/build_status.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/paged_table.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace voxhash::tables {

/// The partition, step one: each pair's page and entry; with `op`, each pair checked
/// (core::valid_pair: sentinel keys, and deleted-marker values when `check_values`).
template <class Exec, class K>
void paged_bin_input(Exec& exec,
                     const K* keys,
                     const Value* values,
                     std::uint32_t n,
                     std::uint32_t seed,
                     std::uint32_t pages,
                     core::PagedOpStatus* op,
                     bool check_values,
                     std::uint32_t* page_of,
                     CuckooEntryOf<K>* entries) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const K key       = keys[i];
    const Value value = value_or_index(values, i);
    if (op) core::valid_pair(op, key, value, check_values);
    page_of[i] = detail::page_of(key, seed, pages);
    entries[i] = detail::make_entry(key, value);
  });
}

/// The partition, step three (after the sort): where each page's run ends.
template <class Exec>
void paged_mark_runs(Exec& exec,
                     const std::uint32_t* sorted_page,
                     std::uint32_t n,
                     std::uint32_t* offsets) {
  exec.for_each(
      n, [=] VOXHASH_LAMBDA(std::uint32_t i) { core::mark_run_end(sorted_page, n, i, offsets); });
}

/// Splits entries into a key column and a value column.
template <class Exec, class K>
void paged_split_entries(
    Exec& exec, const CuckooEntryOf<K>* entries, std::uint32_t n, K* keys, Value* values) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const CuckooEntryOf<K> e = entries[i];
    keys[i]                  = detail::entry_key(e);
    values[i]                = detail::entry_value(e);
  });
}

template <class Exec, class K = Key>
class PagePartition {
  using Entry = CuckooEntryOf<K>;

 public:
  /// Groups keys[0..n) (with values, or their indices) by page over `pages` pages with `seed`, on
  /// `exec` (the caller orders it after the input is ready); each page's pairs keep their input
  /// order. With `op`, checks each pair (see paged_bin_input). Synchronizes `exec` (the page
  /// offsets are read back).
  void run(Exec& exec,
           const K* keys,
           const Value* values,
           std::size_t n,
           std::uint32_t pages,
           std::uint32_t seed,
           core::PagedOpStatus* op,
           bool check_values) {
    const auto count = static_cast<std::uint32_t>(n);
    m_page_in.resize(n);
    m_page_out.resize(n);
    m_entry_in.resize(n);
    m_entries_out.resize(n);
    m_device_offsets.resize(std::size_t{pages} + 1);
    paged_bin_input(exec,
                    keys,
                    values,
                    count,
                    seed,
                    pages,
                    op,
                    check_values,
                    m_page_in.data(),
                    m_entry_in.data());
    const int end_bit = std::max(1, static_cast<int>(std::bit_width(pages - 1)));
    exec.sort_pairs(
        m_page_in.data(), m_page_out.data(), m_entry_in.data(), m_entries_out.data(), n, end_bit);
    std::uint32_t* offsets = m_device_offsets.data();
    exec.fill(offsets, std::size_t{pages} + 1, 0u);
    paged_mark_runs(exec, m_page_out.data(), count, offsets);
    exec.inclusive_max(offsets, std::size_t{pages} + 1);
    m_offsets.resize(std::size_t{pages} + 1);
    exec.copy_to_host(m_offsets.data(), offsets, m_offsets.size());
  }

  /// The pairs grouped by page (as slot entries), page p's at [offsets()[p], offsets()[p + 1]).
  [[nodiscard]] const Entry* entries() const { return m_entries_out.data(); }
  /// P + 1 page starts, on the host.
  [[nodiscard]] const std::vector<std::uint32_t>& offsets() const { return m_offsets; }

  /// The grouped pairs as a key column and a value column, written on `exec` into the page-id
  /// scratch (free once the offsets are read back); valid until the next run(). 32-bit keys only
  /// (the join over pages).
  struct Columns {
    const Key* keys;
    const Value* values;
  };
  Columns split_columns(Exec& exec) {
    const auto n = static_cast<std::uint32_t>(m_entries_out.size());
    paged_split_entries(exec, m_entries_out.data(), n, m_page_in.data(), m_page_out.data());
    return {m_page_in.data(), m_page_out.data()};
  }

  /// Frees the grouped pairs, once split_columns has run (what it wrote stays); the next run()
  /// allocates them again. Synchronizes `exec`.
  void release_entries(Exec& exec) {
    exec.synchronize();
    m_entry_in    = Buffer<Entry>(Exec::kBackend, 0);
    m_entries_out = Buffer<Entry>(Exec::kBackend, 0);
  }

  /// Backend bytes the scratch holds.
  [[nodiscard]] std::size_t bytes() const {
    return m_page_in.bytes() + m_page_out.bytes() + m_entry_in.bytes() + m_entries_out.bytes() +
           m_device_offsets.bytes();
  }

 private:
  Buffer<std::uint32_t> m_page_in{Exec::kBackend, 0}, m_page_out{Exec::kBackend, 0};
  Buffer<Entry> m_entry_in{Exec::kBackend, 0}, m_entries_out{Exec::kBackend, 0};
  Buffer<std::uint32_t> m_device_offsets{Exec::kBackend, 0};
  std::vector<std::uint32_t> m_offsets;
};

}  // namespace voxhash::tables
