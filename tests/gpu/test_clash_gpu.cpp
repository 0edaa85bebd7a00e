// Clash report tests on the CUDA backend (label gpu): every scene of the CPU tests, with every
// table algorithm, gives a report identical to the CPU backend's (regions, boxes, centroids, part
// pairs, voxels and their regions), and matches the host reference. Skipped, saying why, where no
// CUDA device exists.
#include "common/clash_checks.hpp"
#include "common/require_cuda.hpp"

namespace voxhash::test {
namespace {

void expect_cuda_equals_cpu(const ClashScene& scene, const char* what) {
  ClashOptions options;
  options.voxels        = true;
  const ClashReport cpu = run_clash(Backend::Cpu, scene, TableKind::Cuckoo, options);
  EXPECT_GT(cpu.regions.size(), 0u) << what;
  for (TableKind kind : {TableKind::Cuckoo, TableKind::HashGraphV1, TableKind::HashGraphV2}) {
    SCOPED_TRACE(std::string(what) + ", " + std::string(to_string(kind)));
    PipelineConfig config = scene.config;
    config.algorithm      = kind;
    Pipeline pipeline(Backend::Cuda, config);
    run_scene_frame(pipeline, scene);
    const ClashReport gpu = compute_clash_report(pipeline, options);
    expect_same_report(gpu, cpu);
    expect_matches_reference(gpu, reference_regions(config.grid, pipeline.download(0)));
  }
}

TEST(GpuClash, SpheresMatchCpu) {
  REQUIRE_CUDA();
  expect_cuda_equals_cpu(two_spheres_scene(1.0f), "two unit spheres");
}

TEST(GpuClash, TwoContactsMatchCpu) {
  REQUIRE_CUDA();
  expect_cuda_equals_cpu(two_contacts_scene(), "two contacts");
}

TEST(GpuClash, PartsOfMeshesAndPointCloudsMatchCpu) {
  REQUIRE_CUDA();
  expect_cuda_equals_cpu(two_part_boxes_scene(true, 3), "two-part mesh");
  expect_cuda_equals_cpu(two_part_boxes_scene(false, 7), "two-part point cloud");
}

TEST(GpuClash, SeveralPartsPerVoxelMatchCpu) {
  REQUIRE_CUDA();
  expect_cuda_equals_cpu(interleaved_parts_scene(), "several parts per voxel");
}

TEST(GpuClash, LargeBandOnAFineGridMatchesCpu) {
  REQUIRE_CUDA();
  ClashScene scene;
  scene.config = static_config(512, TableKind::Cuckoo);
  add_part(scene.models[0], torus({0, 0, 0}, 0.7f, 0.3f, 3000000, 31).points, 0);
  add_part(scene.models[1], sphere({0.55f, 0.05f, 0.1f}, 0.6f, 2000000, 32).points, 0);
  expect_cuda_equals_cpu(scene, "torus and sphere at 512^3");
}

TEST(GpuClash, EmptyReportOnCuda) {
  REQUIRE_CUDA();
  const ClashReport r = run_clash(Backend::Cuda, two_spheres_scene(2.2f));
  EXPECT_TRUE(r.regions.empty());
  EXPECT_EQ(r.voxels, 0u);
  Pipeline never_run(Backend::Cuda, static_config(32, TableKind::Cuckoo));
  EXPECT_TRUE(compute_clash_report(never_run).regions.empty());
}

}  // namespace
}  // namespace voxhash::test
