// Frames over paged tables (PipelineConfig::gpu_budget, issue 13): with tables beyond the budget
// each model's voxels go into a Starfish paged table whose pages beyond half the budget live in
// pinned host memory (the probe streams them; the fill searches the sorted voxel list). The
// voxels and labels must be exactly those of the
// frame without a budget (meshes and clouds, 32- and 64-bit keys, every algorithm); a budget too
// small for one page is a clear error. The budget's rules at their edges: paged only beyond it,
// half of it a model, the page count, and the frame's key width.
#include "common/inside_eval.hpp"
#include "common/wide_scene.hpp"

#include <voxhash/error.hpp>
#include <voxhash/gpu_budget.hpp>
#include <voxhash/paged_table.hpp>
#include <voxhash/pipeline.hpp>

#include <gtest/gtest.h>
#include <string>

namespace voxhash::test {
namespace {

/// 256 KiB: pages of ~1600 pairs (32-bit keys) or 1024 (64-bit), a few of them resident per
/// model, so the tables of these scenes (~10k-40k voxels a model) are streamed and mostly read
/// from host memory.
constexpr std::size_t kSmallBudget = std::size_t{256} << 10;

void expect_paged(const FrameStats& s, const std::string& what) {
  EXPECT_TRUE(s.paging.paged) << what;
  EXPECT_GT(s.paging.pages, s.paging.resident_pages) << what << ": pages beyond the budget";
  EXPECT_GT(s.paging.host_bytes, 0u) << what;
  EXPECT_GT(s.paging.bytes_to_host, 0u) << what << ": built pages went to host memory";
  EXPECT_GT(s.paging.bytes_to_device, 0u) << what << ": the probe's search streamed pages in";
  EXPECT_LE(s.paging.backend_bytes, kSmallBudget) << what;
}

TEST(PagedFrame, MeshScenesGiveTheSameLabelsAsWithoutABudget) {
  const std::vector<Scene> scenes = eval_scenes(128, SceneSet::Issue);
  ASSERT_FALSE(scenes.empty());
  for (const Scene& s : scenes) {
    const SceneOutcome flat  = evaluate_scene(s, {.scored = false});
    const SceneOutcome paged = evaluate_scene(s, {.scored = false, .gpu_budget = kSmallBudget});
    EXPECT_TRUE(same_voxels(paged, flat)) << s.name;
    EXPECT_FALSE(flat.stats.paging.paged) << s.name;
    expect_paged(paged.stats, s.name);
    for (int i = 0; i < 2; ++i)
      EXPECT_EQ(paged.stats.model[i].components, flat.stats.model[i].components) << s.name;
  }
}

TEST(PagedFrame, PointCloudsAndWideKeysGiveTheSameLabels) {
  Scene s  = eval_scenes(128, SceneSet::Issue).front();
  s.points = 60000;
  for (const bool wide : {false, true}) {
    const std::string what = wide ? "64-bit keys" : "32-bit keys";
    const SceneOutcome flat =
        evaluate_scene(s, {.wide_keys = wide, .as_points = true, .scored = false});
    const SceneOutcome paged = evaluate_scene(
        s, {.wide_keys = wide, .as_points = true, .scored = false, .gpu_budget = kSmallBudget});
    EXPECT_TRUE(same_voxels(paged, flat)) << what;
    EXPECT_EQ(paged.stats.key_bits, wide ? 64 : 32);
    expect_paged(paged.stats, what);
    EXPECT_EQ(paged.stats.model[0].point_coverage, flat.stats.model[0].point_coverage) << what;
  }
}

TEST(PagedFrame, EveryAlgorithmPagesTheSame) {
  const Scene s            = eval_scenes(128, SceneSet::Issue).front();
  const SceneOutcome first = evaluate_scene(s, {.scored = false});
  for (const TableKind kind : kTableKinds) {
    const SceneOutcome o =
        evaluate_scene(s, {.algorithm = kind, .scored = false, .gpu_budget = kSmallBudget});
    EXPECT_TRUE(same_voxels(o, first)) << to_string(kind);
    expect_paged(o.stats, std::string(to_string(kind)));
  }
}

TEST(PagedFrame, TablesWithinTheBudgetAreNotPaged) {
  const Scene s        = eval_scenes(128, SceneSet::Issue).front();
  const SceneOutcome o = evaluate_scene(s, {.scored = false, .gpu_budget = std::size_t{1} << 30});
  EXPECT_FALSE(o.stats.paging.paged);
  EXPECT_EQ(o.stats.paging.pages, 0u);
}

TEST(PagedFrame, FramesAfterTheFirstStayRight) {
  const Scene s = eval_scenes(128, SceneSet::Issue).front();
  PipelineConfig config;
  config.grid              = fitted_grid(s);
  config.animation.animate = false;
  config.gpu_budget        = kSmallBudget;
  Pipeline pipeline(Backend::Cpu, config);
  pipeline.set_model(0, s.a, sample_surface(s.a, 1000, 1));
  pipeline.set_model(1, s.b, sample_surface(s.b, 1000, 2));
  const FrameStats first         = pipeline.run_frame(0.0);
  const ModelVoxels first_voxels = pipeline.download(1);
  const FrameStats second        = pipeline.run_frame(0.0);
  EXPECT_TRUE(second.paging.paged);
  EXPECT_EQ(second.model[1].inside, first.model[1].inside);
  EXPECT_EQ(pipeline.download(1).labels, first_voxels.labels);
}

TEST(PagedFrame, ABudgetSmallerThanAPageIsAClearError) {
  const Scene s = eval_scenes(128, SceneSet::Issue).front();
  try {
    (void)evaluate_scene(s, {.scored = false, .gpu_budget = std::size_t{16} << 10});
    FAIL() << "a 16 KiB budget was accepted";
  } catch (const InvalidInput& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("gpu_budget 16"), std::string::npos) << what;
    EXPECT_NE(what.find("smaller than one page"), std::string::npos) << what;
  }
}

TEST(PagedFrame, MemoryEstimateCountsPagesInHostMemory) {
  PipelineConfig config;
  config.grid.resolution = {8192, 8192, 8192};
  config.grid.bounds     = {{-1, -1, -1}, {1, 1, 1}};
  const std::array<std::size_t, 2> points{std::size_t{200} << 20, std::size_t{200} << 20};
  const MemoryEstimate flat  = estimate_frame_bytes(config, points);
  config.gpu_budget          = std::size_t{1} << 30;
  const MemoryEstimate paged = estimate_frame_bytes(config, points);
  // 2 x 200M 64-bit keys: 200 pages of 2^20 pairs a model, ~21 MB each, in pinned host memory.
  EXPECT_GT(paged.host_bytes, flat.host_bytes + (std::size_t{6} << 30));
}

TEST(GpuBudget, PagesOnlyBeyondABudget) {
  EXPECT_FALSE(GpuBudget{}.limited());
  EXPECT_FALSE(GpuBudget{}.pages(0));
  EXPECT_FALSE(GpuBudget{}.pages(~std::size_t{0})) << "no budget never pages";
  const GpuBudget budget{1000};
  EXPECT_TRUE(budget.limited());
  EXPECT_FALSE(budget.pages(0));
  EXPECT_FALSE(budget.pages(999));
  EXPECT_FALSE(budget.pages(1000)) << "tables of exactly the budget fit";
  EXPECT_TRUE(budget.pages(1001));
  EXPECT_TRUE(GpuBudget{1}.pages(2));
}

TEST(GpuBudget, EachModelGetsHalfRoundedDown) {
  EXPECT_EQ(GpuBudget{1000}.per_model().bytes(), 500u);
  EXPECT_EQ(GpuBudget{1001}.per_model().bytes(), 500u);
  EXPECT_EQ(GpuBudget{1}.per_model().bytes(), 0u);
  EXPECT_FALSE(GpuBudget{}.per_model().limited());
  EXPECT_EQ(GpuBudget{std::size_t{1} << 30}.per_model(), GpuBudget{std::size_t{512} << 20});
}

TEST(GpuBudget, TheFramePagesWhenItsTwoTablesExceedTheBudget) {
  for (const TableKind kind : {TableKind::Cuckoo,
                               TableKind::BucketedCuckoo,
                               TableKind::HashGraphV1,
                               TableKind::HashGraphV2}) {
    for (const bool wide : {false, true}) {
      PipelineConfig config;
      config.algorithm = kind;
      config.wide_keys = wide;
      const std::array<std::size_t, 2> voxels{30'000, 12'345};
      EXPECT_FALSE(frame_paged(config, voxels)) << "no budget";
      config.gpu_budget = 1;  // a budget: the frame's tables take BuildOptions' space
      const std::size_t need =
          frame_table_bytes(config, voxels[0]) + frame_table_bytes(config, voxels[1]);
      const BuildOptions options = frame_table_options(config);
      EXPECT_EQ(frame_table_bytes(config, voxels[0]),
                estimate_bytes(kind, voxels[0], options, wide ? 8 : 4))
          << to_string(kind);
      config.gpu_budget = need;
      EXPECT_FALSE(frame_paged(config, voxels)) << to_string(kind) << ": exactly the budget";
      config.gpu_budget = need - 1;
      EXPECT_TRUE(frame_paged(config, voxels)) << to_string(kind) << ": one byte over";
      EXPECT_TRUE(frame_paged(config, {voxels[1], voxels[0]})) << "the two tables together";
    }
  }
}

TEST(GpuBudget, PageCountIsTheFilledPagesRoundedUp) {
  BuildOptions options;
  options.page_capacity = 1000;
  options.page_fill     = 1.0;
  EXPECT_EQ(paged_page_count(options, 0), 1u) << "an empty table has one page";
  EXPECT_EQ(paged_page_count(options, 1), 1u);
  EXPECT_EQ(paged_page_count(options, 1000), 1u);
  EXPECT_EQ(paged_page_count(options, 1001), 2u);
  options.page_fill = 0.5;
  EXPECT_EQ(paged_page_count(options, 500), 1u);
  EXPECT_EQ(paged_page_count(options, 501), 2u);
  EXPECT_EQ(paged_page_count(options, 10'000), 20u);
}

TEST(FrameKeyBits, SixtyFourBitKeysBeyondThirtyOneKeyBitsOrWhenAsked) {
  PipelineConfig config;
  config.grid.bounds     = {{-1, -1, -1}, {1, 1, 1}};
  config.grid.resolution = {1024, 1024, 2048};  // 10 + 10 + 11 = 31 key bits
  EXPECT_EQ(Grid(config.grid).key_bits(), kNarrowKeyBits);
  EXPECT_EQ(frame_key_bits(config), 32);
  config.wide_keys = true;
  EXPECT_EQ(frame_key_bits(config), 64) << "forced";
  config.wide_keys       = false;
  config.grid.resolution = {1024, 2048, 2048};  // 32 key bits
  EXPECT_EQ(frame_key_bits(config), 64);
  config.grid.resolution = {1025, 1024, 2048};  // 11 + 10 + 11: one voxel more is a bit more
  EXPECT_EQ(frame_key_bits(config), 64);
  Pipeline pipeline(Backend::Cpu, config);
  EXPECT_EQ(pipeline.key_bits(), 64) << "the pipeline follows the same rule";
  pipeline.set_grid({.resolution = {1024, 1024, 2048}, .bounds = config.grid.bounds});
  EXPECT_EQ(pipeline.key_bits(), 32);
}

}  // namespace
}  // namespace voxhash::test
