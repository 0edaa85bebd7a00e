// `voxhash bench tables`: build and lookup rates of cuckoo, HashGraph V1/V2, bucketed cuckoo (bcht)
// and a sorted-array baseline on generated keys, each also as a fraction of its bound (cuckoo and
// bcht inserts: exch8_dram; HashGraph and sorted builds: sort_pairs; lookups: read8_dram), and for
// bcht the buckets (and 32-byte sectors) each operation reads. The default set is the papers'
// headline figures, --sweep their axes, --paged the Starfish table (4x its GPU budget against the
// pinned-copy bound, and within it against the flat table); every figure is a median of timed runs
// after a warm-up.
#include "bench/suites.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/bucketed_cuckoo_table.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>
#include <voxhash/hash_graph.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/keys.hpp>
#include <voxhash/paged_table.hpp>
#include <voxhash/sorted_array.hpp>
#include <voxhash/timer.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <span>
#include <string>
#include <vector>

namespace voxhash::bench {
namespace {

enum class Algo { Cuckoo, HashGraphV1, HashGraphV2, Bcht, SortedArray, PagedCuckoo };

std::string algo_name(Algo algo) {
  switch (algo) {
    case Algo::Cuckoo:
      return std::string(to_string(TableKind::Cuckoo));
    case Algo::HashGraphV1:
      return std::string(to_string(TableKind::HashGraphV1));
    case Algo::HashGraphV2:
      return std::string(to_string(TableKind::HashGraphV2));
    case Algo::Bcht:
      return std::string(to_string(TableKind::BucketedCuckoo));
    case Algo::SortedArray:
      return "sorted-array";
    case Algo::PagedCuckoo:
      return std::string(to_string(TableKind::PagedCuckoo));
  }
  return "?";
}

constexpr double kDefaultSpace = 1.25;  // cuckoo (and bcht) slots per key
constexpr double kDefaultLoad  = 1.0;   // HashGraph keys per vertex

constexpr std::array kHitsAndMisses{0.0, 1.0};
constexpr std::array kHits{0.0};
constexpr std::array kMissFractions{0.0, 0.25, 0.5, 0.75, 1.0};
constexpr std::array kCuckooSpaces{1.05, 1.1, 1.15, 1.2, 1.25, 1.3, 1.4, 1.5, 1.6, 1.75, 2.0};
constexpr std::array kGraphLoads{0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0};
constexpr std::array kMultiplicities{1.0, 2.0, 4.0, 8.0, 16.0, 32.0};

/// Problem sizes: the papers' (50M cuckoo keys, HashGraph 2^25 and 2^28, sweeps at 2^25 and
/// 2^20..2^28), or small ones for --quick.
struct Sizes {
  std::size_t cuckoo;
  std::vector<std::size_t> graph;
  std::size_t sweep;
  std::vector<std::size_t> size_sweep;
};

Sizes sizes(bool quick) {
  Sizes s;
  const int first = quick ? 14 : 20, last = quick ? 20 : 28;
  for (int b = first; b <= last; ++b)
    s.size_sweep.push_back(std::size_t{1} << b);
  s.cuckoo = quick ? std::size_t{1} << 20 : 50'000'000;
  s.graph  = quick ? std::vector<std::size_t>{std::size_t{1} << 20}
                   : std::vector<std::size_t>{std::size_t{1} << 25, std::size_t{1} << 28};
  s.sweep  = quick ? std::size_t{1} << 20 : std::size_t{1} << 25;
  return s;
}

struct Timing {
  double median = 0, min = 0, max = 0;
};

/// One key set and its queries in the backend's memory: `keys` draws from `distinct` keys.
struct Workload {
  std::size_t keys       = 0;
  double multiplicity    = 1;
  std::size_t distinct   = 0;
  std::uint32_t universe = 0;
  Buffer<Key> build_keys;
  Buffer<Key> queries;
  Buffer<Value> out;
};

/// Memory a table of n keys needs at its peak, lookups included (the library's estimate).
std::size_t table_bytes(Algo algo, std::size_t n, double param, bool cuckoo_ids) {
  BuildOptions options;
  options.unique_ids = cuckoo_ids;
  switch (algo) {
    case Algo::Cuckoo:
      options.cuckoo_space = param;
      return estimate_bytes(TableKind::Cuckoo, n, options);
    case Algo::HashGraphV1:
      options.load = param;
      return estimate_bytes(TableKind::HashGraphV1, n, options);
    case Algo::HashGraphV2:
      options.load = param;
      return estimate_bytes(TableKind::HashGraphV2, n, options);
    case Algo::Bcht:
      options.cuckoo_space = param;
      return estimate_bytes(TableKind::BucketedCuckoo, n, options);
    case Algo::SortedArray:
      return estimate_sorted_array_bytes(n);
    case Algo::PagedCuckoo:
      return 0;  // sized by the paged bench itself
  }
  return 0;
}

/// What bcht lookups cost in memory traffic, counted on a host copy of the table (a client of the
/// public ref alone): the mean buckets BucketedCuckooRef::probes reads for a sample of keys, and
/// the 32-byte sectors that is (a bucket is 64 bytes). Does nothing for other tables.
class BucketProbes {
 public:
  static constexpr std::size_t kSample = std::size_t{1} << 20;

