// Frame pipeline tests on the CUDA backend (label gpu): the ground-truth scenes of the CPU tests,
// every frame output compared with the CPU backend's, voxel by voxel, mesh models (triangle
// voxelizer, robust inside test) included, and the exact-geometry evaluation of
// tests/common/inside_eval.hpp at 512^3 and 1024^3, and the housings, cups and assemblies of
// tests/common/solid_scenes.hpp (labels from the meshes' solids) at 512^3, and an open bowl
// (labels from its winding number). Skipped, saying why, where no CUDA device exists.
#include "common/inside_eval.hpp"
#include "common/pipeline_checks.hpp"
#include "common/require_cuda.hpp"
#include "common/solid_scenes.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace voxhash::test {
namespace {

/// Compares two frames voxel by voxel; on a difference reports how many and the first few.
void expect_same(const SceneResult& a, const SceneResult& b, const char* what) {
  for (int m = 0; m < 2; ++m) {
    const ModelVoxels& x = a.voxels[m];
    const ModelVoxels& y = b.voxels[m];
    EXPECT_EQ(x.keys, y.keys) << what << " model " << m << ": " << x.keys.size() << " vs "
                              << y.keys.size() << " voxels";
    if (x.keys == y.keys) {
      std::size_t differ = 0;
      for (std::size_t i = 0; i < x.keys.size(); ++i) {
        if (x.labels[i] != y.labels[i] && differ++ < 5) {
          ADD_FAILURE() << what << " model " << m << ": key " << x.keys[i] << " labelled "
                        << int(x.labels[i]) << " vs " << int(y.labels[i]);
        }
      }
      EXPECT_EQ(differ, 0u) << what << " model " << m << ": labels differ";
    }
    const ModelFrameStats &p = a.stats.model[m], &q = b.stats.model[m];
    EXPECT_EQ(p.outside_grid, q.outside_grid) << what;
    EXPECT_EQ(p.components, q.components) << what;
    EXPECT_EQ(p.undecided, q.undecided) << what;
    EXPECT_EQ(p.low_confidence_regions, q.low_confidence_regions) << what;
    EXPECT_EQ(p.thin_feature_regions, q.thin_feature_regions) << what;
    EXPECT_EQ(p.point_coverage, q.point_coverage) << what;
    EXPECT_EQ(p.recommended_points, q.recommended_points) << what;
  }
}

SceneResult as_result(const SceneOutcome& o) {
  return {o.voxels, o.stats};
}

TEST(GpuPipeline, SpheresAndTorusMatchGroundTruthAndCpu) {
  REQUIRE_CUDA();
  const auto a = sphere({-0.3f, 0, 0}, 0.8f, 200000, 1);
  const auto b = sphere({0.3f, 0, 0}, 0.8f, 200000, 2);
  const auto t = torus({0, 0, 0}, 0.7f, 0.3f, 300000, 3);
  const auto s = sphere({0.7f, 0, 0.2f}, 0.45f, 150000, 4);
  for (TableKind kind : kTableKinds) {
    SCOPED_TRACE(std::string(to_string(kind)));
    const auto config = static_config(128, kind);
    const auto gpu    = run_scene(Backend::Cuda, config, a, b);
    check_labels(config.grid, gpu.voxels[0], a, b, "sphere A");
    check_labels(config.grid, gpu.voxels[1], b, a, "sphere B");
    check_curve_covered(
        config.grid, gpu.voxels[0], sphere_sphere_curve(-0.3f, 0.8f, 0.3f, 0.8f, 400));
    expect_same(gpu, run_scene(Backend::Cpu, config, a, b), "spheres, CUDA vs CPU");
    const auto gt = run_scene(Backend::Cuda, config, t, s);
    check_labels(config.grid, gt.voxels[0], t, s, "torus");
    check_labels(config.grid, gt.voxels[1], s, t, "sphere");
    expect_same(gt, run_scene(Backend::Cpu, config, t, s), "torus, CUDA vs CPU");
  }
}

SceneResult run_frame_at(
    Backend backend, const PipelineConfig& config, const Shape& a, const Shape& b, double time) {
  Pipeline pipeline(backend, config);
  pipeline.set_model(0, a.points);
  pipeline.set_model(1, b.points);
  SceneResult r;
  r.stats     = pipeline.run_frame(time);
  r.voxels[0] = pipeline.download(0);
  r.voxels[1] = pipeline.download(1);
  return r;
}

TEST(GpuPipeline, LargeFrameMatchesCpuForEveryAlgorithm) {
  REQUIRE_CUDA();
  const auto t              = torus({0, 0, 0}, 0.7f, 0.3f, 2000000, 5);
  const auto s              = sphere({0, 0, 0}, 0.6f, 2000000, 6);
  PipelineConfig config     = static_config(512, TableKind::Cuckoo);
  config.animation.offset_b = {0.55f, 0.05f, 0.1f};
  std::vector<SceneResult> results;
  for (TableKind kind : kTableKinds) {
    config.algorithm = kind;
    results.push_back(run_frame_at(Backend::Cuda, config, t, s, 0.0));
    results.push_back(run_frame_at(Backend::Cpu, config, t, s, 0.0));
  }
  EXPECT_GT(results[0].stats.model[0].intersection, 0u);
  EXPECT_GT(results[0].stats.model[1].inside, 0u);
  for (std::size_t k = 1; k < results.size(); ++k)
    expect_same(results[0], results[k], "frame");
}

// Animated frames: the algorithms agree on the GPU. (CUDA and CPU may place a point whose animated
// position lies within an ulp of a voxel face in neighbouring voxels: the GPU contracts the motion
// into fused multiply-adds and its sinf differs from glibc's in the last bit.)
TEST(GpuPipeline, AnimatedFramesAgreeAcrossAlgorithms) {
  REQUIRE_CUDA();
  const auto t             = torus({0, 0, 0}, 0.7f, 0.3f, 2000000, 5);
  const auto s             = sphere({0, 0, 0}, 0.6f, 2000000, 6);
  PipelineConfig config    = static_config(512, TableKind::Cuckoo);
  config.animation.animate = true;
  for (double time : {2.0, 2.5, 3.0}) {  // the models overlap
    SCOPED_TRACE("t = " + std::to_string(time));
    std::vector<SceneResult> results;
    for (TableKind kind : kTableKinds) {
      config.algorithm = kind;
      results.push_back(run_frame_at(Backend::Cuda, config, t, s, time));
    }
    EXPECT_GT(results[0].stats.model[0].intersection, 0u);
    for (std::size_t k = 1; k < results.size(); ++k)
      expect_same(results[0], results[k], "frame");
  }
}

// Sparse clouds (many one-point voxels, gaps, many components and barrier voxels): the case
// where any dependence on the tables' voxel numbering would show.
TEST(GpuPipeline, SparseAnimatedFramesAgreeAcrossAlgorithmsAndRuns) {
  REQUIRE_CUDA();
  const auto t             = torus({0, 0, 0}, 0.7f, 0.3f, 100000, 11);
  const auto s             = sphere({0, 0, 0}, 1.0f, 100000, 12);
  PipelineConfig config    = static_config(512, TableKind::Cuckoo);
  config.grid.bounds       = {{-2.4f, -2.4f, -2.4f}, {2.4f, 2.4f, 2.4f}};
  config.animation.animate = true;
  for (double time : {1.5, 2.0, 2.5, 3.0, 3.5}) {
    SCOPED_TRACE("t = " + std::to_string(time));
    std::vector<SceneResult> results;
    for (TableKind kind : {TableKind::Cuckoo,
                           TableKind::Cuckoo,
                           TableKind::HashGraphV1,
                           TableKind::HashGraphV2,
                           TableKind::BucketedCuckoo}) {
      config.algorithm = kind;
      results.push_back(run_frame_at(Backend::Cuda, config, t, s, time));
    }
    for (std::size_t k = 1; k < results.size(); ++k)
      expect_same(results[0], results[k], "frame");
  }
}

TEST(GpuPipeline, AnimatedPointsGoToACallerBuffer) {
  REQUIRE_CUDA();
  const auto a = sphere({0, 0, 0}, 0.5f, 100000, 7);
  const auto b = sphere({0.2f, 0, 0}, 0.5f, 50000, 8);
  Pipeline pipeline(Backend::Cuda, static_config(128, TableKind::Cuckoo));
  pipeline.set_model(0, a.points);
  pipeline.set_model(1, b.points);
  Buffer<Float3> out_a(Backend::Cuda, a.points.size()), out_b(Backend::Cuda, b.points.size());
  out_a.fill_bytes_async(0xFF);
  pipeline.run_frame(0.0, {.points = {out_a.data(), out_b.data()}});
  const auto host = out_a.to_host();
  ASSERT_EQ(host.size(), a.points.size());
  for (std::size_t i = 0; i < host.size(); i += 997) {
    EXPECT_EQ(host[i].x, a.points[i].x);
    EXPECT_EQ(host[i].y, a.points[i].y);
  }
  EXPECT_EQ(pipeline.points(0).data(), out_a.data());
}

TEST(GpuPipeline, EdgeCasesMatchCpu) {
  REQUIRE_CUDA();
  const auto a      = sphere({-0.8f, 0, 0}, 0.5f, 50000, 9);
  const auto b      = sphere({0.8f, 0, 0}, 0.5f, 50000, 10);
  const auto config = static_config(96, TableKind::HashGraphV2);
  const auto apart  = run_scene(Backend::Cuda, config, a, b);
  EXPECT_EQ(apart.stats.model[0].intersection, 0u);
  EXPECT_EQ(apart.stats.model[0].outside, apart.stats.model[0].voxels);
  Shape empty;
  expect_same(run_scene(Backend::Cuda, config, a, empty),
              run_scene(Backend::Cpu, config, a, empty),
              "empty");
}

// Mesh models: voxelized from their triangles and labelled by the robust inside test, the CUDA
// backend gives the CPU backend's voxels, labels and region counts, with every algorithm; the
// level-floor scene also as point clouds (the dilated-surface rays and the coverage estimate).
TEST(GpuInside, MeshModelsMatchCpuForEveryAlgorithm) {
  REQUIRE_CUDA();
  for (const int resolution : {256, 512}) {
    const std::vector<Scene> all = eval_scenes(resolution);
    // Level floors, crossing the tube, nested, knot through the torus, the thin-walled cup.
    for (const std::size_t i : {0u, 5u, 9u, 16u, 17u}) {
      const Scene& s = all.at(i);
      SCOPED_TRACE(s.name + " at " + std::to_string(resolution) + "^3");
      const SceneOutcome cpu = evaluate_scene(s, {.scored = false});
      EXPECT_GT(cpu.stats.model[0].voxels, 0u);
      for (TableKind kind : {TableKind::Cuckoo, TableKind::HashGraphV1, TableKind::HashGraphV2}) {
        SCOPED_TRACE(std::string(to_string(kind)));
        expect_same(as_result(evaluate_scene(
                        s, {.backend = Backend::Cuda, .algorithm = kind, .scored = false})),
                    as_result(cpu),
                    "mesh scene, CUDA vs CPU");
      }
    }
    Scene clouds  = all.at(0);
    clouds.points = 2000000;
    SCOPED_TRACE("point clouds at " + std::to_string(resolution) + "^3");
    expect_same(as_result(evaluate_scene(
                    clouds, {.backend = Backend::Cuda, .as_points = true, .scored = false})),
                as_result(evaluate_scene(clouds, {.as_points = true, .scored = false})),
                "point-cloud scene, CUDA vs CPU");
  }
}

// The issue's placements (level floors and +-0.5, +-1.2 voxels from them, in the torus' hole,
// resting on and dipping into a box, nested, touching) on the CUDA backend against exact
// geometry: 0 far voxels wrong, near voxels <= 0.5 % wrong, intersections on both surfaces.
TEST(GpuInside, IssuePlacementsMatchExactGeometryAt512And1024) {
  REQUIRE_CUDA();
  for (const int resolution : {512, 1024}) {
    const auto started = std::chrono::steady_clock::now();
    EvalSweep totals("CUDA, " + std::to_string(resolution) + "^3, the issue's placements");
    for (const Scene& s : eval_scenes(resolution, SceneSet::Issue))
      totals.add(s, evaluate_scene(s, {.backend = Backend::Cuda}));
    totals.finish(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
}

// Labels from the meshes' solids (housings with 0.3- to 3-voxel walls, cups, assemblies) on the
// CUDA backend: the same voxels and labels as the CPU's, and no far voxel wrong against the
// exact union of the parts.
TEST(GpuInside, SolidScenesMatchCpuAndExactGeometryAt512) {
  REQUIRE_CUDA();
  for (const Scene& s : solid_scenes(512)) {
    SCOPED_TRACE(s.name);
    const SceneOutcome cuda = evaluate_scene(s, {.backend = Backend::Cuda, .scored = false});
    const SceneOutcome cpu  = evaluate_scene(s, {.scored = false});
    expect_same(as_result(cuda), as_result(cpu), "solid scene, CUDA vs CPU");
    const ExactModel a(s.a), b(s.b);
    const GridParams grid = fitted_grid(s);
    for (int m = 0; m < 2; ++m) {
      const ModelScore c = score_union(grid, cuda.voxels[m], m ? b : a, m ? a : b);
      EXPECT_EQ(c.far_wrong, 0u) << "model " << m;
      EXPECT_TRUE(cuda.stats.model[m].labels_from_solid);
    }
  }
}

TEST(GpuInside, AnOpenBowlByItsWindingNumberMatchesCpuAndExactGeometry) {
  // A sphere without its top cap (an open mesh: no solid) and a slab through its lower half: the
  // slab's regions decided by the bowl's winding number, on both backends, at 256^3 and 512^3.
  REQUIRE_CUDA();
  Mesh bowl = uv_sphere(0.4, 24, 48);
  bowl.triangles.resize(bowl.triangles.size() - 3 * (48 + 5 * 96));
  const ExactModel sphere(uv_sphere(0.4, 24, 48));
  for (const int resolution : {256, 512}) {
    for (const double turn : {0.0, 0.7}) {
      const Mesh slab =
          placed(box({-0.55, -0.55, -0.3}, {0.55, 0.55, -0.05}), {1, {0, 0, 1}, turn, {0, 0, 0}});
      Scene s{"bowl, slab through its lower half", bowl, slab};
      s.resolution = resolution;
      SCOPED_TRACE(std::to_string(resolution) + "^3, turn " + std::to_string(turn));
      const SceneOutcome cuda = evaluate_scene(s, {.backend = Backend::Cuda, .scored = false});
      const SceneOutcome cpu  = evaluate_scene(s, {.scored = false});
      expect_same(as_result(cuda), as_result(cpu), "open bowl, CUDA vs CPU");
      EXPECT_TRUE(cuda.stats.model[1].labels_from_winding);
      EXPECT_EQ(cuda.stats.model[0].boundary_edges, 48u);
      const ModelScore c = score_union(fitted_grid(s), cuda.voxels[1], ExactModel(slab), sphere);
      EXPECT_GT(c.far, 1000u);
      EXPECT_EQ(c.far_wrong, 0u);
      EXPECT_LE(c.near_wrong, c.near / 200);
    }
  }
}

}  // namespace
}  // namespace voxhash::test
