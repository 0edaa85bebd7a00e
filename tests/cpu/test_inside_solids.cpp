// Inside and outside from a mesh's solid on the CPU backend (label cpu; issue 35): parts inside
// closed housings whose walls are 0.3 to 3 voxels thick, spheres in thin-walled cups and
// assemblies of 2 to 5 overlapping closed parts (tests/common/solid_scenes.hpp) at 128^3 and
// 256^3, against the union of the exact parts: no far voxel wrong, at most 0.5 % of the near
// ones. Then what a model's parts say about its solid: parts open on their own but closed
// together, and an open mesh, which gets a warning and labels from its winding number.
#include "common/solid_scenes.hpp"

#include <voxhash/pipeline.hpp>

#include <chrono>
#include <cstdio>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace voxhash::test {
namespace {

/// Runs every scene on the CPU backend and checks both models against the exact union.
void sweep(int resolution) {
  const auto started = std::chrono::steady_clock::now();
  std::size_t near = 0, near_wrong = 0;
  for (const Scene& s : solid_scenes(resolution)) {
    const SceneOutcome o = evaluate_scene(s, {.scored = false});
    const ExactModel a(s.a), b(s.b);
    const GridParams grid      = fitted_grid(s);
    const ModelScore scores[2] = {score_union(grid, o.voxels[0], a, b),
                                  score_union(grid, o.voxels[1], b, a)};
    for (int m = 0; m < 2; ++m) {
      const ModelScore& c = scores[m];
      std::printf("%-60s %c %8zu far %6zu wrong %zu, near %6zu wrong %zu\n",
                  s.name.c_str(),
                  m ? 'B' : 'A',
                  c.voxels,
                  c.far,
                  c.far_wrong,
                  c.near,
                  c.near_wrong);
      EXPECT_EQ(c.far_wrong, 0u) << s.name << " model " << m << " at " << resolution << "^3";
      EXPECT_EQ(c.bad_intersections, 0u) << s.name;
      EXPECT_TRUE(o.stats.model[m].labels_from_solid) << s.name;
      EXPECT_EQ(o.stats.model[m].open_parts, 0u) << s.name;
      EXPECT_EQ(o.stats.model[m].thin_feature_regions, 0u) << s.name;
      near += c.near;
      near_wrong += c.near_wrong;
    }
    EXPECT_GT(o.stats.model[1].inside + o.stats.model[0].inside + o.stats.model[1].outside, 0u);
  }
  std::printf("%d^3: near wrong %zu of %zu, %.1f s\n",
              resolution,
              near_wrong,
              near,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  EXPECT_LE(near_wrong, near / 200) << "near voxels: more than 0.5 % wrong";
}

TEST(InsideSolids, HousingsCupsAndAssembliesMatchExactGeometryAt128) {
  sweep(128);
}

TEST(InsideSolids, HousingsCupsAndAssembliesMatchExactGeometryAt256) {
  sweep(256);
}

TEST(InsideSolids, AThinHousingHidesNothingInside) {
  // The case: a sphere 56 to 81 voxels inside a housing with 0.8-voxel walls came out
  // Inside the housing with no warning. Every voxel of it is in the cavity: Outside.
  for (const Scene& s : solid_scenes(128)) {
    if (s.name.find("housing, 0.8") == std::string::npos) continue;
    const SceneOutcome o = evaluate_scene(s, {.scored = false});
    EXPECT_EQ(o.stats.model[1].inside, 0u) << s.name;
    EXPECT_EQ(o.stats.model[1].intersection, 0u) << s.name;
    EXPECT_EQ(o.stats.model[1].outside, o.stats.model[1].voxels) << s.name;
    EXPECT_EQ(o.stats.model[0].inside, 0u) << s.name << ": the housing is outside the sphere";
  }
}

TEST(InsideSolids, PartsOpenAloneButClosedTogetherMakeOneSolid) {
  // A box whose six faces are six parts: each part is open, the model is closed.
  Mesh faces = box({-0.6, -0.6, -0.6}, {0.6, 0.6, 0.6});
  for (std::uint32_t t = 0; t < 12; ++t)
    faces.triangle_parts.push_back(t / 2);
  Scene s{"box of six face parts, sphere through it",
          faces,
          placed(uv_sphere(0.4), {1, {0, 0, 1}, 0, {0.5, 0.1, 0.05}})};
  const SceneOutcome o = evaluate_scene(s, {.scored = false});
  EXPECT_TRUE(o.stats.model[1].labels_from_solid);
  EXPECT_EQ(o.stats.model[0].open_parts, 0u);
  const ExactModel a(box({-0.6, -0.6, -0.6}, {0.6, 0.6, 0.6})), b(s.b);
  const ModelScore c = score_union(fitted_grid(s), o.voxels[1], b, a);
  EXPECT_GT(c.far, 0u);
  EXPECT_EQ(c.far_wrong, 0u);
  EXPECT_GT(o.stats.model[1].inside, 0u);
}

TEST(InsideSolids, AnOpenMeshIsWarnedAboutWithItsBoundaryEdges) {
  // A sphere with a hole (its bottom cap's 48 triangles gone) through a closed box.
  Mesh holed = uv_sphere(0.4, 24, 48);
  holed.triangles.erase(holed.triangles.begin(), holed.triangles.begin() + 3 * 48);
  Scene s{"box, sphere with a hole through it",
          box({-0.6, -0.6, -0.6}, {0.2, 0.6, 0.6}),
          placed(holed, {1, {0, 0, 1}, 0, {0.3, 0, 0}})};
  const SceneOutcome o = evaluate_scene(s, {.scored = false});
  EXPECT_EQ(o.stats.model[1].open_parts, 1u);
  EXPECT_EQ(o.stats.model[1].boundary_edges, 48u) << "the hole's rim";
  EXPECT_EQ(o.stats.model[0].boundary_edges, 0u);
  EXPECT_FALSE(o.stats.model[0].labels_from_solid) << "no solid to label the box against";
  EXPECT_TRUE(o.stats.model[0].labels_from_winding);
  EXPECT_TRUE(o.stats.model[1].labels_from_solid) << "the box is closed";
  bool warned = false;
  for (const std::string& line : frame_warnings(o.stats, {"box.obj", "holed.obj"})) {
    warned = warned || line.starts_with(
                           "model B (holed.obj) is an open mesh: 1 of its parts have "
                           "a hole or a missing face (48 boundary edges)");
  }
  EXPECT_TRUE(warned);
}

TEST(InsideSolids, AnOpenBowlLabelsWhatItHoldsByItsWindingNumber) {
  // A sphere without its top cap (polar angle under 45 degrees: a bowl open wide at the top) and
  // a slab through its lower half, at several turns of the slab: every far voxel of the slab
  // labelled as the closed sphere would label it. Voxel rays through the opening would see no
  // wall above.
  Mesh bowl = uv_sphere(0.4, 24, 48);
  bowl.triangles.resize(bowl.triangles.size() - 3 * (48 + 5 * 96));
  const ExactModel sphere(uv_sphere(0.4, 24, 48));
  for (const double turn : {0.0, 0.4, 1.1}) {
    const Mesh slab =
        placed(box({-0.55, -0.55, -0.3}, {0.55, 0.55, -0.05}), {1, {0, 0, 1}, turn, {0, 0, 0}});
    const Scene s{"bowl, slab through its lower half", bowl, slab};
    const SceneOutcome o = evaluate_scene(s, {.scored = false});
    ASSERT_TRUE(o.stats.model[1].labels_from_winding);
    const ModelScore c = score_union(fitted_grid(s), o.voxels[1], ExactModel(slab), sphere);
    EXPECT_GT(c.far, 1000u);
    EXPECT_EQ(c.far_wrong, 0u) << "turn " << turn;
    EXPECT_LE(c.near_wrong, c.near / 200) << "turn " << turn;
    EXPECT_GT(o.stats.model[1].inside, 0u);
    EXPECT_GT(o.stats.model[1].outside, 0u);
  }
}

}  // namespace
}  // namespace voxhash::test