  BucketProbes(const HashTable& table, Backend backend) : m_backend(backend) {
    const auto* bucketed = dynamic_cast<const BucketedCuckooTable*>(&table);
    if (!bucketed) return;
    m_ref = bucketed->ref();
    m_slots.resize(std::size_t{m_ref.buckets} * detail::kBucketSlots);
    copy_bytes(
        m_slots.data(), Backend::Cpu, m_ref.slots, backend, m_slots.size() * sizeof(CuckooEntry));
    m_ref.slots = m_slots.data();
  }

  /// Adds `name` (mean buckets read) and sectors_per_op to `r`, from up to kSample of keys[0..n)
  /// (backend memory), spread over the array.
  void add_to(Result& r, const Key* keys, std::size_t n, const char* name) const {
    if (m_slots.empty() || n == 0) return;
    std::vector<Key> host(n);
    copy_bytes(host.data(), Backend::Cpu, keys, m_backend, n * sizeof(Key));
    const std::size_t step = std::max<std::size_t>(1, n / kSample);
    double buckets = 0, sampled = 0;
    for (std::size_t i = 0; i < n; i += step, ++sampled)
      buckets += m_ref.probes(host[i]);
    r.extra.emplace_back(name, buckets / sampled);
    r.extra.emplace_back("sectors_per_op", 2 * buckets / sampled);
  }

 private:
  Backend m_backend;
  BucketedCuckooRef m_ref{};
  std::vector<CuckooEntry> m_slots;
};

/// The two ends of one timed run.
enum class Span { Start, Stop, Count };

class TablesBench {
 public:
  TablesBench(const Options& options,
              const DeviceLimits& limits,
              Report& report,
              ResultPrinter& printer)
      : m_backend(options.backend),
        m_sizes(sizes(options.quick)),
        m_runs(options.runs    ? options.runs
               : options.quick ? 3
                               : 5),
        m_limits(limits),
        m_report(report),
        m_printer(printer),
        m_timer(options.backend) {}

  void run_default() {
    m_sweep = "default";
    if (make_workload(m_sizes.cuckoo, 1)) {
      bench(Algo::Cuckoo, kDefaultSpace, kHitsAndMisses, true);
      bench(Algo::Bcht, kDefaultSpace, kHitsAndMisses, true);
      bench(Algo::SortedArray, kNone, kHitsAndMisses, false);
    }
    for (const std::size_t n : m_sizes.graph) {
      for (const double multiplicity : {1.0, 32.0}) {
        if (!make_workload(n, multiplicity)) continue;
        bench(Algo::HashGraphV1, kDefaultLoad, kHits, false);
        bench(Algo::HashGraphV2, kDefaultLoad, kHits, false);
        bench(Algo::SortedArray, kNone, kHits, false);
      }
    }
  }

