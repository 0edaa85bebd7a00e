// Clash report tests on the CPU backend (label cpu): regions against a host breadth-first search
// and against the analytic ring where two unit spheres meet, ranking of separate contacts, part
// pairs of a two-part model (mesh and point cloud) and of voxels holding several parts of each
// model (against the host's crossing), the size error of a crossing too large, options (the part
// pairs joined over pages under a GPU budget), and the JSON / CSV / PLY writers.
#include "clash/clash_report.hpp"
#include "common/clash_checks.hpp"

#include <voxhash/error.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <numeric>
#include <sstream>
#include <unistd.h>

namespace voxhash::test {
namespace {

constexpr Backend kCpu = Backend::Cpu;
constexpr float kVoxel = 3.2f / 128;  // the clash scenes' voxel size

ClashReport report_and_reference(const ClashScene& scene,
                                 std::vector<ReferenceRegion>& reference,
                                 const ClashOptions& options = {}) {
  Pipeline pipeline(kCpu, scene.config);
  run_scene_frame(pipeline, scene);
  reference = reference_regions(scene.config.grid, pipeline.download(0));
  return compute_clash_report(pipeline, options);
}

TEST(Clash, TwoUnitSpheresMeetInOneRingRegion) {
  const float d   = 1.0f;
  const float rho = std::sqrt(1.0f - d * d / 4);  // radius of the circle where they meet
  std::vector<ReferenceRegion> reference;
  const ClashReport r = report_and_reference(two_spheres_scene(d), reference);
  expect_matches_reference(r, reference);
  ASSERT_EQ(r.regions.size(), 1u);
  const ClashRegion& ring = r.regions[0];
  // The band of voxels both surfaces cross along the circle: at least one voxel per voxel of arc
  // length, at most the cross-section of two shells one voxel diagonal thick meeting at 60 degrees
  // (4 * 0.75 / sin 60 = 3.5 voxels) per voxel of arc length.
  const double arc_voxels = 2 * std::numbers::pi * rho / kVoxel;
  EXPECT_GT(ring.voxels, arc_voxels);
  EXPECT_LT(ring.voxels, 3.5 * arc_voxels);
  EXPECT_NEAR(ring.volume, ring.voxels * std::pow(double{kVoxel}, 3), 1e-9);
  EXPECT_NEAR(ring.bounds.min.x, 0, 3 * kVoxel);
  EXPECT_NEAR(ring.bounds.max.x, 0, 3 * kVoxel);
  EXPECT_NEAR(ring.bounds.min.y, -rho, 2 * kVoxel);
  EXPECT_NEAR(ring.bounds.max.y, rho, 2 * kVoxel);
  EXPECT_NEAR(ring.bounds.min.z, -rho, 2 * kVoxel);
  EXPECT_NEAR(ring.bounds.max.z, rho, 2 * kVoxel);
  EXPECT_NEAR(ring.centroid.x, 0, kVoxel);
  EXPECT_NEAR(ring.centroid.y, 0, kVoxel);
  EXPECT_NEAR(ring.centroid.z, 0, kVoxel);
  ASSERT_EQ(ring.parts.size(), 1u);
  EXPECT_EQ(ring.parts[0].voxels, ring.voxels);
  EXPECT_EQ(r.voxels, ring.voxels);
  EXPECT_DOUBLE_EQ(r.volume, ring.volume);
}

TEST(Clash, TwoContactsGiveTwoRegionsRankedBySize) {
  std::vector<ReferenceRegion> reference;
  const ClashReport r = report_and_reference(two_contacts_scene(), reference);
  expect_matches_reference(r, reference);
  ASSERT_EQ(r.regions.size(), 2u);
  const ClashRegion &large = r.regions[0], &small = r.regions[1];
  EXPECT_GT(2 * large.voxels, 3 * small.voxels);  // circles of radius 0.367 and 0.134
  EXPECT_NEAR(large.centroid.x, -0.8f, kVoxel);
  EXPECT_NEAR(large.centroid.y, 0.34f, 2 * kVoxel);
  EXPECT_NEAR(small.centroid.x, 0.8f, kVoxel);
  EXPECT_NEAR(small.centroid.y, 0.48f, 2 * kVoxel);
  ASSERT_EQ(large.parts.size(), 1u);
  EXPECT_EQ(large.parts[0].part_a, 0u);
  EXPECT_EQ(large.parts[0].part_b, 0u);
  EXPECT_EQ(large.parts[0].voxels, large.voxels);
  ASSERT_EQ(small.parts.size(), 1u);
  EXPECT_EQ(small.parts[0].part_a, 1u);
  EXPECT_EQ(small.parts[0].part_b, 1u);
  EXPECT_EQ(small.parts[0].voxels, small.voxels);
  ASSERT_EQ(r.parts.size(), 2u);
  EXPECT_EQ(r.parts[0].part_a, 0u);
  EXPECT_EQ(r.parts[0].voxels, large.voxels);
}

void expect_only_part_b(const ClashReport& r, std::uint32_t part_c) {
  ASSERT_EQ(r.regions.size(), 1u) << "one ring where box c leaves box b";
  const ClashRegion& ring = r.regions[0];
  EXPECT_NEAR(ring.centroid.x, 0.7113f, kVoxel);
  EXPECT_NEAR(ring.bounds.min.y, -0.2113f, 2 * kVoxel);
  EXPECT_NEAR(ring.bounds.max.z, 0.2113f, 2 * kVoxel);
  ASSERT_EQ(ring.parts.size(), 1u);
  EXPECT_EQ(ring.parts[0].part_a, 1u) << "only part b of model A meets box c";
  EXPECT_EQ(ring.parts[0].part_b, part_c);
  EXPECT_EQ(ring.parts[0].voxels, ring.voxels);
  ASSERT_EQ(r.parts.size(), 1u);
  EXPECT_EQ(r.parts[0].part_a, 1u);
  EXPECT_EQ(r.parts[0].part_b, part_c);
}

TEST(Clash, TwoPartMeshAgainstABoxTouchingOnlyPartB) {
  std::vector<ReferenceRegion> reference;
  const ClashReport r = report_and_reference(two_part_boxes_scene(true, 0), reference);
  expect_matches_reference(r, reference);
  expect_only_part_b(r, 0);
}

TEST(Clash, TwoPartPointCloudAgainstABoxTouchingOnlyPartB) {
  std::vector<ReferenceRegion> reference;
  const ClashReport r = report_and_reference(two_part_boxes_scene(false, 7), reference);
  expect_matches_reference(r, reference);
  expect_only_part_b(r, 7);
}

TEST(Clash, SeveralPartsPerVoxelAreCrossed) {
  const ClashScene scene = interleaved_parts_scene();
  Pipeline pipeline(kCpu, scene.config);
  run_scene_frame(pipeline, scene);
  ClashOptions options;
  options.voxels      = true;
  const ClashReport r = compute_clash_report(pipeline, options);
  ASSERT_EQ(r.regions.size(), 1u);
  EXPECT_GT(expect_parts_are_the_crossing(r, pipeline, scene), r.voxels / 2)
      << "most ring voxels hold several parts of each model";
  EXPECT_EQ(r.parts.size(), 12u) << "every part of A meets every part of B";
  std::size_t counted = 0;
  for (const PartPair& p : r.parts)
    counted += p.voxels;
  EXPECT_GT(counted, 4 * r.voxels) << "a voxel counts once per pair of parts in it";
}

TEST(Clash, ACrossingTooLargeIsASizeError) {
  // 50,000 parts of each model in one voxel: 2.5e9 part pairs, beyond 2^31 - 1 rows.
  constexpr std::uint32_t kParts = 50000;
  Pipeline pipeline(kCpu, static_config(8, TableKind::Cuckoo));
  const std::vector<Float3> points(kParts, Float3{0.1f, 0.1f, 0.1f});
  std::vector<std::uint32_t> parts(kParts);
  std::iota(parts.begin(), parts.end(), 0u);
  for (int i = 0; i < 2; ++i) {
    pipeline.set_model(i, points);
    pipeline.set_model_parts(i, parts);
  }
  pipeline.run_frame(0.0);
  try {
    (void)compute_clash_report(pipeline);
    ADD_FAILURE() << "no size error";
  } catch (const OutOfMemory& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("clash report"), std::string::npos) << what;
    EXPECT_NE(what.find("2500000000 rows"), std::string::npos) << what;
  }
}

TEST(Clash, ModelsApartGiveAnEmptyReport) {
  const ClashReport r = run_clash(kCpu, two_spheres_scene(2.2f));
  EXPECT_TRUE(r.regions.empty());
  EXPECT_EQ(r.total_regions, 0u);
  EXPECT_EQ(r.voxels, 0u);
  EXPECT_TRUE(r.parts.empty());
  Pipeline never_run(kCpu, static_config(32, TableKind::Cuckoo));
  EXPECT_TRUE(compute_clash_report(never_run).regions.empty());
}

TEST(Clash, MaxRegionsListsTheLargestAndVoxelsNameTheirRegion) {
  ClashOptions options;
  options.max_regions   = 1;
  options.voxels        = true;
  const ClashReport all = run_clash(kCpu, two_contacts_scene());
  const ClashReport r   = run_clash(kCpu, two_contacts_scene(), TableKind::Cuckoo, options);
  ASSERT_EQ(r.regions.size(), 1u);
  EXPECT_EQ(r.total_regions, 2u);
  EXPECT_EQ(r.voxels, all.voxels);
  EXPECT_EQ(r.regions[0].voxels, all.regions[0].voxels);
  EXPECT_TRUE(same_pairs(r.parts, all.parts)) << "totals count every region";
  ASSERT_EQ(r.voxel_keys.size(), r.voxels);
  EXPECT_TRUE(std::is_sorted(r.voxel_keys.begin(), r.voxel_keys.end()));
  EXPECT_EQ(std::count(r.voxel_regions.begin(), r.voxel_regions.end(), 0u), r.regions[0].voxels);
  EXPECT_EQ(std::count(r.voxel_regions.begin(), r.voxel_regions.end(), kNotFound),
            all.regions[1].voxels);
}

TEST(Clash, EveryAlgorithmGivesTheSameReport) {
  ClashOptions options;
  options.voxels    = true;
  const auto scene  = two_part_boxes_scene(true, 3);
  const auto cuckoo = run_clash(kCpu, scene, TableKind::Cuckoo, options);
  expect_same_report(cuckoo, run_clash(kCpu, scene, TableKind::HashGraphV1, options));
  expect_same_report(cuckoo, run_clash(kCpu, scene, TableKind::HashGraphV2, options));
}

TEST(Clash, PartPairsJoinOverPagesUnderAGpuBudget) {
  // Two unit spheres in one place, their points dealt to parts 0-2 (A) and 10-13 (B): every
  // surface voxel clashes, tens of thousands of distinct (voxel, part) rows a side, whose join's
  // table exceeds a 384 KiB budget (HashGraph's smallest page pair, with its
  // 16-byte bucket records, needs 176 KiB), so the part pairs are joined over pages: the same
  // report. A budget below the smallest page reaches the join and is refused, naming it.
  ClashScene scene = two_spheres_scene(0.0f);
  for (int i = 0; i < 2; ++i) {
    std::vector<std::uint32_t>& parts = scene.models[i].parts;
    for (std::size_t j = 0; j < parts.size(); ++j)
      parts[j] =
          i == 0 ? static_cast<std::uint32_t>(j % 3) : 10 + static_cast<std::uint32_t>(j % 4);
  }
  ClashOptions options;
  options.voxels       = true;
  const auto one_piece = run_clash(kCpu, scene, TableKind::Cuckoo, options);
  ASSERT_GT(one_piece.voxels, 10000u);
  EXPECT_EQ(one_piece.parts.size(), 12u);
  options.gpu_budget = 384 << 10;
  for (const TableKind kind : {TableKind::Cuckoo, TableKind::HashGraphV2})
    expect_same_report(one_piece, run_clash(kCpu, scene, kind, options));
  options.gpu_budget = 1000;
  try {
    (void)run_clash(kCpu, scene, TableKind::Cuckoo, options);
    FAIL() << "no error";
  } catch (const InvalidInput& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("GPU budget 1000 bytes"), std::string::npos) << what;
  }
}

