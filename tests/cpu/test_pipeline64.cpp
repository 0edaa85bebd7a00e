// The pipeline on 64-bit keys, CPU backend (label cpu): on a grid of 2^20 voxels per axis
// (keys far above 2^32) analytic mesh pairs are labelled as exact geometry says, every algorithm
// gives the same labels, the clash report and the voxel PLY export work; at 1024^3 the 32-bit and
// the forced 64-bit path give identical voxels, labels, statistics and clash reports. The shapes
// are small in voxels, so the big grids stay cheap.
#include "common/wide_scene.hpp"

#include <voxhash/clash.hpp>
#include <voxhash/error.hpp>
#include <voxhash/io.hpp>
#include <voxhash/pipeline.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

namespace voxhash::test {
namespace {

TEST(Pipeline64, WideGridRunsOnSixtyFourBitKeys) {
  const Scene s = wide_scenes()[0];
  PipelineConfig config;
  config.grid              = wide_grid(kWide, 0.01);
  config.animation.animate = false;
  Pipeline pipeline(Backend::Cpu, config);
  EXPECT_TRUE(pipeline.grid().wide());
  EXPECT_EQ(pipeline.grid().key_bits(), 60);
  EXPECT_EQ(pipeline.key_bits(), 64);
  pipeline.set_model(0, s.a, sample_surface(s.a, 1000, 1));
  pipeline.set_model(1, s.b, sample_surface(s.b, 1000, 2));
  const FrameStats stats = pipeline.run_frame(0.0);
  EXPECT_EQ(stats.key_bits, 64);
  EXPECT_GT(stats.model[0].voxels, 1000u);
  EXPECT_GT(stats.model[0].intersection, 0u);
  EXPECT_THROW((void)pipeline.voxels(0), InvalidInput);
  EXPECT_EQ(pipeline.voxels64(0).size(), stats.model[0].voxels);
  const ModelVoxels v = pipeline.download(0);
  ASSERT_FALSE(v.keys.empty());
  EXPECT_GT(v.keys.front(), Key64{1} << 40) << "cells far from 0 on every axis";
  const Int3 c = pipeline.grid().cell(v.keys.front());
  EXPECT_EQ(pipeline.grid().key64(c), v.keys.front());
  EXPECT_GT(c.z, kWide / 2);
  const Float3 centre = voxel_center(config.grid, v.keys.front());
  EXPECT_EQ(voxel_key64(config.grid, centre), v.keys.front());
  EXPECT_THROW((void)voxel_key(config.grid, centre), InvalidInput);
}

TEST(Pipeline64, MeshScenesMatchExactGeometryAt2To20) {
  const auto started = std::chrono::steady_clock::now();
  EvalSweep totals("2^20 per axis (64-bit keys), small shapes");
  for (const Scene& s : wide_scenes()) {
    const SceneOutcome o = evaluate_scene(s, {.grid = wide_grid(kWide, 0.01)});
    EXPECT_EQ(o.stats.key_bits, 64);
    EXPECT_GT(o.stats.model[0].inside + o.stats.model[1].inside, 0u) << s.name;
    totals.add(s, o);
  }
  totals.finish(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

TEST(Pipeline64, EveryAlgorithmGivesTheSameLabelsAt2To20) {
  const Scene s         = wide_scenes()[0];
  const GridParams grid = wide_grid(kWide, 0.01);
  const SceneOutcome first =
      evaluate_scene(s, {.algorithm = kTableKinds[0], .grid = grid, .scored = false});
  for (const TableKind kind : kTableKinds) {
    const SceneOutcome o = evaluate_scene(s, {.algorithm = kind, .grid = grid, .scored = false});
    EXPECT_TRUE(same_voxels(o, first)) << to_string(kind);
    EXPECT_EQ(o.stats.model[0].intersection, first.stats.model[0].intersection);
  }
}

TEST(Pipeline64, NarrowAndWideKeysAgreeAt1024) {
  const GridParams grid = wide_grid(1024, 0.01);
  for (const Scene& s : wide_scenes()) {
    for (const TableKind kind : kTableKinds) {
      const SceneOutcome narrow =
          evaluate_scene(s, {.algorithm = kind, .grid = grid, .scored = false});
      const SceneOutcome wide =
          evaluate_scene(s, {.algorithm = kind, .grid = grid, .wide_keys = true, .scored = false});
      EXPECT_EQ(narrow.stats.key_bits, 32);
      EXPECT_EQ(wide.stats.key_bits, 64);
      EXPECT_TRUE(same_voxels(narrow, wide)) << s.name << ", " << to_string(kind);
      for (int m = 0; m < 2; ++m) {
        EXPECT_EQ(narrow.stats.model[m].inside, wide.stats.model[m].inside);
        EXPECT_EQ(narrow.stats.model[m].outside, wide.stats.model[m].outside);
        EXPECT_EQ(narrow.stats.model[m].components, wide.stats.model[m].components);
        EXPECT_EQ(narrow.stats.model[m].undecided, wide.stats.model[m].undecided);
      }
    }
  }
}

/// Both models with two parts each (triangles by parity), one frame, and its clash report.
ClashReport clash_of(const GridParams& grid, bool wide_keys, TableKind kind) {
  const Scene s = wide_scenes()[0];
  PipelineConfig config;
  config.grid              = grid;
  config.animation.animate = false;
  config.algorithm         = kind;
  config.wide_keys         = wide_keys;
  Pipeline pipeline(Backend::Cpu, config);
  const Mesh* meshes[2] = {&s.a, &s.b};
  for (int i = 0; i < 2; ++i) {
    pipeline.set_model(i, *meshes[i], sample_surface(*meshes[i], 1000, 1 + i));
    std::vector<std::uint32_t> parts(meshes[i]->triangles.size() / 3);
    for (std::size_t t = 0; t < parts.size(); ++t)
      parts[t] = static_cast<std::uint32_t>(t % 2 + 10 * i);
    pipeline.set_model_parts(i, parts);
  }
  pipeline.run_frame(0.0);
  ClashOptions options;
  options.voxels = true;
  return compute_clash_report(pipeline, options);
}

TEST(Pipeline64, ClashReportOnSixtyFourBitKeys) {
  for (const TableKind kind : kTableKinds) {
    const ClashReport narrow = clash_of(wide_grid(1024, 0.01), false, kind);
    const ClashReport wide   = clash_of(wide_grid(1024, 0.01), true, kind);
    ASSERT_GT(narrow.voxels, 0u);
    EXPECT_EQ(narrow.total_regions, wide.total_regions) << to_string(kind);
    EXPECT_EQ(narrow.voxels, wide.voxels);
    EXPECT_EQ(narrow.voxel_keys, wide.voxel_keys);
    EXPECT_EQ(narrow.voxel_regions, wide.voxel_regions);
    ASSERT_EQ(narrow.parts.size(), wide.parts.size());
    for (std::size_t i = 0; i < narrow.parts.size(); ++i) {
      EXPECT_EQ(narrow.parts[i].part_a, wide.parts[i].part_a);
      EXPECT_EQ(narrow.parts[i].part_b, wide.parts[i].part_b);
      EXPECT_EQ(narrow.parts[i].voxels, wide.parts[i].voxels);
    }
  }
  const ClashReport r = clash_of(wide_grid(kWide, 0.01), false, TableKind::Cuckoo);
  EXPECT_TRUE(r.grid.wide());
  ASSERT_GE(r.total_regions, 1u);
  EXPECT_EQ(r.parts.size(), 4u) << "parts 0 / 1 of A meet parts 10 / 11 of B";
  EXPECT_EQ(r.voxel_keys.size(), r.voxels);
  for (const ClashRegion& region : r.regions) {
    EXPECT_GT(region.min_cell.z, kWide / 2);
    EXPECT_NEAR(region.centroid.z, 0.0, 0.35);
  }
}

TEST(Pipeline64, VoxelPlyExportOnAWideGrid) {
  const GridParams grid = wide_grid(kWide, 0.01);
  const SceneOutcome o  = evaluate_scene(wide_scenes()[0], {.grid = grid, .scored = false});
  const auto path       = std::filesystem::temp_directory_path() / "voxhash_test_wide.ply";
  export_voxels_ply(path.string(), grid, o.voxels);
  std::ifstream in(path);
  std::string line, vertices;
  while (std::getline(in, line) && line != "end_header") {
    if (line.starts_with("element vertex")) vertices = line.substr(15);
  }
  EXPECT_EQ(vertices, std::to_string(o.voxels[0].keys.size() + o.voxels[1].keys.size()));
  std::filesystem::remove(path);
}

TEST(Pipeline64, FrameEstimatesCountWideKeys) {
  PipelineConfig narrow;
  narrow.grid.resolution = {1024, 1024, 1024};
  PipelineConfig wide    = narrow;
  wide.wide_keys         = true;
  const std::array<std::size_t, 2> points{1 << 20, 1 << 20};
  EXPECT_GT(estimate_frame_bytes(wide, points).backend_bytes,
            estimate_frame_bytes(narrow, points).backend_bytes + (std::size_t{16} << 20));
  PipelineConfig huge;
  huge.grid.resolution = {kMaxGridResolution, kMaxGridResolution, kMaxGridResolution};
  EXPECT_LT(estimate_frame_bytes(huge, points).backend_bytes, std::size_t{1} << 32)
      << "a 2^21 grid's mask is bounded (coarser blocks)";
}

}  // namespace
}  // namespace voxhash::test