  /// The paged table: one 4x the budget (rates against the pinned-copy bound: each pair's 8 bytes
  /// cross PCIe once per insert or find), then one within it beside the flat cuckoo table.
  void run_paged(std::size_t budget, std::size_t page_capacity, double space) {
    m_sweep = "paged";
    BuildOptions o;
    o.page_budget          = budget;
    o.page_capacity        = page_capacity;
    o.cuckoo_space         = space;
    o.unique_ids           = false;
    const std::size_t page = paged_page_bytes(o);
    const std::size_t slot = page + 8 * 1024 + 256;
    const std::size_t fit  = budget > page + 8 * 1024 ? (budget - page - 8 * 1024) / slot : 0;
    const std::size_t big  = 4 * budget / page * page_capacity;
    for (const std::size_t n : {big, fit * page_capacity}) {
      if (n == 0 || !make_workload(n, 1)) continue;
      const bool within = n <= fit * page_capacity;
      double flat[3]    = {kNone, kNone, kNone};
      if (within) {
        const std::size_t before = m_report.results.size();
        bench(Algo::Cuckoo, space, kHitsAndMisses, false);
        for (std::size_t i = before; i < m_report.results.size() && i - before < 3; ++i)
          flat[i - before] = m_report.results[i].rate_gkeys;
      }
      const std::string what = "paged-cuckoo " + std::to_string(n) + " keys, budget " +
                               format_bytes(budget) + (within ? " (fits)" : " (4x)");
      if (!fits(estimate_bytes(TableKind::PagedCuckoo, n, o), what)) continue;
      std::cerr << "[tables] paged: " << what << std::endl;
      try {
        bench_paged(o, within, flat);
      } catch (const OutOfMemory& e) {
        skip(what, e.what());
      } catch (const BuildFailed& e) {
        skip(what, e.what());
      }
    }
  }

  void run_sweep(Sweep sweep) {
    m_sweep = to_string(sweep);
    switch (sweep) {
      case Sweep::Load:
        if (!make_workload(m_sizes.sweep, 1)) return;
        for (const double space : kCuckooSpaces) {
          bench(Algo::Cuckoo, space, kHitsAndMisses, false);
          bench(Algo::Bcht, space, kHitsAndMisses, false);
        }
        for (const double load : kGraphLoads) {
          bench(Algo::HashGraphV1, load, kHits, false);
          bench(Algo::HashGraphV2, load, kHits, false);
        }
        return;
      case Sweep::Multiplicity:
        for (const double multiplicity : kMultiplicities) {
          if (!make_workload(m_sizes.sweep, multiplicity)) continue;
          bench_all(kHits);
        }
        return;
      case Sweep::Size:
        for (const std::size_t n : m_sizes.size_sweep) {
          if (make_workload(n, 1)) bench_all(kHitsAndMisses);
        }
        return;
      case Sweep::Misses:
        if (make_workload(m_sizes.sweep, 1)) bench_all(kMissFractions);
        return;
    }
  }

 private:
  void bench_all(std::span<const double> miss_fractions) {
    bench(Algo::Cuckoo, kDefaultSpace, miss_fractions, true);
    bench(Algo::HashGraphV1, kDefaultLoad, miss_fractions, false);
    bench(Algo::HashGraphV2, kDefaultLoad, miss_fractions, false);
    bench(Algo::Bcht, kDefaultSpace, miss_fractions, true);
    bench(Algo::SortedArray, kNone, miss_fractions, false);
  }

