// Clash report tests on the CPU backend (label cpu): regions against a host breadth-first search
// and against the analytic ring where two unit spheres meet, ranking of separate contacts, part
// pairs of a two-part model (mesh and point cloud) and of voxels holding several parts of each
// model (against the host's crossing), the size error of a crossing too large, options (the part
// pairs joined over pages under a GPU budget), the JSON / CSV / PLY / HTML / BCF writers, the
// status file's edits and runs, and the sweep's intervals.
#include "clash/clash_bcf.hpp"
#include "clash/clash_html.hpp"
#include "clash/clash_report.hpp"
#include "clash/clash_status.hpp"
#include "clash/clash_sweep.hpp"
#include "common/clash_checks.hpp"

#include <voxhash/error.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <numbers>
#include <numeric>
#include <pugixml.hpp>
#include <regex>
#include <sstream>
#include <unistd.h>
#include <zip.h>

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

TEST_F(ClashFiles, HtmlIsOnePageWithARowPerClashAndTheNamesEscaped) {
  const ClashReport r = run_clash(kCpu, two_part_boxes_scene(true, 3));
  ASSERT_FALSE(r.clashes.empty());
  clash::ClashNames n = names();
  n.parts[0]          = {"a", "<b>duct</b> & \"beam\""};  // part 1 meets model B
  clash::ClashRun run;
  run.scene_name = "blocks";
  run.unit       = "m";
  run.warnings   = {"model A <is> open"};
  clash::write_clash_html(r, path("r.html"), n, &run);
  const std::string html = read(path("r.html"));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  std::size_t rows = 0;
  for (std::size_t at = html.find("<tr class="); at != std::string::npos;
       at             = html.find("<tr class=", at + 1))
    ++rows;
  EXPECT_EQ(rows, r.clashes.size());
  for (const Clash& c : r.clashes)
    EXPECT_NE(html.find(clash::id_text(c.id)), std::string::npos);
  EXPECT_EQ(html.find("<b>duct</b>"), std::string::npos) << "a part name is written as text";
  EXPECT_NE(html.find("&lt;b&gt;duct&lt;/b&gt; &amp; &quot;beam&quot;"), std::string::npos);
  EXPECT_NE(html.find("model A &lt;is&gt; open"), std::string::npos);
  EXPECT_NE(html.find(std::to_string(r.kind_counts[0]) + " hard"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos) << "self-contained: nothing fetched";
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_THROW(clash::write_clash_html(r, (m_dir / "no" / "r.html").string(), {}), Error);
}

/// Every file of the zip at `path` by name.
std::map<std::string, std::string> unzip(const std::string& path) {
  int error      = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_RDONLY, &error);
  EXPECT_NE(archive, nullptr) << "not a zip: " << path;
  std::map<std::string, std::string> files;
  if (!archive) return files;
  for (zip_int64_t i = 0; i < zip_get_num_entries(archive, 0); ++i) {
    zip_stat_t stat;
    zip_stat_index(archive, i, 0, &stat);
    std::string bytes(static_cast<std::size_t>(stat.size), '\0');
    zip_file_t* file = zip_fopen_index(archive, i, 0);
    EXPECT_EQ(zip_fread(file, bytes.data(), stat.size), static_cast<zip_int64_t>(stat.size));
    zip_fclose(file);
    files[stat.name] = bytes;
  }
  zip_close(archive);
  return files;
}

/// The BCF point or direction `node` (<X/><Y/><Z/>), each coordinate present.
std::array<double, 3> bcf_xyz(pugi::xml_node node) {
  EXPECT_TRUE(node) << "missing point";
  std::array<double, 3> v{};
  for (int a = 0; a < 3; ++a) {
    const pugi::xml_node c = node.child(std::string(1, "XYZ"[a]).c_str());
    EXPECT_TRUE(c) << node.name() << " lacks "
                   << "XYZ"[a];
    v[a] = c.text().as_double(std::nan(""));
  }
  return v;
}

