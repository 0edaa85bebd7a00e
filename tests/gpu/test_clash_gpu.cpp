// Clash report tests on the CUDA backend (label gpu): every scene of the CPU tests, with every
// table algorithm, gives a report identical to the CPU backend's (regions, boxes, centroids, part
// pairs, voxels and their regions), and matches the host reference. Skipped, saying why, where no
// CUDA device exists.
#include "common/clash_checks.hpp"
#include "common/require_cuda.hpp"
#include "common/solid_checks.hpp"

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
    expect_same_clashes(gpu, cpu);
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

/// The part-pair clashes of `scene` on CUDA equal the CPU backend's (with `options`).
void expect_solid_clashes_match(const ClashScene& scene, const ClashOptions& options) {
  const ClashReport cpu = run_clash(Backend::Cpu, scene, TableKind::Cuckoo, options);
  const ClashReport gpu = run_clash(Backend::Cuda, scene, TableKind::Cuckoo, options);
  EXPECT_FALSE(cpu.clashes.empty());
  expect_same_clashes(gpu, cpu);
}

TEST(GpuClash, SolidClashesMatchCpu) {
  REQUIRE_CUDA();
  std::mt19937 random(5);
  ClashOptions options;
  options.clearance = 0.1;
  options.tolerance = 0.02;
  // Spheres overlapping, rotated boxes touching and apart, a duct through a wall, an assembly.
  expect_solid_clashes_match(
      solid_scene({placed(uv_sphere(0.5, 96, 192), {1, {0, 0, 1}, 0, {-0.35, 0, 0}})},
                  {placed(uv_sphere(0.6, 96, 192), {1, {0, 0, 1}, 0, {0.35, 0, 0}})},
                  random_rotation(random)),
      options);
  expect_solid_clashes_match(
      solid_scene(
          {box({-0.6, -0.3, -0.3}, {0.01, 0.3, 0.3}), box({-0.3, 0.35, -0.3}, {0.3, 0.8, 0.3})},
          {box({-0.01, -0.35, -0.25}, {0.5, 0.25, 0.35}), box({-0.3, 0.86, -0.3}, {0.3, 1.2, 0.3})},
          random_rotation(random)),
      options);
  expect_solid_clashes_match(
      solid_scene({placed(cylinder_mesh(0.15, 2.0), {1, {0, 1, 0}, std::numbers::pi / 2, {}})},
                  {box({-0.2, -1.0, -1.0}, {0.2, 1.0, 1.0})},
                  random_rotation(random),
                  256),
      options);
}

TEST(GpuClash, SolidClashesMeetTheExactAnswersOnCuda) {
  REQUIRE_CUDA();
  const double r1 = 0.5, r2 = 0.6, d = 0.75, voxel = 3.2 / 256;
  const Mesh a = uv_sphere(r1, 96, 192), b = uv_sphere(r2, 96, 192);
  const ClashScene scene = solid_scene({placed(a, {1, {0, 0, 1}, 0, {-d / 2, 0, 0}})},
                                       {placed(b, {1, {0, 0, 1}, 0, {d / 2, 0, 0}})},
                                       {1, {1, -2, 0.5}, 1.1, {0.03, 0.02, -0.01}},
                                       256);
  const ClashReport r    = run_clash(Backend::Cuda, scene);
  ASSERT_EQ(r.clashes.size(), 1u);
  const double exact =
      lens_volume(r1, r2, d) * uv_sphere_share(a) / (4.0 / 3 * std::numbers::pi * r1 * r1 * r1);
  EXPECT_NEAR(r.clashes[0].volume, exact, 0.02 * exact);
  EXPECT_NEAR(r.clashes[0].depth, r1 + r2 - d, voxel);
}

}  // namespace
}  // namespace voxhash::test