  /// Generates `n` build keys of the given multiplicity (and room for n queries); false, with the
  /// reason recorded, when they do not fit.
  bool make_workload(std::size_t n, double multiplicity) {
    m_work = Workload{};
    const auto what =
        std::to_string(n) + " keys x" + std::to_string(static_cast<int>(multiplicity));
    if (!fits(12 * n, what)) return false;
    try {
      m_work.keys         = n;
      m_work.multiplicity = multiplicity;
      m_work.distinct     = std::max<std::size_t>(
          1, static_cast<std::size_t>(std::llround(static_cast<double>(n) / multiplicity)));
      m_work.universe   = 0x5eed0000u + static_cast<std::uint32_t>(++m_workloads);
      m_work.build_keys = Buffer<Key>(m_backend, n);
      m_work.queries    = Buffer<Key>(m_backend, n);
      m_work.out        = Buffer<Value>(m_backend, n);
      generate_keys(m_backend,
                    m_work.build_keys.data(),
                    n,
                    KeySpec{m_work.universe, 1, m_work.distinct, 0.0});
      synchronize(m_backend);
    } catch (const OutOfMemory& e) {
      m_work = Workload{};
      skip(what, e.what());
      return false;
    }
    return true;
  }

  /// n queries: hits drawn from the build keys in a new order, a fraction of them misses.
  void generate_queries(double miss_fraction) {
    generate_keys(m_backend,
                  m_work.queries.data(),
                  m_work.keys,
                  KeySpec{m_work.universe, 2, m_work.distinct, miss_fraction});
    synchronize(m_backend);
  }

  /// Runs one algorithm on the current workload: its builds, then lookups for each miss fraction.
  /// `param` is the (bucketed) cuckoo space or the HashGraph load.
  void bench(Algo algo, double param, std::span<const double> miss_fractions, bool cuckoo_ids) {
    std::string what = algo_name(algo) + " " + std::to_string(m_work.keys) + " keys x" +
                       std::to_string(static_cast<int>(m_work.multiplicity));
    if (algo == Algo::Cuckoo || algo == Algo::Bcht) what += ", space " + number(param);
    if (algo == Algo::HashGraphV1 || algo == Algo::HashGraphV2) what += ", load " + number(param);
    if (!fits(table_bytes(algo, m_work.keys, param, cuckoo_ids), what)) return;
    std::cerr << "[tables] " << m_sweep << ": " << what << std::endl;
    try {
      switch (algo) {
        case Algo::Cuckoo:
        case Algo::Bcht:
          bench_cuckoo(algo, param, miss_fractions, cuckoo_ids);
          break;
        case Algo::HashGraphV1:
          bench_hash_graph(TableKind::HashGraphV1, param, miss_fractions);
          break;
        case Algo::HashGraphV2:
          bench_hash_graph(TableKind::HashGraphV2, param, miss_fractions);
          break;
        case Algo::SortedArray:
          bench_sorted(miss_fractions);
          break;
        case Algo::PagedCuckoo:
          break;
      }
    } catch (const OutOfMemory& e) {
      skip(what, e.what());
    } catch (const BuildFailed& e) {
      skip(what, e.what());
    }
  }

  /// Cuckoo or bcht: inserts (no ids), lookups, and with `with_ids` the full build (dense ids and
  /// multiplicities). bcht results also say how many buckets each operation reads.
  void bench_cuckoo(Algo algo,
                    double space,
                    std::span<const double> miss_fractions,
                    bool with_ids) {
    const TableKind kind = algo == Algo::Bcht ? TableKind::BucketedCuckoo : TableKind::Cuckoo;
    BuildOptions options;
    options.cuckoo_space = space;
    options.unique_ids   = false;
    const double load    = 1.0 / space;
    {
      const auto table = make_table(kind, m_backend, options);
      const Timing t =
          measure([&] { table->build(m_work.build_keys.data(), nullptr, m_work.keys); });
      Result insert = build_result(algo, "insert", load, t, "exch8_dram", table->stats(), space);
      const BucketProbes probes(*table, m_backend);
      // Buckets that reach each stored key: what a hit reads, and about what its insert read.
      probes.add_to(insert, m_work.build_keys.data(), m_work.keys, "buckets_per_key");
      add(std::move(insert));
      for (const double f : miss_fractions) {
        Result r =
            lookup(algo,
                   f == 0   ? "find-hit"
                   : f == 1 ? "find-miss"
                            : "find",
                   load,
                   f,
                   [&](const Key* q, std::size_t n, Value* out) { table->find_async(q, n, out); });
        probes.add_to(r, m_work.queries.data(), m_work.keys, "buckets_per_query");
        add(std::move(r));
      }
    }
    if (!with_ids) return;
    options.unique_ids = true;
    const auto table   = make_table(kind, m_backend, options);
    const Timing t = measure([&] { table->build(m_work.build_keys.data(), nullptr, m_work.keys); });
    add(build_result(algo, "build", load, t, "exch8_dram", table->stats(), space));
  }

