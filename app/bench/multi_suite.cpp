// `voxhash bench tables --gpus G` and `bench join --gpus G`: the table (and the inner join) on one
// GPU and partitioned over G (NCCL on CUDA; emulated partitions on the CPU backend, so the suite
// runs anywhere at small sizes): build / find rates of 2^29 and 2^30 keys (quick: 2^20), each
// partitioned figure with its speedup over one GPU and where its time went (route, exchange,
// local work, un-permute; the exchange's share and rate). Medians of timed runs after a warm-up.
#include "bench/suites.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/communicator.hpp>
#include <voxhash/error.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/join.hpp>
#include <voxhash/keys.hpp>
#include <voxhash/partitioned.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace voxhash::bench {
namespace {

struct Timing {
  double median = 0, min = 0, max = 0;
};

/// One warm-up, then `runs` timed runs of op (which must synchronize); host clock.
Timing measure(int runs, const std::function<void()>& op) {
  op();
  std::vector<double> seconds;
  for (int run = 0; run < runs; ++run) {
    const auto start = std::chrono::steady_clock::now();
    op();
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  const std::size_t mid = seconds.size() / 2;
  return {seconds.size() % 2 ? seconds[mid] : 0.5 * (seconds[mid - 1] + seconds[mid]),
          seconds.front(),
          seconds.back()};
}

/// Keys of every rank in rank 0's memory, and each rank's share copied to its own (rank 0's share
/// is a view of the whole). The copies are freed with their device current.
struct Sharded {
  explicit Sharded(const Communicator& comm) : m_comm(comm) {}
  Sharded(const Sharded&)            = delete;
  Sharded& operator=(const Sharded&) = delete;
  ~Sharded() {
    for (std::size_t i = 0; i < copies.size(); ++i) {
      m_comm.activate(static_cast<int>(i + 1));
      copies[i] = Buffer<Key>{};
    }
    m_comm.activate(0);
  }

  Buffer<Key> all;
  std::vector<Buffer<Key>> copies;  // per rank > 0 (GPUs only)
  std::vector<const Key*> shard;
  std::vector<std::size_t> n;

 private:
  const Communicator& m_comm;
};

class MultiBench {
 public:
  MultiBench(const Options& options, Report& report, ResultPrinter& printer)
      : m_options(options),
        m_backend(options.backend),
        m_runs(options.runs    ? options.runs
               : options.quick ? 3
                               : 5),
        m_report(report),
        m_printer(printer),
        m_comm(make_communicator(options.backend, options.gpus)) {
    std::cerr << "[" << to_string(options.command) << "] " << m_comm->describe() << std::endl;
  }

  [[nodiscard]] std::vector<std::size_t> sizes() const {
    if (m_options.quick) return {std::size_t{1} << 20};
    return {std::size_t{1} << 29, std::size_t{1} << 30};
  }

  void run_tables() {
    for (const std::size_t n : sizes()) {
      try {
        tables(n);
      } catch (const OutOfMemory& e) {
        skip(std::to_string(n) + " keys", e.what());
      }
    }
  }

  void run_join() {
    for (const std::size_t n : sizes()) {
      try {
        join_rows(n);
      } catch (const OutOfMemory& e) {
        skip(std::to_string(n) + " rows per side", e.what());
      }
    }
  }

 private:
  /// n keys drawn per spec on rank 0, spread into size() even shards.
  std::unique_ptr<Sharded> make_keys(std::size_t n, const KeySpec& spec) {
    auto keys  = std::make_unique<Sharded>(*m_comm);
    Sharded& s = *keys;
    m_comm->activate(0);
    s.all = Buffer<Key>(m_backend, n);
    generate_keys(m_backend, s.all.data(), n, spec);
    synchronize(m_backend);
    const auto g           = static_cast<std::size_t>(m_comm->size());
    const std::size_t each = (n + g - 1) / g;
    for (std::size_t r = 0; r < g; ++r) {
      const std::size_t begin = std::min(n, r * each);
      const std::size_t count = std::min(each, n - begin);
      s.n.push_back(count);
      if (r == 0 || m_backend == Backend::Cpu) {
        s.shard.push_back(s.all.data() + begin);
        continue;
      }
      m_comm->activate(static_cast<int>(r));
      s.copies.emplace_back(m_backend, count);
      copy_bytes(s.copies.back().data(), m_backend, s.all.data() + begin, m_backend, count * 4);
      s.shard.push_back(s.copies.back().data());
    }
    m_comm->activate(0);
    return keys;
  }

  void tables(std::size_t n) {
    const TableKind kind = m_options.algorithm;
    std::cerr << "[tables] " << to_string(kind) << " " << n << " keys on 1 and " << m_comm->size()
              << " partitions" << std::endl;
    KeySpec spec{.universe = 1, .order = 2, .distinct = n, .miss_fraction = 0};
    const auto keys_owner = make_keys(n, spec);
    const Sharded& keys   = *keys_owner;
    spec.order            = 3;
    const auto hits_owner = make_keys(n, spec);
    const Sharded& hits   = *hits_owner;
    spec.miss_fraction    = 1;
    const auto miss_owner = make_keys(n, spec);
    const Sharded& miss   = *miss_owner;
    BuildOptions options;
    options.unique_ids = false;

    // One GPU: the plain table on rank 0's device.
    double one[3] = {0, 0, 0};
    {
      m_comm->activate(0);
      auto table = make_table(kind, m_backend, options);
      Buffer<Value> out(m_backend, n);
      const Timing b = measure(m_runs, [&] { table->build(keys.all.data(), nullptr, n); });
      one[0]         = add(kind, "insert", n, b, 1, nullptr, kNone);
      for (int m = 0; m < 2; ++m) {
        const Sharded& q = m ? miss : hits;
        const Timing f   = measure(m_runs, [&] {
          table->find_async(q.all.data(), n, out.data());
          synchronize(m_backend);
        });
        one[1 + m]       = add(kind, m ? "find-miss" : "find-hit", n, f, 1, nullptr, kNone);
      }
    }

    // G partitions.
    auto table = make_partitioned_table(kind, *m_comm, options);
    std::vector<KeyShard> build;
    for (std::size_t r = 0; r < keys.shard.size(); ++r)
      build.push_back({keys.shard[r], nullptr, keys.n[r]});
    ExchangeStats stats;
    const Timing b = measure(m_runs, [&] {
      table->build(build);
      stats = table->last_exchange();
    });
    add(kind, "insert", n, b, m_comm->size(), &stats, one[0]);
    std::vector<Buffer<Value>> out;
    for (int r = 0; r < m_comm->size(); ++r) {
      m_comm->activate(r);
      out.emplace_back(m_backend, keys.n[static_cast<std::size_t>(r)]);
    }
    for (int m = 0; m < 2; ++m) {
      const Sharded& q = m ? miss : hits;
      std::vector<LookupShard<Value>> lookups;
      for (std::size_t r = 0; r < q.shard.size(); ++r)
        lookups.push_back({q.shard[r], q.n[r], out[r].data()});
      const Timing f = measure(m_runs, [&] {
        table->find(lookups);
        stats = table->last_exchange();
      });
      add(kind, m ? "find-miss" : "find-hit", n, f, m_comm->size(), &stats, one[1 + m]);
    }
    for (int r = 0; r < m_comm->size(); ++r) {
      m_comm->activate(r);
      out[static_cast<std::size_t>(r)] = Buffer<Value>{};
    }
    m_comm->activate(0);
  }

  /// Inner join of n x n rows, keys unique on each side, half of each side matched.
  void join_rows(std::size_t n) {
    std::cerr << "[join] inner " << n << " x " << n << " rows on 1 and " << m_comm->size()
              << " partitions" << std::endl;
    KeySpec spec{.universe = 1, .order = 4, .distinct = n, .miss_fraction = 0};
    const auto left_owner  = make_keys(n, spec);
    const Sharded& left    = *left_owner;
    spec.order             = 5;
    spec.miss_fraction     = 0.5;
    const auto right_owner = make_keys(n, spec);
    const Sharded& right   = *right_owner;
    JoinOptions options;
    options.kind  = JoinKind::Inner;
    options.table = m_options.algorithm;
    m_comm->activate(0);
    const Timing t1  = measure(m_runs, [&] {
      const JoinResult r =
          join(m_backend, {left.all.data(), nullptr, n}, {right.all.data(), nullptr, n}, options);
      m_last_rows = r.rows;
    });
    const double one = add(options.table, "inner-join", n, t1, 1, nullptr, kNone, "join");
    std::vector<JoinInput> l, r;
    for (std::size_t i = 0; i < left.shard.size(); ++i) {
      l.push_back({left.shard[i], nullptr, left.n[i]});
      r.push_back({right.shard[i], nullptr, right.n[i]});
    }
    ExchangeStats stats;
    const Timing tg = measure(m_runs, [&] {
      PartitionedJoinResult result = partitioned_join(*m_comm, l, r, options);
      stats                        = result.exchange;
      m_last_rows                  = result.rows;
      for (std::size_t i = 0; i < result.parts.size(); ++i) {
        m_comm->activate(m_comm->local_ranks()[i]);
        result.parts[i] = JoinResult{};
      }
      m_comm->activate(0);
    });
    add(options.table, "inner-join", n, tg, m_comm->size(), &stats, one, "join");
  }

  /// Adds one figure (rate: items of one side per second) and returns its rate in G keys/s.
  double add(TableKind kind,
             const char* operation,
             std::size_t n,
             const Timing& t,
             int gpus,
             const ExchangeStats* x,
             double one_gpu_rate,
             const char* suite = "tables") {
    Result r;
    r.suite      = suite;
    r.sweep      = "gpus";
    r.algorithm  = std::string(to_string(kind));
    r.operation  = operation;
    r.keys       = n;
    r.seconds    = t.median;
    r.rate_gkeys = static_cast<double>(n) / t.median * 1e-9;
    r.extra      = {{"runs", m_runs},
                    {"min_seconds", t.min},
                    {"max_seconds", t.max},
                    {"gpus", gpus},
                    {"emulated", m_backend == Backend::Cpu ? 1 : 0}};
    if (std::string(suite) == "join")
      r.extra.emplace_back("rows", static_cast<double>(m_last_rows));
    if (x) {
      r.extra.emplace_back("route_ms", x->route_ms);
      r.extra.emplace_back("exchange_ms", x->exchange_ms);
      r.extra.emplace_back("local_ms", x->local_ms);
      r.extra.emplace_back("finish_ms", x->finish_ms);
      r.extra.emplace_back("exchange_share", x->exchange_share());
      r.extra.emplace_back("bytes_crossing", static_cast<double>(x->bytes_crossing));
      if (x->exchange_ms > 0) {
        r.extra.emplace_back(
            "exchange_gbs",
            static_cast<double>(x->bytes_crossing) / (x->exchange_ms * 1e-3) * 1e-9);
      }
    }
    if (!std::isnan(one_gpu_rate)) r.extra.emplace_back("speedup", r.rate_gkeys / one_gpu_rate);
    m_printer.print(r);
    if (x) {
      std::cerr << "[" << suite << "]   " << gpus << " partitions: exchange "
                << 100.0 * x->exchange_share() << "% of the time, speedup "
                << r.rate_gkeys / one_gpu_rate << "x" << std::endl;
    }
    m_report.results.push_back(std::move(r));
    return static_cast<double>(n) / t.median * 1e-9;
  }

  void skip(const std::string& what, const std::string& why) {
    const std::string line = "gpus: skipped: " + what + ": " + why;
    std::cerr << "[" << to_string(m_options.command) << "] " << line << std::endl;
    m_report.skipped.push_back(line);
  }

  const Options& m_options;
  Backend m_backend;
  int m_runs;
  Report& m_report;
  ResultPrinter& m_printer;
  std::unique_ptr<Communicator> m_comm;
  std::size_t m_last_rows = 0;
};

}  // namespace

int run_tables_gpus(const Options& options, Report& report, ResultPrinter& printer) {
  MultiBench(options, report, printer).run_tables();
  return 0;
}

int run_join_gpus(const Options& options, Report& report, ResultPrinter& printer) {
  MultiBench(options, report, printer).run_join();
  return 0;
}

}  // namespace voxhash::bench
