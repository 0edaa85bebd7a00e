// `voxhash bench join`: the hash join paper's experiment (a left join of a probe side eight times
// the build side, 2^20..2^28 probe rows; quick 2^14..2^18) and inner joins of equal sides (2^26
// rows; quick 2^16) with average multiplicity 1, 4 and 32 on each side, on every table and the
// sort-merge baseline, in G probe rows/s and G output pairs/s, each against a bound derived from
// the device limits of the same run. With --gpu-budget the hash joins whose build table exceeds
// it run over pages, reported with their pages, bytes moved each way and the pinned-copy bound;
// every join's first call (which pins the host pages) is reported apart from the timed runs.
#include "bench/suites.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>
#include <voxhash/gpu_budget.hpp>
#include <voxhash/join.hpp>
#include <voxhash/keys.hpp>
#include <voxhash/pinned_pool.hpp>
#include <voxhash/timer.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace voxhash::bench {
namespace {

struct Method {
  JoinAlgorithm algorithm = JoinAlgorithm::Hash;
  TableKind table         = TableKind::Cuckoo;
};
/// A hash join on each frame algorithm's table (kTableKinds), then the sort-merge join.
constexpr auto kMethods = [] {
  std::array<Method, kTableKinds.size() + 1> methods{};
  for (std::size_t i = 0; i < kTableKinds.size(); ++i)
    methods[i] = {JoinAlgorithm::Hash, kTableKinds[i]};
  methods.back() = {JoinAlgorithm::SortMerge, TableKind::Cuckoo};
  return methods;
}();

std::string method_name(const Method& m) {
  return m.algorithm == JoinAlgorithm::SortMerge ? "sort-merge" : std::string(to_string(m.table));
}

constexpr int kBuildRatio          = 8;    // paper experiment: probe rows per build row
constexpr double kPaperMisses      = 0.5;  // paper experiment: probe rows without a match
constexpr std::array kMultiplicity = {1, 4, 32};

/// Random 8-byte reads a hash-join probe row costs at least (the estimate: its slot or
/// bucket, then its values).
constexpr double kProbeReads = 2.0;
constexpr double kPairBytes  = 8.0;  // one output pair: two 4-byte values written

enum class Span { Start, Stop, Count };

/// One join's timings: the first call, then the timed runs (the steady state).
struct Runs {
  double first_seconds = 0;
  PagedJoinStats first;  // the first call's pages (pin_ms: pinning the host pages)
  double median = 0, fastest = 0, slowest = 0;
  double build_ms = 0, probe_ms = 0;  // means over the timed runs
  PagedJoinStats steady;              // the timed runs': partition_ms, pin_ms, upload_ms means,
                                      // bytes_pinned summed
};

/// One join's inputs in the backend's memory.
struct Sides {
  Buffer<Key> left, right;
  std::size_t left_rows = 0, right_rows = 0;
  double multiplicity = 1;
};

class JoinBench {
 public:
  JoinBench(const Options& options, const DeviceLimits& limits, Report& report, ResultPrinter& p)
      : m_backend(options.backend),
        m_quick(options.quick),
        m_runs(options.runs    ? options.runs
               : options.quick ? 3
                               : 5),
        m_gpu_budget(options.gpu_budget),
        m_limits(limits),
        m_report(report),
        m_printer(p),
        m_timer(options.backend) {}

  /// The paper's experiment: left joins, the probe (left) side 8x the unique-key build side.
  void run_paper() {
    m_sweep = "paper";
    // Every power of two on the full run (the target is 2^27 probe rows x 2^24 build rows).
    for (int b = m_quick ? 14 : 20; b <= (m_quick ? 18 : 28); b += m_quick ? 2 : 1) {
      const std::size_t probe = std::size_t{1} << b;
      const std::size_t build = probe / kBuildRatio;
      const std::string what = "left join " + std::to_string(probe) + " x " + std::to_string(build);
      if (!make_sides(probe, build, build, kPaperMisses, 1, what)) continue;
      for (const Method& m : kMethods)
        bench(m, JoinKind::Left, what);
    }
  }

  /// Inner joins of two equal sides, each key repeated `m` times on each side (n * m pairs).
  void run_multiplicity() {
    m_sweep             = "multiplicity";
    const std::size_t n = std::size_t{1} << (m_quick ? 16 : 26);
    for (const int mult : kMultiplicity) {
      const std::string what = "inner join " + std::to_string(n) + " x " + std::to_string(n) +
                               ", multiplicity " + std::to_string(mult);
      if (!make_sides(n, n, n / mult, 0.0, mult, what)) continue;
      for (const Method& m : kMethods)
        bench(m, JoinKind::Inner, what);
    }
  }

