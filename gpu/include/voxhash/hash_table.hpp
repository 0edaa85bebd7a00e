// The one host interface both hash tables implement, so front ends can switch algorithms live:
// build from n keys (and values) on a stream; find / contains / count / dense id for a batch;
// the unique keys with dense ids; build statistics as values. Pointers passed to a table live in
// the memory of the table's backend (device memory for Cuda, host memory for Cpu). The paged
// cuckoo table (paged_table.hpp) implements it too, with lookups only (no dense ids). The key
// width is a template parameter: HashTable (32-bit keys, the fast path) and HashTable64 (64-bit
// keys, every kind).
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/types.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace voxhash {

/// PagedCuckoo is the Starfish paged table (paged_table.hpp): a table, not a pipeline algorithm.
enum class TableKind { Cuckoo, HashGraphV1, HashGraphV2, BucketedCuckoo, PagedCuckoo };

/// Every kind the pipeline runs (the frame's algorithms), in the order front ends list them.
inline constexpr std::array kTableKinds{
    TableKind::Cuckoo, TableKind::HashGraphV1, TableKind::HashGraphV2, TableKind::BucketedCuckoo};

[[nodiscard]] std::string_view to_string(TableKind kind);
/// Parses "cuckoo", "hashgraph-v1", "hashgraph-v2" (also "v1", "v2"), "bcht" (also
/// "bucketed-cuckoo") or "paged-cuckoo"; throws InvalidInput.
[[nodiscard]] TableKind parse_table_kind(std::string_view name);

struct BuildOptions {
  std::uint64_t seed = 0x9e3779b97f4a7c15ull;  // hash constants are drawn from this per build
  /// Number the unique keys 0..u-1 (the cuckoo chapter's compacting table) and keep their list;
  /// also enables count() on the cuckoo table. Off for pure insert-rate measurements.
  bool unique_ids = true;
  /// With unique_ids: also count each key's occurrences, which the cuckoo table's count() needs
  /// (one more pass over the input). HashGraph counts by walking buckets and ignores this.
  bool multiplicities = true;
  /// Expected number of distinct keys (0: unknown). The set variant stores each key once, so a
  /// cuckoo table for heavily duplicated input can be sized by this instead of n; if the build
  /// fails at that size it falls back to the size for n.
  std::size_t expected_unique = 0;
  /// Cuckoo and bucketed cuckoo: also keep every value of every key (the chapter's multivalue
  /// table): the values grouped by key in input order, and per unique key the offset of its
  /// values (CuckooTable::multi_ref(), BucketedCuckooTable::multi_ref()). Implies unique_ids and
  /// multiplicities. Built the chapter's way: the pairs are radix-sorted by key and run-length
  /// encoded, and only the unique keys are inserted, each with its dense id (ids in key order;
  /// find() gives a key's first value in input order).
  bool multivalue = false;

  // Cuckoo (Alcantara) and bucketed cuckoo: slots = ceil(cuckoo_space * n) (or * expected_unique;
  // multivalue: * the unique keys; bucketed: rounded up to whole buckets); eviction chains of at
  // most max_chain exchanges (0 = 7 lg n, the chapter's limit); at most max_attempts builds with
  // fresh constants.
  double cuckoo_space     = 1.25;
  std::uint32_t max_chain = 0;
  int max_attempts        = 8;

  // HashGraph (Green): hash range V = ceil(n / load) vertices; the paper's best loads are 1-2.
  double load = 1.0;

  // Cuckoo (Alcantara; CUDPP's stash): stash_slots slots after the table's for the keys an
  // eviction chain could not place, probed after the four slots only when a build put a key there
  // (0: no stash; a chain that fails restarts the build). The frame's queued builds have none.
  // Paged cuckoo (Starfish): pages of page_capacity pairs (ceil(cuckoo_space * page_capacity)
  // slots and a stash of stash_slots); at most gpu_budget bytes of the backend's memory hold pages
  // (a budget smaller than a page is an InvalidInput), the others live in pinned host memory. A
  // build makes ceil(n / (page_fill * page_capacity)) pages; the page count stays until the next
  // build, so a table that will grow by inserts wants a page_fill below 1. Unlike a GpuBudget
  // (gpu_budget.hpp: when tables page at all), gpu_budget here is a paged table's page memory,
  // never none; a frame gives each model's table GpuBudget::per_model of its own budget.
  std::size_t page_capacity = std::size_t{1} << 20;
  std::size_t gpu_budget    = std::size_t{2} << 30;
  std::uint32_t stash_slots = 108;
  double page_fill          = 1.0;
};

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

/// Peak memory in bytes a table of `kind` built from n keys with `options` holds, its build's
/// scratch and its lookups' included (a HashGraph's intersect probe builds a HashGraph of the
/// queries, counted for n queries). For checking up front that a table fits.
[[nodiscard]] std::size_t estimate_bytes(TableKind kind,
                                         std::size_t n,
                                         const BuildOptions& options = {});
/// The same for a table of keys `key_bytes` wide (4: Key, 8: Key64: 16-byte cuckoo slots, 16-byte
/// HashGraph edges, 8-byte unique keys).
[[nodiscard]] std::size_t estimate_bytes(TableKind kind,
                                         std::size_t n,
                                         const BuildOptions& options,
                                         int key_bytes);

}  // namespace voxhash
