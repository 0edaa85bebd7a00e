// Part-pair clashes on the CPU backend against exact geometry: overlap volumes of spheres, rotated
// boxes and a duct through a wall within 2 % (overlaps at least 8 voxels across), penetration
// depths within one voxel, every gap under clearance - 1 voxel found and none over clearance + 1
// voxel, touching never hard; kinds from the tolerance, assemblies clashing part by part, open
// parts reported, stable ids, options refused with the voxel size they need.
#include "common/solid_checks.hpp"

#include <voxhash/error.hpp>

#include <gtest/gtest.h>

namespace voxhash::test {
namespace {

constexpr double kVoxel = 3.2 / 128;  // solid_scene's voxel

ClashReport clash_cpu(const ClashScene& scene, const ClashOptions& options = {}) {
  return run_clash(Backend::Cpu, scene, TableKind::Cuckoo, options);
}

TEST(ClashSolids, TwoSpheresOverlapByTheirLensAndTheirDepth) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> gap(0.62, 0.85), shift(-0.15, 0.15);
  const double r1 = 0.5, r2 = 0.6;
  const Mesh a = uv_sphere(r1, 96, 192), b = uv_sphere(r2, 96, 192);
  const double share = uv_sphere_share(a) / (4.0 / 3 * std::numbers::pi * r1 * r1 * r1);
  for (int trial = 0; trial < 3; ++trial) {
    const double d = gap(random);
    const Placement pose =
        then_shift(random_rotation(random), {shift(random), shift(random), shift(random)});
    const ClashScene scene = solid_scene({placed(a, {1, {0, 0, 1}, 0, {-d / 2, 0, 0}})},
                                         {placed(b, {1, {0, 0, 1}, 0, {d / 2, 0, 0}})},
                                         pose);
    const ClashReport r    = clash_cpu(scene);
    SCOPED_TRACE("d = " + std::to_string(d));
    ASSERT_TRUE(r.solids);
    EXPECT_TRUE(r.open_parts[0].empty() && r.open_parts[1].empty());
    ASSERT_EQ(r.clashes.size(), 1u);
    const Clash& c = r.clashes[0];
    EXPECT_EQ(c.kind, ClashKind::Hard);
    const double exact = lens_volume(r1, r2, d) * share;
    EXPECT_NEAR(c.volume, exact, 0.02 * exact);
    EXPECT_NEAR(c.depth, r1 + r2 - d, kVoxel);
    EXPECT_LE(c.resolution, kVoxel);
    // The lens' centroid lies on the line of centres, between the spheres' surfaces.
    const D3 centre_a = place(pose, {-d / 2, 0, 0}), centre_b = place(pose, {d / 2, 0, 0});
    const D3 axis = (1 / d) * (centre_b - centre_a);
    const D3 v    = to_d3(c.centroid) - centre_a;
    EXPECT_LT(norm(v - dot(v, axis) * axis), kVoxel);
    EXPECT_GT(dot(v, axis), d - r2);
    EXPECT_LT(dot(v, axis), r1);
  }
}

TEST(ClashSolids, RotatedBoxesOverlapAsTheExactReferenceSays) {
  std::mt19937 random(11);
  std::uniform_real_distribution<double> overlap(0.2, 0.35);
  for (int trial = 0; trial < 3; ++trial) {
    const D3 size_a{1.0, 0.8, 0.9}, size_b{0.9, 1.1, 0.8};
    const D3 o{overlap(random), overlap(random), overlap(random)};  // overlap per axis
    const D3 lo_a = -0.5 * size_a, hi_a = 0.5 * size_a;
    const D3 lo_b = hi_a - o, hi_b = lo_b + size_b;
    const D3 centre      = -0.5 * (lo_a + hi_b);  // the pair centred on the grid
    const Placement pose = random_rotation(random);
    const ClashScene scene =
        solid_scene({box(lo_a + centre, hi_a + centre)}, {box(lo_b + centre, hi_b + centre)}, pose);
    const Convex ca    = placed_box(lo_a + centre, hi_a + centre, pose);
    const Convex cb    = placed_box(lo_b + centre, hi_b + centre, pose);
    const double exact = convex_overlap_volume(ca, cb, 1.6);
    SCOPED_TRACE("overlap " + std::to_string(o.x) + " " + std::to_string(o.y) + " " +
                 std::to_string(o.z));
    EXPECT_NEAR(exact, o.x * o.y * o.z, 0.002 * exact);  // the reference agrees with itself
    const ClashReport r = clash_cpu(scene);
    ASSERT_EQ(r.clashes.size(), 1u);
    EXPECT_EQ(r.clashes[0].kind, ClashKind::Hard);
    EXPECT_NEAR(r.clashes[0].volume, exact, 0.02 * exact);
    EXPECT_NEAR(r.clashes[0].depth, std::min({o.x, o.y, o.z}), kVoxel);
  }
}

TEST(ClashSolids, ADuctThroughAWallOverlapsByItsCrossSectionTimesTheWall) {
  std::mt19937 random(13);
  const double radius = 0.15, wall = 0.4;
  // The duct along x through a wall across x.
  const Mesh duct = placed(cylinder_mesh(radius, 2.0), {1, {0, 1, 0}, std::numbers::pi / 2, {}});
  const Mesh slab = box({-wall / 2, -1.0, -1.0}, {wall / 2, 1.0, 1.0});
  for (int trial = 0; trial < 2; ++trial) {
    const ClashScene scene = solid_scene({duct}, {slab}, random_rotation(random));
    const ClashReport r    = clash_cpu(scene);
    ASSERT_EQ(r.clashes.size(), 1u);
    const double exact = polygon_area(radius, 256) * wall;
    EXPECT_NEAR(r.clashes[0].volume, exact, 0.02 * exact);
    // The wall reaches wall/2 into... the duct's axis is radius inside the duct, inside the wall.
    EXPECT_NEAR(r.clashes[0].depth, std::max(radius, wall / 2), kVoxel);
  }
}

TEST(ClashSolids, GapsUnderTheClearanceAreFoundAndLargerOnesAreNot) {
  std::mt19937 random(17);
  const double clearance = 0.1;
  for (const double gap : {0.02, 0.06, 0.13, 0.2}) {
    const Placement pose   = random_rotation(random);
    const ClashScene scene = solid_scene({box({-0.6, -0.3, -0.3}, {-gap / 2, 0.3, 0.3})},
                                         {box({gap / 2, -0.35, -0.25}, {0.5, 0.25, 0.35})},
                                         pose);
    ClashOptions options;
    options.clearance   = clearance;
    const ClashReport r = clash_cpu(scene, options);
    SCOPED_TRACE("gap " + std::to_string(gap));
    if (gap < clearance - kVoxel) {
      ASSERT_EQ(r.clashes.size(), 1u);
      EXPECT_EQ(r.clashes[0].kind, ClashKind::Clearance);
      EXPECT_NEAR(r.clashes[0].distance, gap, kVoxel);
      EXPECT_EQ(r.clashes[0].volume, 0.0);
    } else if (gap > clearance + kVoxel) {
      EXPECT_TRUE(r.clashes.empty());
    }
    EXPECT_TRUE(clash_cpu(scene).clashes.empty());  // no clearance asked: nothing
  }
}

TEST(ClashSolids, SpheresApartGiveTheirGap) {
  const double r1 = 0.4, r2 = 0.5, gap = 0.05;
  const ClashScene scene =
      solid_scene({placed(uv_sphere(r1, 96, 192), {1, {0, 0, 1}, 0, {-r1 - gap / 2, 0, 0}})},
                  {placed(uv_sphere(r2, 96, 192), {1, {0, 0, 1}, 0, {r2 + gap / 2, 0, 0}})},
                  {1, {1, 2, 3}, 0.7, {0.05, -0.03, 0.02}});
  ClashOptions options;
  options.clearance   = 0.1;
  const ClashReport r = clash_cpu(scene, options);
  ASSERT_EQ(r.clashes.size(), 1u);
  EXPECT_EQ(r.clashes[0].kind, ClashKind::Clearance);
  EXPECT_NEAR(r.clashes[0].distance, gap, kVoxel);
}

TEST(ClashSolids, PenetrationsWithinTheToleranceAreTouchingNeverHard) {
  std::mt19937 random(19);
  for (const double depth : {0.01, 0.03, 0.045, 0.15}) {
    const ClashScene scene = solid_scene({box({-0.6, -0.3, -0.3}, {depth / 2, 0.3, 0.3})},
                                         {box({-depth / 2, -0.35, -0.25}, {0.5, 0.25, 0.35})},
                                         random_rotation(random));
    ClashOptions options;
    options.tolerance   = 0.05;
    const ClashReport r = clash_cpu(scene, options);
    SCOPED_TRACE("depth " + std::to_string(depth));
    ASSERT_EQ(r.clashes.size(), 1u);
    if (depth <= options.tolerance) {
      EXPECT_EQ(r.clashes[0].kind, ClashKind::Touching);
      EXPECT_EQ(r.kind_counts[static_cast<int>(ClashKind::Touching)], 1u);
    } else if (depth > options.tolerance + kVoxel) {
      EXPECT_EQ(r.clashes[0].kind, ClashKind::Hard);
    }
    EXPECT_NEAR(r.clashes[0].depth, depth, kVoxel);
    options.touching          = false;
    const ClashReport without = clash_cpu(scene, options);
    EXPECT_EQ(without.clashes.size(), depth <= options.tolerance ? 0u : r.clashes.size());
  }
}

TEST(ClashSolids, AnAssemblyClashesPartByPart) {
  // Model A: two overlapping boxes (parts 0 and 1); model B: a bar through both.
  const ClashScene scene = solid_scene(
      {box({-0.8, -0.3, -0.3}, {0.1, 0.3, 0.3}), box({-0.1, -0.3, -0.3}, {0.8, 0.3, 0.3})},
      {box({-1.0, -0.1, -0.1}, {1.0, 0.1, 0.1})},
      {});
  const ClashReport r = clash_cpu(scene);
  ASSERT_EQ(r.clashes.size(), 2u);
  for (const std::uint32_t part : {0u, 1u}) {
    const std::optional<Clash> c = clash_of(r, part, 0);
    ASSERT_TRUE(c);
    EXPECT_NEAR(c->volume, 0.9 * 0.2 * 0.2, 0.02 * 0.9 * 0.2 * 0.2);
    EXPECT_NEAR(c->depth, 0.3, kVoxel);  // the box reaches 0.3 into... the bar's axis is 0.3 in
  }
}

TEST(ClashSolids, AnOpenPartIsReported) {
  Mesh open = box({-0.5, -0.3, -0.3}, {0.1, 0.3, 0.3});
  open.triangles.resize(open.triangles.size() - 6);  // the +x face gone
  const ClashScene scene = solid_scene({open}, {box({0.0, -0.2, -0.2}, {0.6, 0.2, 0.2})}, {});
  const ClashReport r    = clash_cpu(scene);
  EXPECT_EQ(r.open_parts[0], std::vector<std::uint32_t>{0});
  EXPECT_TRUE(r.open_parts[1].empty());
}

TEST(ClashSolids, RepeatedVerticesDoNotOpenAClosedPart) {
  // Every triangle with vertices of its own, as some OBJ exporters write them: still closed.
  Mesh loose;
  const Mesh closed = box({-0.5, -0.3, -0.3}, {0.1, 0.3, 0.3});
  for (const std::uint32_t v : closed.triangles) {
    loose.triangles.push_back(static_cast<std::uint32_t>(loose.vertices.size()));
    loose.vertices.push_back(closed.vertices[v]);
  }
  const ClashScene scene = solid_scene({loose}, {box({0.0, -0.2, -0.2}, {0.6, 0.2, 0.2})}, {});
  const ClashReport r    = clash_cpu(scene);
  EXPECT_TRUE(r.open_parts[0].empty());
  ASSERT_EQ(r.clashes.size(), 1u);
  EXPECT_NEAR(r.clashes[0].volume, 0.1 * 0.4 * 0.4, 0.02 * 0.1 * 0.4 * 0.4);
}

TEST(ClashSolids, IdsComeFromTheNamesAndStayFromRunToRun) {
  const ClashScene scene = solid_scene(
      {box({-0.5, -0.3, -0.3}, {0.1, 0.3, 0.3}), box({0.3, -0.3, -0.3}, {0.9, 0.3, 0.3})},
      {box({-0.1, -0.2, -0.2}, {0.5, 0.2, 0.2})},
      {});
  ClashOptions options;
  options.model_names = {"structure", "ducts"};
  options.part_names  = {std::vector<std::string>{"beam", "column"}, {"duct 7"}};
  const ClashReport r = clash_cpu(scene, options);
  ASSERT_EQ(r.clashes.size(), 2u);
  const std::optional<Clash> beam = clash_of(r, 0, 0), column = clash_of(r, 1, 0);
  ASSERT_TRUE(beam && column);
  EXPECT_EQ(beam->id, clash_id("structure", "beam", "ducts", "duct 7"));
  EXPECT_EQ(column->id, clash_id("structure", "column", "ducts", "duct 7"));
  EXPECT_NE(beam->id, column->id);
  // The same clashes after the models move a little: the same ids.
  ClashScene moved = solid_scene(
      {box({-0.5, -0.3, -0.3}, {0.1, 0.3, 0.3}), box({0.3, -0.3, -0.3}, {0.9, 0.3, 0.3})},
      {box({-0.1, -0.2, -0.2}, {0.5, 0.2, 0.2})},
      {1, {0, 0, 1}, 0.05, {0.02, 0.01, 0}});
  const ClashReport again = clash_cpu(moved, options);
  ASSERT_EQ(again.clashes.size(), 2u);
  EXPECT_EQ(clash_of(again, 0, 0)->id, beam->id);
  EXPECT_EQ(clash_of(again, 1, 0)->id, column->id);
  // Names that repeat are told apart by where they meet.
  options.part_names           = {std::vector<std::string>{"beam", "beam"}, {"duct 7"}};
  const ClashReport same_names = clash_cpu(scene, options);
  EXPECT_NE(clash_of(same_names, 0, 0)->id, clash_of(same_names, 1, 0)->id);
}

TEST(ClashSolids, BadTolerancesAndAClearanceUnderAVoxelAreRefused) {
  const ClashScene scene = solid_scene(
      {box({-0.5, -0.3, -0.3}, {0.1, 0.3, 0.3})}, {box({0.0, -0.2, -0.2}, {0.6, 0.2, 0.2})}, {});
  ClashOptions options;
  options.clearance = 0.01;  // under the 0.025 voxel
  try {
    (void)clash_cpu(scene, options);
    FAIL() << "a clearance under a voxel was taken";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("voxels of at most 0.01"), std::string::npos) << e.what();
  }
  for (const double bad : {-1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    ClashOptions o;
    o.tolerance = bad;
    EXPECT_THROW((void)clash_cpu(scene, o), InvalidInput);
    o           = {};
    o.clearance = bad;
    EXPECT_THROW((void)clash_cpu(scene, o), InvalidInput);
  }
}

TEST(ClashSolids, PartIdsBeyondTheSolidsLimitAreRefused) {
  ClashScene scene = solid_scene(
      {box({-0.5, -0.3, -0.3}, {0.1, 0.3, 0.3})}, {box({0.0, -0.2, -0.2}, {0.6, 0.2, 0.2})}, {});
  for (std::uint32_t& part : scene.models[1].mesh.triangle_parts)
    part = 5'000'000;
  try {
    (void)clash_cpu(scene);
    FAIL() << "a part id of 5M was taken";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("part id 5000000"), std::string::npos) << e.what();
  }
}

