// PartitionedTableImpl<Exec> and partitioned_join_with<Exec>: partitioned.hpp written once over
// the executor. Routing (RouteExchange) is per local rank: destinations, a stable radix sort of
// (destination, index) — CUB's count, scan and scatter on CUDA — and the gather of what is sent;
// the exchanges are the Communicator's. Every local rank's work runs on its own stream with its
// device made current first (Communicator::activate).
#pragma once

#include "join/join_impl.hpp"
#include "multi/route_steps.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/communicator.hpp>
#include <voxhash/error.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/partitioned.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace voxhash::multi {

/// Host wall-clock phases of one partitioned operation; each phase ends with every local rank's
/// stream synchronized.
class PhaseClock {
 public:
  explicit PhaseClock(const Communicator& comm) : m_comm(comm) {}
  /// Waits for the local ranks and adds the time since the last lap to `into`.
  void lap(double& into) {
    for (const int rank : m_comm.local_ranks()) {
      m_comm.activate(rank);
      m_comm.synchronize(rank);
    }
    const auto now = std::chrono::steady_clock::now();
    into += std::chrono::duration<double, std::milli>(now - m_last).count();
    m_last = now;
  }

 private:
  const Communicator& m_comm;
  std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
};

/// One side's routing over the local ranks and its exchange: after route(), send_keys of each
/// local rank hold its keys grouped by destination, perm the permutation, and counts() every
/// rank's send counts; exchange_keys / exchange_values fill the receive buffers.
template <class Exec>
class RouteExchange {
 public:
  static constexpr Backend kBackend = Exec::kBackend;

  struct Rank {
    Buffer<std::byte> temp{kBackend, 0};  // the executor's (CUB) scratch
    Buffer<std::uint32_t> dest{kBackend, 0}, sorted{kBackend, 0}, order{kBackend, 0};
    Buffer<std::uint32_t> perm{kBackend, 0}, bounds{kBackend, 0}, sentinel{kBackend, 0};
    Buffer<Key> send_keys{kBackend, 0}, recv_keys{kBackend, 0};
    Buffer<Value> send_values{kBackend, 0}, recv_values{kBackend, 0};
    std::size_t n = 0;
  };

  explicit RouteExchange(Communicator& comm) : m_comm(comm), m_ranks(comm.local_ranks().size()) {}

  ~RouteExchange() { release(); }
  RouteExchange(const RouteExchange&)            = delete;
  RouteExchange& operator=(const RouteExchange&) = delete;

  [[nodiscard]] std::size_t local_count() const { return m_ranks.size(); }
  [[nodiscard]] Rank& rank(std::size_t local) { return m_ranks[local]; }
  [[nodiscard]] const CountMatrix& counts() const { return m_counts; }
  [[nodiscard]] int rank_id(std::size_t local) const { return m_comm.local_ranks()[local]; }

  /// Routes keys[i][0..n[i]) of each local rank and exchanges the counts. With `reject_sentinel`
  /// (builds), throws InvalidInput before any exchange when a key is kEmptyKey; lookups route it
  /// like any query (no table holds it). Times the routing into `route_ms` and the
  /// counts' exchange into `exchange_ms`.
  void route(std::span<const Key* const> keys,
             std::span<const std::size_t> n,
             bool reject_sentinel,
             PhaseClock& clock,
             ExchangeStats& stats) {
    const auto parts  = static_cast<std::uint32_t>(m_comm.size());
    const int end_bit = std::max(1, static_cast<int>(std::bit_width(parts - 1)));
    std::vector<std::vector<std::size_t>> local_counts(m_ranks.size());
    bool sentinel = false;
    for (std::size_t i = 0; i < m_ranks.size(); ++i) {
      m_comm.activate(rank_id(i));
      Rank& r = m_ranks[i];
      Exec exec(m_comm.stream(rank_id(i)), &r.temp);
      r.n = n[i];
      for (auto* b : {&r.dest, &r.sorted, &r.order, &r.perm})
        b->resize(r.n);
      r.bounds.resize(parts + 1);
      r.sentinel.resize(1);
      r.send_keys.resize(r.n);
      exec.fill(r.sentinel.data(), 1, 0u);
      assign_destinations(
          exec, keys[i], r.n, parts, r.dest.data(), r.order.data(), r.sentinel.data());
      if (parts > 1) {
        exec.sort_pairs(
            r.dest.data(), r.sorted.data(), r.order.data(), r.perm.data(), r.n, end_bit);
      } else {
        r.sorted.swap(r.dest);
        r.perm.swap(r.order);
      }
      destination_bounds(exec, r.sorted.data(), r.n, parts, r.bounds.data());
      gather(exec, keys[i], r.perm.data(), r.n, r.send_keys.data());
      std::vector<std::uint32_t> bounds(parts + 1);
      exec.copy_to_host(bounds.data(), r.bounds.data(), bounds.size());
      sentinel = sentinel || exec.read(r.sentinel.data()) != 0;
      local_counts[i].resize(parts);
      for (std::uint32_t g = 0; g < parts; ++g)
        local_counts[i][g] = bounds[g + 1] - bounds[g];
    }
    if (sentinel && reject_sentinel) {
      throw InvalidInput("a key equals the reserved empty-slot sentinel 0xFFFFFFFF");
    }
    clock.lap(stats.route_ms);
    m_counts = m_comm.exchange_counts(local_counts);
    clock.lap(stats.exchange_ms);
  }

