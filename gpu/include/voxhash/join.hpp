// Joins of two keyed row sets (the hash join of Gupta & Murugavel, extended): one side is hashed
// into a table of any kind (or both are sorted, the sort-merge baseline), the other probes it, and
// the matching rows come back materialized. Left, inner, semi and anti joins, duplicate keys on
// both sides; the output is sized by count -> exclusive scan -> write, checked before allocating.
// A build side whose table would exceed a GPU budget is joined over pages (a grace hash join over
// Starfish's page hash: both sides partitioned by page, the build pages streamed from pinned host
// memory through two page slots).
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/gpu_budget.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/pinned_pool.hpp>
#include <voxhash/types.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace voxhash {

/// What a join returns, relative to its left side (the side a left join keeps whole, the paper's
/// probe table):
///   Inner: (left, right) for every pair of rows with equal keys;
///   Left:  Inner, plus (left, kNotFound) for each left row without a match;
///   Semi:  each left row with at least one match, once;
///   Anti:  each left row without a match.
enum class JoinKind { Inner, Left, Semi, Anti };

/// How matches are found: a hash table of the build side (JoinOptions::table), or both sides
/// radix-sorted and the build side binary-searched per probe row (the sort-merge baseline).
enum class JoinAlgorithm { Hash, SortMerge };

/// Which side is hashed (or searched); the other side is streamed through it.
enum class JoinSide { Left, Right };

[[nodiscard]] std::string_view to_string(JoinKind kind);
[[nodiscard]] std::string_view to_string(JoinSide side);
/// Parses "inner", "left", "semi" or "anti"; throws InvalidInput.
[[nodiscard]] JoinKind parse_join_kind(std::string_view name);
/// The table a hash join builds (each page's, for a join over pages) for `kind`: `kind` itself
/// (cuckoo, HashGraph V1 / V2, bucketed cuckoo), or cuckoo for a paged table (its traits' paged),
/// whose join runs over pages.
[[nodiscard]] TableKind join_table_for(TableKind kind);

/// One side of a join: `rows` keys and values in the join's backend memory. values may be null:
/// each row's value is then its row index. No key may be kEmptyKey.
struct JoinInput {
  const Key* keys     = nullptr;
  const Value* values = nullptr;
  std::size_t rows    = 0;
};

struct JoinOptions {
  JoinKind kind           = JoinKind::Inner;
  JoinAlgorithm algorithm = JoinAlgorithm::Hash;
  TableKind table         = TableKind::Cuckoo;
  /// The side to build from; empty: the smaller one (the paper's choice; the right one on a tie).
  std::optional<JoinSide> build;
  /// Largest output (both columns) the caller accepts, in bytes; 0: only free memory limits it.
  std::size_t max_output_bytes = 0;
  /// Options for the build side's table (seed, cuckoo space, HashGraph load). The join sets the
  /// flags it needs itself (the cuckoo tables' multivalue lists).
  BuildOptions table_options{};
  /// Backend memory the build side's table may hold (none by default). A hash join whose table
  /// would exceed it (GpuBudget::pages of estimate_bytes of `table` for the build rows, with the
  /// multivalue lists for cuckoo and bcht), or any hash join on TableKind::PagedCuckoo (under
  /// this budget, or table_options.page_budget without one; each page's table is cuckoo), runs
  /// over pages: see join(). Ignored by the sort-merge join.
  GpuBudget gpu_budget{};
  /// Where a join over pages takes the pinned host memory of its build pages beyond the first two
  /// (kept there for the next join, so a join of the same size or smaller pins nothing); nullptr:
  /// default_pinned_pool(). A PinnedPool with limit 0 pins and frees it on every call.
  PinnedPool* pinned_pool = nullptr;
};

