// A table, and a join, partitioned over the G ranks (GPUs) of a Communicator: every key lives in
// partition detail::partition_of(key, G), where an ordinary table of any TableKind holds it. A
// build routes each rank's input (count per destination, scan, scatter: a stable radix sort by
// destination), exchanges counts and then keys and values all-to-all, and builds the local tables;
// a lookup routes the queries the same way, looks them up where they live and sends the answers
// back, un-permuted into the caller's order. Results are those of one table built from all shards
// concatenated in rank order.
#pragma once

#include <voxhash/communicator.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/join.hpp>
#include <voxhash/types.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace voxhash {

/// One local rank's keys (and values) in that rank's memory. values may be null: each key's value
/// is then its index in all ranks' shards concatenated in rank order.
struct KeyShard {
  const Key* keys     = nullptr;
  const Value* values = nullptr;
  std::size_t n       = 0;
};

/// One local rank's queries and their answers, both in that rank's memory.
template <class T>
struct LookupShard {
  const Key* queries = nullptr;
  std::size_t n      = 0;
  T* out             = nullptr;
};

/// Where the last partitioned operation's time went (host clock, each phase ending with every
/// local rank's stream synchronized).
struct ExchangeStats {
  double route_ms    = 0;  // destinations, the sort by destination, gathering what is sent
  double exchange_ms = 0;  // counts, then keys / values (and answers) all-to-all
  double local_ms    = 0;  // the local tables' builds or lookups (local joins)
  double finish_ms   = 0;  // answers put back in the caller's order
  std::size_t elements_crossing = 0;  // elements sent to another rank (each way, all exchanges)
  std::size_t bytes_crossing    = 0;  // their bytes

  [[nodiscard]] double total_ms() const { return route_ms + exchange_ms + local_ms + finish_ms; }
  /// The exchange's share of the whole operation, in [0, 1].
  [[nodiscard]] double exchange_share() const {
    return total_ms() > 0 ? exchange_ms / total_ms() : 0;
  }
};

class PartitionedTable {
 public:
  virtual ~PartitionedTable() = default;

  [[nodiscard]] virtual TableKind kind() const                   = 0;
  [[nodiscard]] virtual const Communicator& communicator() const = 0;

  /// Builds from one shard per local rank (shards[i] for local_ranks()[i]). Synchronizes. Throws
  /// InvalidInput, before anything is exchanged, when a shard holds kEmptyKey or the shard count
  /// is not the local rank count; BuildFailed when a partition's table cannot be built (the table
  /// is empty afterwards in both cases).
  virtual BuildStats build(std::span<const KeyShard> shards) = 0;

  // Lookups: one shard per local rank; each answer lands at its query's index. Synchronize; use
  // the table's scratch, so one lookup at a time.

  /// out[i] = the value of one occurrence of queries[i], or kNotFound.
  virtual void find(std::span<const LookupShard<Value>> shards) = 0;
  /// out[i] = 1 if queries[i] is in the table, else 0.
  virtual void contains(std::span<const LookupShard<std::uint8_t>> shards) = 0;
  /// out[i] = occurrences of queries[i] in the build input (needs unique_ids for cuckoo).
  virtual void count(std::span<const LookupShard<std::uint32_t>> shards) = 0;

  /// The local partitions' statistics summed (keys, unique keys, slots, bytes; the largest
  /// attempts and chains), and one local partition's own.
  [[nodiscard]] virtual const BuildStats& stats() const                    = 0;
  [[nodiscard]] virtual const BuildStats& partition_stats(int local) const = 0;
  [[nodiscard]] virtual const ExchangeStats& last_exchange() const         = 0;
};

/// An empty table of `kind` over the communicator's ranks, on its backend. The communicator must
/// outlive the table. The paged cuckoo table is refused (InvalidInput).
[[nodiscard]] std::unique_ptr<PartitionedTable> make_partitioned_table(
    TableKind kind, Communicator& communicator, const BuildOptions& options = {});

/// A join over the ranks: one side's rows per local rank (JoinInput, in that rank's memory; null
/// values number the rows across all ranks' shards in rank order), both sides routed by key and
/// exchanged, then an ordinary join() on each rank. The output stays partitioned: parts[i] is
/// local rank i's rows (values as given or numbered), their union that of one join of the
/// concatenated sides (in another order).
struct PartitionedJoinResult {
  std::vector<JoinResult> parts;
  std::size_t rows = 0;  // over the local ranks
  ExchangeStats exchange;
};
[[nodiscard]] PartitionedJoinResult partitioned_join(Communicator& communicator,
                                                     std::span<const JoinInput> left,
                                                     std::span<const JoinInput> right,
                                                     const JoinOptions& options = {});

}  // namespace voxhash
