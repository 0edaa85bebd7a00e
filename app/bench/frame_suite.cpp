// `voxhash bench frame`: the viewer's frame (animate, voxelize, build, probe, flood fill) without a
// window on two models (sphere and torus) over one pass through each other: per-stage median / p10
// / p90 times, build and probe rates, with --all-algos a check that every algorithm gives identical
// voxels and labels, --export the last frame as PLY (the library's export_voxels_ply). Memory is
// checked before anything runs; --soak runs frames for a time and samples the process's memory; a
// model largely outside the grid is warned about.
#include "bench/suites.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/device_limits.hpp>
#include <voxhash/error.hpp>
#include <voxhash/io.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <numbers>
#include <random>
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

/// n points uniform on the unit sphere (the shape of assets/sphere.obj).
std::vector<Float3> sphere_points(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<Float3> points(n);
  for (Float3& p : points) {
    float x = 0, y = 0, z = 0, r = 0;
    while (r < 1e-6f) {
      x = normal(rng), y = normal(rng), z = normal(rng);
      r = std::sqrt(x * x + y * y + z * z);
    }
    p = {x / r, y / r, z / r};
  }
  return points;
}

/// n points uniform by area on a torus around the z axis, major radius 0.7, minor 0.3 (the shape
/// of assets/torus.obj): angles drawn uniformly, kept with probability proportional to the area.
std::vector<Float3> torus_points(std::size_t n, std::uint64_t seed) {
  constexpr float kMajor = 0.7f, kMinor = 0.3f;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> angle(0.0f, 2.0f * std::numbers::pi_v<float>);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<Float3> points;
  points.reserve(n);
  while (points.size() < n) {
    const float u = angle(rng), v = angle(rng);
    const float ring = kMajor + kMinor * std::cos(v);
    if (unit(rng) * (kMajor + kMinor) > ring) continue;
    points.push_back({ring * std::cos(u), ring * std::sin(u), kMinor * std::sin(v)});
  }
  return points;
}

/// The model: from `path` if given, else from the default asset (under the source directory, or
/// the current one when the binary runs away from its checkout), else generated points. A mesh
/// keeps its triangles (PointCloud::mesh).
PointCloud model_points(
    const std::string& path, const char* asset, bool torus, std::size_t n, std::uint64_t seed) {
  if (!path.empty()) return load_point_cloud(path, n, seed);
  for (const std::filesystem::path& dir :
       {std::filesystem::path(VOXHASH_SOURCE_DIR), std::filesystem::current_path()}) {
    if (std::filesystem::exists(dir / asset)) return load_point_cloud(dir / asset, n, seed);
  }
  std::cerr << "[frame] " << asset << " not found: generating " << n << " points on a "
            << (torus ? "torus" : "sphere") << std::endl;
  PointCloud cloud;
  cloud.points = torus ? torus_points(n, seed) : sphere_points(n, seed);
  return cloud;
}

void set_model(Pipeline& pipeline, int index, const PointCloud& model) {
  if (model.mesh.triangles.empty()) {
    pipeline.set_model(index, model.points);
  } else {
    pipeline.set_model(index, model.mesh, model.points);
  }
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
    Stage{"build", &StageTimes::build},
    Stage{"probe", &StageTimes::probe},
    Stage{"flood_fill", &StageTimes::flood_fill},
    Stage{"fill_near", &StageTimes::fill_near},
    Stage{"fill_components", &StageTimes::fill_components},
    Stage{"fill_inside_tests", &StageTimes::inside_tests},
    Stage{"fill_votes", &StageTimes::fill_votes},
    Stage{"total", &StageTimes::total},
};

