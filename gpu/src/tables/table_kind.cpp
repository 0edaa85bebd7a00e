// Backend-neutral facts about the tables: the algorithms' names, and how much memory a table of a
// given size holds at its peak (from the arrays each implementation keeps).
#include <voxhash/error.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/paged_table.hpp>
#include <voxhash/sorted_array.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace voxhash {

std::string_view to_string(TableKind kind) {
  switch (kind) {
    case TableKind::Cuckoo:
      return "cuckoo";
    case TableKind::HashGraphV1:
      return "hashgraph-v1";
    case TableKind::HashGraphV2:
      return "hashgraph-v2";
    case TableKind::BucketedCuckoo:
      return "bcht";
    case TableKind::PagedCuckoo:
      return "paged-cuckoo";
  }
  return "?";
}

TableKind parse_table_kind(std::string_view name) {
  if (name == "cuckoo") return TableKind::Cuckoo;
  if (name == "hashgraph-v1" || name == "v1") return TableKind::HashGraphV1;
  if (name == "hashgraph-v2" || name == "v2") return TableKind::HashGraphV2;
  if (name == "bcht" || name == "bucketed-cuckoo") return TableKind::BucketedCuckoo;
  if (name == "paged-cuckoo") return TableKind::PagedCuckoo;
  throw InvalidInput("unknown algorithm '" + std::string(name) +
                     "' (expected cuckoo, hashgraph-v1, hashgraph-v2, bcht or paged-cuckoo)");
}

std::size_t estimate_bytes(TableKind kind, std::size_t n, const BuildOptions& options) {
  return estimate_bytes(kind, n, options, static_cast<int>(sizeof(Key)));
}

std::size_t estimate_bytes(TableKind kind,
                           std::size_t n,
                           const BuildOptions& options,
                           int key_bytes) {
  if (key_bytes != 4 && key_bytes != 8) throw InvalidInput("tables take 4- or 8-byte keys");
  // Per key width: a slot (8 or 16 bytes), an edge (8 or 16), a key (4 or 8).
  const std::size_t slot = key_bytes == 4 ? 8 : 16;
  const std::size_t edge = slot;
  const auto key         = static_cast<std::size_t>(key_bytes);
  const auto keys        = static_cast<double>(n);
  const auto vertices    = static_cast<std::size_t>(std::ceil(keys / options.load)) + 1;
  // HashGraph: a bucket record (16 or 32 bytes) per vertex. V2's sort, 32-bit keys: (hash, value)
  // pairs in and out and CUB's double buffer, 24 bytes a key, the edges written beside them;
  // 64-bit keys: (vertex, edge) pairs, the sorted edges being the edges, 3 * 16 + 12. The
  // intersect probe's query graph is that sort.
  const std::size_t bucket      = key_bytes == 4 ? 16 : 32;
  const std::size_t query_graph = (key_bytes == 4 ? 24 : 3 * edge + 12) * n;
  const std::size_t sorted      = key_bytes == 4 ? query_graph + edge * n : query_graph;
  switch (kind) {
    case TableKind::Cuckoo: {
      // Slots and the stash; with unique ids also the flags / ranks per slot and the unique keys
      // and counts. Multivalue (slots for the unique keys, at most n): the values, the unique
      // keys and offsets, and while they are built the staged and sorted keys, staged values and
      // the sort's scratch.
      const auto slots =
          static_cast<std::size_t>(std::ceil(options.cuckoo_space * keys)) + options.stash_slots;
      if (options.multivalue) return slot * slots + (16 + 3 * key) * n;
      return slot * slots + (options.unique_ids ? 8 * slots + (4 + key) * n : 0);
    }
    case TableKind::BucketedCuckoo: {
      // Slots in whole buckets of 8; with unique ids also the flags / ranks per slot and the
      // unique keys and counts; multivalue as the cuckoo table's.
      const auto slots =
          (static_cast<std::size_t>(std::ceil(options.cuckoo_space * keys)) + 7) / 8 * 8;
      if (options.multivalue) return slot * slots + (16 + 3 * key) * n;
      return slot * slots + (options.unique_ids ? 8 * slots + (4 + key) * n : 0);
    }
    case TableKind::HashGraphV1:
      // Bucket records and edges, the per-vertex cursor and offsets, and the intersect probe's
      // query graph (V2's arrays without bucket records).
      return (bucket + 8) * vertices + edge * n + query_graph;
    case TableKind::HashGraphV2:
      // Bucket records, edges and the sort's arrays and scratch, and the query graph.
      return bucket * vertices + sorted + query_graph;
    case TableKind::PagedCuckoo: {
      // Within the budget: the pages (all of them when they fit, else the budget's page slots),
      // each with an overflow list of 1024 entries, and one page of rebuild scratch. Beyond it,
      // when the pages do not fit: the partition of an operation's input by page (page ids and
      // entries, sorted: 24 bytes a pair, 40 with 16-byte entries).
      const std::size_t page     = paged_page_bytes(options, key_bytes);
      const std::size_t overflow = slot * 1024;
      const std::size_t in_slot  = page + overflow + 64;
      const std::size_t pages    = paged_page_count(options, n);
      const std::size_t fit      = options.gpu_budget > page + overflow
                                       ? (options.gpu_budget - page - overflow) / in_slot
                                       : 0;
      return std::min(pages, fit) * in_slot + page + overflow +
             (pages > fit ? (8 + 2 * slot) * n : 0);
    }
  }
  return 0;
}

std::size_t paged_page_bytes(const BuildOptions& options, int key_bytes) {
  if (key_bytes != 4 && key_bytes != 8) throw InvalidInput("tables take 4- or 8-byte keys");
  const auto slots = static_cast<std::size_t>(
      std::ceil(options.cuckoo_space * static_cast<double>(options.page_capacity)));
  return 2 * static_cast<std::size_t>(key_bytes) * (slots + options.stash_slots);
}

std::size_t paged_page_count(const BuildOptions& options, std::size_t keys) {
  return static_cast<std::size_t>(
      std::max(1.0,
               std::ceil(static_cast<double>(keys) /
                         (options.page_fill * static_cast<double>(options.page_capacity)))));
}

std::size_t estimate_sorted_array_bytes(std::size_t n) {
  return 24 * n;
}

}  // namespace voxhash