/// What a join over pages did (JoinResult::paged); all 0 for a join in one piece.
struct PagedJoinStats {
  std::size_t pages             = 0;  // pages both sides were partitioned into
  std::size_t partitions        = 0;  // partitions of the build side (> 1: a page was split)
  std::size_t budget            = 0;  // the GPU budget the join ran under
  std::size_t largest_page_rows = 0;  // build rows of the largest page
  std::size_t page_rebuilds     = 0;  // page tables that failed and were rebuilt alone
  std::size_t output_grows      = 0;  // reallocations of the output as the pages' rows came in
  std::uint64_t bytes_to_host   = 0;  // build pages moved to pinned host memory after partitioning
  std::uint64_t bytes_to_device = 0;  // build pages uploaded into the page slots
  double partition_ms           = 0;  // partitioning both sides, moving build pages to the host
  std::size_t bytes_pinned      = 0;  // host memory pinned for the pages (0: the pool's reused)
  double pin_ms                 = 0;  // of which taking that memory from the pool (and pinning)
  double upload_ms              = 0;  // the uploads, summed (they overlap the pages' builds)
};

/// The materialized join, in the join's backend memory. Row r of the output is left[r] (the left
/// row's value) and, for Inner and Left joins, right[r] (the right row's value, kNotFound for a
/// left row without a match); right is empty for Semi and Anti.
///
/// Order: when the right side is built, rows come grouped by left row in left order (each left
/// row's matches in the table's order). When the left side is built, matched pairs come grouped by
/// right row in right order, then (Left) the unmatched left rows in left order; Semi and Anti rows
/// are in left order. The sort-merge join groups by probe row in key order. A join over pages
/// (paged.pages > 0) groups its rows by page, page 0 first (a row's page is the Starfish page hash
/// of its key), each page's rows in the order above among that page's rows.
struct JoinResult {
  Buffer<Value> left;
  Buffer<Value> right;
  std::size_t rows = 0;
  JoinSide built   = JoinSide::Right;  // the side the table was built from (or binary-searched)
  /// The build side's table (empty for sort-merge). Over pages: keys and unique keys summed over
  /// the pages, attempts and longest chain the most of one page, slots and bytes the largest
  /// page's (the most held at once).
  BuildStats table;
  double build_ms = 0;  // building the table (or sorting both sides; over pages: partitioning
                        // both sides, then every page's table)
  double probe_ms = 0;  // counting, scanning, checking and writing the output
  PagedJoinStats paged;
};

/// Joins `left` with `right` on `backend` (inputs in its memory) and returns the output rows.
/// Runs on `stream` and synchronizes it (the output size is read back). Throws InvalidInput for a
/// kEmptyKey on either side or more than 2^31 - 1 rows on one side; OutOfMemory, before the output
/// is allocated, when the output (quoted in rows and bytes) exceeds the backend's free memory or
/// options.max_output_bytes; BuildFailed if the build side's cuckoo or bucketed cuckoo table
/// cannot be built. The inputs are never written.
///
/// Over pages (see JoinOptions::gpu_budget): both sides are partitioned by the page hash of the
/// key (tables/page_partition.hpp, the paged table's), so a key's rows are in one page on each
/// side and every join kind holds page by page. The page count makes two page tables fit the
/// budget (each page's table at most half of it; a page then holds at least 1024 build rows); a
/// page that comes out larger is split by partitioning again with a fresh page seed and more pages
/// (as many as its excess asks: a quarter to twice as many), up to four partitions. The build pages
/// beyond the first two move to pinned host memory (lent by options.pinned_pool, which keeps it for
/// the next join); page by page, the next build page uploads on a copy stream while this page's
/// table is built and probed by this page's probe rows, and a page whose table fails to build is
/// rebuilt alone with new constants (up to three times). Each page's rows are counted and scanned,
/// then checked against options.max_output_bytes (all rows so far) and free memory and written: the
/// output grows as pages come in, to the size the pages so far predict (a table is not built twice
/// to count first). The probe side's partition (24 bytes a row, 8 kept through the pages), the
/// output and each page's count scratch are outside the budget, as the paged table's partition is.
/// Throws InvalidInput, naming the budget, for a budget below two tables of 1024 build rows;
/// OutOfMemory, naming the budget, when a page's rows still exceed half of it after four partitions
/// (its keys repeat: one key's rows stay in one page), or when the pinned host memory cannot be
/// allocated (nothing is lost: the pool keeps no partial block).
[[nodiscard]] JoinResult join(Backend backend,
                              const JoinInput& left,
                              const JoinInput& right,
                              const JoinOptions& options = {},
                              Stream stream              = nullptr);

}  // namespace voxhash
