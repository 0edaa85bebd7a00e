// PagedVoxels<Exec, K>: a model's voxels in a Starfish paged table, for frames whose tables would
// exceed PipelineConfig::gpu_budget. Each voxel of the model's VoxelList (sorted, a voxel's dense
// id its rank in key order) goes into a PagedCuckooTableImpl with its id as the value: pages beyond
// the model's half of the budget live in pinned host memory. The probe is the table's streamed
// search; the fill's dependent lookups go through PagedVoxelRef, a search of the sorted voxel
// list, so every fill step runs unchanged over it.
#pragma once

#include "core/paged.hpp"
#include "tables/paged_table_impl.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/gpu_budget.hpp>
#include <voxhash/grid.hpp>
#include <voxhash/paged_table.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace voxhash::pipeline {

/// The frame's view of a model's voxels beyond the budget: its sorted voxel list in backend memory
/// and a coarse index of every kIndexStride-th key (small enough to stay in L2). A key's id is its
/// rank: a binary search of the index, then of one stride of the list. The fill's lookups are
/// dependent and scattered (a ray's next cell depends on the last answer), so they cannot be
/// batched by page as Starfish's search is, and reading pages in place over the bus makes each
/// one wait a bus round trip; the list answers them at device-memory speed.
template <class KeyT>
struct PagedVoxelRef {
  static constexpr std::uint32_t kIndexStride = 64;
  using key_type                              = KeyT;
  const KeyT* keys    = nullptr;  // sorted, unique: the model's voxels by id
  const KeyT* index   = nullptr;  // keys[j * kIndexStride]
  std::uint32_t count = 0, index_count = 0;

  VOXHASH_HD std::uint32_t find_id(KeyT key) const {
    // The last index entry <= key, then that stride of the list.
    std::uint32_t lo = 0, n = index_count;
    while (n > 0) {
      const std::uint32_t half = n / 2;
      if (index[lo + half] <= key) {
        lo += half + 1;
        n -= half + 1;
      } else {
        n = half;
      }
    }
    if (lo == 0) return kNotFound;
    std::uint32_t first = (lo - 1) * kIndexStride;
    n                   = count - first < kIndexStride ? count - first : kIndexStride;
    while (n > 0) {
      const std::uint32_t half = n / 2;
      if (keys[first + half] < key) {
        first += half + 1;
        n -= half + 1;
      } else {
        n = half;
      }
    }
    return first < count && keys[first] == key ? first : kNotFound;
  }
  VOXHASH_HD bool contains(KeyT key) const { return find_id(key) != kNotFound; }
  template <int N>
  VOXHASH_HD void find_id_batch(const KeyT (&key)[N], std::uint32_t (&id)[N]) const {
    VOXHASH_UNROLL
    for (int k = 0; k < N; ++k)
      id[k] = find_id(key[k]);
  }
};

/// A model's paged table holds pages of options.page_capacity pairs (Starfish's 2^20 by default),
/// fewer where its budget would hold fewer than kMinResidentPages of them (at least
/// kMinPageCapacity); a budget too small for that is the paged table's InvalidInput.
inline constexpr double kMinResidentPages     = 8;
inline constexpr std::size_t kMinPageCapacity = 1024;

/// The options of one model's paged table under `budget` (the model's share of the frame's:
/// GpuBudget::per_model), for keys of `key_bytes` bytes.
inline BuildOptions paged_voxel_options(BuildOptions options, GpuBudget budget, int key_bytes) {
  const double page_pair = 2.0 * key_bytes * options.cuckoo_space;
  const auto fits        = static_cast<std::size_t>(static_cast<double>(budget.bytes()) /
                                             (kMinResidentPages * page_pair));
  options.page_capacity  = std::clamp<std::size_t>(fits, kMinPageCapacity, options.page_capacity);
  options.page_budget    = budget.bytes();
  return options;
}

/// A model's voxels held in a paged table (see the file's header).
template <class Exec, class K>
class PagedVoxels {
 public:
  /// `budget`: the backend memory this model's pages may take (paged_voxel_options).
  void set_options(const BuildOptions& options, GpuBudget budget) {
    m_table.set_options(paged_voxel_options(options, budget, static_cast<int>(sizeof(K))));
  }

  /// Indexes the model's sorted voxels[0..n) (a VoxelList) and builds the paged table of them with
  /// their ranks. The list must outlive the ref. Synchronizes `exec`'s stream.
  void build(Exec& exec, const K* voxels, std::uint32_t n) {
    constexpr std::uint32_t kStride = PagedVoxelRef<K>::kIndexStride;
    const std::uint32_t index_count = (n + kStride - 1) / kStride;
    m_index.resize(index_count);
    K* index = m_index.data();
    exec.for_each(index_count,
                  [=] VOXHASH_LAMBDA(std::uint32_t j) { index[j] = voxels[j * kStride]; });
    m_table.build(voxels, nullptr, n, exec.stream());
    m_ref = PagedVoxelRef<K>{voxels, m_index.data(), n, index_count};
  }

  /// out[i] = 1 where the table holds queries[i], else 0: Starfish's search, each query in its one
  /// page, the pages beyond the budget streamed through the page slots. Synchronizes.
  void contains(Exec& exec, const K* queries, std::size_t n, std::uint8_t* out) const {
    m_table.contains_async(queries, n, out, exec.stream());
    exec.synchronize();
  }

  [[nodiscard]] PagedVoxelRef<K> ref() const { return m_ref; }
  [[nodiscard]] const PagedStats& paged_stats() const { return m_table.paged_stats(); }

 private:
  tables::PagedCuckooTableImpl<Exec, K> m_table{BuildOptions{}};
  Buffer<K> m_index{Exec::kBackend, 0};
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
