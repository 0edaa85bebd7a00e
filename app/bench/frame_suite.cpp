// `voxhash bench frame`: the viewer's frame (animate, voxelize, build, probe, flood fill) without a
// window on two models (sphere and torus) over one pass through each other: per-stage median / p10
// / p90 times, build and probe rates, how far the labels can be trusted (low-confidence and
// thin-feature regions, point coverage, with a warning on stderr for a cloud too sparse for the
// grid), with --all-algos a check that every algorithm gives identical voxels and labels, --export
// the last frame as PLY (the library's export_voxels_ply).
#include "bench/suites.hpp"

#include <voxhash/device_limits.hpp>
#include <voxhash/io.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <numbers>
#include <random>
#include <string>
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
  cloud.source = torus ? "generated torus points" : "generated sphere points";
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
/// it), and regions behind walls thinner than the barrier.
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
                << std::defaultfloat << std::endl;
    }
    if (t.thin_features) {
      std::cerr << "[frame] warning: model " << (m ? 'B' : 'A') << " (" << names[m] << "): up to "
                << t.thin_features << " region(s) per frame reach both sides of a wall of model "
                << (m ? 'A' : 'B') << " thinner than about two voxels; their labels are not "
                << "trustworthy (a finer grid resolves the wall)" << std::endl;
    }
  }
}

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
        r.extra.emplace_back("low_confidence" + suffix, median([](const ModelFrameStats& s) {
                               return s.low_confidence_regions;
                             }));
        r.extra.emplace_back("thin_features" + suffix, median([](const ModelFrameStats& s) {
                               return s.thin_feature_regions;
                             }));
        const LabelTrust t = label_trust(frames, m);
        r.extra.emplace_back("point_coverage" + suffix, t.coverage);
        r.extra.emplace_back("recommended_points" + suffix, static_cast<double>(t.recommended));
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

  const PointCloud model_a =
      model_points(options.model_a, "assets/sphere.obj", false, options.points, 1);
  const PointCloud model_b =
      model_points(options.model_b, "assets/torus.obj", true, options.points, 2);

  std::vector<std::unique_ptr<Pipeline>> pipelines;
  for (const TableKind algorithm : algorithms) {
    PipelineConfig config;
    config.grid.resolution = {options.resolution, options.resolution, options.resolution};
    config.algorithm       = algorithm;
    pipelines.push_back(std::make_unique<Pipeline>(options.backend, config));
    set_model(*pipelines.back(), 0, model_a);
    set_model(*pipelines.back(), 1, model_b);
  }

  std::vector<std::vector<FrameStats>> stats(pipelines.size());
  int differing_frames = 0;
  std::cerr << "[frame] " << options.warmup << " warm-up + " << options.frames << " frames, "
            << options.points << " points per model, grid " << options.resolution << "^3"
            << std::endl;
  for (int f = 0; f < options.warmup + options.frames; ++f) {
    const double time = kPassSeconds * f / (options.warmup + options.frames);
    std::array<ModelVoxels, 2> reference;
    for (std::size_t p = 0; p < pipelines.size(); ++p) {
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

  if (!stats.empty()) {
    warn_about_labels(stats.front(), {model_a.source, model_b.source}, options.resolution);
  }
  for (std::size_t p = 0; p < pipelines.size(); ++p) {
    add_results(algorithms[p],
                stats[p],
                options.points,
                options.resolution,
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
