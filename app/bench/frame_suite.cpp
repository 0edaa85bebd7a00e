// `voxhash bench frame`: the viewer's frame (animate, voxelize, build, probe, flood fill) without a
// window on a scene's two models (by default the demo's sphere and torus over one pass through each
// other): per-stage median / p10 / p90 times, build and probe rates, the last frame's counts, with
// --all-algos a check that every algorithm gives identical voxels and labels, --export the last
// frame as PLY (the library's export_voxels_ply).
#include "bench/suites.hpp"

#include <voxhash/device_limits.hpp>
#include <voxhash/io.hpp>
#include <voxhash/pipeline.hpp>
#include <voxhash/scene.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace voxhash::bench {
namespace {

// The frames sample one pass of the models through each other (6 s of animation at speed 1,
// from touching on one side to touching on the other), so every stage sees light and heavy
// overlap whatever the frame count.
constexpr double kPassSeconds = 6.0;

/// The time of frame `f` of `n`: one swing pass, the keyframes' span, or the scene's time.
double frame_time(const Scene& scene, int f, int n) {
  if (scene.motion.kind == MotionKind::Swing) return kPassSeconds * f / n;
  if (scene.motion.kind == MotionKind::None) return scene.time;
  double first = INFINITY, last = -INFINITY;
  for (const SceneModel& model : scene.models) {
    if (model.keyframes.empty()) continue;
    first = std::min(first, model.keyframes.front().time);
    last  = std::max(last, model.keyframes.back().time);
  }
  return n > 1 ? first + (last - first) * f / (n - 1) : first;
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
                 const Grid& grid,
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
                                   {"resolution", std::max({grid.resolution.x, grid.resolution.y, grid.resolution.z})}};
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
      // Counts of the last frame, as integers (a median of counts is no count).
      const FrameStats& last = frames.back();
      for (int m = 0; m < 2; ++m) {
        const std::string suffix = m == 0 ? "_a" : "_b";
        const ModelFrameStats& s = last.model[m];
        for (const auto& [name, value] : {std::pair{"voxels", s.voxels},
                                          std::pair{"intersection", s.intersection},
                                          std::pair{"inside", s.inside},
                                          std::pair{"components", s.components},
                                          std::pair{"undecided", s.undecided},
                                          std::pair{"outside_grid", s.outside_grid}}) {
          r.extra.emplace_back(name + suffix, static_cast<double>(value));
        }
      }
    }
    printer.print(r);
    report.results.push_back(std::move(r));
  }
}

bool same_voxels(const ModelVoxels& a, const ModelVoxels& b) {
  return a.keys == b.keys && a.labels == b.labels;
}

}  // namespace

int run_frame(const Options& options, Report& report, ResultPrinter& printer) {
  std::vector<TableKind> algorithms{options.algorithm};
  if (options.all_algorithms) {
    algorithms = {TableKind::Cuckoo, TableKind::HashGraphV1, TableKind::HashGraphV2};
  }

  std::cerr << "[frame] measuring device limits" << std::endl;
  report.limits = measure_device_limits(options.backend, options.quick);
  print_limits(std::cout, *report.limits);

  const LoadedScene scene = load_scene_models(options.scene, {options.points, options.resolution});
  for (const std::string& warning : scene.warnings)
    std::cerr << "[frame] warning: " << warning << std::endl;
  report.scene = scene.scene.file;
  std::cout << "scene " << scene.scene.name << " (" << scene.scene.file << ")";
  for (int m = 0; m < 2; ++m) {
    const PlacedModel& model = scene.models[m];
    report.models.push_back({model.name,
                             scene.scene.models[m].path.string(),
                             model.cloud.points.size(),
                             model.outside_grid});
    std::cout << (m == 0 ? ": A = " : ", B = ") << model.name << " (" << model.cloud.points.size()
              << " points)";
  }
  std::cout << std::endl;

  std::vector<std::unique_ptr<Pipeline>> pipelines;
  for (const TableKind algorithm : algorithms) {
    PipelineConfig config = scene.config;
    config.algorithm      = algorithm;
    pipelines.push_back(std::make_unique<Pipeline>(options.backend, config));
    set_scene_models(*pipelines.back(), scene, frame_time(scene.scene, 0, 1));
  }
  const Grid& grid = pipelines.front()->grid();

  std::vector<std::vector<FrameStats>> stats(pipelines.size());
  int differing_frames = 0;
  std::cerr << "[frame] " << options.warmup << " warm-up + " << options.frames << " frames, grid "
            << grid.resolution.x << " x " << grid.resolution.y << " x " << grid.resolution.z
            << std::endl;
  const int total_frames = options.warmup + options.frames;
  for (int f = 0; f < total_frames; ++f) {
    const double time = frame_time(scene.scene, f, total_frames);
    std::array<ModelVoxels, 2> reference;
    for (std::size_t p = 0; p < pipelines.size(); ++p) {
      pose_scene(*pipelines[p], scene.scene, time);
      const FrameStats s = pipelines[p]->run_frame(time, {.write_instances = false});
      if (f >= options.warmup) stats[p].push_back(s);
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
  }

  for (std::size_t p = 0; p < pipelines.size(); ++p) {
    add_results(algorithms[p],
                stats[p],
                std::max(scene.models[0].cloud.points.size(), scene.models[1].cloud.points.size()),
                grid,
                *report.limits,
                report,
                printer);
  }
  if (!options.export_path.empty()) {
    const Pipeline& pipeline                = *pipelines.front();
    const std::array<ModelVoxels, 2> models = {pipeline.download(0), pipeline.download(1)};
    export_voxels_ply(options.export_path, pipeline.config().grid, models);
    std::cerr << "[frame] wrote " << options.export_path << ": "
              << models[0].keys.size() + models[1].keys.size() << " voxels of the last frame ("
              << to_string(algorithms.front()) << ")" << std::endl;
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
