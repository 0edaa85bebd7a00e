// `voxhash bench frame`: the viewer's frame (animate, voxelize, build, probe, flood fill) without a
// window on a scene's two models (by default the demo's sphere and torus over one pass through each
// other), each algorithm's frames timed back to back as the viewer runs them: per-stage median /
// p10 / p90 times, build and probe rates, the last frame's counts, how far the labels can be
// trusted (low-confidence and thin-feature regions, point coverage, with a warning on stderr for a
// cloud too sparse for the grid). The same frames then run again, untimed, for what else they are
// used for: with --all-algos a check that every algorithm gives identical voxels and labels,
// --join an inner join of the two models' point keys each frame (join.hpp), and the sort + unique
// of each frame's keys that the builds are held against (SortedArray::build_set); --export writes
// the last frame as PLY (the library's export_voxels_ply). Memory is checked before anything runs;
// the host's copies of the models are freed once the pipelines hold them; under a GPU budget the
// last frame's paging (FrameStats::paging) is reported; --soak runs frames (every algorithm's,
// with their uses, one frame time after another) for a time and samples the process's memory; a
// model largely outside the grid is warned about; progress of the frames goes to stderr.
#include "bench/suites.hpp"
#include "progress/progress.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/clash.hpp>
#include <voxhash/device_limits.hpp>
#include <voxhash/error.hpp>
#include <voxhash/io.hpp>
#include <voxhash/join.hpp>
#include <voxhash/pipeline.hpp>
#include <voxhash/scene.hpp>
#include <voxhash/sorted_array.hpp>
#include <voxhash/timer.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace voxhash::bench {
namespace {

// The frames sample one pass of the models through each other (6 s of animation at speed 1,
// from touching on one side to touching on the other), so every stage sees light and heavy
// overlap whatever the frame count.
constexpr double kPassSeconds = 6.0;

/// The first and last keyframe time over both models.
std::pair<double, double> keyframe_span(const Scene& scene) {
  double first = INFINITY, last = -INFINITY;
  for (const SceneModel& model : scene.models) {
    if (model.keyframes.empty()) continue;
    first = std::min(first, model.keyframes.front().time);
    last  = std::max(last, model.keyframes.back().time);
  }
  return {first, last};
}

/// The time of frame `f` of `n`: one swing pass, the keyframes' span, or the scene's time.
double frame_time(const Scene& scene, std::uint64_t f, std::uint64_t n) {
  if (scene.motion.kind == MotionKind::Swing) return kPassSeconds * f / n;
  if (scene.motion.kind == MotionKind::None) return scene.time;
  const auto [first, last] = keyframe_span(scene);
  return n > 1 ? first + (last - first) * f / (n - 1) : first;
}

/// The time of a soak's frame `f`: the viewer's clock (1/60 s a frame), swinging through each
/// other or going through the keyframes over and over; a static scene's time.
double soak_time(const Scene& scene, std::uint64_t f) {
  const double clock = f / 60.0;
  if (scene.motion.kind == MotionKind::Swing) return clock;
  if (scene.motion.kind == MotionKind::None) return scene.time;
  const auto [first, last] = keyframe_span(scene);
  return last > first ? first + std::fmod(clock, last - first) : first;
}

/// The q-quantile of `values` (linear between order statistics).
double quantile(std::vector<double> values, double q) {
  if (values.empty()) return kNone;
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto lo    = static_cast<std::size_t>(std::floor(pos));
  const auto hi    = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

template <class F>
std::vector<double> collect(const std::vector<FrameStats>& frames, F field) {
  std::vector<double> values;
  values.reserve(frames.size());
  for (const FrameStats& s : frames)
    values.push_back(static_cast<double>(field(s)));
  return values;
}

struct Stage {
  const char* name;
  double StageTimes::*ms;
};
constexpr std::array kStages{
    Stage{"animate", &StageTimes::animate},
    Stage{"voxelize", &StageTimes::voxelize},
    Stage{"number", &StageTimes::number},
    Stage{"build", &StageTimes::build},
    Stage{"probe", &StageTimes::probe},
    Stage{"flood_fill", &StageTimes::flood_fill},
    Stage{"fill_near", &StageTimes::fill_near},
    Stage{"fill_components", &StageTimes::fill_components},
    Stage{"fill_inside_tests", &StageTimes::inside_tests},
    Stage{"fill_votes", &StageTimes::fill_votes},
    Stage{"total", &StageTimes::total},
};

/// What a model's frames say about its labels: the lowest point coverage of any frame (1 for a
/// mesh) with the points that frame recommends, and the most thin-feature regions.
struct LabelTrust {
  double coverage         = 1.0;
  std::size_t recommended = 0, thin_features = 0;
};

LabelTrust label_trust(const std::vector<FrameStats>& frames, int model) {
  LabelTrust t;
  for (const FrameStats& f : frames) {
    const ModelFrameStats& s = f.model[model];
    if (s.point_coverage < t.coverage) {
      t.coverage    = s.point_coverage;
      t.recommended = s.recommended_points;
    }
    t.thin_features = std::max(t.thin_features, s.thin_feature_regions);
  }
  return t;
}

/// On stderr: a point cloud too sparse for the grid (naming it and the points that would cover
/// it), regions behind walls thinner than the barrier, and an open mesh.
void warn_about_labels(const std::vector<FrameStats>& frames,
                       const std::array<std::string, 2>& names,
                       int resolution) {
  for (int m = 0; m < 2; ++m) {
    const LabelTrust t = label_trust(frames, m);
    if (t.coverage < kMinPointCoverage) {
      std::cerr << "[frame] warning: model " << (m ? 'B' : 'A') << " (" << names[m]
                << ") is a point cloud covering only " << std::fixed << std::setprecision(1)
                << 100 * t.coverage << " % of its surface voxels at " << resolution << "^3 ("
                << 100 * kMinPointCoverage << " % needed): its labels may leak through the gaps; "
                << "it needs about " << t.recommended << " points at this grid, or a mesh"
                << std::defaultfloat << std::setprecision(6) << std::endl;
    }
    if (t.thin_features) {
      std::cerr << "[frame] warning: model " << (m ? 'B' : 'A') << " (" << names[m] << "): up to "
                << t.thin_features << " region(s) per frame reach both sides of a wall of model "
                << (m ? 'A' : 'B') << " thinner than about two voxels; their labels are not "
                << "trustworthy (a finer grid resolves the wall)" << std::endl;
    }
    if (!frames.empty() && frames.back().model[m].open_parts) {
      std::cerr << "[frame] warning: " << open_mesh_warning(frames.back().model[m], m, names[m])
                << std::endl;
    }
  }
}

/// A frame result of `operation` by `algorithm` over the timed frames' times `ms`: the median as
/// its time, the fields every frame result starts with (median, p10, p90, frames, points per
/// model, resolution), and the times themselves in frame order.
Result frame_result(std::string algorithm,
                    std::string operation,
                    const std::vector<double>& ms,
                    std::size_t points,
                    int resolution) {
  Result r;
  r.suite     = "frame";
  r.sweep     = "frame";
  r.algorithm = std::move(algorithm);
  r.operation = std::move(operation);
  r.keys      = 2 * points;
  r.seconds   = quantile(ms, 0.5) * 1e-3;
  r.extra     = {{"median_ms", quantile(ms, 0.5)},
                 {"p10_ms", quantile(ms, 0.1)},
                 {"p90_ms", quantile(ms, 0.9)},
                 {"frames", static_cast<double>(ms.size())},
                 {"points_per_model", static_cast<double>(points)},
                 {"resolution", resolution}};
  r.frame_ms  = ms;
  return r;
}

/// The last frame's tables under the GPU budget (FrameStats::paging) as the total's extra fields.
void add_paging(Result& r, GpuBudget gpu_budget, const FramePaging& paging) {
  for (const auto& [name, value] :
       {std::pair<const char*, double>{"gpu_budget", static_cast<double>(gpu_budget.bytes())},
        {"paged", paging.paged ? 1.0 : 0.0},
        {"pages", static_cast<double>(paging.pages)},
        {"resident_pages", static_cast<double>(paging.resident_pages)},
        {"table_backend_bytes", static_cast<double>(paging.backend_bytes)},
        {"table_host_bytes", static_cast<double>(paging.host_bytes)},
        {"bytes_to_device", static_cast<double>(paging.bytes_to_device)},
        {"bytes_to_host", static_cast<double>(paging.bytes_to_host)}}) {
    r.extra.emplace_back(name, value);
  }
}

/// One line on stdout: what an algorithm's last frame did under the budget.
void print_paging(TableKind algorithm, GpuBudget gpu_budget, const FramePaging& paging) {
  std::cout << "paging (" << to_string(algorithm) << ", last frame, budget "
            << format_bytes(gpu_budget.bytes()) << "): ";
  if (!paging.paged) {
    std::cout << "not paged" << std::endl;
    return;
  }
  std::cout << paging.pages << " pages, " << paging.resident_pages << " resident; tables "
            << format_bytes(paging.backend_bytes) << " of device memory + "
            << format_bytes(paging.host_bytes) << " of pinned host memory; moved "
            << format_bytes(paging.bytes_to_device) << " to the device, "
            << format_bytes(paging.bytes_to_host) << " to the host" << std::endl;
}

/// One result per stage of one algorithm's timed frames; `last` is its last frame, whose counts
/// (and paging under `gpu_budget`) the total reports. Then `host`: the host's wall time in
/// Pipeline::run_frame per timed frame (`host_ms`; with its mean, which the slow frames pull up) —
/// the stages are device times, and frames run back to back come no faster than the host issues
/// them.
void add_results(TableKind algorithm,
                 const std::vector<FrameStats>& frames,
                 const std::vector<double>& host_ms,
                 const FrameStats& last,
                 std::size_t points,
                 int resolution,
                 GpuBudget gpu_budget,
                 const DeviceLimits& limits,
                 Report& report,
                 ResultPrinter& printer) {
  for (const Stage& stage : kStages) {
    const std::vector<double> ms =
        collect(frames, [&](const FrameStats& s) { return s.ms.*(stage.ms); });
    Result r = frame_result(std::string(to_string(algorithm)), stage.name, ms, points, resolution);
    r.extra.emplace_back("key_bits", last.key_bits);
    const std::string_view name = stage.name;
    if (name == "build" || name == "probe") {
      const bool build = name == "build";
      r.rate_gkeys     = quantile(collect(frames,
                                      [&](const FrameStats& s) {
                                        return build ? s.build_keys_per_s : s.probe_keys_per_s;
                                      }),
                              0.5) *
                     1e-9;
      // The frame's tables hold a few million voxels: they live in L2.
      r.set_bound(limits, build ? "exch8_l2" : "read8_l2");
    }
    if (name == "total") {
      r.extra.emplace_back("fps", 1e3 / quantile(ms, 0.5));
      // Frames whose queued table build missed a key and ran again with retrying builds.
      double redone = 0;
      for (const FrameStats& s : frames)
        redone += s.builds_redone;
      r.extra.emplace_back("builds_redone", redone);
      // Counts of the last frame, as integers (a median of counts is no count).
      for (int m = 0; m < 2; ++m) {
        const std::string suffix = m == 0 ? "_a" : "_b";
        const ModelFrameStats& s = last.model[m];
        for (const auto& [name, value] : {std::pair{"voxels", s.voxels},
                                          std::pair{"intersection", s.intersection},
                                          std::pair{"inside", s.inside},
                                          std::pair{"components", s.components},
                                          std::pair{"undecided", s.undecided},
                                          std::pair{"low_confidence", s.low_confidence_regions},
                                          std::pair{"thin_features", s.thin_feature_regions},
                                          std::pair{"outside_grid", s.outside_grid}}) {
          r.extra.emplace_back(name + suffix, static_cast<double>(value));
        }
        const LabelTrust t = label_trust(frames, m);
        r.extra.emplace_back("point_coverage" + suffix, t.coverage);
        r.extra.emplace_back("recommended_points" + suffix, static_cast<double>(t.recommended));
      }
      add_paging(r, gpu_budget, last.paging);
    }
    printer.print(r);
    report.results.push_back(std::move(r));
  }
  if (host_ms.empty()) return;
  Result r   = frame_result(std::string(to_string(algorithm)), "host", host_ms, points, resolution);
  double sum = 0;
  for (const double ms : host_ms)
    sum += ms;
  r.extra.emplace_back("mean_ms", sum / static_cast<double>(host_ms.size()));
  printer.print(r);
  report.results.push_back(std::move(r));
}

/// One frame's join of the models' point keys (--join).
struct JoinSample {
  double ms              = 0;
  std::size_t probe_rows = 0, build_rows = 0;
  std::uint64_t pairs = 0;
};

/// Random 8-byte reads a probe row of a hash join costs at least (its slot or bucket, then its
/// values: the join suite's estimate), and the bytes of one output pair.
constexpr double kJoinProbeReads = 2.0;
constexpr double kJoinPairBytes  = 8.0;

/// The join's two results of one algorithm's timed frames: G probe rows/s and G pairs/s (medians
/// of the frames' rates), the median join time, and the pair and row counts of `last` (the last
/// frame's join). Bounds as the join suite's, from the L2 rates (a frame's tables live in L2).
void add_join_results(TableKind algorithm,
                      const std::vector<JoinSample>& samples,
                      const JoinSample& last,
                      std::size_t points,
                      int resolution,
                      const DeviceLimits& limits,
                      Report& report,
                      ResultPrinter& printer) {
  std::vector<double> ms, rows_rate, pairs_rate;
  for (const JoinSample& s : samples) {
    ms.push_back(s.ms);
    rows_rate.push_back(static_cast<double>(s.probe_rows) / (s.ms * 1e-3) * 1e-9);
    pairs_rate.push_back(static_cast<double>(s.pairs) / (s.ms * 1e-3) * 1e-9);
  }
  const double rows_bound = limits.read8_l2 / kJoinProbeReads;
  const double pairs_per_row =
      last.probe_rows ? static_cast<double>(last.pairs) / last.probe_rows : 0.0;
  const double pairs_bound = std::min(rows_bound * pairs_per_row, limits.copy_gbs / kJoinPairBytes);
  for (const bool pairs : {false, true}) {
    Result r = frame_result(
        std::string(to_string(algorithm)), pairs ? "join-pairs" : "join", ms, points, resolution);
    r.rate_gkeys        = quantile(pairs ? pairs_rate : rows_rate, 0.5);
    r.bound             = !pairs ? "read8_l2/2"
                          : rows_bound * pairs_per_row <= limits.copy_gbs / kJoinPairBytes
                              ? "read8_l2/2*pairs/row"
                              : "copy_gbs/8";
    r.bound_gkeys       = pairs ? pairs_bound : rows_bound;
    r.fraction_of_bound = r.rate_gkeys / r.bound_gkeys;
    r.extra.emplace_back("pairs", static_cast<double>(last.pairs));
    r.extra.emplace_back("probe_rows", static_cast<double>(last.probe_rows));
    r.extra.emplace_back("build_rows", static_cast<double>(last.build_rows));
    printer.print(r);
    report.results.push_back(std::move(r));
  }
}

/// The baseline the frame's build must beat (issue 12): the same keys the tables were built from
/// (Pipeline::keys), radix-sorted and de-duplicated (SortedArray::build_set: CUB on CUDA), both
/// models, timed on the default stream as the tables are. Run after a pipeline's frame, so the
/// keys are that frame's. Gives milliseconds and G keys/s per frame.
class SortUniqueBaseline {
 public:
  explicit SortUniqueBaseline(Backend backend)
      : m_set(make_sorted_array(backend)), m_timer(backend) {}

  std::pair<double, double> run(const Pipeline& pipeline) {
    std::size_t keys = 0;
    m_timer.record(Span::Start);
    for (int m = 0; m < 2; ++m) {
      const std::span<const Key> model_keys = pipeline.keys(m);
      static_cast<void>(m_set->build_set(model_keys.data(), model_keys.size()));
      keys += model_keys.size();
    }
    m_timer.record(Span::Stop);
    const double ms = m_timer.elapsed_ms(Span::Start, Span::Stop);
    return {ms, ms > 0 ? static_cast<double>(keys) / (ms * 1e-3) * 1e-9 : 0.0};
  }

 private:
  enum class Span { Start, Stop, Count };
  std::unique_ptr<SortedArray> m_set;
  Timer<Span> m_timer;
};

/// The baseline's row (medians over the timed frames), and each algorithm's build against it:
/// build_vs_sort_unique_<algorithm> = the baseline's median time / the build's (above 1: the
/// build beats it). The frame's own "number" stage is that sort and unique (its voxel ids are the
/// ranks); "build" is the algorithm's table of the numbered voxels.
void add_baseline_results(const std::vector<std::pair<double, double>>& baseline,
                          const std::vector<std::vector<FrameStats>>& stats,
                          const std::vector<TableKind>& algorithms,
                          std::size_t points,
                          int resolution,
                          Report& report,
                          ResultPrinter& printer) {
  if (baseline.empty()) return;
  std::vector<double> ms, rates;
  for (const auto& [sample_ms, rate] : baseline) {
    ms.push_back(sample_ms);
    rates.push_back(rate);
  }
  Result r     = frame_result("sorted-array", "sort_unique", ms, points, resolution);
  r.rate_gkeys = quantile(rates, 0.5);
  for (std::size_t p = 0; p < algorithms.size(); ++p) {
    const double build =
        quantile(collect(stats[p], [](const FrameStats& s) { return s.ms.build; }), 0.5);
    r.extra.emplace_back("build_vs_sort_unique_" + std::string(to_string(algorithms[p])),
                         build > 0 ? quantile(ms, 0.5) / build : 0.0);
  }
  printer.print(r);
  report.results.push_back(std::move(r));
}

/// --join: the inner join of the two models' point keys of a pipeline's last frame (each point in
/// the grid gives a row: its voxel key, and its index as the value; keys repeat on both sides)
/// through join() on the pipeline's table where the join builds on it, else cuckoo. The keys are
/// worked out on the host from the frame's points and uploaded, outside the timed join.
class PointJoin {
 public:
  PointJoin(Backend backend, TableKind table, std::size_t max_output_bytes)
      : m_backend(backend), m_timer(backend) {
    m_options.kind             = JoinKind::Inner;
    m_options.table            = join_table_for(table);
    m_options.max_output_bytes = max_output_bytes;
  }

  /// Joins the last frame's point keys; throws the join's OutOfMemory (an output too large) or
  /// BuildFailed.
  JoinSample run(const Pipeline& pipeline) {
    std::array<JoinInput, 2> sides;
    for (int m = 0; m < 2; ++m) {
      stage(pipeline, m);
      sides[m] = {m_keys[m].data(), m_values[m].data(), m_keys[m].size()};
    }
    m_timer.record(Span::Start);
    const JoinResult r = join(m_backend, sides[0], sides[1], m_options);
    m_timer.record(Span::Stop);
    const int built = r.built == JoinSide::Left ? 0 : 1;
    return {m_timer.elapsed_ms(Span::Start, Span::Stop),
            sides[1 - built].rows,
            sides[built].rows,
            r.rows};
  }

 private:
  enum class Span { Start, Stop, Count };

  /// Model m's rows: the frame's points copied to the host, each one in the grid as (voxel key,
  /// point index), uploaded.
  void stage(const Pipeline& pipeline, int m) {
    const std::span<const Float3> points = pipeline.points(m);
    m_points.resize(points.size());
    copy_bytes(
        m_points.data(), Backend::Cpu, points.data(), pipeline.backend(), points.size_bytes());
    m_host_keys.clear();
    m_host_values.clear();
    const Grid& grid = pipeline.grid();
    for (std::size_t j = 0; j < m_points.size(); ++j) {
      const Key key = grid.voxelize(m_points[j]);
      if (key == kEmptyKey) continue;
      m_host_keys.push_back(key);
      m_host_values.push_back(static_cast<Value>(j));
    }
    m_keys[m]   = Buffer<Key>::from_host(m_backend, m_host_keys);
    m_values[m] = Buffer<Value>::from_host(m_backend, m_host_values);
  }

  Backend m_backend;
  JoinOptions m_options;
  Timer<Span> m_timer;
  std::vector<Float3> m_points;
  std::vector<Key> m_host_keys;
  std::vector<Value> m_host_values;
  std::array<Buffer<Key>, 2> m_keys{Buffer<Key>(m_backend, 0), Buffer<Key>(m_backend, 0)};
  std::array<Buffer<Value>, 2> m_values{Buffer<Value>(m_backend, 0), Buffer<Value>(m_backend, 0)};
};

/// The largest join output --join asks for: half the backend's free memory once the pipelines
/// hold their frames, and at most 2^31 - 1 rows.
std::size_t point_join_output_limit(Backend backend) {
  return std::min<std::size_t>(free_memory(backend) / 2,
                               std::size_t{0x7FFFFFFF} * static_cast<std::size_t>(kJoinPairBytes));
}

/// Keeps `value` as timed frame `index` in `kept`: appended until it holds `frames`, then a ring
/// (a soak keeps the last `frames`, so its own memory does not grow).
template <class T>
void keep(std::vector<T>& kept, std::uint64_t index, const T& value, int frames) {
  if (kept.size() < static_cast<std::size_t>(frames)) {
    kept.push_back(value);
  } else {
    kept[index % kept.size()] = value;
  }
}

bool same_voxels(const ModelVoxels& a, const ModelVoxels& b) {
  return a.keys == b.keys && a.labels == b.labels;
}

/// Peak resident set of this process: /proc/self/status's VmHWM; 0 where unreadable.
std::size_t host_peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string field;
  while (status >> field) {
    std::size_t kib = 0;
    if (field == "VmHWM:" && status >> kib) return kib * 1024;
  }
  return 0;
}

/// Frees a placed model's points, part ids and mesh once the pipelines hold their own copies (two
/// clouds of 200M points are 4.5 GiB of host memory).
void release_geometry(PointCloud& cloud) {
  cloud.points      = std::vector<Float3>();
  cloud.point_parts = std::vector<std::uint32_t>();
  cloud.mesh        = Mesh{};
}

/// Resident set of this process: /proc/self/statm's second field, in pages; 0 where unreadable.
std::size_t host_rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

std::string signed_bytes(std::int64_t bytes) {
  std::string text(1, bytes < 0 ? '-' : '+');
  text += format_bytes(static_cast<std::size_t>(bytes < 0 ? -bytes : bytes));
  return text;
}

/// A soak run's clock and memory samples: the start, one every `every` seconds, the end.
class SoakMonitor {
 public:
  SoakMonitor(Backend backend, double minutes, double every_s)
      : m_backend(backend),
        m_end(std::chrono::duration<double>(minutes * 60.0)),
        m_every(every_s),
        m_start_free(free_memory(backend)) {
    m_report.minutes = minutes;
    m_report.every_s = every_s;
    sample(0, "start");
    m_next_sample = every_s;
  }