  void bench_hash_graph(TableKind kind, double load, std::span<const double> miss_fractions) {
    BuildOptions options;
    options.load       = load;
    options.unique_ids = false;
    const auto table   = make_table(kind, m_backend, options);
    auto& graph        = dynamic_cast<HashGraph&>(*table);
    ProbeScratch scratch(m_backend);
    const Algo algo = kind == TableKind::HashGraphV1 ? Algo::HashGraphV1 : Algo::HashGraphV2;
    const Timing t = measure([&] { table->build(m_work.build_keys.data(), nullptr, m_work.keys); });
    add(build_result(algo, "build", load, t, "sort_pairs", table->stats(), kNone));
    for (const double f : miss_fractions) {
      generate_queries(f);
      for (const ProbeMethod method : {ProbeMethod::Standard, ProbeMethod::Intersect}) {
        graph.set_probe_method(method);
        add(lookup(
            algo,
            method == ProbeMethod::Standard ? "probe-standard" : "probe-intersect",
            load,
            f,
            [&](const Key* q, std::size_t n, Value* out) { graph.find_async(q, n, out, scratch); },
            false));
      }
    }
  }

  void bench_paged(const BuildOptions& options, bool within, const double (&flat)[3]) {
    const std::size_t base = allocation_stats(m_backend).in_use;
    fold_memory_peaks(m_report, m_backend);  // the run's peaks, before this figure's own
    reset_allocation_peak(m_backend);
    auto table            = make_table(TableKind::PagedCuckoo, m_backend, options);
    auto& paged           = dynamic_cast<PagedCuckooTable&>(*table);
    const double load     = 1.0 / options.cuckoo_space;
    const auto with_paged = [&](Result r, double flat_rate) {
      const PagedStats& s = paged.paged_stats();
      if (!within) {
        const bool up       = r.operation != "insert";
        r.bound             = up ? "h2d_gbs/8" : "d2h_gbs/8";
        r.bound_gkeys       = (up ? m_limits.h2d_gbs : m_limits.d2h_gbs) / 8.0;
        r.fraction_of_bound = r.rate_gkeys / r.bound_gkeys;
      }
      const auto add_extra = [&](const char* name, double v) { r.extra.emplace_back(name, v); };
      add_extra("gpu_budget", static_cast<double>(options.page_budget));
      add_extra("page_capacity", static_cast<double>(options.page_capacity));
      add_extra("pages", static_cast<double>(s.pages));
      add_extra("page_slots", static_cast<double>(s.page_slots));
      add_extra("table_bytes", static_cast<double>(s.pages * s.page_bytes));
      add_extra("gpu_bytes", static_cast<double>(s.backend_bytes));
      add_extra("gpu_peak_bytes",
                static_cast<double>(allocation_stats(m_backend).peak -
                                    std::min(base, allocation_stats(m_backend).peak)));
      add_extra("flat_bytes",
                static_cast<double>(estimate_bytes(TableKind::Cuckoo, m_work.keys, options)));
      add_extra("host_bytes", static_cast<double>(s.host_bytes));
      add_extra("bytes_to_device", static_cast<double>(s.bytes_to_device));
      add_extra("bytes_to_host", static_cast<double>(s.bytes_to_host));
      add_extra("pages_streamed", static_cast<double>(s.pages_streamed));
      add_extra("page_rebuilds", static_cast<double>(s.page_rebuilds));
      add_extra("upload_seconds", s.upload_seconds);
      add_extra("download_seconds", s.download_seconds);
      add_extra("kernel_seconds", s.kernel_seconds);
      add_extra("op_seconds", s.seconds);
      if (!std::isnan(flat_rate)) {
        add_extra("flat_rate_gkeys", flat_rate);
        add_extra("of_flat", r.rate_gkeys / flat_rate);
      }
      add(std::move(r));
    };
    const Timing t = measure([&] { table->build(m_work.build_keys.data(), nullptr, m_work.keys); });
    with_paged(build_result(Algo::PagedCuckoo,
                            "insert",
                            load,
                            t,
                            "exch8_dram",
                            table->stats(),
                            options.cuckoo_space),
               flat[0]);
    for (int miss = 0; miss < 2; ++miss) {
      generate_queries(miss);
      const Timing q = measure([&] {
        table->find_async(m_work.queries.data(), m_work.queries.size(), m_work.out.data());
      });
      Result r       = result(Algo::PagedCuckoo,
                        miss ? "find-miss" : "find-hit",
                        load,
                        q,
                        m_work.queries.size(),
                        "read8_dram");
      r.extra.emplace_back("queries", static_cast<double>(m_work.queries.size()));
      r.extra.emplace_back("miss_fraction", miss);
      with_paged(std::move(r), flat[1 + miss]);
    }
  }

