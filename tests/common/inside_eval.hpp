// The exact-geometry evaluation of the labels (issue 16), shared by the CPU sweeps
// (tests/cpu/test_inside_eval.cpp) and the CUDA ones (tests/gpu/test_pipeline_gpu.cpp): mesh pairs
// at the placements that broke the one-voxel six-ray inside test, scaled to any resolution, run
// through the pipeline without motion; every labelled voxel is compared with the exact inside test
// of the other mesh, split into far (> 1.5 voxel diagonals from the other surface) and near, and
// intersection voxels must lie within 1.5 voxels of both surfaces. Scoring runs on all cores.
#pragma once

#include "common/exact_geometry.hpp"

#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace voxhash::test {

inline std::filesystem::path assets_dir() {
  return std::filesystem::path(VOXHASH_SOURCE_DIR) / "assets";
}

struct Scene {
  std::string name;
  Mesh a, b;
  int resolution           = 128;
  bool thin_walls          = false;   // walls thinner than the closing: must be reported
  std::size_t points       = 300000;  // per model, for the sampled path
  std::size_t mesh_samples = 20000;   // rest points drawn per mesh model (voxels: its triangles)
};

/// A cubic grid fitted around both meshes with a margin of two voxels.
inline GridParams fitted_grid(const Scene& s) {
  std::vector<Float3> all = s.a.vertices;
  all.insert(all.end(), s.b.vertices.begin(), s.b.vertices.end());
  const Bounds b      = bounds_of(all);
  const float half    = 0.5f * std::max({b.max.x - b.min.x, b.max.y - b.min.y, b.max.z - b.min.z});
  const float margin  = half * 4.f / s.resolution;
  const Float3 centre = {
      0.5f * (b.min.x + b.max.x), 0.5f * (b.min.y + b.max.y), 0.5f * (b.min.z + b.max.z)};
  GridParams g;
  g.resolution = {s.resolution, s.resolution, s.resolution};
  g.bounds     = {{centre.x - half - margin, centre.y - half - margin, centre.z - half - margin},
                  {centre.x + half + margin, centre.y + half + margin, centre.z + half + margin}};
  return g;
}

struct ModelScore {
  std::size_t voxels = 0, far = 0, far_wrong = 0, near = 0, near_wrong = 0, bad_intersections = 0,
              winding_checked = 0, winding_disagreed = 0;

  void add(const ModelScore& o) {
    voxels += o.voxels;
    far += o.far;
    far_wrong += o.far_wrong;
    near += o.near;
    near_wrong += o.near_wrong;
    bad_intersections += o.bad_intersections;
    winding_checked += o.winding_checked;
    winding_disagreed += o.winding_disagreed;
  }
};