  /// Fills each local rank's send_values: values[i] gathered, or each key's index in all ranks'
  /// shards concatenated where values[i] is null.
  void gather_send_values(std::span<const Value* const> values) {
    Value base = 0;
    for (int r = 0; r < m_comm.size(); ++r) {
      const auto it = std::find(m_comm.local_ranks().begin(), m_comm.local_ranks().end(), r);
      if (it != m_comm.local_ranks().end()) {
        const auto i = static_cast<std::size_t>(it - m_comm.local_ranks().begin());
        m_comm.activate(r);
        Rank& rk = m_ranks[i];
        Exec exec(m_comm.stream(r), &rk.temp);
        rk.send_values.resize(rk.n);
        multi::gather_values(exec, values[i], rk.perm.data(), rk.n, base, rk.send_values.data());
      }
      base += static_cast<Value>(m_counts.sent_by(r));
    }
  }

  /// Exchanges the keys (and the values) all-to-all into recv_keys (recv_values).
  void exchange(bool with_values, ExchangeStats& stats) {
    std::vector<AllToAllBuffers> keys(m_ranks.size()), values(m_ranks.size());
    for (std::size_t i = 0; i < m_ranks.size(); ++i) {
      m_comm.activate(rank_id(i));
      Rank& r                  = m_ranks[i];
      const std::size_t arrive = m_counts.received_by(rank_id(i));
      r.recv_keys.resize(arrive);
      keys[i] = {r.send_keys.data(), r.recv_keys.data()};
      if (with_values) {
        r.recv_values.resize(arrive);
        values[i] = {r.send_values.data(), r.recv_values.data()};
      }
    }
    m_comm.all_to_all_async(m_counts, keys, sizeof(Key));
    count_crossing(m_counts, sizeof(Key), stats);
    if (with_values) {
      m_comm.all_to_all_async(m_counts, values, sizeof(Value));
      count_crossing(m_counts, sizeof(Value), stats);
    }
  }

  static void count_crossing(const CountMatrix& counts,
                             std::size_t element_bytes,
                             ExchangeStats& stats) {
    stats.elements_crossing += counts.crossing();
    stats.bytes_crossing += counts.crossing() * element_bytes;
  }

  /// Frees every rank's buffers with its device current.
  void release() {
    for (std::size_t i = 0; i < m_ranks.size(); ++i) {
      m_comm.activate(rank_id(i));
      m_ranks[i] = Rank{};
    }
  }

 private:
  Communicator& m_comm;
  std::vector<Rank> m_ranks;
  CountMatrix m_counts;
};

template <class Exec>
class PartitionedTableImpl final : public PartitionedTable {
 public:
  static constexpr Backend kBackend = Exec::kBackend;

  PartitionedTableImpl(TableKind kind,
                       Communicator& comm,
                       const BuildOptions& options,
                       const std::function<std::unique_ptr<HashTable>()>& make_local)
      : m_kind(kind), m_comm(comm), m_route(comm), m_tables(comm.local_ranks().size()) {
    if (visit_table(kind, [](auto traits) { return traits.paged; })) {
      throw InvalidInput("a partitioned table of the paged cuckoo table is not supported");
    }
    if (comm.backend() != kBackend) {
      throw InvalidInput("the communicator's backend differs from the table's");
    }
    m_local_stats.resize(m_tables.size());
    for (std::size_t i = 0; i < m_tables.size(); ++i) {
      m_comm.activate(m_route.rank_id(i));
      m_answers.emplace_back(kBackend, 0);
      m_returned.emplace_back(kBackend, 0);
      m_tables[i] = make_local();
      m_tables[i]->set_options(options);
    }
  }