TEST(ClashSolids, PartsReachingBeyondTheGridStillClash) {
  // The bar runs far past the grid's top and bottom: its columns' intervals do too.
  const ClashScene scene = solid_scene(
      {box({-0.5, -0.5, -0.5}, {0.5, 0.5, 0.5})}, {box({-0.1, -0.1, -30.0}, {0.1, 0.1, 30.0})}, {});
  const ClashReport r = clash_cpu(scene);
  ASSERT_EQ(r.clashes.size(), 1u);
  EXPECT_NEAR(r.clashes[0].volume, 0.2 * 0.2 * 1.0, 0.02 * 0.04);
  EXPECT_LE(r.clashes[0].bounds.max.z, 1.6f + 1e-4f);
}

TEST(ClashSolids, PointCloudsClashByTheirSurfacesWithoutVolume) {
  const ClashReport r = clash_cpu(two_spheres_scene(1.0f));
  EXPECT_FALSE(r.solids);
  ASSERT_EQ(r.clashes.size(), 1u);
  EXPECT_TRUE(std::isnan(r.clashes[0].volume));
  EXPECT_TRUE(std::isnan(r.clashes[0].depth));
  EXPECT_EQ(r.clashes[0].contact_voxels, r.voxels);
}

TEST(ClashSolids, ModelsFarApartHaveNoClash) {
  const ClashScene scene = solid_scene(
      {box({-1.2, -0.3, -0.3}, {-0.6, 0.3, 0.3})}, {box({0.6, -0.2, -0.2}, {1.2, 0.2, 0.2})}, {});
  ClashOptions options;
  options.clearance = 0.2;
  EXPECT_TRUE(clash_cpu(scene, options).clashes.empty());
}