  /// Takes a sample when one is due; false once the soak's time is up.
  bool keep_going(std::uint64_t frames) {
    const double seconds = elapsed();
    if (seconds >= m_next_sample && seconds < m_end.count()) {
      sample(frames, "");
      m_next_sample += m_every;
    }
    return seconds < m_end.count();
  }

  /// The end sample, the summary on stdout; the report's soak part.
  SoakReport finish(std::uint64_t frames) {
    sample(frames, "end");
    const SoakSample& first = m_report.samples.front();
    const SoakSample& last  = m_report.samples.back();
    std::cout << "soak: " << last.seconds / 60.0 << " min, " << last.frames << " frames\n"
              << "  minutes      frames    host RSS   backend used since start   voxhash buffers\n";
    for (const SoakSample& s : m_report.samples) {
      char line[160];
      std::snprintf(line,
                    sizeof line,
                    "  %7.2f %11llu %11s %26s %17s\n",
                    s.seconds / 60.0,
                    static_cast<unsigned long long>(s.frames),
                    format_bytes(s.host_rss).c_str(),
                    signed_bytes(s.backend_used_delta).c_str(),
                    format_bytes(s.buffers_in_use).c_str());
      std::cout << line;
    }
    std::cout << "  growth start to end: host RSS "
              << signed_bytes(static_cast<std::int64_t>(last.host_rss) -
                              static_cast<std::int64_t>(first.host_rss))
              << ", backend " << signed_bytes(last.backend_used_delta - first.backend_used_delta)
              << ", voxhash buffers "
              << signed_bytes(static_cast<std::int64_t>(last.buffers_in_use) -
                              static_cast<std::int64_t>(first.buffers_in_use))
              << std::endl;
    return m_report;
  }

