// KeyOrderIds<Exec, K>: BuildOptions::key_order_ids for the compacting tables (cuckoo, bucketed
// cuckoo, HashGraph). A compacting build numbers its unique keys in slot (or edge) order, which is
// hash order; this renumbers them in ascending key order: the unique keys are radix-sorted with
// their old ids, the old -> new map is scattered, and every entry of the table's rank array is
// mapped through it. Why the frame wants it: a grid key is x + y·X + z·X·Y, so in key order a
// voxel's neighbours sit near it in every per-voxel array the flood fill reads, and neighbouring
// threads read neighbouring words (docs/ALGORITHMS.md, "Voxel ids in key order").
#pragma once

#include <voxhash/buffer.hpp>
#include <voxhash/detail/host_device.hpp>

#include <cstddef>
#include <cstdint>

namespace voxhash::tables {

template <class Exec, class K>
class KeyOrderIds {
 public:
  /// `unique` holds the u unique keys at their ids and is replaced by the same keys in ascending
  /// order; rank[0..n) is the table's id per slot (or edge). Entries of slots that hold no first
  /// copy are never read by a lookup: those below u are mapped like the others (harmlessly),
  /// those at u or above (the scan's tail) are left.
  void renumber(Exec& exec, Buffer<K>& unique, std::uint32_t* rank, std::size_t n) {
    const auto u = static_cast<std::uint32_t>(unique.size());
    if (u == 0) return;
    m_sorted.resize(u);
    m_old_ids.resize(u);
    m_new_of_old.resize(u);
    std::uint32_t* new_of_old = m_new_of_old.data();
    const std::uint32_t* old  = m_old_ids.data();
    exec.for_each(u, [=] VOXHASH_LAMBDA(std::uint32_t i) { new_of_old[i] = i; });
    exec.sort_pairs(unique.data(),
                    m_sorted.data(),
                    new_of_old,
                    m_old_ids.data(),
                    std::size_t{u},
                    static_cast<int>(8 * sizeof(K)));
    exec.for_each(u, [=] VOXHASH_LAMBDA(std::uint32_t j) { new_of_old[old[j]] = j; });
    exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t s) {
      const std::uint32_t r = rank[s];
      if (r < u) rank[s] = new_of_old[r];
    });
    unique.swap(m_sorted);
  }

  /// Device (or host) bytes the scratch holds.
  [[nodiscard]] std::size_t bytes() const {
    return m_sorted.bytes() + m_old_ids.bytes() + m_new_of_old.bytes();
  }

 private:
  Buffer<K> m_sorted{Exec::kBackend, 0};
  Buffer<std::uint32_t> m_old_ids{Exec::kBackend, 0};
  Buffer<std::uint32_t> m_new_of_old{Exec::kBackend, 0};
};

}  // namespace voxhash::tables