/// Model `self`'s labelled voxels against the exact inside test of `other`, on all cores.
inline ModelScore score(const GridParams& grid,
                        const ModelVoxels& mv,
                        const ExactMesh& self,
                        const ExactMesh& other) {
  const double voxel     = (grid.bounds.max.x - grid.bounds.min.x) / grid.resolution.x;
  const double far       = 1.5 * std::sqrt(3.0) * voxel;
  const std::size_t n    = mv.keys.size();
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<ModelScore> part(threads);
  std::atomic<std::size_t> next{0};
  constexpr std::size_t kChunk = 4096;
  auto work                    = [&](ModelScore& s) {
    for (std::size_t first; (first = next.fetch_add(kChunk)) < n;) {
      for (std::size_t i = first; i < std::min(n, first + kChunk); ++i) {
        const D3 c     = to_d3(voxel_center(grid, mv.keys[i]));
        const double d = other.distance(c);
        if (mv.labels[i] == VoxelLabel::Intersection) {
          s.bad_intersections += d > 1.5 * voxel || self.distance(c) > 1.5 * voxel;
          continue;
        }
        const bool inside = other.inside(c);
        if (i % 61 == 0) {  // cross-check the reference itself
          ++s.winding_checked;
          s.winding_disagreed += inside != (other.winding_number(c) > 0.5);
        }
        const bool wrong = (mv.labels[i] == VoxelLabel::Inside) != inside;
        if (d > far) {
          ++s.far;
          s.far_wrong += wrong;
        } else {
          ++s.near;
          s.near_wrong += wrong;
        }
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work, std::ref(part[t]));
  work(part[0]);
  for (std::thread& t : pool)
    t.join();
  ModelScore s;
  for (const ModelScore& p : part)
    s.add(p);
  s.voxels = n;
  return s;
}

struct SceneOutcome {
  std::array<ModelScore, 2> score;
  std::array<ModelVoxels, 2> voxels;
  FrameStats stats;
};

/// How evaluate_scene runs a scene; set the fields by name: {.backend = Backend::Cuda}.
struct EvalOptions {
  Backend backend     = Backend::Cpu;
  TableKind algorithm = TableKind::Cuckoo;
  std::optional<GridParams> grid{};  // the grid; fitted_grid(s) when empty
  bool wide_keys = false;            // PipelineConfig::wide_keys: 64-bit keys on any grid
  bool as_points = false;            // both models as clouds of s.points samples, not meshes
  bool scored    = true;             // score both models against the exact meshes
  GpuBudget gpu_budget{};            // PipelineConfig::gpu_budget: beyond it, paged tables
};

/// Runs scene s through the pipeline without motion as `options` say; scores both models against
/// the exact meshes unless told not to.
inline SceneOutcome evaluate_scene(const Scene& s, const EvalOptions& options = {}) {
  PipelineConfig config;
  config.grid              = options.grid ? *options.grid : fitted_grid(s);
  config.animation.animate = false;
  config.algorithm         = options.algorithm;
  config.wide_keys         = options.wide_keys;
  config.gpu_budget        = options.gpu_budget;
  Pipeline pipeline(options.backend, config);
  if (options.as_points) {
    pipeline.set_model(0, sample_surface(s.a, s.points, 1));
    pipeline.set_model(1, sample_surface(s.b, s.points, 2));
  } else {
    pipeline.set_model(0, s.a, sample_surface(s.a, s.mesh_samples, 1));
    pipeline.set_model(1, s.b, sample_surface(s.b, s.mesh_samples, 2));
  }
  SceneOutcome out;
  out.stats     = pipeline.run_frame(0.0);
  out.voxels[0] = pipeline.download(0);
  out.voxels[1] = pipeline.download(1);
  if (options.scored) {
    const ExactMesh ea(s.a), eb(s.b);
    out.score[0] = score(config.grid, out.voxels[0], ea, eb);
    out.score[1] = score(config.grid, out.voxels[1], eb, ea);
  }
  return out;
}

/// Which placements eval_scenes returns.
enum class SceneSet {
  All,    // every placement below
  Issue,  // the issue's: level floors, grazing, nested, touching
};

/// Mesh pairs and placements at `resolution`; offsets given in voxels scale with it.
inline std::vector<Scene> eval_scenes(int resolution, SceneSet set = SceneSet::All) {
  const Mesh torus  = load_obj_mesh(assets_dir() / "torus.obj");
  const Mesh sphere = load_obj_mesh(assets_dir() / "sphere.obj");
  const Mesh knot   = load_obj_mesh(assets_dir() / "knot.obj");
  // The grid around torus + level sphere spans about 2.1.
  const double v   = 2.1 / resolution;
  const bool issue = set == SceneSet::Issue;
  std::vector<Scene> out;
  auto add = [&](Scene s, bool in_issue) {
    s.resolution = resolution;
    if (in_issue || !issue) out.push_back(std::move(s));
  };
  auto level = [&](const char* name, double dz) {
    add({name, torus, placed(sphere, {0.45, {0, 0, 1}, 0, {0.35, 0, 0.15 + dz}})}, true);
  };
  level("torus + sphere, level floors (issue 16)", 0);
  level("torus + sphere, floor +0.5 voxel", 0.5 * v);
  level("torus + sphere, floor -0.5 voxel", -0.5 * v);
  level("torus + sphere, floor +1.2 voxels", 1.2 * v);
  level("torus + sphere, floor -1.2 voxels", -1.2 * v);
  add({"torus + sphere crossing the tube",
       torus,
       placed(sphere, {0.45, {0, 0, 1}, 0, {0.7, 0, 0.2}})},
      false);
  add({"torus + sphere in the hole, touching the tube",
       torus,
       placed(sphere, {0.4, {0, 0, 1}, 0, {0, 0, 0.05}})},
      true);
  add({"sphere resting on a box, 0.3 voxel apart",
       box({-0.8, -0.8, -0.6}, {0.8, 0.8, 0.0}),
       placed(uv_sphere(0.5), {1, {0, 0, 1}, 0, {0.1, 0.05, 0.5 + 0.3 * v}})},
      true);
  add({"sphere dipping 0.4 voxel into a box",
       box({-0.8, -0.8, -0.6}, {0.8, 0.8, 0.0}),
       placed(uv_sphere(0.5), {1, {0, 0, 1}, 0, {0.1, 0.05, 0.5 - 0.4 * v}})},
      true);
  add({"blob nested in a sphere", placed(uv_sphere(1.0), {}), blob(0.8)}, true);
  add({"small sphere nested in the torus tube",
       torus,
       placed(uv_sphere(0.15), {1, {0, 0, 1}, 0, {0, 0.7, 0}})},
      true);
  add({"two spheres touching at a point",
       placed(uv_sphere(0.5), {1, {0, 0, 1}, 0, {-0.5, 0, 0}}),
       placed(uv_sphere(0.5), {1, {1, 1, 0}, 0.4, {0.5, 0, 0}})},
      true);
  add({"two boxes sharing part of a face",
       box({-0.8, -0.4, -0.4}, {0.0, 0.4, 0.4}),
       box({0.0, -0.2, -0.1}, {0.6, 0.6, 0.5})},
      true);
  add({"rotated box through a blob",
       blob(0.8),
       placed(box({-0.9, -0.25, -0.3}, {0.9, 0.25, 0.3}), {1, {1, 2, 3}, 0.6, {0.1, 0, 0}})},
      false);
  add({"sphere in a cup's cavity",
       cup(0.6, 0.8, 0.08),
       placed(uv_sphere(0.3), {1, {0, 0, 1}, 0, {0.05, 0, 0.6}})},
      false);
  add({"sphere through a cup's wall and rim",
       cup(0.6, 0.8, 0.08),
       placed(uv_sphere(0.3), {1, {0, 0, 1}, 0, {0.45, 0, 0.75}})},
      false);
  add({"knot through the torus", torus, placed(knot, {0.9, {1, 0, 0}, 0.5, {0.3, 0, 0}})}, false);
  Scene thin{"thin cup (1.5-voxel walls) around a sphere",
             cup(0.6, 0.8, 0.015 * 128 / resolution),
             placed(uv_sphere(0.25), {1, {0, 0, 1}, 0, {0, 0, 0.4}})};
  thin.thin_walls = true;
  add(thin, false);
  return out;
}

/// Totals over a sweep, and the checks each scene and the sweep must pass.
class EvalSweep {
 public:
  explicit EvalSweep(std::string title) : m_title(std::move(title)) {
    std::printf("%s\n%-52s %8s %6s %6s %8s %6s %4s %4s\n",
                m_title.c_str(),
                "scene (model)",
                "voxels",
                "far",
                "farX",
                "near",
                "nearX",
                "lowc",
                "thin");
  }

  /// Prints and checks both models of one scene: no far voxel wrong (behind a thin wall: any
  /// wrong far voxel must be reported as a thin feature).
  void add(const Scene& s, const SceneOutcome& o) {
    for (int m = 0; m < 2; ++m) {
      const ModelScore& c = o.score[m];
      std::printf("%-52s %8zu %6zu %6zu %8zu %6zu %4zu %4zu\n",
                  (s.name + (m ? " (B)" : " (A)")).c_str(),
                  c.voxels,
                  c.far,
                  c.far_wrong,
                  c.near,
                  c.near_wrong,
                  o.stats.model[m].low_confidence_regions,
                  o.stats.model[m].thin_feature_regions);
      m_winding += c.winding_disagreed;
      m_bad_intersections += c.bad_intersections;
      if (s.thin_walls) {
        EXPECT_TRUE(c.far_wrong == 0 || o.stats.model[m].thin_feature_regions > 0)
            << s.name << ": wrong labels behind a thin wall were not reported";
        continue;
      }
      m_far += c.far;
      m_far_wrong += c.far_wrong;
      m_near += c.near;
      m_near_wrong += c.near_wrong;
      EXPECT_EQ(c.far_wrong, 0u) << s.name << " model " << m << " at " << s.resolution << "^3";
    }
    std::fflush(stdout);
  }

  /// Prints the totals and checks the sweep: the reference agrees with itself, intersections lie
  /// on both surfaces, at most 0.5 % of the near voxels are wrong.
  void finish(double seconds) const {
    std::printf(
        "%s: far wrong %zu of %zu, near wrong %zu of %zu (%.3f %%), bad intersections %zu, "
        "%.1f s\n",
        m_title.c_str(),
        m_far_wrong,
        m_far,
        m_near_wrong,
        m_near,
        m_near ? 100.0 * m_near_wrong / m_near : 0.0,
        m_bad_intersections,
        seconds);
    EXPECT_EQ(m_winding, 0u) << "the reference's parity and winding number disagree";
    EXPECT_EQ(m_bad_intersections, 0u);
    EXPECT_LE(m_near_wrong, m_near / 200) << "near voxels: more than 0.5 % wrong";
  }

 private:
  std::string m_title;
  std::size_t m_far = 0, m_far_wrong = 0, m_near = 0, m_near_wrong = 0, m_bad_intersections = 0,
              m_winding = 0;
};

}  // namespace voxhash::test
