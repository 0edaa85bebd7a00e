// The pipeline on 64-bit keys, CUDA backend (label gpu): at 2^20 voxels per axis the CUDA labels
// equal the CPU's for every algorithm and match exact geometry (shapes ~200 voxels across); at
// 1024^3 the forced 64-bit path equals the 32-bit one on CUDA (the bundled mesh pairs of the
// Inside sweeps); the clash report on a wide grid equals the CPU's. Skipped, saying why, without
// a CUDA device.
#include "common/require_cuda.hpp"
#include "common/wide_scene.hpp"

#include <voxhash/clash.hpp>

#include <chrono>
#include <gtest/gtest.h>

namespace voxhash::test {
namespace {

TEST(GpuPipeline64, CudaEqualsCpuForEveryAlgorithmAt2To20) {
  REQUIRE_CUDA();
  const GridParams grid = wide_grid(kWide, 0.01);
  for (const Scene& s : wide_scenes()) {
    const SceneOutcome cpu = evaluate_scene(s, {.grid = grid, .scored = false});
    for (const TableKind kind : kTableKinds) {
      const SceneOutcome cuda = evaluate_scene(
          s, {.backend = Backend::Cuda, .algorithm = kind, .grid = grid, .scored = false});
      EXPECT_EQ(cuda.stats.key_bits, 64);
      EXPECT_TRUE(same_voxels(cpu, cuda)) << s.name << ", " << to_string(kind);
    }
  }
}

TEST(GpuPipeline64, MeshScenesMatchExactGeometryAt2To20) {
  REQUIRE_CUDA();
  const auto started = std::chrono::steady_clock::now();
  EvalSweep totals("CUDA, 2^20 per axis (64-bit keys), shapes ~200 voxels across");
  for (const Scene& s : wide_scenes())
    totals.add(s, evaluate_scene(s, {.backend = Backend::Cuda, .grid = wide_grid(kWide, 0.003)}));
  totals.finish(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

TEST(GpuPipeline64, NarrowAndWideKeysAgreeAt1024) {
  REQUIRE_CUDA();
  std::vector<Scene> scenes = eval_scenes(1024, SceneSet::Issue);
  scenes.resize(3);
  for (const Scene& s : scenes) {
    for (const TableKind kind : kTableKinds) {
      const SceneOutcome narrow =
          evaluate_scene(s, {.backend = Backend::Cuda, .algorithm = kind, .scored = false});
      const SceneOutcome wide = evaluate_scene(
          s, {.backend = Backend::Cuda, .algorithm = kind, .wide_keys = true, .scored = false});
      EXPECT_EQ(wide.stats.key_bits, 64);
      EXPECT_TRUE(same_voxels(narrow, wide)) << s.name << ", " << to_string(kind);
    }
  }
}

TEST(GpuPipeline64, ClashReportOnAWideGridEqualsCpu) {
  REQUIRE_CUDA();
  const Scene s = wide_scenes()[0];
  ClashReport reports[2];
  const Backend backends[2] = {Backend::Cpu, Backend::Cuda};
  for (int b = 0; b < 2; ++b) {
    PipelineConfig config;
    config.grid              = wide_grid(kWide, 0.01);
    config.animation.animate = false;
    config.algorithm         = TableKind::BucketedCuckoo;
    Pipeline pipeline(backends[b], config);
    pipeline.set_model(0, s.a, sample_surface(s.a, 1000, 1));
    pipeline.set_model(1, s.b, sample_surface(s.b, 1000, 2));
    pipeline.run_frame(0.0);
    ClashOptions options;
    options.voxels = true;
    reports[b]     = compute_clash_report(pipeline, options);
  }
  ASSERT_GT(reports[0].voxels, 0u);
  EXPECT_EQ(reports[0].total_regions, reports[1].total_regions);
  EXPECT_EQ(reports[0].voxel_keys, reports[1].voxel_keys);
  EXPECT_EQ(reports[0].parts.size(), reports[1].parts.size());
}

}  // namespace
}  // namespace voxhash::test