 private:
  /// Left (probe) rows drawn from `distinct` keys with `misses` of them absent on the right; right
  /// rows drawn from the same keys.
  bool make_sides(std::size_t left,
                  std::size_t right,
                  std::size_t distinct,
                  double misses,
                  double multiplicity,
                  const std::string& what) {
    m_sides = Sides{};
    try {
      const auto universe  = 0x10140000u + static_cast<std::uint32_t>(++m_workloads);
      m_sides.left         = Buffer<Key>(m_backend, left);
      m_sides.right        = Buffer<Key>(m_backend, right);
      m_sides.left_rows    = left;
      m_sides.right_rows   = right;
      m_sides.multiplicity = multiplicity;
      generate_keys(m_backend, m_sides.left.data(), left, KeySpec{universe, 1, distinct, misses});
      generate_keys(m_backend, m_sides.right.data(), right, KeySpec{universe, 2, distinct, 0.0});
      synchronize(m_backend);
    } catch (const OutOfMemory& e) {
      m_sides = Sides{};
      skip(what, e.what());
      return false;
    }
    return true;
  }

  void bench(const Method& m, JoinKind kind, const std::string& what) {
    JoinOptions o;
    o.kind       = kind;
    o.algorithm  = m.algorithm;
    o.table      = m.table;
    o.gpu_budget = m_gpu_budget;
    const JoinInput left{m_sides.left.data(), nullptr, m_sides.left_rows};
    const JoinInput right{m_sides.right.data(), nullptr, m_sides.right_rows};
    std::cerr << "[join] " << m_sweep << ": " << method_name(m) << ", " << what << std::endl;
    try {
      // The first call (also the warm-up) pins its host pages as a program's first join does; the
      // timed runs after it reuse them from the pool (the steady state).
      default_pinned_pool().release();
      Runs runs;
      m_timer.record(Span::Start);
      JoinResult r = join(m_backend, left, right, o);
      m_timer.record(Span::Stop);
      runs.first_seconds = m_timer.elapsed_ms(Span::Start, Span::Stop) * 1e-3;
      runs.first         = r.paged;
      std::vector<double> seconds;
      for (int run = 0; run < m_runs; ++run) {
        r = JoinResult{};  // frees the last output outside the timed span
        m_timer.record(Span::Start);
        r = join(m_backend, left, right, o);
        m_timer.record(Span::Stop);
        seconds.push_back(m_timer.elapsed_ms(Span::Start, Span::Stop) * 1e-3);
        runs.build_ms += r.build_ms / m_runs;
        runs.probe_ms += r.probe_ms / m_runs;
        runs.steady.partition_ms += r.paged.partition_ms / m_runs;
        runs.steady.pin_ms += r.paged.pin_ms / m_runs;
        runs.steady.upload_ms += r.paged.upload_ms / m_runs;
        runs.steady.bytes_pinned += r.paged.bytes_pinned;
      }
      std::sort(seconds.begin(), seconds.end());
      runs.median  = seconds.size() % 2
                         ? seconds[seconds.size() / 2]
                         : 0.5 * (seconds[seconds.size() / 2 - 1] + seconds[seconds.size() / 2]);
      runs.fastest = seconds.front();
      runs.slowest = seconds.back();
      if (r.paged.pages != 0) {
        std::ostringstream line;
        line << std::fixed << std::setprecision(3) << "[join]   over " << r.paged.pages
             << " pages: first call " << runs.first_seconds * 1e3 << " ms (pinning "
             << runs.first.pin_ms << " ms), then " << runs.median * 1e3 << " ms (median; pinning "
             << runs.steady.pin_ms << " ms)";
        std::cerr << line.str() << std::endl;
      }
      add_results(m, kind, r, runs);
    } catch (const OutOfMemory& e) {
      skip(method_name(m) + " " + what, e.what());
    } catch (const BuildFailed& e) {
      skip(method_name(m) + " " + what, e.what());
    }
  }

  /// Two results: probe rows per second, and output pairs per second. Bounds: a hash join reads
  /// kProbeReads random sectors per probe row (read8_dram / 2); the sort-merge join sorts both
  /// sides (sort_pairs, shared by all rows); output pairs are bounded by the probe rows' bound
  /// times the pairs per probe row, and by writing 8 bytes each at the copy bandwidth.
  void add_results(const Method& m, JoinKind kind, const JoinResult& r, const Runs& runs) {
    const auto probe_rows =
        static_cast<double>(r.built == JoinSide::Right ? m_sides.left_rows : m_sides.right_rows);
    const auto all_rows        = static_cast<double>(m_sides.left_rows + m_sides.right_rows);
    const bool sort_merge      = m.algorithm == JoinAlgorithm::SortMerge;
    const double rows_bound    = sort_merge ? m_limits.sort_pairs * probe_rows / all_rows
                                            : m_limits.read8_dram / kProbeReads;
    const double pairs_per_row = static_cast<double>(r.rows) / probe_rows;
    const double pairs_bound = std::min(rows_bound * pairs_per_row, m_limits.copy_gbs / kPairBytes);

    const std::string operation = std::string(to_string(kind)) + "-join";
    Result rows                 = result(m, operation, runs.median, probe_rows);
    rows.bound                  = sort_merge ? "sort_pairs*probe/all" : "read8_dram/2";
    rows.bound_gkeys            = rows_bound;
    rows.fraction_of_bound      = rows.rate_gkeys / rows_bound;
    Result pairs      = result(m, operation + "-pairs", runs.median, static_cast<double>(r.rows));
    pairs.bound       = rows_bound * pairs_per_row <= m_limits.copy_gbs / kPairBytes
                            ? rows.bound + "*pairs/row"
                            : "copy_gbs/8";
    pairs.bound_gkeys = pairs_bound;
    pairs.fraction_of_bound = pairs.rate_gkeys / pairs_bound;
    for (Result* x : {&rows, &pairs}) {
      const double items = x == &rows ? probe_rows : static_cast<double>(r.rows);
      x->extra           = {{"runs", m_runs},
                            {"min_seconds", runs.fastest},
                            {"max_seconds", runs.slowest},
                            {"first_seconds", runs.first_seconds},
                            {"first_gkeys", items / runs.first_seconds * 1e-9},
                            {"probe_rows", probe_rows},
                            {"build_rows", all_rows - probe_rows},
                            {"output_rows", static_cast<double>(r.rows)},
                            {"build_ms", runs.build_ms},
                            {"probe_ms", runs.probe_ms}};
      if (!sort_merge) x->extra.emplace_back("table_bytes", static_cast<double>(r.table.bytes));
      if (!sort_merge && m_gpu_budget.limited()) add_paged(*x, r.paged, runs, items);
      add(std::move(*x));
    }
  }

