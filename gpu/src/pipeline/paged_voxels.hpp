// PagedVoxels<Exec, K>: a model's voxels in a Starfish paged table, for frames whose tables would
// exceed PipelineConfig::gpu_budget. The frame's keys are radix-sorted and de-duplicated (a voxel's
// dense id is its rank in key order), and each unique key goes into a PagedCuckooTableImpl with its
// id as the value: pages beyond the model's half of the budget live in pinned host memory. The
// frame's kernels look voxels up through PagedVoxelRef, the table's mapped ref (resident pages in
// backend memory, the others read in place), so every frame step runs unchanged over it.
#pragma once

#include "core/paged.hpp"
#include "tables/paged_table_impl.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/grid.hpp>
#include <voxhash/paged_table.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace voxhash::pipeline {

/// The frame's view of a paged voxel table: contains, and dense ids (the pages' values).
template <class KeyT>
struct PagedVoxelRef {
  using key_type = KeyT;
  BasicPagedRef<KeyT> table;

  VOXHASH_HD bool contains(KeyT key) const { return table.contains(key); }
  VOXHASH_HD std::uint32_t find_id(KeyT key) const { return table.find(key); }

  /// N ids at once, each key in its own page, probes interleaved as the flat tables' batches.
  template <int N>
  VOXHASH_HD void find_id_batch(const KeyT (&key)[N], std::uint32_t (&id)[N]) const {
    if (table.count == 0) {
      VOXHASH_UNROLL
      for (int k = 0; k < N; ++k)
        id[k] = kNotFound;
      return;
    }
    std::uint32_t page[N], slot[N];
    CuckooEntryOf<KeyT> entry[N];
    VOXHASH_UNROLL
    for (int k = 0; k < N; ++k)
      page[k] = table.page(key[k]);
    detail::find_batch<N>(
        core::PagesOf<KeyT>{table.pages, page}, key, slot, entry, detail::LiveEntry{});
    VOXHASH_UNROLL
    for (int k = 0; k < N; ++k)
      id[k] = slot[k] == kNotFound ? kNotFound : detail::entry_value(entry[k]);
  }
};

/// A model's paged table holds pages of options.page_capacity pairs (Starfish's 2^20 by default),
/// fewer where its budget would hold fewer than kMinResidentPages of them (at least
/// kMinPageCapacity); a budget too small for that is the paged table's InvalidInput.
inline constexpr double kMinResidentPages     = 8;
inline constexpr std::size_t kMinPageCapacity = 1024;

/// The options of one model's paged table under `budget` bytes, for keys of `key_bytes` bytes.
inline BuildOptions paged_voxel_options(BuildOptions options, std::size_t budget, int key_bytes) {
  const double page_pair = 2.0 * key_bytes * options.cuckoo_space;
  const auto fits =
      static_cast<std::size_t>(static_cast<double>(budget) / (kMinResidentPages * page_pair));
  options.page_capacity = std::clamp<std::size_t>(fits, kMinPageCapacity, options.page_capacity);
  options.gpu_budget    = budget;
  options.unique_ids    = true;
  return options;
}

/// A model's voxels numbered by a sort and held in a paged table (see the file's header).
template <class Exec, class K>
class PagedVoxels {
 public:
  /// `budget`: the backend memory this model's pages may take (paged_voxel_options).
  void set_options(const BuildOptions& options, std::size_t budget) {
    m_table.set_options(paged_voxel_options(options, budget, static_cast<int>(sizeof(K))));
  }

  /// Sorts and de-duplicates `keys` by their low `key_bits` bits and builds the table of the unique
  /// keys with their ranks. Synchronizes `exec`'s stream.
  void build(Exec& exec, const K* keys, std::size_t n, int key_bits) {
    m_sorted.resize(n);
    m_unique.resize(n);
    exec.sort_keys(keys, m_sorted.data(), n, key_bits);
    m_count = exec.unique(m_sorted.data(), m_unique.data(), n);
    m_table.build(m_unique.data(), nullptr, m_count, exec.stream());
    m_ref = PagedVoxelRef<K>{m_table.mapped_ref(exec.stream())};
  }

  [[nodiscard]] std::size_t unique_count() const { return m_count; }
  [[nodiscard]] const K* unique_keys() const { return m_unique.data(); }
  [[nodiscard]] PagedVoxelRef<K> ref() const { return m_ref; }
  [[nodiscard]] const PagedStats& paged_stats() const { return m_table.paged_stats(); }

 private:
  tables::PagedCuckooTableImpl<Exec, K> m_table{BuildOptions{}};
  Buffer<K> m_sorted{Exec::kBackend, 0}, m_unique{Exec::kBackend, 0};
  std::size_t m_count = 0;
  PagedVoxelRef<K> m_ref{};
};

/// Adds one model's paged table to a frame's FramePaging.
inline void add_paging(FramePaging& f, const PagedStats& s) {
  f.paged = true;
  f.pages += s.pages;
  f.resident_pages += s.resident_pages;
  f.backend_bytes += s.backend_bytes;
  f.host_bytes += s.host_bytes;
  f.bytes_to_device += s.bytes_to_device;
  f.bytes_to_host += s.bytes_to_host;
}

}  // namespace voxhash::pipeline