  void bench_sorted(std::span<const double> miss_fractions) {
    const auto sorted = make_sorted_array(m_backend);
    sorted->stage_async(m_work.build_keys.data(), m_work.keys);
    const Timing t = measure([&] { sorted->build_async(); });
    Result r       = result(Algo::SortedArray, "build", kNone, t, m_work.keys, "sort_pairs");
    r.extra.emplace_back("bytes", static_cast<double>(sorted->bytes()));
    add(std::move(r));
    for (const double f : miss_fractions) {
      add(lookup(Algo::SortedArray,
                 f == 0   ? "find-hit"
                 : f == 1 ? "find-miss"
                          : "find",
                 kNone,
                 f,
                 [&](const Key* q, std::size_t n, Value* out) { sorted->find_async(q, n, out); }));
    }
  }

  /// Times find(queries, n, out) with queries holding the given fraction of misses (generated here
  /// unless `generate` is false because the caller already did).
  Result lookup(Algo algo,
                const char* operation,
                double load,
                double miss_fraction,
                const std::function<void(const Key*, std::size_t, Value*)>& find,
                bool generate = true) {
    if (generate) generate_queries(miss_fraction);
    const Timing t =
        measure([&] { find(m_work.queries.data(), m_work.queries.size(), m_work.out.data()); });
    Result r = result(algo, operation, load, t, m_work.queries.size(), "read8_dram");
    r.extra.emplace_back("queries", static_cast<double>(m_work.queries.size()));
    r.extra.emplace_back("miss_fraction", miss_fraction);
    return r;
  }

  Result build_result(Algo algo,
                      const char* operation,
                      double load,
                      const Timing& t,
                      const char* bound,
                      const BuildStats& stats,
                      double space) {
    Result r = result(algo, operation, load, t, m_work.keys, bound);
    if (!std::isnan(space)) r.extra.emplace_back("space", space);
    if (algo == Algo::Cuckoo || algo == Algo::Bcht || algo == Algo::PagedCuckoo) {
      r.extra.emplace_back("attempts", stats.attempts);
      r.extra.emplace_back("longest_chain", stats.longest_chain);
      r.extra.emplace_back("chain_limit", stats.chain_limit);
    }
    if (stats.unique_keys)
      r.extra.emplace_back("unique_keys", static_cast<double>(stats.unique_keys));
    r.extra.emplace_back("slots", static_cast<double>(stats.slots));
    r.extra.emplace_back("bytes", static_cast<double>(stats.bytes));
    return r;
  }

