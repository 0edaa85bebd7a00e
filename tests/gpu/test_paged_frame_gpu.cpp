// Frames over paged tables on the CUDA backend (label gpu): with a budget far below the tables,
// the pages beyond it live in pinned host memory and the probe's search streams them through the
// budget; the voxels and labels must equal the CPU's paged frame and the CUDA frame without a
// budget, on meshes and clouds, 32- and 64-bit keys. Skipped, saying why, without a CUDA device.
#include "common/require_cuda.hpp"
#include "common/wide_scene.hpp"

#include <gtest/gtest.h>
#include <string>

namespace voxhash::test {
namespace {

constexpr std::size_t kSmallBudget = std::size_t{256} << 10;

TEST(GpuPagedFrame, CudaEqualsCpuAndTheUnpagedFrame) {
  REQUIRE_CUDA();
  for (const Scene& s : eval_scenes(128, SceneSet::Issue)) {
    const SceneOutcome cpu  = evaluate_scene(s, {.scored = false, .gpu_budget = kSmallBudget});
    const SceneOutcome flat = evaluate_scene(s, {.backend = Backend::Cuda, .scored = false});
    const SceneOutcome cuda =
        evaluate_scene(s, {.backend = Backend::Cuda, .scored = false, .gpu_budget = kSmallBudget});
    EXPECT_TRUE(cuda.stats.paging.paged) << s.name;
    EXPECT_GT(cuda.stats.paging.pages, cuda.stats.paging.resident_pages) << s.name;
    EXPECT_TRUE(same_voxels(cuda, cpu)) << s.name;
    EXPECT_TRUE(same_voxels(cuda, flat)) << s.name;
  }
}

TEST(GpuPagedFrame, CloudsOnBothKeyWidths) {
  REQUIRE_CUDA();
  Scene s  = eval_scenes(128, SceneSet::Issue).front();
  s.points = 200000;
  for (const bool wide : {false, true}) {
    const std::string what  = wide ? "64-bit keys" : "32-bit keys";
    const SceneOutcome flat = evaluate_scene(
        s, {.backend = Backend::Cuda, .wide_keys = wide, .as_points = true, .scored = false});
    const SceneOutcome paged = evaluate_scene(s,
                                              {.backend    = Backend::Cuda,
                                               .wide_keys  = wide,
                                               .as_points  = true,
                                               .scored     = false,
                                               .gpu_budget = kSmallBudget});
    EXPECT_TRUE(paged.stats.paging.paged) << what;
    EXPECT_TRUE(same_voxels(paged, flat)) << what;
  }
}

}  // namespace
}  // namespace voxhash::test
