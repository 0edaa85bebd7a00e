// The one host interface both hash tables implement, so front ends can switch algorithms live:
// build from n keys (and values) on a stream; find / contains / count / dense id for a batch;
// the unique keys with dense ids; build statistics as values. Pointers passed to a table live in
// the memory of the table's backend (device memory for Cuda, host memory for Cpu). The paged
// cuckoo table (paged_table.hpp) implements it too, with lookups only (no dense ids). The key
// width is a template parameter: HashTable (32-bit keys, the fast path) and HashTable64 (64-bit
// keys, every kind). The kinds, their options and their traits (names, memory) are the table
// list's (table_traits.hpp).
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/table_traits.hpp>
#include <voxhash/types.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace voxhash {

struct BuildStats {
  std::size_t keys            = 0;  // input keys
  std::size_t unique_keys     = 0;  // 0 when built without unique ids
  int attempts                = 0;  // builds tried (cuckoo restarts = attempts - 1)
  std::uint32_t longest_chain = 0;  // longest eviction chain of the successful attempt (cuckoo)
  std::uint32_t chain_limit   = 0;  // the eviction chain limit used (cuckoo)
  std::size_t slots           = 0;  // cuckoo slots (all buckets' slots), or HashGraph vertices
  std::size_t stash_entries   = 0;  // keys the cuckoo build placed in its stash
  std::size_t bytes           = 0;  // device (or host) memory the table holds
};

template <class K>
class BasicHashTable {
  static_assert(kIsKeyType<K>, "tables take 32-bit (Key) or 64-bit (Key64) keys");

 public:
  using key_type = K;

  virtual ~BasicHashTable() = default;

  [[nodiscard]] virtual TableKind kind() const  = 0;
  [[nodiscard]] virtual Backend backend() const = 0;

  /// Options for the next builds (the random stream of hash constants continues); throws
  /// InvalidInput on values the table cannot use.
  virtual void set_options(const BuildOptions& options) = 0;

  /// Builds the table from keys[0..n) and values[0..n) (values may be null: each key's value is
  /// then its input index) on `stream`. Keys equal to kEmptyKeyOf<K> are rejected with
  /// InvalidInput. Synchronizes `stream`. On BuildFailed or InvalidInput the input is untouched and
  /// the table is empty.
  virtual BuildStats build(const K* keys,
                           const Value* values,
                           std::size_t n,
                           Stream stream = nullptr) = 0;

  // Lookups run on `stream` and do not synchronize it; they keep no state in the table, so
  // several may run at once on different streams.

  /// out[i] = the value of one occurrence of queries[i], or kNotFound.
  virtual void find_async(const K* queries,
                          std::size_t n,
                          Value* out,
                          Stream stream = nullptr) const = 0;
  /// out[i] = 1 if queries[i] is in the table, else 0. Does not synchronize.
  virtual void contains_async(const K* queries,
                              std::size_t n,
                              std::uint8_t* out,
                              Stream stream = nullptr) const = 0;
  /// out[i] = how many times queries[i] occurred in the build input. Needs unique_ids for cuckoo.
  virtual void count_async(const K* queries,
                           std::size_t n,
                           std::uint32_t* out,
                           Stream stream = nullptr) const = 0;
  /// out[i] = dense id in [0, unique_count()) of queries[i], or kNotFound. Needs unique_ids.
  virtual void find_id_async(const K* queries,
                             std::size_t n,
                             std::uint32_t* out,
                             Stream stream = nullptr) const = 0;

  /// Number of distinct keys of the last build (needs unique_ids).
  [[nodiscard]] virtual std::size_t unique_count() const = 0;
  /// unique_keys()[id] is the key with dense id `id`, in the backend's memory (needs unique_ids).
  [[nodiscard]] virtual const K* unique_keys() const = 0;

  [[nodiscard]] virtual const BuildStats& stats() const = 0;
};

using HashTable   = BasicHashTable<Key>;
using HashTable64 = BasicHashTable<Key64>;

/// Creates an empty table of the given kind on the given backend.
[[nodiscard]] std::unique_ptr<HashTable> make_table(TableKind kind,
                                                    Backend backend,
                                                    const BuildOptions& options = {});

/// The same for keys of width K (Key or Key64); every kind has a 64-bit form.
template <class K>
[[nodiscard]] std::unique_ptr<BasicHashTable<K>> make_table(TableKind kind,
                                                            Backend backend,
                                                            const BuildOptions& options = {});

/// A table of 64-bit keys: make_table<Key64>.
[[nodiscard]] std::unique_ptr<HashTable64> make_table64(TableKind kind,
                                                        Backend backend,
                                                        const BuildOptions& options = {});

}  // namespace voxhash
