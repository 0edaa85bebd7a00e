// MultivalueLists<Exec>: the multivalue build's first half, shared by the cuckoo and bucketed
// cuckoo tables (the chapter's way): radix-sort the pairs by key, run-length encode the sorted
// keys into the unique keys (dense ids in key order) and their counts, and scan the counts into
// u + 1 offsets. The table then inserts each unique key once with its id as its value; a lookup
// reaches a key's values through MultiRef (voxhash/cuckoo_ref.hpp). Nothing per slot is stored.
// K is the key width (the sort runs over all of its bits).
#pragma once

#include "tables/build_status.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/cuckoo_ref.hpp>

#include <cstdint>

namespace voxhash::tables {

/// Multivalue, step one: the input pairs (values or row indices) copied for the sort; a sentinel
/// key sets status->sentinel_key.
template <class Exec, class K>
void stage_pairs(Exec& exec,
                 const K* keys,
                 const Value* values,
                 std::uint32_t n,
                 K* staged_keys,
                 Value* staged_values,
                 BuildStatus* status) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const K key = keys[i];
    if (key == kEmptyKeyOf<K>) core::atomic_store(&status->sentinel_key, 1u);
    staged_keys[i]   = key;
    staged_values[i] = value_or_index(values, i);
  });
}

template <class Exec, class K = Key>
class MultivalueLists {
 public:
  /// Sorts and encodes n pairs on `exec` (status: a BuildStatus in the backend's memory, reset by
  /// this call); returns false, keeping nothing, if a key is kEmptyKey. Synchronizes.
  bool build(Exec& exec, const K* keys, const Value* values, std::uint32_t n, BuildStatus* status) {
    clear();
    Buffer<K> staged(Exec::kBackend, n), sorted(Exec::kBackend, n);
    Buffer<Value> staged_values(Exec::kBackend, n);
    exec.write_async(status, BuildStatus{});
    stage_pairs(exec, keys, values, n, staged.data(), staged_values.data(), status);
    if (exec.read(status).sentinel_key) return false;
    m_values.resize(n);
    exec.sort_pairs(staged.data(),
                    sorted.data(),
                    staged_values.data(),
                    m_values.data(),
                    n,
                    static_cast<int>(8 * sizeof(K)));
    // The staging buffers are free after the sort: they receive the runs.
    const auto unique = static_cast<std::uint32_t>(
        exec.run_length_encode(sorted.data(), staged.data(), staged_values.data(), n));
    m_unique.resize(unique);
    m_offsets.resize(std::size_t{unique} + 1);
    exec.copy_async(m_unique.data(), staged.data(), std::size_t{unique} * sizeof(K));
    exec.exclusive_sum(staged_values.data(), m_offsets.data(), unique);
    exec.write_async(m_offsets.data() + unique, n);
    exec.synchronize();  // the scratch is freed on return
    return true;
  }

  void clear() {
    m_values.resize(0);
    m_offsets.resize(0);
    m_unique.resize(0);
  }

  /// The lists as a MultiRef over `table` (whose slot values are the dense ids).
  template <class Ref>
  [[nodiscard]] MultiRef<Ref> ref(const Ref& table) const {
    return MultiRef<Ref>{table, m_offsets.data(), m_values.data()};
  }

  [[nodiscard]] bool empty() const { return m_offsets.size() == 0; }
  [[nodiscard]] std::uint32_t unique_count() const {
    return static_cast<std::uint32_t>(m_unique.size());
  }
  /// The unique keys in key order: what the table inserts, and its unique_keys().
  [[nodiscard]] const K* unique_keys() const { return m_unique.data(); }
  /// What the lists hold (0 after clear(), which keeps the memory for the next build).
  [[nodiscard]] std::size_t bytes() const {
    return empty() ? 0 : m_values.bytes() + m_offsets.bytes() + m_unique.bytes();
  }

 private:
  Buffer<Value> m_values{Exec::kBackend, 0};
  Buffer<std::uint32_t> m_offsets{Exec::kBackend, 0};
  Buffer<K> m_unique{Exec::kBackend, 0};
};

}  // namespace voxhash::tables
