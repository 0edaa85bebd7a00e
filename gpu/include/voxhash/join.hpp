// Joins of two keyed row sets (the hash join of Gupta & Murugavel, extended): one side is hashed
// into a table of any kind (or both are sorted, the sort-merge baseline), the other probes it, and
// the matching rows come back materialized. Left, inner, semi and anti joins, duplicate keys on
// both sides; the output is sized by count -> exclusive scan -> write, checked before allocating.
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/types.hpp>

#include <cstddef>
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
/// The table a hash join builds on for a caller that uses `kind` elsewhere (the clash report's
/// part pairs, `bench frame --join`): `kind` itself where join() builds on it (cuckoo, HashGraph
/// V1 / V2, bucketed cuckoo), else (the paged table) cuckoo.
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
};

/// The materialized join, in the join's backend memory. Row r of the output is left[r] (the left
/// row's value) and, for Inner and Left joins, right[r] (the right row's value, kNotFound for a
/// left row without a match); right is empty for Semi and Anti.
///
/// Order: when the right side is built, rows come grouped by left row in left order (each left
/// row's matches in the table's order). When the left side is built, matched pairs come grouped by
/// right row in right order, then (Left) the unmatched left rows in left order; Semi and Anti rows
/// are in left order. The sort-merge join groups by probe row in key order.
struct JoinResult {
  Buffer<Value> left;
  Buffer<Value> right;
  std::size_t rows = 0;
  JoinSide built   = JoinSide::Right;  // the side the table was built from (or binary-searched)
  BuildStats table;                    // the build side's table (empty for sort-merge)
  double build_ms = 0;                 // building the table (or sorting both sides)
  double probe_ms = 0;                 // counting, scanning, checking and writing the output
};

/// Joins `left` with `right` on `backend` (inputs in its memory) and returns the output rows.
/// Runs on `stream` and synchronizes it (the output size is read back). Throws InvalidInput for a
/// kEmptyKey on either side, more than 2^31 - 1 rows on one side, or a hash join on the paged
/// cuckoo table (not a join build side); OutOfMemory, before the output is allocated, when the
/// output (quoted in rows and bytes) exceeds the backend's free memory or
/// options.max_output_bytes; BuildFailed if the build side's cuckoo or bucketed cuckoo table
/// cannot be built. The inputs are never written.
[[nodiscard]] JoinResult join(Backend backend,
                              const JoinInput& left,
                              const JoinInput& right,
                              const JoinOptions& options = {},
                              Stream stream              = nullptr);

}  // namespace voxhash