/// One result per stage of one algorithm's timed frames.
void add_results(TableKind algorithm,
                 const std::vector<FrameStats>& frames,
                 std::size_t points,
                 int resolution,
                 const DeviceLimits& limits,
                 Report& report,
                 ResultPrinter& printer) {
  for (const Stage& stage : kStages) {
    const std::vector<double> ms =
        collect(frames, [&](const FrameStats& s) { return s.ms.*(stage.ms); });
    Result r;
    r.suite                     = "frame";
    r.sweep                     = "frame";
    r.algorithm                 = std::string(to_string(algorithm));
    r.operation                 = stage.name;
    r.keys                      = 2 * points;
    r.seconds                   = quantile(ms, 0.5) * 1e-3;
    r.extra                     = {{"median_ms", quantile(ms, 0.5)},
                                   {"p10_ms", quantile(ms, 0.1)},
                                   {"p90_ms", quantile(ms, 0.9)},
                                   {"frames", static_cast<double>(frames.size())},
                                   {"points_per_model", static_cast<double>(points)},
                                   {"resolution", resolution}};
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
      for (int m = 0; m < 2; ++m) {
        const std::string suffix = m == 0 ? "_a" : "_b";
        const auto median        = [&](auto field) {
          return quantile(collect(frames, [&](const FrameStats& s) { return field(s.model[m]); }),
                          0.5);
        };
        r.extra.emplace_back("voxels" + suffix,
                             median([](const ModelFrameStats& s) { return s.voxels; }));
        r.extra.emplace_back("intersection" + suffix,
                             median([](const ModelFrameStats& s) { return s.intersection; }));
        r.extra.emplace_back("inside" + suffix,
                             median([](const ModelFrameStats& s) { return s.inside; }));
        r.extra.emplace_back("components" + suffix,
                             median([](const ModelFrameStats& s) { return s.components; }));
        r.extra.emplace_back("undecided" + suffix,
                             median([](const ModelFrameStats& s) { return s.undecided; }));
      }
    }
    printer.print(r);
    report.results.push_back(std::move(r));
  }
}

bool same_voxels(const ModelVoxels& a, const ModelVoxels& b) {
  return a.keys == b.keys && a.labels == b.labels;
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

/// What a model is, for messages: its path, else the default asset or the generated shape.
std::string model_name(const std::string& path, const char* asset) {
  return path.empty() ? std::string(asset) : path;
}

}  // namespace