TEST(Clash, PartIdsAreValidated) {
  Pipeline pipeline(kCpu, static_config(32, TableKind::Cuckoo));
  const std::vector<Float3> points(10, Float3{0.1f, 0.2f, 0.3f});
  pipeline.set_model(0, points);
  EXPECT_THROW(pipeline.set_model_parts(0, std::vector<std::uint32_t>(9, 0)), InvalidInput);
  EXPECT_NO_THROW(pipeline.set_model_parts(0, std::vector<std::uint32_t>(10, 1)));
  EXPECT_NO_THROW(pipeline.set_model_parts(0, {}));
  EXPECT_THROW(pipeline.set_model_parts(2, {}), InvalidInput);
  Mesh mesh           = box({0, 0, 0}, {0.5, 0.5, 0.5});
  mesh.triangle_parts = {0, 1};  // 12 triangles
  EXPECT_THROW(pipeline.set_model(1, mesh, points), InvalidInput);
  mesh.triangle_parts.assign(12, 4);
  EXPECT_NO_THROW(pipeline.set_model(1, mesh, points));
  EXPECT_THROW(pipeline.set_model_parts(1, std::vector<std::uint32_t>(10, 0)), InvalidInput)
      << "a mesh model takes one part id per triangle";
}

// --- The report writers (app/clash) ---

class ClashFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() /
            ("voxhash_clash_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }
  [[nodiscard]] std::string path(const char* name) const { return (m_dir / name).string(); }

  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

  static clash::ClashNames names() {
    clash::ClashNames n;
    n.models   = {"blocks.obj", "probe, \"c\".stl"};
    n.parts[0] = {"a", "b"};
    n.parts[1] = {"c0", "c1", "c2", "c3"};
    return n;
  }

  std::filesystem::path m_dir;
};

TEST_F(ClashFiles, JsonListsRegionsWithNamesAndWorldUnits) {
  const ClashReport r = run_clash(kCpu, two_part_boxes_scene(true, 3));
  clash::write_clash_json(r, path("r.json"), names());
  const auto doc = nlohmann::json::parse(read(path("r.json")));
  EXPECT_EQ(doc["schema"], "voxhash-clash/2");
  EXPECT_EQ(doc["models"][0]["name"], "blocks.obj");
  EXPECT_EQ(doc["totals"]["regions"], 1);
  EXPECT_EQ(doc["totals"]["voxels"], r.voxels);
  ASSERT_EQ(doc["regions"].size(), 1u);
  const auto& region = doc["regions"][0];
  EXPECT_EQ(region["rank"], 1);
  EXPECT_EQ(region["voxels"], r.regions[0].voxels);
  EXPECT_NEAR(region["volume"].get<double>(), r.regions[0].volume, 1e-12);
  EXPECT_NEAR(region["bounds"]["min"][1].get<double>(), r.regions[0].bounds.min.y, 1e-6);
  EXPECT_NEAR(region["centroid"][0].get<double>(), r.regions[0].centroid.x, 1e-6);
  ASSERT_EQ(region["part_pairs"].size(), 1u);
  EXPECT_EQ(region["part_pairs"][0]["part_a"], "b");
  EXPECT_EQ(region["part_pairs"][0]["part_b"], "c3");
  EXPECT_EQ(region["part_pairs"][0]["part_a_id"], 1);
  EXPECT_EQ(region["part_pairs"][0]["voxels"], r.regions[0].voxels);
}

