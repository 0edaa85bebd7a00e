// The table family's one list: each table declares its backend-neutral traits once, in a struct
// of its own (kind, names, what it can do, its memory formula); Tables lists them;
// visit_table(kind, f) is the one place a run-time kind becomes a table's traits, through which
// names, parsing, estimate_bytes and every dispatch site go. The implementations over an executor
// are mapped from the traits privately (src/tables/table_impls.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace voxhash {

/// PagedCuckoo is the Starfish paged table (paged_table.hpp): a table, not a pipeline algorithm.
enum class TableKind { Cuckoo, HashGraphV1, HashGraphV2, BucketedCuckoo, PagedCuckoo };

/// What every table is built with, and sized by (estimate_bytes).
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
  // slots and a stash of stash_slots); at most page_budget bytes of the backend's memory hold pages
  // (a budget smaller than a page is an InvalidInput), the others live in pinned host memory. A
  // build makes ceil(n / (page_fill * page_capacity)) pages; the page count stays until the next
  // build, so a table that will grow by inserts wants a page_fill below 1. Unlike a GpuBudget
  // (gpu_budget.hpp: when tables page at all), page_budget is a paged table's page memory,
  // never none; a frame gives each model's table GpuBudget::per_model of its own budget.
  std::size_t page_capacity = std::size_t{1} << 20;
  std::size_t page_budget   = std::size_t{2} << 30;
  std::uint32_t stash_slots = 108;
  double page_fill          = 1.0;
};

namespace detail {

/// A slot (a key and its value) of a table of keys `key_bytes` wide: 8 or 16 bytes.
constexpr std::size_t slot_bytes(int key_bytes) {
  return key_bytes == 4 ? 8 : 16;
}

/// A slot table of `slots` slots built from n keys: the slots; with unique ids also the flags /
/// ranks per slot and the unique keys and counts. Multivalue (slots for the unique keys, at most
/// n): the values, the unique keys and offsets, and while they are built the staged and sorted
/// keys, staged values and the sort's scratch.
inline std::size_t slot_table_bytes(std::size_t slots,
                                    std::size_t n,
                                    const BuildOptions& options,
                                    int key_bytes) {
  const std::size_t slot = slot_bytes(key_bytes);
  const auto key         = static_cast<std::size_t>(key_bytes);
  if (options.multivalue) return slot * slots + (16 + 3 * key) * n;
  return slot * slots + (options.unique_ids ? 8 * slots + (4 + key) * n : 0);
}

/// What both HashGraphs hold for n keys: a bucket record (16 or 32 bytes) per vertex, an edge (8
/// or 16 bytes) per key, and the intersect probe's query graph, which is V2's sort. V2's sort,
/// 32-bit keys: (hash, value) pairs in and out and CUB's double buffer, 24 bytes a key, the edges
/// written beside them; 64-bit keys: (vertex, edge) pairs, the sorted edges being the edges,
/// 3 * 16 + 12.
struct HashGraphBytes {
  std::size_t vertices, bucket, edge, query_graph, sorted;

  HashGraphBytes(std::size_t n, const BuildOptions& options, int key_bytes)
      : vertices(static_cast<std::size_t>(std::ceil(static_cast<double>(n) / options.load)) + 1),
        bucket(key_bytes == 4 ? 16 : 32),
        edge(slot_bytes(key_bytes)),
        query_graph((key_bytes == 4 ? 24 : 3 * edge + 12) * n),
        sorted(key_bytes == 4 ? query_graph + edge * n : query_graph) {}
};

}  // namespace detail

// ---- the tables' traits ----------------------------------------------------------------------
// kind and name; aliases: the other names parse_table_kind takes; frame_algorithm: the frame can
// run it (Pipeline, kTableKinds); slot_table: slots of key-value pairs filled by exchanges, with
// multivalue lists (slot_table.hpp); paged: pages under BuildOptions::page_budget (a join over it
// runs over pages, each page's table cuckoo; it is not partitioned); estimate_bytes(n, options,
// key_bytes): what estimate_bytes(kind, ...) returns for it (key_bytes 4 or 8).

/// Alcantara's cuckoo table with a stash (cuckoo_table.hpp).
struct CuckooTraits {
  static constexpr TableKind kind = TableKind::Cuckoo;
  static constexpr std::string_view name{"cuckoo"};
  static constexpr std::array<std::string_view, 0> aliases{};
  static constexpr bool frame_algorithm = true;
  static constexpr bool slot_table      = true;
  static constexpr bool paged           = false;