  /// A join under --gpu-budget: its pages and bytes moved, the time its partition and the pinning
  /// of its host pages took in the timed runs and in the first call (the runs reuse the first
  /// call's pinned memory), and the bound the pinned copies of the same run put on it (the build
  /// pages' download, then their uploads: `items` (probe rows or pairs) in no less time than both
  /// take at the measured h2d / d2h rates), which replaces the result's bound where it is lower.
  void add_paged(Result& x, const PagedJoinStats& p, const Runs& runs, double items) const {
    const auto moved    = static_cast<double>(p.bytes_to_host + p.bytes_to_device);
    const double copy_s = static_cast<double>(p.bytes_to_host) / (m_limits.d2h_gbs * 1e9) +
                          static_cast<double>(p.bytes_to_device) / (m_limits.h2d_gbs * 1e9);
    const double copy_bound = moved > 0 ? items / copy_s * 1e-9 : kNone;
    x.extra.insert(x.extra.end(),
                   {{"gpu_budget", static_cast<double>(m_gpu_budget.bytes())},
                    {"pages", static_cast<double>(p.pages)},
                    {"partitions", static_cast<double>(p.partitions)},
                    {"bytes_to_host", static_cast<double>(p.bytes_to_host)},
                    {"bytes_to_device", static_cast<double>(p.bytes_to_device)},
                    {"copy_bound_gkeys", copy_bound},
                    {"partition_ms", runs.steady.partition_ms},
                    {"pin_ms", runs.steady.pin_ms},
                    {"upload_ms", runs.steady.upload_ms},
                    {"bytes_pinned", static_cast<double>(runs.steady.bytes_pinned)},
                    {"first_partition_ms", runs.first.partition_ms},
                    {"first_pin_ms", runs.first.pin_ms},
                    {"first_bytes_pinned", static_cast<double>(runs.first.bytes_pinned)},
                    {"page_rebuilds", static_cast<double>(p.page_rebuilds)},
                    {"output_grows", static_cast<double>(p.output_grows)}});
    if (moved > 0 && copy_bound < x.bound_gkeys) {
      x.bound             = "pinned_copies";
      x.bound_gkeys       = copy_bound;
      x.fraction_of_bound = x.rate_gkeys / copy_bound;
    }
  }

  Result result(const Method& m, const std::string& operation, double seconds, double items) const {
    Result r;
    r.suite        = "join";
    r.sweep        = m_sweep;
    r.algorithm    = method_name(m);
    r.operation    = operation;
    r.keys         = m_sides.left_rows;
    r.multiplicity = m_sides.multiplicity;
    r.seconds      = seconds;
    r.rate_gkeys   = items / seconds * 1e-9;
    return r;
  }

  void skip(const std::string& what, const std::string& why) {
    const std::string line = m_sweep + ": " + what + ": skipped: " + why;
    std::cerr << "[join] " << line << std::endl;
    m_report.skipped.push_back(line);
  }

  void add(Result r) {
    m_printer.print(r);
    m_report.results.push_back(std::move(r));
  }

  Backend m_backend;
  bool m_quick;
  int m_runs;
  GpuBudget m_gpu_budget{};  // JoinOptions::gpu_budget of the hash joins
  const DeviceLimits& m_limits;
  Report& m_report;
  ResultPrinter& m_printer;
  Timer<Span> m_timer;
  std::string m_sweep;
  Sides m_sides;
  int m_workloads = 0;
};

}  // namespace

int run_join(const Options& options, Report& report, ResultPrinter& printer) {
  std::cerr << "[join] measuring device limits" << std::endl;
  report.limits = measure_limits_apart(report, options.backend, options.quick);
  print_limits(std::cout, *report.limits);
  JoinBench bench(options, *report.limits, report, printer);
  bench.run_paper();
  bench.run_multiplicity();
  return 0;
}

}  // namespace voxhash::bench
