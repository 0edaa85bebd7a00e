// The labels against exact geometry (label cpu; issue 16): mesh pairs at placements that broke
// the one-voxel six-ray inside test (the bundled sphere level with the bundled torus' floor,
// regions whose lowest voxel grazes the other surface, nested, touching), run through the
// pipeline on the CPU backend without motion; every labelled voxel is compared with the exact
// inside test of the other mesh, split into far (> 1.5 voxel diagonals from the other surface)
// and near; intersection voxels must lie within 1.5 voxels of both surfaces.
#include "common/exact_geometry.hpp"

#include <voxhash/error.hpp>
#include <voxhash/pipeline.hpp>

#include <chrono>
#include <cstdio>
#include <gtest/gtest.h>
#include <limits>
#include <string>

namespace voxhash::test {
namespace {

const std::filesystem::path kAssets = std::filesystem::path(VOXHASH_SOURCE_DIR) / "assets";

struct Scene {
  std::string name;
  Mesh a, b;
  int resolution     = 128;
  bool thin_walls    = false;   // walls thinner than the closing: must be reported
  std::size_t points = 300000;  // per model, for the sampled path
};

/// A cubic grid fitted around both meshes with a margin of two voxels.
GridParams fitted_grid(const Scene& s) {
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
};

ModelScore score(const GridParams& grid,
                 const ModelVoxels& mv,
                 const ExactMesh& self,
                 const ExactMesh& other) {
  const double voxel = (grid.bounds.max.x - grid.bounds.min.x) / grid.resolution.x;
  const double far   = 1.5 * std::sqrt(3.0) * voxel;
  ModelScore s;
  s.voxels = mv.keys.size();
  for (std::size_t i = 0; i < mv.keys.size(); ++i) {
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
  return s;
}

struct SceneOutcome {
  std::array<ModelScore, 2> score;
  FrameStats stats;
};

/// Runs scene s with both models as meshes, or (`as_points`) as clouds of s.points samples.
SceneOutcome run(const Scene& s, bool as_points = false) {
  PipelineConfig config;
  config.grid              = fitted_grid(s);
  config.animation.animate = false;
  config.algorithm         = TableKind::Cuckoo;
  Pipeline pipeline(Backend::Cpu, config);
  if (as_points) {
    pipeline.set_model(0, sample_surface(s.a, s.points, 1));
    pipeline.set_model(1, sample_surface(s.b, s.points, 2));
  } else {
    pipeline.set_model(0, s.a, sample_surface(s.a, 20000, 1));
    pipeline.set_model(1, s.b, sample_surface(s.b, 20000, 2));
  }
  SceneOutcome out;
  out.stats = pipeline.run_frame(0.0);
  const ExactMesh ea(s.a), eb(s.b);
  out.score[0] = score(config.grid, pipeline.download(0), ea, eb);
  out.score[1] = score(config.grid, pipeline.download(1), eb, ea);
  return out;
}

std::vector<Scene> scenes() {
  const Mesh torus  = load_obj_mesh(kAssets / "torus.obj");
  const Mesh sphere = load_obj_mesh(kAssets / "sphere.obj");
  const Mesh knot   = load_obj_mesh(kAssets / "knot.obj");
  // The grid around torus + level sphere spans about 2.1: a voxel of ~0.0165 at 128^3.
  const double v = 2.1 / 128;
  std::vector<Scene> out;
  auto level = [&](const char* name, double dz) {
    out.push_back({name, torus, placed(sphere, {0.45, {0, 0, 1}, 0, {0.35, 0, 0.15 + dz}})});
  };
  level("torus + sphere, level floors (issue 16)", 0);
  level("torus + sphere, floor +0.5 voxel", 0.5 * v);
  level("torus + sphere, floor -0.5 voxel", -0.5 * v);
  level("torus + sphere, floor +1.2 voxels", 1.2 * v);
  level("torus + sphere, floor -1.2 voxels", -1.2 * v);
  out.push_back({"torus + sphere crossing the tube",
                 torus,
                 placed(sphere, {0.45, {0, 0, 1}, 0, {0.7, 0, 0.2}})});
  out.push_back({"torus + sphere in the hole, touching the tube",
                 torus,
                 placed(sphere, {0.4, {0, 0, 1}, 0, {0, 0, 0.05}})});
  out.push_back({"sphere resting on a box, 0.3 voxel apart",
                 box({-0.8, -0.8, -0.6}, {0.8, 0.8, 0.0}),
                 placed(uv_sphere(0.5), {1, {0, 0, 1}, 0, {0.1, 0.05, 0.5 + 0.3 * v}})});
  out.push_back({"sphere dipping 0.4 voxel into a box",
                 box({-0.8, -0.8, -0.6}, {0.8, 0.8, 0.0}),
                 placed(uv_sphere(0.5), {1, {0, 0, 1}, 0, {0.1, 0.05, 0.5 - 0.4 * v}})});
  out.push_back({"blob nested in a sphere", placed(uv_sphere(1.0), {}), blob(0.8)});
  out.push_back({"small sphere nested in the torus tube",
                 torus,
                 placed(uv_sphere(0.15), {1, {0, 0, 1}, 0, {0, 0.7, 0}})});
  out.push_back({"two spheres touching at a point",
                 placed(uv_sphere(0.5), {1, {0, 0, 1}, 0, {-0.5, 0, 0}}),
                 placed(uv_sphere(0.5), {1, {1, 1, 0}, 0.4, {0.5, 0, 0}})});
  out.push_back({"two boxes sharing part of a face",
                 box({-0.8, -0.4, -0.4}, {0.0, 0.4, 0.4}),
                 box({0.0, -0.2, -0.1}, {0.6, 0.6, 0.5})});
  out.push_back(
      {"rotated box through a blob",
       blob(0.8),
       placed(box({-0.9, -0.25, -0.3}, {0.9, 0.25, 0.3}), {1, {1, 2, 3}, 0.6, {0.1, 0, 0}})});
  out.push_back({"sphere in a cup's cavity",
                 cup(0.6, 0.8, 0.08),
                 placed(uv_sphere(0.3), {1, {0, 0, 1}, 0, {0.05, 0, 0.6}})});
  out.push_back({"sphere through a cup's wall and rim",
                 cup(0.6, 0.8, 0.08),
                 placed(uv_sphere(0.3), {1, {0, 0, 1}, 0, {0.45, 0, 0.75}})});
  out.push_back(
      {"knot through the torus", torus, placed(knot, {0.9, {1, 0, 0}, 0.5, {0.3, 0, 0}})});
  Scene thin{"thin cup (1.5-voxel walls) around a sphere",
             cup(0.6, 0.8, 0.015),
             placed(uv_sphere(0.25), {1, {0, 0, 1}, 0, {0, 0, 0.4}})};
  thin.thin_walls = true;
  out.push_back(thin);
  return out;
}

TEST(InsideEval, MeshPairsMatchExactGeometry) {
  const auto started    = std::chrono::steady_clock::now();
  std::size_t far_wrong = 0, near = 0, near_wrong = 0, bad_intersections = 0, winding = 0;
  std::printf("%-52s %8s %6s %6s %8s %6s %4s %4s\n",
              "scene (model)",
              "voxels",
              "far",
              "farX",
              "near",
              "nearX",
              "lowc",
              "thin");
  for (const Scene& s : scenes()) {
    const SceneOutcome o = run(s);
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
      winding += c.winding_disagreed;
      bad_intersections += c.bad_intersections;
      if (s.thin_walls) {
        EXPECT_TRUE(c.far_wrong == 0 || o.stats.model[m].thin_feature_regions > 0)
            << s.name << ": wrong labels behind a thin wall were not reported";
        continue;
      }
      far_wrong += c.far_wrong;
      near += c.near;
      near_wrong += c.near_wrong;
      EXPECT_EQ(c.far_wrong, 0u) << s.name << " model " << m;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("far wrong %zu, near wrong %zu of %zu (%.3f %%), bad intersections %zu, %.1f s\n",
              far_wrong,
              near_wrong,
              near,
              near ? 100.0 * near_wrong / near : 0.0,
              bad_intersections,
              seconds);
  EXPECT_EQ(winding, 0u) << "the reference's parity and winding number disagree";
  EXPECT_EQ(bad_intersections, 0u);
  EXPECT_LE(near_wrong, near / 200) << "near voxels: more than 0.5 % wrong";
}

TEST(InsideEval, MeshInputIsValidated) {
  Pipeline pipeline(Backend::Cpu, PipelineConfig{});
  Mesh bad = box({0, 0, 0}, {1, 1, 1});
  bad.triangles.push_back(0);
  EXPECT_THROW(pipeline.set_model(0, bad, {}), InvalidInput);
  bad.triangles.insert(bad.triangles.end(), {0, 99});
  EXPECT_THROW(pipeline.set_model(0, bad, {}), InvalidInput);
  Mesh nan          = box({0, 0, 0}, {1, 1, 1});
  nan.vertices[3].y = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(pipeline.set_model(1, nan, {}), InvalidInput);
  EXPECT_NO_THROW(pipeline.set_model(1, box({0, 0, 0}, {1, 1, 1}), {}));
  EXPECT_THROW(pipeline.set_model(2, box({0, 0, 0}, {1, 1, 1}), {}), InvalidInput);
}

/// Point clouds: labels are exact (far) wherever the coverage estimate passes; a cloud too sparse
/// for the grid is reported with the number of points that would cover it.
TEST(InsideEval, PointCloudsMatchWhenCoverageHolds) {
  std::vector<Scene> all = scenes();
  for (const std::size_t i : {0u, 4u, 5u, 10u}) {  // level floors, -1.2 voxels, crossing, nested
    const Scene& s       = all[i];
    const SceneOutcome o = run(s, true);
    for (int m = 0; m < 2; ++m) {
      const ModelFrameStats& st = o.stats.model[m];
      std::printf("%-44s (%c) coverage %.3f, recommended %zu points, far wrong %zu of %zu\n",
                  s.name.c_str(),
                  m ? 'B' : 'A',
                  st.point_coverage,
                  st.recommended_points,
                  o.score[m].far_wrong,
                  o.score[m].far);
      if (st.point_coverage >= kMinPointCoverage) {
        EXPECT_EQ(o.score[m].far_wrong, 0u) << s.name;
      }
    }
    EXPECT_GE(o.stats.model[0].point_coverage, kMinPointCoverage) << s.name;
  }
  Scene sparse         = all[5];
  sparse.points        = 8000;
  const SceneOutcome o = run(sparse, true);
  EXPECT_LT(o.stats.model[0].point_coverage, kMinPointCoverage);
  EXPECT_GT(o.stats.model[0].recommended_points, 8000u);
}

}  // namespace
}  // namespace voxhash::test