 private:
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  }

  void sample(std::uint64_t frames, const char* what) {
    SoakSample s;
    s.seconds      = elapsed();
    s.frames       = frames;
    s.host_rss     = host_rss_bytes();
    s.backend_free = free_memory(m_backend);
    s.backend_used_delta =
        static_cast<std::int64_t>(m_start_free) - static_cast<std::int64_t>(s.backend_free);
    s.buffers_in_use = allocation_stats(m_backend).in_use;
    m_report.samples.push_back(s);
    std::cerr << "[soak] " << (*what ? std::string(what) + ", " : std::string()) << s.seconds / 60.0
              << " min, " << s.frames << " frames: host RSS " << format_bytes(s.host_rss) << ", "
              << to_string(m_backend) << " memory used " << signed_bytes(s.backend_used_delta)
              << " since the start, voxhash buffers " << format_bytes(s.buffers_in_use)
              << std::endl;
  }

  Backend m_backend;
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
  std::chrono::duration<double> m_end;
  double m_every;
  double m_next_sample = 0;
  std::size_t m_start_free;
  SoakReport m_report;
};

/// Watches the share of each model's points outside the grid; warns once per model.
class OutsideGridWatch {
 public:
  explicit OutsideGridWatch(std::array<std::string, 2> paths) : m_paths(std::move(paths)) {}