int run_frame(const Options& options, Report& report, ResultPrinter& printer) {
  std::vector<TableKind> algorithms{options.algorithm};
  if (options.all_algorithms) algorithms.assign(kTableKinds.begin(), kTableKinds.end());
  std::vector<PipelineConfig> configs;
  for (const TableKind algorithm : algorithms) {
    PipelineConfig config;
    config.grid.resolution = {options.resolution, options.resolution, options.resolution};
    config.algorithm       = algorithm;
    configs.push_back(config);
  }

  // Memory first, before anything is measured, loaded or allocated: every pipeline holds its
  // frame at once; the host holds the two models' points once.
  const auto check_memory = [&](std::array<std::size_t, 2> points) {
    MemoryEstimate need;
    std::string names;
    for (const PipelineConfig& config : configs) {
      need.backend_bytes += estimate_frame_bytes(config, points).backend_bytes;
      names += (names.empty() ? "" : ", ") + std::string(to_string(config.algorithm));
    }
    need.host_bytes = estimate_frame_bytes(configs.front(), points).host_bytes;
    require_memory(options.backend,
                   need,
                   "bench frame (" + names + ", " +
                       (points[0] == points[1]
                            ? "2 x " + std::to_string(points[0])
                            : std::to_string(points[0]) + " + " + std::to_string(points[1])) +
                       " points, grid " + std::to_string(options.resolution) + "^3)");
  };
  check_memory({options.points, options.points});

  const PointCloud model_a =
      model_points(options.model_a, "assets/sphere.obj", false, options.points, 1);
  const PointCloud model_b =
      model_points(options.model_b, "assets/torus.obj", true, options.points, 2);
  if (model_a.points.size() != options.points || model_b.points.size() != options.points) {
    check_memory(
        {model_a.points.size(), model_b.points.size()});  // point clouds come with their own counts
  }

  std::vector<std::unique_ptr<Pipeline>> pipelines;
  for (const PipelineConfig& config : configs) {
    pipelines.push_back(std::make_unique<Pipeline>(options.backend, config));
    set_model(*pipelines.back(), 0, model_a);
    set_model(*pipelines.back(), 1, model_b);
  }

  const bool soak = options.soak_minutes > 0;
  std::vector<std::vector<FrameStats>> stats(pipelines.size());
  OutsideGridWatch outside({model_name(options.model_a, "assets/sphere.obj"),
                            model_name(options.model_b, "assets/torus.obj")});
  std::uint64_t differing_frames = 0;
  if (soak) {
    std::cerr << "[frame] soak: " << options.warmup << " warm-up frames, then frames for "
              << options.soak_minutes << " min, " << options.points << " points per model, grid "
              << options.resolution << "^3" << std::endl;
  } else {
    std::cerr << "[frame] " << options.warmup << " warm-up + " << options.frames << " frames, "
              << options.points << " points per model, grid " << options.resolution << "^3"
              << std::endl;
  }
  // One frame of every pipeline; f counts from the first warm-up frame.
  const auto run_one = [&](std::uint64_t f, double time) {
    std::array<ModelVoxels, 2> reference;
    for (std::size_t p = 0; p < pipelines.size(); ++p) {
      FrameStats s;
      try {
        s = pipelines[p]->run_frame(time, {.write_instances = false});
      } catch (const OutOfMemory& e) {
        throw OutOfMemory("frame " + std::to_string(f) + " (" +
                          std::string(to_string(algorithms[p])) + "): " + e.what());
      }
      if (p == 0) outside.add(f, s);
      if (f >= static_cast<std::uint64_t>(options.warmup)) {
        // A soak keeps the last `frames` frames (a ring), so its own memory does not grow.
        std::vector<FrameStats>& kept = stats[p];
        const std::uint64_t index     = f - options.warmup;
        if (kept.size() < static_cast<std::size_t>(options.frames)) {
          kept.push_back(s);
        } else {
          kept[index % kept.size()] = s;
        }
      }
      if (!options.all_algorithms) continue;
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
    }
  };
  if (soak) {
    // The viewer's clock: 1/60 s of animation a frame, swinging through each other for ever.
    std::uint64_t f = 0;
    for (; f < static_cast<std::uint64_t>(options.warmup); ++f)
      run_one(f, f / 60.0);
    SoakMonitor monitor(options.backend, options.soak_minutes, options.soak_every_s);
    while (monitor.keep_going(f - options.warmup)) {
      run_one(f, f / 60.0);
      ++f;
    }
    report.soak = monitor.finish(f - options.warmup);
  } else {
    const int total = options.warmup + options.frames;
    for (int f = 0; f < total; ++f)
      run_one(static_cast<std::uint64_t>(f), kPassSeconds * f / total);
  }
  outside.report(report);

  if (!options.export_path.empty()) {
    const Pipeline& pipeline                = *pipelines.front();
    const std::array<ModelVoxels, 2> models = {pipeline.download(0), pipeline.download(1)};
    export_voxels_ply(options.export_path, pipeline.config().grid, models);
    std::cerr << "[frame] wrote " << options.export_path << ": "
              << models[0].keys.size() + models[1].keys.size() << " voxels of the last frame ("
              << to_string(algorithms.front()) << ")" << std::endl;
  }
  pipelines.clear();  // the limits are measured on a device as empty as it was at the start

  std::cerr << "[frame] measuring device limits" << std::endl;
  report.limits = measure_device_limits(options.backend, options.quick);
  print_limits(std::cout, *report.limits);
  for (std::size_t p = 0; p < algorithms.size(); ++p) {
    add_results(algorithms[p],
                stats[p],
                options.points,
                options.resolution,
                *report.limits,
                report,
                printer);
  }
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