  ~PartitionedTableImpl() override {
    for (std::size_t i = 0; i < m_tables.size(); ++i) {
      m_comm.activate(m_route.rank_id(i));
      m_tables[i].reset();
      m_answers[i]  = Buffer<std::byte>{};
      m_returned[i] = Buffer<std::byte>{};
    }
  }

  [[nodiscard]] TableKind kind() const override { return m_kind; }
  [[nodiscard]] const Communicator& communicator() const override { return m_comm; }

  BuildStats build(std::span<const KeyShard> shards) override {
    check_shards(shards.size());
    m_stats    = BuildStats{};
    m_exchange = ExchangeStats{};
    std::vector<const Key*> keys;
    std::vector<const Value*> values;
    std::vector<std::size_t> n;
    for (const KeyShard& s : shards) {
      keys.push_back(s.keys);
      values.push_back(s.values);
      n.push_back(s.n);
    }
    PhaseClock clock(m_comm);
    try {
      m_route.route(keys, n, true, clock, m_exchange);
      m_route.gather_send_values(values);
      clock.lap(m_exchange.route_ms);
      m_route.exchange(true, m_exchange);
      clock.lap(m_exchange.exchange_ms);
      for (std::size_t i = 0; i < m_tables.size(); ++i) {
        const int rank = m_route.rank_id(i);
        m_comm.activate(rank);
        auto& r          = m_route.rank(i);
        m_local_stats[i] = m_tables[i]->build(r.recv_keys.data(),
                                              r.recv_values.data(),
                                              m_route.counts().received_by(rank),
                                              m_comm.stream(rank));
      }
    } catch (const Error&) {
      clear();
      throw;
    }
    clock.lap(m_exchange.local_ms);
    for (const BuildStats& s : m_local_stats) {
      m_stats.keys += s.keys;
      m_stats.unique_keys += s.unique_keys;
      m_stats.attempts      = std::max(m_stats.attempts, s.attempts);
      m_stats.longest_chain = std::max(m_stats.longest_chain, s.longest_chain);
      m_stats.chain_limit   = std::max(m_stats.chain_limit, s.chain_limit);
      m_stats.slots += s.slots;
      m_stats.bytes += s.bytes;
    }
    return m_stats;
  }

  void find(std::span<const LookupShard<Value>> shards) override {
    lookup<Value>(shards,
                  [](const HashTable& t, const Key* q, std::size_t n, Value* out, Stream s) {
                    t.find_async(q, n, out, s);
                  });
  }
  void contains(std::span<const LookupShard<std::uint8_t>> shards) override {
    lookup<std::uint8_t>(
        shards, [](const HashTable& t, const Key* q, std::size_t n, std::uint8_t* out, Stream s) {
          t.contains_async(q, n, out, s);
        });
  }
  void count(std::span<const LookupShard<std::uint32_t>> shards) override {
    lookup<std::uint32_t>(
        shards, [](const HashTable& t, const Key* q, std::size_t n, std::uint32_t* out, Stream s) {
          t.count_async(q, n, out, s);
        });
  }

  [[nodiscard]] const BuildStats& stats() const override { return m_stats; }
  [[nodiscard]] const BuildStats& partition_stats(int local) const override {
    return m_local_stats.at(static_cast<std::size_t>(local));
  }
  [[nodiscard]] const ExchangeStats& last_exchange() const override { return m_exchange; }

 private:
  void check_shards(std::size_t shards) const {
    if (shards != m_tables.size()) {
      throw InvalidInput(
          "a partitioned call takes one shard per local rank: " + std::to_string(m_tables.size()) +
          " expected, " + std::to_string(shards) + " given");
    }
  }

  /// Leaves every partition's table empty (after a failed build).
  void clear() {
    for (std::size_t i = 0; i < m_tables.size(); ++i) {
      const int rank = m_route.rank_id(i);
      m_comm.activate(rank);
      m_local_stats[i] = m_tables[i]->build(nullptr, nullptr, 0, m_comm.stream(rank));
    }
  }