TEST_F(ClashFiles, BcfHasWhatTheBcf21SchemasRequireForEveryClash) {
  // The elements and attributes BCF 2.1's version.xsd, project.xsd, markup.xsd and visinfo.xsd
  // require, in their order, for a report of several clashes; GUIDs the same on a second export.
  const ClashReport r = run_clash(kCpu, two_part_boxes_scene(true, 3));
  ASSERT_FALSE(r.clashes.empty());
  clash::ClashRun run;
  run.scene_name = "blocks";
  run.unit       = "m";
  clash::write_clash_bcf(r, path("r.bcfzip"), names(), &run);
  const std::map<std::string, std::string> files = unzip(path("r.bcfzip"));
  const auto parse                               = [&](const std::string& name) {
    auto doc = std::make_unique<pugi::xml_document>();
    EXPECT_TRUE(files.count(name)) << name;
    EXPECT_TRUE(files.count(name) && doc->load_string(files.at(name).c_str())) << name;
    return doc;
  };
  const std::regex guid("[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  const auto version = parse("bcf.version");
  EXPECT_STREQ(version->child("Version").attribute("VersionId").value(), "2.1");
  EXPECT_STREQ(version->child("Version").child_value("DetailedVersion"), "2.1");
  const auto project             = parse("project.bcfp");
  const pugi::xml_node extension = project->child("ProjectExtension");
  EXPECT_TRUE(std::regex_match(extension.child("Project").attribute("ProjectId").value(), guid));
  EXPECT_STREQ(extension.child("Project").child_value("Name"), "blocks");
  EXPECT_TRUE(extension.child("ExtensionSchema"));
  EXPECT_EQ(files.size(), 2 + 2 * r.clashes.size()) << "a markup and a viewpoint per clash";
  for (const Clash& c : r.clashes) {
    const std::string folder = clash::clash_guid(c.id, "topic");
    SCOPED_TRACE(folder);
    ASSERT_TRUE(std::regex_match(folder, guid));
    const auto markup          = parse(folder + "/markup.bcf");
    const pugi::xml_node topic = markup->child("Markup").child("Topic");
    EXPECT_EQ(topic.attribute("Guid").value(), folder);
    std::vector<std::string> order;
    for (const pugi::xml_node child : topic.children())
      order.emplace_back(child.name());
    const auto at = [&](const char* name) {
      return std::find(order.begin(), order.end(), name) - order.begin();
    };
    EXPECT_LT(at("Title"), at("CreationDate"));
    EXPECT_LT(at("CreationDate"), at("CreationAuthor"));
    EXPECT_LT(at("CreationAuthor"), static_cast<std::ptrdiff_t>(order.size()));
    EXPECT_NE(std::string(topic.child_value("Title")).find(names().part(0, c.part_a)),
              std::string::npos);
    EXPECT_TRUE(std::regex_match(std::string(topic.child_value("CreationDate")),
                                 std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
    const pugi::xml_node viewpoints = markup->child("Markup").child("Viewpoints");
    EXPECT_STREQ(viewpoints.child_value("Viewpoint"), "viewpoint.bcfv");
    const auto view         = parse(folder + "/viewpoint.bcfv");
    const pugi::xml_node vi = view->child("VisualizationInfo");
    EXPECT_STREQ(vi.attribute("Guid").value(), viewpoints.attribute("Guid").value());
    EXPECT_TRUE(std::regex_match(vi.attribute("Guid").value(), guid));
    EXPECT_TRUE(vi.child("Components").child("Visibility").attribute("DefaultVisibility"));
    std::vector<std::string> selected;
    for (const pugi::xml_node component : vi.child("Components").child("Selection").children())
      selected.emplace_back(component.child_value("AuthoringToolId"));
    EXPECT_EQ(selected,
              (std::vector<std::string>{names().part(0, c.part_a), names().part(1, c.part_b)}));
    // The camera looks at the clash: its direction a unit vector from the eye through the centroid,
    // the up vector perpendicular to it; the clipping plane through the centroid.
    const pugi::xml_node camera     = vi.child("PerspectiveCamera");
    const std::array<double, 3> eye = bcf_xyz(camera.child("CameraViewPoint"));
    const std::array<double, 3> dir = bcf_xyz(camera.child("CameraDirection"));
    const std::array<double, 3> up  = bcf_xyz(camera.child("CameraUpVector"));
    const std::array<double, 3> centre{c.centroid.x, c.centroid.y, c.centroid.z};
    EXPECT_NEAR(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2], 1.0, 1e-9);
    EXPECT_NEAR(dir[0] * up[0] + dir[1] * up[1] + dir[2] * up[2], 0.0, 1e-9);
    const double t = (centre[0] - eye[0]) * dir[0] + (centre[1] - eye[1]) * dir[1] +
                     (centre[2] - eye[2]) * dir[2];
    EXPECT_GT(t, 0.0);
    for (int a = 0; a < 3; ++a)
      EXPECT_NEAR(eye[a] + t * dir[a], centre[a], 1e-6);
    const double fov = camera.child("FieldOfView").text().as_double();
    EXPECT_GT(fov, 0.0);
    EXPECT_LT(fov, 180.0);
    const pugi::xml_node plane           = vi.child("ClippingPlanes").child("ClippingPlane");
    const std::array<double, 3> location = bcf_xyz(plane.child("Location"));
    for (int a = 0; a < 3; ++a)
      EXPECT_NEAR(location[a], centre[a], 1e-6);
    (void)bcf_xyz(plane.child("Direction"));
  }
  // Stable: a second export's folders are the first's.
  clash::write_clash_bcf(r, path("again.bcfzip"), names(), &run);
  std::vector<std::string> first, second;
  for (const auto& [name, bytes] : files)
    first.push_back(name);
  for (const auto& [name, bytes] : unzip(path("again.bcfzip")))
    second.push_back(name);
  EXPECT_EQ(first, second);
  EXPECT_THROW(clash::write_clash_bcf(r, (m_dir / "no" / "r.bcfzip").string(), {}), Error);
}

/// A report of the given clashes, each with an id of its part ids.
ClashReport fabricated_report(const std::vector<Clash>& clashes) {
  ClashReport r;
  r.solids = true;
  for (Clash c : clashes) {
    c.id = clash_id("blocks.obj",
                    "part " + std::to_string(c.part_a),
                    "probe",
                    "part " + std::to_string(c.part_b));
    r.clashes.push_back(c);
    ++r.kind_counts[static_cast<int>(c.kind)];
  }
  return r;
}

Clash hard(std::uint32_t a, std::uint32_t b, double depth, double volume) {
  Clash c;
  c.part_a = a;
  c.part_b = b;
  c.kind   = ClashKind::Hard;
  c.depth  = depth;
  c.volume = volume;
  return c;
}

TEST_F(ClashFiles, StatusIsReadEditedAndWrittenAsThePersonLeftIt) {
  const std::string file    = path("status.json");
  clash::ClashStatus status = clash::ClashStatus::read(file);
  EXPECT_EQ(status.runs(), 0u) << "no file: no runs";
  const ClashReport first = fabricated_report({hard(0, 1, 0.2, 0.01), hard(1, 2, 0.1, 0.02)});
  clash::ClashRun run;
  run.scene_file                   = "site.json";
  const clash::StatusCounts counts = status.update(first, names(), run);
  EXPECT_EQ(counts.fresh, 2u);
  EXPECT_EQ(counts.run, 1u);
  const std::string id = clash::id_text(first.clashes[0].id);
  status.edit(id, "approved", "ana", "accepted: the sleeve is sized for it");
  // A bad edit changes nothing.
  EXPECT_THROW(status.edit(id, "done", "", ""), InvalidInput);
  EXPECT_THROW(status.edit("0123456789abcdef", "approved", "", ""), InvalidInput);
  status.write(file);

  clash::ClashStatus again = clash::ClashStatus::read(file);
  ASSERT_EQ(again.entries().size(), 2u);
  std::optional<clash::StatusEntry> entry = again.find(id);
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->status, "approved");
  EXPECT_EQ(entry->assignee, "ana");
  EXPECT_EQ(entry->comment, "accepted: the sleeve is sized for it");
  EXPECT_EQ(entry->part_a, "a") << "named as the run named it";
  EXPECT_EQ(entry->part_b, "c1");
  EXPECT_EQ(entry->kind, "hard");
  EXPECT_EQ(entry->first_run, 1u);
  EXPECT_EQ(entry->resolved_run, 0u);
  EXPECT_FALSE(again.find("0123456789abcdef").has_value());

  // The next run finds only the approved clash: it stays approved, the other is resolved.
  const ClashReport second       = fabricated_report({hard(0, 1, 0.25, 0.01)});
  const clash::StatusCounts next = clash::update_clash_status(second, file, names(), run);
  EXPECT_EQ(next.active, 1u);
  EXPECT_EQ(next.resolved, 1u);
  EXPECT_EQ(next.run, 2u);
  const clash::ClashStatus third = clash::ClashStatus::read(file);
  EXPECT_EQ(third.runs(), 2u);
  EXPECT_EQ(third.find(id)->status, "approved");
  EXPECT_EQ(third.find(id)->comment, "accepted: the sleeve is sized for it");
  EXPECT_EQ(third.find(clash::id_text(first.clashes[1].id))->status, "resolved");
  EXPECT_EQ(third.find(clash::id_text(first.clashes[1].id))->resolved_run, 2u);

  // Not a status file: one line naming it.
  std::ofstream(path("bad.json")) << R"({"schema": "voxhash-clash-status/1", "runs": 1,
      "clashes": [{"id": "00", "status": "done"}]})";
  try {
    (void)clash::ClashStatus::read(path("bad.json"));
    ADD_FAILURE() << "a status of \"done\" was read";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find(path("bad.json") +
                                         ": not a clash status file "
                                         "(clashes[0].status \"done\" is not one of new, "
                                         "active, reviewed, approved, resolved)"),
              std::string::npos)
        << e.what();
  }
}