  void add(std::uint64_t frame, const FrameStats& stats) {
    ++m_frames;
    for (int m = 0; m < 2; ++m) {
      const double fraction = outside_grid_fraction(stats.model[m]);
      if (fraction <= kOutsideGridWarning) continue;
      Model& model       = m_models[m];
      model.max_fraction = std::max(model.max_fraction, fraction);
      model.points       = stats.model[m].points;
      if (model.frames_over++ > 0) continue;
      char percent[32];
      std::snprintf(percent, sizeof percent, "%.1f %%", fraction * 100);
      model.message = std::string("warning: model ") + kNames[m] + " (" + m_paths[m] +
                      "): " + percent + " of its " + std::to_string(stats.model[m].points) +
                      " points are outside the grid (first in frame " + std::to_string(frame) +
                      ") and are left out";
      std::cerr << "[frame] " << model.message << std::endl;
    }
  }

  void report(Report& report) const {
    for (int m = 0; m < 2; ++m) {
      const Model& model = m_models[m];
      if (model.frames_over == 0) continue;
      report.warnings.push_back({kNames[m],
                                 m_paths[m],
                                 model.points,
                                 model.max_fraction,
                                 model.frames_over,
                                 m_frames,
                                 model.message});
    }
  }

 private:
  static constexpr const char* kNames[2] = {"a", "b"};
  struct Model {
    double max_fraction       = 0;
    std::size_t points        = 0;
    std::uint64_t frames_over = 0;
    std::string message;
  };
  std::array<std::string, 2> m_paths;
  std::array<Model, 2> m_models;
  std::uint64_t m_frames = 0;
};

}  // namespace