TEST(ClashSolids, ClearanceAmongManyPartsFindsEveryCloseBoxPairAndNoOther) {
  // 36 boxes in A on a 6 x 6 lattice, and in B one box beside each, its gap along x from 0.01 to
  // 0.07 (box i's: 0.01 + i / 600); lattice neighbours are 0.3 apart. With clearance 0.04, the
  // pairs whose gap is under 0.04 - 1 voxel must be found, none over 0.04 + 1 voxel, and no pair
  // of lattice neighbours.
  std::vector<Mesh> a, b;
  std::vector<double> gaps;
  for (int i = 0; i < 36; ++i) {
    const double x = -0.9 + 0.3 * (i % 6), y = -0.9 + 0.3 * (i / 6), g = 0.01 + i / 600.0;
    a.push_back(box({x, y, -0.1}, {x + 0.1, y + 0.1, 0.1}));
    b.push_back(box({x + 0.1 + g, y, -0.1}, {x + 0.15 + g, y + 0.1, 0.1}));
    gaps.push_back(g);
  }
  const ClashScene scene = solid_scene(a, b, {}, 256);
  const double voxel     = 3.2 / 256;  // static_config: a 3.2-wide grid
  ClashOptions options;
  options.clearance   = 0.04;
  const ClashReport r = clash_cpu(scene, options);
  std::vector<bool> found(36, false);
  for (const Clash& c : r.clashes) {
    ASSERT_EQ(c.kind, ClashKind::Clearance);
    ASSERT_EQ(c.part_a, c.part_b) << "only a box and the one beside it come that close";
    found[c.part_a] = true;
    EXPECT_NEAR(c.distance, gaps[c.part_a], voxel) << "part " << c.part_a;
  }
  for (int i = 0; i < 36; ++i) {
    if (gaps[i] < options.clearance - voxel) {
      EXPECT_TRUE(found[i]) << "gap " << gaps[i];
    }
    if (gaps[i] > options.clearance + voxel) {
      EXPECT_FALSE(found[i]) << "gap " << gaps[i];
    }
  }
}

}  // namespace
}  // namespace voxhash::test