  /// ceil(cuckoo_space * n) slots and the stash.
  static std::size_t estimate_bytes(std::size_t n, const BuildOptions& options, int key_bytes) {
    const auto slots =
        static_cast<std::size_t>(std::ceil(options.cuckoo_space * static_cast<double>(n))) +
        options.stash_slots;
    return detail::slot_table_bytes(slots, n, options, key_bytes);
  }
};

/// Green's HashGraph, V1: the edges scattered by per-vertex atomic cursors (hash_graph.hpp).
struct HashGraphV1Traits {
  static constexpr TableKind kind = TableKind::HashGraphV1;
  static constexpr std::string_view name{"hashgraph-v1"};
  static constexpr std::array<std::string_view, 1> aliases{"v1"};
  static constexpr bool frame_algorithm = true;
  static constexpr bool slot_table      = false;
  static constexpr bool paged           = false;

  /// Bucket records and edges, the per-vertex cursor and offsets, and the intersect probe's query
  /// graph (V2's arrays without bucket records).
  static std::size_t estimate_bytes(std::size_t n, const BuildOptions& options, int key_bytes) {
    const detail::HashGraphBytes g(n, options, key_bytes);
    return (g.bucket + 8) * g.vertices + g.edge * n + g.query_graph;
  }
};

/// Green's HashGraph, V2: the edges grouped by a radix sort (hash_graph.hpp).
struct HashGraphV2Traits {
  static constexpr TableKind kind = TableKind::HashGraphV2;
  static constexpr std::string_view name{"hashgraph-v2"};
  static constexpr std::array<std::string_view, 1> aliases{"v2"};
  static constexpr bool frame_algorithm = true;
  static constexpr bool slot_table      = false;
  static constexpr bool paged           = false;

  /// Bucket records, edges and the sort's arrays and scratch, and the query graph.
  static std::size_t estimate_bytes(std::size_t n, const BuildOptions& options, int key_bytes) {
    const detail::HashGraphBytes g(n, options, key_bytes);
    return g.bucket * g.vertices + g.sorted + g.query_graph;
  }
};

/// The bucketed cuckoo table, bcht (bucketed_cuckoo_table.hpp).
struct BucketedCuckooTraits {
  static constexpr TableKind kind = TableKind::BucketedCuckoo;
  static constexpr std::string_view name{"bcht"};
  static constexpr std::array<std::string_view, 1> aliases{"bucketed-cuckoo"};
  static constexpr bool frame_algorithm = true;
  static constexpr bool slot_table      = true;
  static constexpr bool paged           = false;

  /// ceil(cuckoo_space * n) slots in whole buckets of 8.
  static std::size_t estimate_bytes(std::size_t n, const BuildOptions& options, int key_bytes) {
    const auto slots =
        (static_cast<std::size_t>(std::ceil(options.cuckoo_space * static_cast<double>(n))) + 7) /
        8 * 8;
    return detail::slot_table_bytes(slots, n, options, key_bytes);
  }
};

/// Bytes a page of `options` occupies: ceil(cuckoo_space * page_capacity) slots and the stash,
/// each `key_bytes` * 2 bytes (8 for 32-bit keys, 16 for 64-bit ones).
[[nodiscard]] std::size_t paged_page_bytes(const BuildOptions& options, int key_bytes = 4);

/// Pages a build of `keys` keys makes under `options`: ceil(keys / (page_fill * page_capacity)),
/// at least one.
[[nodiscard]] std::size_t paged_page_count(const BuildOptions& options, std::size_t keys);

/// The Starfish paged table (paged_table.hpp).
struct PagedCuckooTraits {
  static constexpr TableKind kind = TableKind::PagedCuckoo;
  static constexpr std::string_view name{"paged-cuckoo"};
  static constexpr std::array<std::string_view, 0> aliases{};
  static constexpr bool frame_algorithm = false;
  static constexpr bool slot_table      = false;
  static constexpr bool paged           = true;