TEST_F(ClashFiles, CsvHasOneRowPerRegionAndPartPair) {
  const ClashReport r = run_clash(kCpu, two_contacts_scene());
  clash::ClashNames n = names();
  n.parts[0]          = {"left"};  // part 1 of model A has no name: "part 1"
  clash::write_clash_regions_csv(r, path("r.csv"), n);
  std::istringstream text(read(path("r.csv")));
  std::vector<std::string> lines;
  for (std::string line; std::getline(text, line);)
    lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("rank,voxels,volume,", 0), 0u);
  EXPECT_EQ(lines[1].rfind("1," + std::to_string(r.regions[0].voxels) + ",", 0), 0u);
  EXPECT_NE(lines[1].find(",left,"), std::string::npos);
  EXPECT_NE(lines[2].find(",part 1,"), std::string::npos);
  EXPECT_NE(lines[2].find(",c1,"), std::string::npos);
}

TEST_F(ClashFiles, PlyHoldsOnlyTheClashVoxels) {
  ClashOptions options;
  options.voxels      = true;
  const ClashReport r = run_clash(kCpu, two_contacts_scene(), TableKind::Cuckoo, options);
  clash::write_clash_ply(r, path("band.ply"));
  const std::string bytes = read(path("band.ply"));
  const std::string count = "element vertex " + std::to_string(r.voxels) + "\n";
  EXPECT_NE(bytes.find(count), std::string::npos);
  const std::size_t header = bytes.find("end_header\n") + 11;
  EXPECT_EQ(bytes.size() - header, r.voxels * (3 * sizeof(float) + 3));
  ClashReport without_voxels = r;
  without_voxels.voxel_keys.clear();
  without_voxels.voxel_regions.clear();
  EXPECT_THROW(clash::write_clash_ply(without_voxels, path("x.ply")), InvalidInput);
  EXPECT_THROW(clash::write_clash_json(r, (m_dir / "no" / "r.json").string(), {}), Error);
}

}  // namespace
}  // namespace voxhash::test