int run_frame(const Options& options, Report& report, ResultPrinter& printer) {
  std::vector<TableKind> algorithms{options.algorithm};
  if (options.all_algorithms) {
    algorithms.assign(kTableKinds.begin(), kTableKinds.end());
  }
  const Scene& scene = options.scene;

  // Memory first, before anything is measured, loaded or allocated: every pipeline holds its
  // frame at once; the host holds the two models' points once.
  const auto check_memory = [&](const std::vector<PipelineConfig>& configs,
                                std::array<std::size_t, 2> points) {
    MemoryEstimate need;
    std::string names;
    for (const PipelineConfig& config : configs) {
      need.backend_bytes += estimate_frame_bytes(config, points).backend_bytes;
      names += (names.empty() ? "" : ", ") + std::string(to_string(config.algorithm));
    }
    need.host_bytes = estimate_frame_bytes(configs.front(), points).host_bytes;
    const Int3 r    = configs.front().grid.resolution;
    require_memory(options.backend,
                   need,
                   "bench frame (" + names + ", " +
                       (points[0] == points[1]
                            ? "2 x " + std::to_string(points[0])
                            : std::to_string(points[0]) + " + " + std::to_string(points[1])) +
                       " points, grid " + std::to_string(r.x) + " x " + std::to_string(r.y) +
                       " x " + std::to_string(r.z) + ")");
  };
  OpenSceneOptions opening{.backend      = options.backend,
                           .defaults     = {options.points, options.resolution},
                           .tables       = {.algorithms = algorithms},
                           .check_memory = check_memory};
  if (options.cuckoo_space > 0) opening.tables.cuckoo_space = options.cuckoo_space;
  OpenScene open                             = open_scene(scene, opening);
  LoadedScene& loaded                        = open.loaded;
  const std::vector<PipelineConfig>& configs = open.configs;
  const std::array<std::size_t, 2> points    = loaded.point_counts();
  for (const std::string& warning : loaded.warnings)
    std::cerr << "[frame] warning: " << warning << std::endl;
  for (const std::string& note : loaded.notes)
    std::cout << note << std::endl;
  report.scene_warnings = loaded.warnings;
  report.scene          = scene.file;
  std::cout << "scene " << scene.name << " (" << scene.file << ")";
  for (int m = 0; m < 2; ++m) {
    const PlacedModel& model = loaded.models[m];
    report.models.push_back(
        {model.name, model_files(scene.models[m]), points[m], model.outside_grid});
    std::cout << (m == 0 ? ": A = " : ", B = ") << model.name << " (" << points[m] << " points)";
  }
  std::cout << std::endl;
  report.gpu_budget   = loaded.config.gpu_budget;
  report.cuckoo_space = frame_table_options(configs.front()).cuckoo_space;
  if (options.cuckoo_space > report.cuckoo_space) {
    std::cerr << "[frame] warning: --cuckoo-space " << options.cuckoo_space
              << ": under a GPU budget the tables take at most " << report.cuckoo_space
              << " slots a key" << std::endl;
  }
  if (report.gpu_budget.limited()) {
    std::cout << "gpu budget " << format_bytes(report.gpu_budget.bytes())
              << ": the two models' tables; beyond it they are paged" << std::endl;
  }

  std::vector<std::unique_ptr<Pipeline>> pipelines;
  for (const PipelineConfig& config : configs)
    pipelines.push_back(
        make_scene_pipeline(options.backend, config, loaded, frame_time(scene, 0, 1)));
  for (PlacedModel& model : loaded.models)
    release_geometry(model.cloud);
  const Grid grid             = pipelines.front()->grid();
  const int resolution        = std::max({grid.resolution.x, grid.resolution.y, grid.resolution.z});
  const std::string grid_text = std::to_string(grid.resolution.x) + " x " +
                                std::to_string(grid.resolution.y) + " x " +
                                std::to_string(grid.resolution.z) + " (" +
                                std::to_string(pipelines.front()->key_bits()) + "-bit keys)";

  const bool soak = options.soak_minutes > 0;
  std::vector<std::vector<FrameStats>> stats(pipelines.size());
  std::vector<FrameStats> last(pipelines.size());
  std::vector<std::vector<double>> host_ms(pipelines.size());  // the timed frames' host times
  // --join: one point join per pipeline, dropped (with one line) when its output is too large.
  std::vector<std::optional<PointJoin>> joins(pipelines.size());
  std::vector<std::vector<JoinSample>> join_samples(pipelines.size());
  std::vector<JoinSample> last_join(pipelines.size());
  if (options.join && grid.wide()) {
    // The point join's rows are voxel keys; join() takes 32-bit keys.
    const std::string line =
        "the point join is skipped for this run: the grid's voxel keys are 64-bit and join() "
        "takes 32-bit keys";
    std::cerr << "[frame] " << line << std::endl;
    report.skipped.push_back(line);
  } else if (options.join) {
    const std::size_t limit = point_join_output_limit(options.backend);
    for (std::size_t p = 0; p < pipelines.size(); ++p)
      joins[p].emplace(options.backend, algorithms[p], limit);
  }
  SortUniqueBaseline baseline(options.backend);
  std::vector<std::pair<double, double>> baseline_samples;  // ms, G keys/s
  OutsideGridWatch outside({model_files(scene.models[0]), model_files(scene.models[1])});
  std::uint64_t differing_frames = 0;
  if (soak) {
    std::cerr << "[frame] soak: " << options.warmup << " warm-up frames, then frames for "
              << options.soak_minutes << " min, grid " << grid_text << std::endl;
  } else {
    std::cerr << "[frame] " << options.warmup << " warm-up + " << options.frames << " frames, grid "
              << grid_text << std::endl;
  }
  // Frame f of pipeline p (f counts from the first warm-up frame), posed at `time`.
  const auto frame_of = [&](std::size_t p, std::uint64_t f, double time) {
    try {
      pose_scene(*pipelines[p], scene, time);
      return pipelines[p]->run_frame(time, {.write_instances = false});
    } catch (const OutOfMemory& e) {
      throw OutOfMemory("frame " + std::to_string(f) + " (" +
                        std::string(to_string(algorithms[p])) + "): " + e.what());
    }
  };
  const auto timed = [&](std::uint64_t f) {
    return f >= static_cast<std::uint64_t>(options.warmup);
  };
  // --clash: each frame's clash report, timed on the host (it reads its results back).
  std::vector<std::vector<double>> clash_ms(pipelines.size());
  std::vector<std::size_t> last_clashes(pipelines.size());
  std::vector<std::vector<ClashTimes>> clash_stages(pipelines.size());
  // What else pipeline p's frame f is used for, each timed by its own clock: the sort + unique
  // baseline of pipeline 0's keys (32-bit keys: SortedArray; none on a wide grid), the point
  // join, and with --all-algos the check against pipeline 0's voxels and labels (`reference`).
  const bool baseline_runs = pipelines[0]->key_bits() == 32;
  const auto use_frame     = [&](std::size_t p,
                             std::uint64_t f,
                             std::array<ModelVoxels, 2>& reference) {
    if (timed(f) && p == 0 && baseline_runs) {
      keep(baseline_samples, f - options.warmup, baseline.run(*pipelines[0]), options.frames);
    }
    if (joins[p]) {
      const auto skip_join = [&](const Error& e) {
        const std::string line = "frame " + std::to_string(f) + " (" +
                                 std::string(to_string(algorithms[p])) +
                                 "): the point join is skipped for this run: " + e.what();
        std::cerr << "[frame] " << line << std::endl;
        report.skipped.push_back(line);
        joins[p].reset();
        join_samples[p].clear();
      };
      try {
        last_join[p] = joins[p]->run(*pipelines[p]);
        if (timed(f)) keep(join_samples[p], f - options.warmup, last_join[p], options.frames);
      } catch (const OutOfMemory& e) {
        skip_join(e);
      } catch (const BuildFailed& e) {
        skip_join(e);
      }
    }
    if (options.clash) {
      const auto start                                   = std::chrono::steady_clock::now();
      const ClashReport clashes                          = compute_clash_report(*pipelines[p]);
      const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
      if (timed(f)) keep(clash_ms[p], f - options.warmup, ms.count(), options.frames);
      last_clashes[p] = clashes.clashes.size();
      if (timed(f)) clash_stages[p].push_back(clashes.ms);
    }
    if (!options.all_algorithms) return;
    for (int m = 0; m < 2; ++m) {
      ModelVoxels voxels = pipelines[p]->download(m);
      if (p == 0) {
        reference[m] = std::move(voxels);
      } else if (!same_voxels(voxels, reference[m])) {
        if (differing_frames == 0) {
          std::cerr << "[frame] frame " << f << ": " << to_string(algorithms[p]) << " model " << m
                    << " has " << voxels.keys.size() << " voxels, " << to_string(algorithms[0])
                    << " " << reference[m].keys.size() << "; keys or labels differ" << std::endl;
        }
        ++differing_frames;
      }
    }
  };
  // Keeps pipeline p's frame f as its last and, past the warm-up, among its timed frames.
  const auto keep_frame = [&](std::size_t p, std::uint64_t f, const FrameStats& s) {
    if (p == 0) outside.add(f, s);
    last[p] = s;
    if (timed(f)) keep(stats[p], f - options.warmup, s, options.frames);
  };
  const bool frames_have_uses =
      baseline_runs || options.all_algorithms || options.clash ||
      std::any_of(joins.begin(), joins.end(), [](const auto& j) { return j.has_value(); });
  if (soak) {
    // A soak is about memory: every pipeline's frame and its uses, one frame time after another.
    const auto run_one = [&](std::uint64_t f, double time) {
      std::array<ModelVoxels, 2> reference;
      for (std::size_t p = 0; p < pipelines.size(); ++p) {
        keep_frame(p, f, frame_of(p, f, time));
        use_frame(p, f, reference);
      }
    };
    std::uint64_t f = 0;
    for (; f < static_cast<std::uint64_t>(options.warmup); ++f)
      run_one(f, soak_time(scene, f));
    SoakMonitor monitor(options.backend, options.soak_minutes, options.soak_every_s);
    while (monitor.keep_going(f - options.warmup)) {
      run_one(f, soak_time(scene, f));
      ++f;
    }
    report.soak = monitor.finish(f - options.warmup);
  } else {
    // Each pipeline's frames back to back, as the viewer runs them: a frame interleaved with other
    // pipelines' frames, the baseline, the join and the downloads starts on idle streams, with
    // sleeping lane threads and other data in L2, and measured slower at both sizes. Then the same
    // frames again, untimed, for their uses.
    const auto total  = static_cast<std::uint64_t>(options.warmup + options.frames);
    const auto passes = pipelines.size() + (frames_have_uses ? 1 : 0);
    Progress progress("[frame] frames", total * passes);
    std::uint64_t done = 0;
    for (std::size_t p = 0; p < pipelines.size(); ++p) {
      for (std::uint64_t f = 0; f < total; ++f) {
        const auto start   = std::chrono::steady_clock::now();
        const FrameStats s = frame_of(p, f, frame_time(scene, f, total));
        const std::chrono::duration<double, std::milli> host =
            std::chrono::steady_clock::now() - start;
        if (timed(f)) keep(host_ms[p], f - options.warmup, host.count(), options.frames);
        keep_frame(p, f, s);
        progress.update(++done);
      }
    }
    if (frames_have_uses) {
      for (std::uint64_t f = 0; f < total; ++f) {
        std::array<ModelVoxels, 2> reference;
        for (std::size_t p = 0; p < pipelines.size(); ++p) {
          frame_of(p, f, frame_time(scene, f, total));
          use_frame(p, f, reference);
        }
        progress.update(++done);
      }
    }
    progress.finish();
  }
  outside.report(report);

  if (!stats.empty() && !stats.front().empty()) {
    warn_about_labels(stats.front(),
                      {loaded.models[0].name + " (" + loaded.models[0].cloud.source + ")",
                       loaded.models[1].name + " (" + loaded.models[1].cloud.source + ")"},
                      resolution);
  }
  if (!options.export_path.empty()) {
    const Pipeline& pipeline                = *pipelines.front();
    const std::array<ModelVoxels, 2> models = {pipeline.download(0), pipeline.download(1)};
    export_voxels_ply(options.export_path, pipeline.config().grid, models);
    std::cerr << "[frame] wrote " << options.export_path << ": "
              << models[0].keys.size() + models[1].keys.size() << " voxels of the last frame ("
              << to_string(algorithms.front()) << ")" << std::endl;
  }
  pipelines.clear();  // the limits are measured on a device as empty as it was at the start
  report.host_peak_rss = host_peak_rss_bytes();
  std::cout << "host peak resident set " << format_bytes(report.host_peak_rss) << std::endl;

  std::cerr << "[frame] measuring device limits" << std::endl;
  report.limits = measure_limits_apart(report, options.backend, options.quick);
  print_limits(std::cout, *report.limits);
  for (std::size_t p = 0; p < algorithms.size(); ++p) {
    add_results(algorithms[p],
                stats[p],
                host_ms[p],
                last[p],
                std::max(points[0], points[1]),
                resolution,
                report.gpu_budget,
                *report.limits,
                report,
                printer);
    if (!clash_ms[p].empty()) {
      Result r = frame_result(std::string(to_string(algorithms[p])),
                              "clash",
                              clash_ms[p],
                              std::max(points[0], points[1]),
                              resolution);
      r.extra.emplace_back("clashes", static_cast<double>(last_clashes[p]));
      for (const auto& [name, stage] : {std::pair{"regions_ms", &ClashTimes::regions},
                                        {"solids_ms", &ClashTimes::solids},
                                        {"overlaps_ms", &ClashTimes::overlaps},
                                        {"depths_ms", &ClashTimes::depths},
                                        {"gaps_ms", &ClashTimes::gaps}}) {
        std::vector<double> ms;
        for (const ClashTimes& t : clash_stages[p])
          ms.push_back(t.*stage);
        r.extra.emplace_back(name, quantile(ms, 0.5));
      }
      printer.print(r);
      report.results.push_back(std::move(r));
    }
    if (joins[p] && !join_samples[p].empty()) {
      add_join_results(algorithms[p],
                       join_samples[p],
                       last_join[p],
                       std::max(points[0], points[1]),
                       resolution,
                       *report.limits,
                       report,
                       printer);
    }
  }
  if (report.gpu_budget.limited()) {
    for (std::size_t p = 0; p < algorithms.size(); ++p)
      print_paging(algorithms[p], report.gpu_budget, last[p].paging);
  }
  add_baseline_results(baseline_samples,
                       stats,
                       algorithms,
                       std::max(points[0], points[1]),
                       resolution,
                       report,
                       printer);
  if (!options.all_algorithms) return 0;
  report.outputs_identical = differing_frames == 0;
  if (differing_frames) {
    std::cerr << "[frame] outputs differ between algorithms in " << differing_frames
              << " model-frames" << std::endl;
    return 1;
  }
  std::cerr << "[frame] all algorithms gave identical voxels and labels on every frame"
            << std::endl;
  return 0;
}

}  // namespace voxhash::bench
