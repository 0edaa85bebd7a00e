// The labels against exact geometry on the CPU backend (label cpu; issue 16): the sweeps of
// tests/common/inside_eval.hpp (mesh pairs at placements that broke the one-voxel six-ray inside
// test: the bundled sphere level with the bundled torus' floor, regions whose lowest voxel grazes
// the other surface, nested, touching) at 128^3 (all placements), 256^3 (all) and 512^3 (two),
// and point clouds where their coverage check passes. CUDA runs them at 512^3 and 1024^3
// (tests/gpu/test_pipeline_gpu.cpp).
#include "common/inside_eval.hpp"

#include <voxhash/error.hpp>
#include <voxhash/pipeline.hpp>

#include <chrono>
#include <cstdio>
#include <gtest/gtest.h>
#include <limits>
#include <string>

namespace voxhash::test {
namespace {

/// Runs every scene through the CPU backend, scores and checks it (EvalSweep).
void sweep(const std::string& title, const std::vector<Scene>& scenes) {
  const auto started = std::chrono::steady_clock::now();
  EvalSweep totals(title);
  for (const Scene& s : scenes)
    totals.add(s, evaluate_scene(s));
  totals.finish(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

TEST(InsideEval, MeshPairsMatchExactGeometry) {
  sweep("128^3, all placements", eval_scenes(128));
}

TEST(InsideEval, MeshPairsMatchExactGeometryAt256) {
  sweep("256^3, all placements", eval_scenes(256));
}

TEST(InsideEval, LevelFloorsMatchExactGeometryAt512) {
  std::vector<Scene> scenes = eval_scenes(512, SceneSet::Issue);
  scenes.resize(2);  // level floors, and 0.5 voxel above
  sweep("512^3, level floors", scenes);
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
  std::vector<Scene> all = eval_scenes(128);
  for (const std::size_t i : {0u, 4u, 5u, 10u}) {  // level floors, -1.2 voxels, crossing, nested
    const Scene& s       = all[i];
    const SceneOutcome o = evaluate_scene(s, {.as_points = true});
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
  const SceneOutcome o = evaluate_scene(sparse, {.as_points = true});
  EXPECT_LT(o.stats.model[0].point_coverage, kMinPointCoverage);
  EXPECT_GT(o.stats.model[0].recommended_points, 8000u);
}

}  // namespace
}  // namespace voxhash::test