  Result result(Algo algo,
                const char* operation,
                double load,
                const Timing& t,
                std::size_t items,
                const char* bound) const {
    Result r;
    r.suite        = "tables";
    r.sweep        = m_sweep;
    r.algorithm    = algo_name(algo);
    r.operation    = operation;
    r.keys         = m_work.keys;
    r.multiplicity = m_work.multiplicity;
    r.load         = load;
    r.seconds      = t.median;
    r.rate_gkeys   = static_cast<double>(items) / t.median * 1e-9;
    r.set_bound(m_limits, bound);
    r.extra = {{"runs", m_runs}, {"min_seconds", t.min}, {"max_seconds", t.max}};
    return r;
  }

  /// One warm-up, then m_runs timed runs of op; median, fastest and slowest.
  Timing measure(const std::function<void()>& op) {
    op();
    synchronize(m_backend);
    std::vector<double> seconds;
    for (int run = 0; run < m_runs; ++run) {
      m_timer.record(Span::Start);
      op();
      m_timer.record(Span::Stop);
      seconds.push_back(m_timer.elapsed_ms(Span::Start, Span::Stop) * 1e-3);
    }
    std::sort(seconds.begin(), seconds.end());
    const std::size_t mid = seconds.size() / 2;
    const double median =
        seconds.size() % 2 ? seconds[mid] : 0.5 * (seconds[mid - 1] + seconds[mid]);
    return {median, seconds.front(), seconds.back()};
  }

  /// The library's up-front check (require_memory); false, with the reason recorded, when `bytes`
  /// of the backend's memory are not free.
  bool fits(std::size_t bytes, const std::string& what) {
    try {
      require_memory(m_backend, {.backend_bytes = bytes}, what);
      return true;
    } catch (const OutOfMemory& e) {
      skip(e.what());
      return false;
    }
  }

  void skip(const std::string& what, const std::string& why) { skip(what + ": " + why); }

  void skip(const std::string& reason) {
    const std::string line = m_sweep + ": skipped: " + reason;
    std::cerr << "[tables] " << line << std::endl;
    m_report.skipped.push_back(line);
  }

  void add(Result r) {
    m_printer.print(r);
    m_report.results.push_back(std::move(r));
  }

  static std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
  }

  Backend m_backend;
  Sizes m_sizes;
  int m_runs;
  const DeviceLimits& m_limits;
  Report& m_report;
  ResultPrinter& m_printer;
  Timer<Span> m_timer;
  std::string m_sweep;
  Workload m_work;
  int m_workloads = 0;
};

}  // namespace

/// The smallest budget the paged bench can run with: one page and its slot's bookkeeping.
std::size_t smallest_paged_budget(const Options& options) {
  BuildOptions o;
  o.page_capacity = options.page_capacity;
  o.cuckoo_space  = options.page_space;
  return 2 * (paged_page_bytes(o) + 8 * 1024 + 256);
}

int run_tables(const Options& options, Report& report, ResultPrinter& printer) {
  // Before any measurement: a budget under two pages leaves the paged bench nothing to run.
  if (options.paged && options.gpu_budget.bytes() < smallest_paged_budget(options)) {
    throw InvalidInput("bench tables --paged: --gpu-budget " +
                       format_bytes(options.gpu_budget.bytes()) +
                       " holds no page; the paged bench needs at least " +
                       format_bytes(smallest_paged_budget(options)) + " (two pages of " +
                       std::to_string(options.page_capacity) + " pairs)");
  }
  std::cerr << "[tables] measuring device limits" << std::endl;
  report.limits = measure_limits_apart(report, options.backend, options.quick);
  print_limits(std::cout, *report.limits);
  TablesBench bench(options, *report.limits, report, printer);
  if (options.paged) {
    bench.run_paged(options.gpu_budget.bytes(), options.page_capacity, options.page_space);
    return 0;
  }
  if (options.sweeps.empty()) bench.run_default();
  for (const Sweep sweep : options.sweeps)
    bench.run_sweep(sweep);
  return 0;
}

}  // namespace voxhash::bench