  /// Routes the queries, exchanges them, looks them up in the local tables, sends the answers
  /// back (the way back's counts are the transposed matrix) and scatters them into out.
  template <class T, class Local>
  void lookup(std::span<const LookupShard<T>> shards, Local local) {
    check_shards(shards.size());
    m_exchange = ExchangeStats{};
    std::vector<const Key*> keys;
    std::vector<std::size_t> n;
    for (const auto& s : shards) {
      keys.push_back(s.queries);
      n.push_back(s.n);
    }
    PhaseClock clock(m_comm);
    m_route.route(keys, n, false, clock, m_exchange);
    m_route.exchange(false, m_exchange);
    clock.lap(m_exchange.exchange_ms);
    std::vector<AllToAllBuffers> answers(m_tables.size());
    for (std::size_t i = 0; i < m_tables.size(); ++i) {
      const int rank = m_route.rank_id(i);
      m_comm.activate(rank);
      const std::size_t arrived = m_route.counts().received_by(rank);
      m_answers[i].resize(arrived * sizeof(T));
      m_returned[i].resize(shards[i].n * sizeof(T));
      auto* out = reinterpret_cast<T*>(m_answers[i].data());
      local(*m_tables[i], m_route.rank(i).recv_keys.data(), arrived, out, m_comm.stream(rank));
      answers[i] = {m_answers[i].data(), m_returned[i].data()};
    }
    clock.lap(m_exchange.local_ms);
    const CountMatrix back = m_route.counts().transposed();
    m_comm.all_to_all_async(back, answers, sizeof(T));
    RouteExchange<Exec>::count_crossing(back, sizeof(T), m_exchange);
    clock.lap(m_exchange.exchange_ms);
    for (std::size_t i = 0; i < m_tables.size(); ++i) {
      const int rank = m_route.rank_id(i);
      m_comm.activate(rank);
      auto& r = m_route.rank(i);
      Exec exec(m_comm.stream(rank), &r.temp);
      multi::scatter(exec,
                     reinterpret_cast<const T*>(m_returned[i].data()),
                     r.perm.data(),
                     shards[i].n,
                     shards[i].out);
    }
    clock.lap(m_exchange.finish_ms);
  }

  TableKind m_kind;
  Communicator& m_comm;
  RouteExchange<Exec> m_route;
  std::vector<std::unique_ptr<HashTable>> m_tables;
  std::vector<Buffer<std::byte>> m_answers, m_returned;  // per local rank: answers, returned
  std::vector<BuildStats> m_local_stats;
  BuildStats m_stats;
  ExchangeStats m_exchange;
};

/// partitioned_join over the executor: both sides routed and exchanged with their values (or
/// row numbers), then JoinRun on each local rank's arrived rows.
template <class Exec>
PartitionedJoinResult partitioned_join_with(Communicator& comm,
                                            std::span<const JoinInput> left,
                                            std::span<const JoinInput> right,
                                            const JoinOptions& options) {
  const std::size_t locals = comm.local_ranks().size();
  if (left.size() != locals || right.size() != locals) {
    throw InvalidInput("a partitioned join takes one shard of each side per local rank: " +
                       std::to_string(locals) + " expected");
  }
  PartitionedJoinResult result;
  PhaseClock clock(comm);
  RouteExchange<Exec> sides[2]{RouteExchange<Exec>(comm), RouteExchange<Exec>(comm)};
  for (int side = 0; side < 2; ++side) {
    const auto inputs = side == 0 ? left : right;
    std::vector<const Key*> keys;
    std::vector<const Value*> values;
    std::vector<std::size_t> n;
    for (const JoinInput& in : inputs) {
      keys.push_back(in.keys);
      values.push_back(in.values);
      n.push_back(in.rows);
    }
    sides[side].route(keys, n, true, clock, result.exchange);
    sides[side].gather_send_values(values);
    clock.lap(result.exchange.route_ms);
    sides[side].exchange(true, result.exchange);
    clock.lap(result.exchange.exchange_ms);
  }
  for (std::size_t i = 0; i < locals; ++i) {
    const int rank = comm.local_ranks()[i];
    comm.activate(rank);
    auto& l = sides[0].rank(i);
    auto& r = sides[1].rank(i);
    const JoinInput local_left{
        l.recv_keys.data(), l.recv_values.data(), sides[0].counts().received_by(rank)};
    const JoinInput local_right{
        r.recv_keys.data(), r.recv_values.data(), sides[1].counts().received_by(rank)};
    result.parts.push_back(
        joins::JoinRun<Exec>(options, comm.stream(rank)).run(local_left, local_right));
    result.rows += result.parts.back().rows;
  }
  clock.lap(result.exchange.local_ms);
  return result;
}

}  // namespace voxhash::multi