  /// Within the budget: the pages (all of them when they fit, else the budget's page slots), each
  /// with an overflow list of 1024 entries, and one page of rebuild scratch. Beyond it, when the
  /// pages do not fit: the partition of an operation's input by page (page ids and entries,
  /// sorted: 24 bytes a pair, 40 with 16-byte entries).
  static std::size_t estimate_bytes(std::size_t n, const BuildOptions& options, int key_bytes) {
    const std::size_t slot     = detail::slot_bytes(key_bytes);
    const std::size_t page     = paged_page_bytes(options, key_bytes);
    const std::size_t overflow = slot * 1024;
    const std::size_t in_slot  = page + overflow + 64;
    const std::size_t pages    = paged_page_count(options, n);
    const std::size_t fit      = options.page_budget > page + overflow
                                     ? (options.page_budget - page - overflow) / in_slot
                                     : 0;
    return std::min(pages, fit) * in_slot + page + overflow +
           (pages > fit ? (8 + 2 * slot) * n : 0);
  }
};

// ---- the list ----------------------------------------------------------------------------------

template <class... Traits>
struct TableList {};

/// Every table, one line each, in TableKind's order (the order front ends list them).
using Tables = TableList<CuckooTraits,
                         HashGraphV1Traits,
                         HashGraphV2Traits,
                         BucketedCuckooTraits,
                         PagedCuckooTraits>;

namespace detail {

/// Throws InvalidInput: `kind` is none of Tables.
[[noreturn]] void unknown_table_kind(TableKind kind);

/// The names of `kinds` for a message: "cuckoo, hashgraph-v1 or bcht".
[[nodiscard]] std::string table_names(std::span<const TableKind> kinds);

template <class F, class Traits, class... Rest>
decltype(auto) visit_table_in(TableKind kind, F& f, TableList<Traits, Rest...>) {
  if constexpr (sizeof...(Rest) > 0) {
    if (kind != Traits::kind) return visit_table_in(kind, f, TableList<Rest...>{});
  } else {
    if (kind != Traits::kind) unknown_table_kind(kind);
  }
  return f(Traits{});
}

template <class F, class... Traits>
void for_each_table_in(F& f, TableList<Traits...>) {
  (f(Traits{}), ...);
}

template <class... Traits>
constexpr bool in_kind_order(TableList<Traits...>) {
  int i = 0;
  return ((static_cast<int>(Traits::kind) == i++) && ...);
}
static_assert(in_kind_order(Tables{}), "Tables lists each TableKind once, in its order");

template <class... Traits>
constexpr auto frame_kinds(TableList<Traits...>) {
  std::array<TableKind, (std::size_t{Traits::frame_algorithm} + ...)> kinds{};
  std::size_t i = 0;
  ((Traits::frame_algorithm ? void(kinds[i++] = Traits::kind) : void()), ...);
  return kinds;
}

}  // namespace detail

/// f(Traits{}) for the table of `kind`, and what f returns (the same type for every table); f
/// reads the traits as values (traits.name) or as a type (decltype(traits)). Throws InvalidInput
/// for a kind none of Tables has.
template <class F>
decltype(auto) visit_table(TableKind kind, F&& f) {
  return detail::visit_table_in(kind, f, Tables{});
}

/// f(Traits{}) for every table, in the list's order.
template <class F>
void for_each_table(F&& f) {
  detail::for_each_table_in(f, Tables{});
}

/// Every kind the pipeline runs (the frame's algorithms), in the order front ends list them.
inline constexpr auto kTableKinds = detail::frame_kinds(Tables{});

[[nodiscard]] std::string_view to_string(TableKind kind);
/// Parses a table's name or one of its aliases: "cuckoo", "hashgraph-v1", "hashgraph-v2" (also
/// "v1", "v2"), "bcht" (also "bucketed-cuckoo") or "paged-cuckoo"; throws InvalidInput.
[[nodiscard]] TableKind parse_table_kind(std::string_view name);

/// Peak memory in bytes a table of `kind` built from n keys with `options` holds, its build's
/// scratch and its lookups' included (a HashGraph's intersect probe builds a HashGraph of the
/// queries, counted for n queries). For checking up front that a table fits.
[[nodiscard]] std::size_t estimate_bytes(TableKind kind,
                                         std::size_t n,
                                         const BuildOptions& options = {});
/// The same for a table of keys `key_bytes` wide (4: Key, 8: Key64: 16-byte cuckoo slots, 16-byte
/// HashGraph edges, 8-byte unique keys); throws InvalidInput for other widths.
[[nodiscard]] std::size_t estimate_bytes(TableKind kind,
                                         std::size_t n,
                                         const BuildOptions& options,
                                         int key_bytes);

}  // namespace voxhash
