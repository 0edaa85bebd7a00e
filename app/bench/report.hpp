// What `voxhash bench` produces: one Result per measured figure, the run's Report (device, build,
// limits, results, skipped sizes, warnings, a soak's memory samples) and its three forms: JSON
// (schema voxhash-bench/1, described in docs/BENCH_SCHEMA.md), CSV (one row per result) and a
// readable table on stdout.
#pragma once

#include <voxhash/buffer.hpp>
#include <voxhash/device_limits.hpp>
#include <voxhash/gpu_budget.hpp>

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace voxhash::bench {

/// Marks a numeric field that does not apply (null in JSON, empty in CSV).
inline constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

struct Result {
  std::string suite;            // "tables" or "frame"
  std::string sweep;            // tables: "default", "load", "multiplicity", "size", "misses"
  std::string algorithm;        // cuckoo, hashgraph-v1, hashgraph-v2, sorted-array
  std::string operation;        // insert, build, find-hit, find-miss, find, probe-standard, ...
  std::uint64_t keys  = 0;      // keys in the table (frame: points of both models)
  double multiplicity = kNone;  // average copies of each key in the build input
  double load         = kNone;  // keys per slot (cuckoo 1/space) or per vertex (HashGraph)
  double seconds      = kNone;  // median of the timed runs
  double rate_gkeys   = kNone;  // G keys (or queries) per second at the median
  std::string bound;            // the DeviceLimits field the rate is held against; "" for none
  double bound_gkeys       = kNone;
  double fraction_of_bound = kNone;
  std::vector<std::pair<std::string, double>> extra;  // further numeric fields, by name
  std::vector<double> frame_ms;  // frame total and host: each timed frame's time in order (JSON)

  /// Sets bound, bound_gkeys and fraction_of_bound from the limits field named `name`.
  void set_bound(const DeviceLimits& limits, std::string_view name);
};

/// A model of a frame run: its name (scene name or file stem), file and points.
struct ModelEntry {
  std::string name, path;
  std::size_t points       = 0;
  std::size_t outside_grid = 0;  // points outside the grid where the scene places the model
};

/// frame: a model with more than kOutsideGridWarning of its points outside the grid in some frame.
struct OutsideGridWarning {
  std::string model;              // "a" or "b"
  std::string path;               // the model's file, or what was generated
  std::size_t points        = 0;  // the model's points
  double max_fraction       = 0;  // the largest share of them outside the grid in one frame
  std::uint64_t frames_over = 0;  // frames with more than kOutsideGridWarning outside
  std::uint64_t frames      = 0;  // frames run
  std::string message;            // the line printed on stderr
};

/// frame --soak: memory at one moment of the run.
struct SoakSample {
  double seconds                  = 0;  // since the soak's start (after the warm-up frames)
  std::uint64_t frames            = 0;  // frames run since the start
  std::size_t host_rss            = 0;  // resident set of the process (/proc/self/statm)
  std::size_t backend_free        = 0;  // free_memory(backend)
  std::int64_t backend_used_delta = 0;  // free memory at the start minus now: memory taken since
  std::size_t buffers_in_use      = 0;  // bytes voxhash's Buffers hold (allocation_stats)
};

struct SoakReport {
  double minutes = 0, every_s = 0;  // as asked for
  std::vector<SoakSample> samples;  // start, every every_s seconds, end
};

struct Report {
  std::string device, backend, driver, git_commit, command_line, date;
  std::optional<DeviceLimits> limits;
  std::vector<Result> results;
  std::vector<std::string> skipped;       // one line per size or configuration not run, and why
  std::optional<bool> outputs_identical;  // frame --all-algos: every algorithm's output matched
  std::string scene;                      // frame: the scene file ("command line" without one)
  std::vector<ModelEntry> models;         // frame: the two models, A first
  GpuBudget gpu_budget{};                 // frame: PipelineConfig::gpu_budget
  double cuckoo_space       = 0;  // frame: the cuckoo and bucketed cuckoo tables' slots per key
  std::size_t host_peak_rss = 0;  // frame: the process's peak resident set (VmHWM; 0: unknown)
  std::vector<std::string> scene_warnings;  // frame: the scene's, as loading printed them
  std::vector<OutsideGridWarning> warnings;
  std::optional<SoakReport> soak;
  MemoryPeaks memory{};  // the run's peaks (fold_memory_peaks), every command
};

/// Folds the peaks measured since the last reset_memory_peaks into report.memory (each the larger);
/// called before a suite resets a peak for its own figure, and at the end of the run.
void fold_memory_peaks(Report& report, Backend backend);

/// measure_device_limits, its buffers left out of the run's peaks: the peaks so far are folded into
/// report.memory first and restarted after (bench limits, whose work the limits are, calls
/// measure_device_limits itself).
[[nodiscard]] DeviceLimits measure_limits_apart(Report& report, Backend backend, bool quick);

/// The DeviceLimits fields by name, in the order JSON and the printed table list them.
struct LimitField {
  std::string_view name;
  double DeviceLimits::*member;
  std::string_view unit;
  std::string_view what;
};
[[nodiscard]] std::span<const LimitField> limit_fields();

/// Writes the report; throws Error if the file cannot be written.
void write_json(const Report& report, const std::string& path);
void write_csv(const Report& report, const std::string& path);

void print_limits(std::ostream& out, const DeviceLimits& limits);

/// Prints results as rows of a table, the header before the first row.
class ResultPrinter {
 public:
  explicit ResultPrinter(std::ostream& out) : m_out(out) {}
  void print(const Result& result);

 private:
  std::ostream& m_out;
  bool m_header_done = false;
};

}  // namespace voxhash::bench
