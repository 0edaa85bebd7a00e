// VoxelList<Exec, K>: a model's voxels numbered by a sort, in every frame (flat tables or paged):
// the frame's keys, duplicates included, radix-sorted by their key bits and de-duplicated with CUB,
// so a voxel's id is its rank in key order. A grid key is x + y·X + z·X·Y, so in key order a
// voxel's neighbours sit near it in every per-voxel array the flood fill reads and neighbouring
// threads touch neighbouring words (the union-find runs much faster than over ids in hash order),
// and every algorithm and backend numbers the voxels alike. The table of the frame's algorithm is
// then built from this list with each voxel's rank as its value (a table's default value, the
// input index).
//
// VoxelIdRef<Ref>: the fill's view of such a table: a voxel's id is the value its key finds, one
// lookup (a compacting table would read a rank array after it).
#pragma once

#include <voxhash/bucketed_cuckoo_ref.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/cuckoo_ref.hpp>
#include <voxhash/detail/host_device.hpp>
#include <voxhash/hash_graph_ref.hpp>

#include <cstddef>
#include <cstdint>

namespace voxhash::pipeline {

template <class Exec, class K>
class VoxelList {
 public:
  /// Sorts keys[0..n) by their low `key_bits` bits and keeps each key once; returns how many
  /// (synchronizes: the count is read).
  std::uint32_t number(Exec& exec, const K* keys, std::size_t n, int key_bits) {
    m_sorted.resize(n);
    m_voxels.resize(n);
    exec.sort_keys(keys, m_sorted.data(), n, key_bits);
    m_count = n ? static_cast<std::uint32_t>(exec.unique(m_sorted.data(), m_voxels.data(), n)) : 0;
    return m_count;
  }

  /// The same without a wait: keys[0..n) may end in sentinels (kEmptyKeyOf<K>, room the keys did
  /// not fill), which the sort over key_bits + 1 bits puts last (a sentinel has that bit, no key
  /// does) and the de-duplication keeps once; the number of distinct keys, that sentinel
  /// included, goes to the device word *distinct. Read it with other sizes, then set_count.
  void number_async(
      Exec& exec, const K* keys, std::size_t n, int key_bits, std::uint32_t* distinct) {
    m_sorted.resize(n);
    m_voxels.resize(n);
    exec.sort_keys(keys, m_sorted.data(), n, key_bits + 1);
    exec.unique_async(m_sorted.data(), m_voxels.data(), n, distinct);
  }
  /// The voxels number_async found: its distinct keys less the sentinel if the keys had one.
  void set_count(std::uint32_t distinct, bool padded) { m_count = distinct - (padded ? 1 : 0); }

  /// The voxels in ascending key order: voxel id i is data()[i].
  [[nodiscard]] const K* data() const { return m_voxels.data(); }
  [[nodiscard]] std::uint32_t count() const { return m_count; }

 private:
  Buffer<K> m_sorted{Exec::kBackend, 0}, m_voxels{Exec::kBackend, 0};
  std::uint32_t m_count = 0;
};

/// The values N keys find in a table: what each key was stored with, kNotFound where absent
/// (HashGraph answers with edges, the cuckoo tables with slots and their entries).
template <int N, class Ref>
VOXHASH_HD void find_values(const Ref& t,
                            const typename Ref::key_type (&key)[N],
                            std::uint32_t (&value)[N]) {
  std::uint32_t at[N];
  if constexpr (requires { typename Ref::Edge; }) {
    typename Ref::Edge found[N];
    t.template find_edge_batch<N>(key, at, found);
    VOXHASH_UNROLL
    for (int k = 0; k < N; ++k)
      value[k] = at[k] == kNotFound ? kNotFound : found[k].value;
  } else {
    typename Ref::Entry entry[N];
    t.template find_batch<N>(key, at, entry);
    VOXHASH_UNROLL
    for (int k = 0; k < N; ++k)
      value[k] = at[k] == kNotFound ? kNotFound : detail::entry_value(entry[k]);
  }
}

/// A table built from a VoxelList with the ranks as values, seen by voxel id (see the header).
template <class Ref>
struct VoxelIdRef {
  using key_type = typename Ref::key_type;
  Ref table;

  VOXHASH_HD bool contains(key_type key) const { return table.contains(key); }
  VOXHASH_HD std::uint32_t find_id(key_type key) const { return table.find(key); }
  template <int N>
  VOXHASH_HD void find_id_batch(const key_type (&key)[N], std::uint32_t (&id)[N]) const {
    find_values<N>(table, key, id);
  }
};

}  // namespace voxhash::pipeline