TEST(ClashSweep, IntervalsOpenCloseAndReopenWithTheirWorstFigures) {
  // Parts (0, 1) clash at 1 and 2, not at 3, again at 4 (the sweep's last time); (0, 2) is a
  // clearance clash at 2 only.
  Clash gap;
  gap.part_a   = 0;
  gap.part_b   = 2;
  gap.kind     = ClashKind::Clearance;
  gap.distance = 0.03;
  clash::ClashSweep sweep;
  sweep.add(0, fabricated_report({}));
  sweep.add(1, fabricated_report({hard(0, 1, 0.1, 0.5)}));
  sweep.add(2, fabricated_report({hard(0, 1, 0.3, 0.4), gap}));
  sweep.add(3, fabricated_report({}));
  sweep.add(4, fabricated_report({hard(0, 1, 0.2, 0.9)}));
  EXPECT_THROW(sweep.add(4, fabricated_report({})), InvalidInput) << "times must increase";
  EXPECT_TRUE(sweep.any());
  const std::vector<clash::SweepPair> pairs = sweep.pairs();
  ASSERT_EQ(pairs.size(), 2u);
  const clash::SweepPair& p = pairs[0];
  EXPECT_EQ(p.part_b, 1u) << "first contact first";
  ASSERT_EQ(p.intervals.size(), 2u);
  EXPECT_EQ(p.intervals[0].start, 1.0);
  EXPECT_EQ(p.intervals[0].end, 3.0);
  EXPECT_EQ(p.intervals[0].samples, 2u);
  EXPECT_EQ(p.intervals[0].max_depth, 0.3);
  EXPECT_EQ(p.intervals[0].max_depth_time, 2.0);
  EXPECT_EQ(p.intervals[0].max_volume, 0.5);
  EXPECT_EQ(p.intervals[0].max_volume_time, 1.0);
  EXPECT_TRUE(std::isnan(p.intervals[0].min_distance));
  EXPECT_EQ(p.intervals[1].start, 4.0);
  EXPECT_FALSE(p.intervals[1].end.has_value()) << "still clashing at the last time";
  EXPECT_EQ(p.intervals[1].duration(), 0.0);
  EXPECT_EQ(p.clashing_time(), 2.0);
  const clash::SweepInterval worst = p.worst();
  EXPECT_EQ(worst.max_depth, 0.3);
  EXPECT_EQ(worst.max_volume, 0.9);
  EXPECT_EQ(worst.max_volume_time, 4.0);
  EXPECT_EQ(worst.kind, ClashKind::Hard);
  const clash::SweepPair& q = pairs[1];
  ASSERT_EQ(q.intervals.size(), 1u);
  EXPECT_EQ(q.intervals[0].kind, ClashKind::Clearance);
  EXPECT_EQ(q.intervals[0].end, 3.0);
  EXPECT_EQ(q.intervals[0].min_distance, 0.03);
  EXPECT_EQ(q.intervals[0].min_distance_time, 2.0);
  EXPECT_TRUE(std::isnan(q.intervals[0].max_depth));
  ASSERT_EQ(sweep.counts().size(), 5u);
  EXPECT_EQ(sweep.counts()[2][0], 1u);
  EXPECT_EQ(sweep.counts()[2][2], 1u);
}

}  // namespace
}  // namespace voxhash::test
