// Scene files (label cpu): every scene error is one line naming the file and the field with a
// non-zero exit through the command line; placements checked analytically (units and scale, the
// fitted grid's scale invariance, two unit spheres' intersection band, 90-degree rotations and
// keyframes mapping a known voxel to a known voxel); command-line overrides; `voxhash clash` (its
// regions, volumes and the models' part names) and `voxhash bench frame --scene` writing reports
// with model names, integer counts and the GPU budget with the frame's paging; "gpu_budget" and
// models read "as" points; the big scene of issue 13 parsed (never run here); open_scene, the one
// way the front ends open a scene; the status file across runs (resolved, new, a person's fields
// kept), a batch's files per scene and time, the sweep's contacts against an analytic motion, and
// the bad --times / --sweep inputs.
#include "bench/bench.hpp"
#include "cli/command_line.hpp"

#include <voxhash/clash.hpp>
#include <voxhash/error.hpp>
#include <voxhash/scene.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace voxhash::test {
namespace {

namespace fs = std::filesystem;
using json   = nlohmann::json;

std::string asset(const std::string& name) {
  return (fs::path(VOXHASH_SOURCE_DIR) / "assets" / name).string();
}

fs::path temp_dir() {
  const fs::path dir =
      fs::temp_directory_path() / ("voxhash_test_scene_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

/// Removes the test's folder after the last test.
class RemoveTempDir : public ::testing::Environment {
 public:
  void TearDown() override { fs::remove_all(temp_dir()); }
};
[[maybe_unused]] const auto* const kRemoveTempDir =
    ::testing::AddGlobalTestEnvironment(new RemoveTempDir);

/// Writes `text` to a file in the test's folder; returns its path.
std::string write_file(const std::string& name, const std::string& text) {
  const fs::path path = temp_dir() / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Outcome {
  int exit_code = -1;
  std::string out, err;
  std::optional<bench::Options> bench;
};

/// `voxhash args...` with the real clash command, a bench that only records its options (unless
/// `real_bench`), and a viewer that must not start; stdout and stderr captured.
Outcome run(std::vector<std::string> args, bool real_bench = false) {
  args.insert(args.begin(), "voxhash");
  std::vector<const char*> argv;
  for (const std::string& a : args)
    argv.push_back(a.c_str());
  Outcome outcome;
  const cli::FrontEnds front_ends{.view =
                                      [](const viewer::ViewerOptions&) {
                                        ADD_FAILURE() << "the viewer started";
                                        return 0;
                                      },
                                  .bench =
                                      [&](const bench::Options& o) {
                                        outcome.bench = o;
                                        return real_bench ? bench::run(o) : 0;
                                      },
                                  .clash = cli::run_clash};
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  outcome.exit_code = cli::run(static_cast<int>(argv.size()), argv.data(), front_ends);
  outcome.out       = ::testing::internal::GetCapturedStdout();
  outcome.err       = ::testing::internal::GetCapturedStderr();
  return outcome;
}

/// A scene of sphere.obj and torus.obj with `model_a` / `model_b` / `extra` spliced in.
std::string scene_text(const std::string& model_a = "",
                       const std::string& model_b = "",
                       const std::string& extra   = "") {
  return R"({"voxhash_scene": 1, "models": [{"path": ")" + asset("sphere.obj") + "\"" + model_a +
         R"(}, {"path": ")" + asset("torus.obj") + "\"" + model_b + "}]" + extra + "}";
}

/// The scene fails to load: through `voxhash clash` a non-zero exit and one line on stderr that
/// names the file and contains `expected`; the library throws the same line.
void expect_scene_error(const std::string& name,
                        const std::string& text,
                        const std::string& expected) {
  const std::string path = write_file(name, text);
  const Outcome r        = run({"clash", path, "--backend", "cpu", "--points", "100"});
  EXPECT_NE(r.exit_code, 0) << text;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(path + ": "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos)
      << "expected '" << expected << "' in " << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(Scene, ErrorsAreOneLineNamingTheFileAndTheField) {
  const std::string missing = (temp_dir() / "no_such_scene.json").string();
  const Outcome r           = run({"clash", missing});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "voxhash: error: " + missing + ": no such scene file\n");

  // A link loop and a broken link say what they are, not "no such scene file".
  const fs::path loop = temp_dir() / "loop.json";
  fs::remove(loop);
  fs::create_symlink(loop, loop);
  EXPECT_EQ(run({"clash", loop.string()}).err,
            "voxhash: error: " + loop.string() +
                ": symbolic link loop (too many levels of symbolic links)\n");
  const fs::path broken = temp_dir() / "broken.json";
  fs::remove(broken);
  fs::create_symlink(temp_dir() / "gone.json", broken);
  EXPECT_NE(run({"clash", broken.string()}).err.find(": broken symbolic link (to '"),
            std::string::npos);

  expect_scene_error("bad_json.json",
                     "{\"voxhash_scene\": 1,\n  \"models\": [",
                     "line 2, column 14: not valid JSON");
  // Found by fuzz_scene: a number beyond a double was nlohmann's out_of_range, not a parse error.
  expect_scene_error("huge_number.json",
                     R"({"voxhash_scene": 1, "points": 8888888888E88888884444444444})",
                     "not valid JSON (number overflow");
  // Found by fuzz_scene: a speed beyond a float became inf, which the saved scene could not hold.
  expect_scene_error("huge_speed.json",
                     scene_text("", "", R"(, "motion": {"kind": "swing", "speed": 1e100})"),
                     "motion.speed: must be within +-3.4e38");
  expect_scene_error("no_version.json", R"({"models": []})", "voxhash_scene: missing");
  expect_scene_error(
      "version.json", R"({"voxhash_scene": 2})", "voxhash_scene: version 2 is not supported");
  expect_scene_error("unknown_top.json",
                     scene_text("", "", R"(, "colour": "red")"),
                     "colour: unknown field (expected one of: voxhash_scene,");
  expect_scene_error("unknown_model.json",
                     scene_text("", R"(, "colour": "red")"),
                     "models[1].colour: unknown field");
  expect_scene_error("one_model.json",
                     R"({"voxhash_scene": 1, "models": [{"path": "a.obj"}]})",
                     "models: must have 2 elements, not 1");
  expect_scene_error("scale.json",
                     scene_text("", R"(, "transform": {"scale": 0})"),
                     "models[1].transform.scale: must be > 0");
  expect_scene_error("rotate.json",
                     scene_text(R"(, "transform": {"rotate": [90, 0]})"),
                     "models[0].transform.rotate: must have 3 elements, not 2");
  expect_scene_error("rotate_text.json",
                     scene_text(R"(, "transform": {"rotate": "90 deg"})"),
                     "models[0].transform.rotate: must be an array, not a string");
  expect_scene_error(
      "both_rotations.json",
      scene_text(R"(, "transform": {"rotate": [0, 0, 90], "quaternion": [1, 0, 0, 0]})"),
      "models[0].transform.quaternion: give either rotate (degrees) or quaternion");
  expect_scene_error("zero_quaternion.json",
                     scene_text(R"(, "transform": {"quaternion": [0, 0, 0, 0]})"),
                     "models[0].transform.quaternion: must not be zero");
  expect_scene_error("unit.json",
                     scene_text(R"(, "unit": "furlong")"),
                     "models[0].unit: unknown unit 'furlong' (expected one of: m, cm, mm, in, ft)");
  expect_scene_error(
      "scene_unit.json", scene_text("", "", R"(, "unit": "yd")"), "unit: unknown unit 'yd'");
  expect_scene_error("voxel_units.json",
                     scene_text("", "", R"(, "grid": {"voxel_size": "5 mm"})"),
                     "grid.voxel_size: must be a number, not a string");
  expect_scene_error("voxel_and_res.json",
                     scene_text("", "", R"(, "grid": {"voxel_size": 0.1, "resolution": 64})"),
                     "grid.resolution: give either voxel_size or resolution, not both");
  expect_scene_error(
      "bounds.json",
      scene_text("", "", R"(, "grid": {"bounds": {"min": [0, 0, 0], "max": [1, 0, 1]}})"),
      "grid.bounds.max: must be greater than min on every axis");
  expect_scene_error("motion.json",
                     scene_text("", "", R"(, "motion": {"kind": "spin"})"),
                     "motion.kind: unknown value 'spin' (expected one of: none, swing, keyframes)");
  expect_scene_error("swing_only.json",
                     scene_text("", "", R"(, "motion": {"speed": 2})"),
                     "motion.speed: applies only to motion.kind \"swing\"");
  expect_scene_error("keyframes_kind.json",
                     scene_text(R"(, "keyframes": [{"time": 0}])"),
                     "models[0].keyframes: needs motion.kind \"keyframes\"");
  expect_scene_error("keyframes_order.json",
                     scene_text(R"(, "keyframes": [{"time": 1}, {"time": 1}])",
                                "",
                                R"(, "motion": {"kind": "keyframes"})"),
                     "models[0].keyframes[1].time: must be later than the previous keyframe's");
  // Found by a hostile-input audit: keyframes at -1e308 and 1e308 overflowed their span to inf
  // and the pose lookup read past the keyframes (ASan: heap-buffer-overflow in model_pose).
  expect_scene_error("keyframes_span.json",
                     scene_text(R"(, "keyframes": [{"time": -1e308}, {"time": 1e308}])",
                                "",
                                R"(, "motion": {"kind": "keyframes"})"),
                     "models[0].keyframes[0].time: must be within +-1e9 seconds");
  expect_scene_error("time_huge.json",
                     scene_text("", "", R"(, "time": 1e308, "motion": {"kind": "swing"})"),
                     "time: must be within +-1e9 seconds");
  expect_scene_error("twist_huge.json",
                     scene_text("",
                                "",
                                R"(, "motion": {"kind": "swing", "deformation": "twist",
                                  "amount": 3e38})"),
                     "motion.amount: must be within +-1e6");
  // Found by a hostile-input audit: "grid bounds must be finite", naming neither file nor field
  // (and a NaN cast to an integer before it).
  expect_scene_error("far_apart.json",
                     scene_text(R"(, "transform": {"translate": [-3e38, 0, 0]})",
                                R"(, "transform": {"translate": [3e38, 0, 0]})"),
                     "grid: the grid around the models as placed, with its margin, reaches beyond");
  expect_scene_error(
      "far_margin.json",
      scene_text(R"(, "transform": {"translate": [3e38, 0, 0]})", "", R"(, "grid": {"margin": 1})"),
      "the models' translate, scale or unit, or the margin, are too large");
  expect_scene_error(
      "nul_path.json",
      R"({"voxhash_scene": 1, "models": [{"path": "a\u0000.obj"}, {"path": "b.obj"}]})",
      "models[0].path: must not hold a NUL character");
  expect_scene_error("name_escape.json",
                     scene_text(R"(, "name": "a\u001b[2Jb")"),
                     "models[0].name: must not hold control characters");
  expect_scene_error("duplicate_key.json",
                     scene_text(R"(, "unit": "mm", "unit": "m")"),
                     "key \"unit\" appears twice in one object");
  expect_scene_error("algorithm.json",
                     scene_text("", "", R"(, "algorithm": "linear")"),
                     "algorithm: unknown value 'linear'");
  expect_scene_error(
      "model_file.json",
      R"({"voxhash_scene": 1, "models": [{"path": "no_such_model.obj"}, {"path": "b.obj"}]})",
      "models[0].path: ");
  expect_scene_error("key_bits.json",
                     scene_text("", "", R"(, "grid": {"voxel_size": 0.000001})"),
                     "grid.voxel_size: voxels of 1e-06 m need a");
  expect_scene_error(
      "budget_zero.json", scene_text("", "", R"(, "gpu_budget": 0)"), "gpu_budget: must be > 0");
  expect_scene_error("budget_zero_text.json",
                     scene_text("", "", R"(, "gpu_budget": "0GiB")"),
                     "gpu_budget: must be > 0");
  expect_scene_error("budget_negative.json",
                     scene_text("", "", R"(, "gpu_budget": -1024)"),
                     "gpu_budget: must be > 0");
  expect_scene_error("budget_fraction.json",
                     scene_text("", "", R"(, "gpu_budget": 1.5)"),
                     "gpu_budget: must be a byte size such as \"1GiB\"");
  expect_scene_error("budget_unit.json",
                     scene_text("", "", R"(, "gpu_budget": "12 parsecs")"),
                     "gpu_budget: '12 parsecs' is not a byte size such as \"1GiB\"");
  expect_scene_error("budget_type.json",
                     scene_text("", "", R"(, "gpu_budget": true)"),
                     "gpu_budget: must be a byte size such as \"1GiB\", \"512MiB\" or \"2GB\", or "
                     "a whole number of bytes, not a boolean");
  expect_scene_error("budget_array.json",
                     scene_text("", "", R"(, "gpu_budget": [1, "GiB"])"),
                     "gpu_budget: must be a byte size such as \"1GiB\"");
  expect_scene_error("as.json",
                     scene_text("", R"(, "as": "voxels")"),
                     "models[1].as: unknown value 'voxels' (expected one of: mesh, points)");
  const std::string cloud = write_file("cloud.xyz", "0 0 0\n1 0 0\n0 1 0\n0 0 1\n");
  const std::string mesh_of_cloud =
      write_file("mesh_of_cloud.json",
                 R"({"voxhash_scene": 1, "models": [{"path": ")" + cloud +
                     R"(", "as": "mesh"}, {"path": ")" + asset("torus.obj") + R"("}]})");
  const Outcome as_mesh = run({"clash", mesh_of_cloud, "--backend", "cpu"});
  EXPECT_NE(as_mesh.exit_code, 0);
  EXPECT_EQ(as_mesh.err,
            "voxhash: error: " + mesh_of_cloud + ": models[0].as: \"mesh\", but " + cloud +
                " is a point cloud (it has no faces); leave \"as\" out\n");
}

TEST(Scene, GpuBudgetReachesThePipelineConfig) {
  const std::pair<std::string, std::size_t> budgets[] = {{R"("1GiB")", std::size_t{1} << 30},
                                                         {R"("512MiB")", std::size_t{512} << 20},
                                                         {R"("64m")", std::size_t{64} << 20},
                                                         {R"("2GB")", 2'000'000'000},
                                                         {R"("3kb")", 3000},
                                                         {"4096", 4096},
                                                         {"1e9", 1'000'000'000}};
  for (const auto& [text, bytes] : budgets) {
    const Scene scene =
        parse_scene(scene_text("", "", R"(, "gpu_budget": )" + text), "budget.json");
    ASSERT_TRUE(scene.gpu_budget.has_value()) << text;
    EXPECT_EQ(*scene.gpu_budget, bytes) << text;
    EXPECT_EQ(scene_memory_config(scene, {}).gpu_budget, bytes) << text;
  }
  const Scene none = parse_scene(scene_text(), "none.json");
  EXPECT_FALSE(none.gpu_budget.has_value());
  EXPECT_EQ(scene_memory_config(none, {}).gpu_budget, 0u);

  const LoadedScene loaded =
      load_scene_models(parse_scene(scene_text("", "", R"(, "gpu_budget": "8MiB")"), "budget.json"),
                        {.points = 1000});
  EXPECT_EQ(loaded.config.gpu_budget, std::size_t{8} << 20);
  EXPECT_EQ(load_scene_models(none, {.points = 1000}).config.gpu_budget, 0u);
}

TEST(Scene, ClashTolerancesAreLengthsWithUnits) {
  const Scene mm = parse_scene(
      scene_text("", "", R"(, "unit": "mm", "tolerance": "1in", "clearance": 25)"), "mm.json");
  EXPECT_DOUBLE_EQ(mm.tolerance, 25.4);
  EXPECT_DOUBLE_EQ(mm.clearance, 25.0);
  for (const auto& [text, unit, length] : {std::tuple{"25mm", LengthUnit::Meter, 0.025},
                                           {" 2 ft ", LengthUnit::Inch, 24.0},
                                           {"0.5", LengthUnit::Centimeter, 0.5},
                                           {"5e-3m", LengthUnit::Millimeter, 5.0}}) {
    const std::optional<double> parsed = parse_length(text, unit);
    ASSERT_TRUE(parsed) << text;
    EXPECT_NEAR(*parsed, length, 1e-12 * length) << text;
  }
  for (const char* bad : {"", "mm", "-1mm", "nan", "inf", "1e999", "3 parsecs", "1em", "1..2"})
    EXPECT_FALSE(parse_length(bad, LengthUnit::Meter)) << bad;
  const Scene back = parse_scene(scene_to_json(mm, temp_dir()), "back.json");
  EXPECT_DOUBLE_EQ(back.tolerance, 25.4);
  EXPECT_DOUBLE_EQ(back.clearance, 25.0);

  expect_scene_error("t.json", scene_text("", "", R"(, "tolerance": "3 parsecs")"), "tolerance");
  expect_scene_error("c.json", scene_text("", "", R"(, "clearance": -1)"), "clearance");
  expect_scene_error("c2.json", scene_text("", "", R"(, "clearance": [1])"), "clearance");
}

TEST(Scene, AModelMayBeLetReadFilesOutsideItsFolder) {
  // A model's "files_outside_folder": a boolean, kept when the scene is written back.
  const Scene outside = parse_scene(scene_text(R"(, "files_outside_folder": true)"), "o.json");
  EXPECT_TRUE(outside.models[0].files_outside_folder);
  EXPECT_FALSE(outside.models[1].files_outside_folder);
  EXPECT_TRUE(
      parse_scene(scene_to_json(outside, temp_dir()), "o2.json").models[0].files_outside_folder);
  expect_scene_error(
      "o3.json", scene_text(R"(, "files_outside_folder": "yes")"), "must be true or false");
}

TEST(Scene, ClashFlagsRefuseBadLengthsAndSayWhatAClearanceNeeds) {
  const Outcome bad = run({"clash", asset("demo.json"), "--backend", "cpu", "--tolerance", "nan"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--tolerance"), std::string::npos) << bad.err;
  const Outcome fine =
      run({"clash", asset("demo.json"), "--backend", "cpu", "--res", "64", "--clearance", "1mm"});
  EXPECT_EQ(fine.exit_code, 1);
  EXPECT_NE(fine.err.find("voxels of at most 0.001"), std::string::npos) << fine.err;
  // --exit-code: 3 when the report lists a clash (the demo's models pass through each other).
  const Outcome found =
      run({"clash", asset("demo.json"), "--backend", "cpu", "--res", "64", "--exit-code"});
  EXPECT_EQ(found.exit_code, 3) << found.err;
  EXPECT_NE(found.out.find("hard"), std::string::npos) << found.out;
}

TEST(Scene, PagedCloudsSceneParses) {
  // The big scene of issue 13: parsed only (its 2 x 200M points are for a GPU machine).
  const Scene scene = load_scene(asset("paged_clouds.json"));
  ASSERT_TRUE(scene.gpu_budget.has_value());
  EXPECT_EQ(*scene.gpu_budget, std::size_t{1} << 30);
  EXPECT_EQ(scene.grid.resolution, 8192);
  EXPECT_EQ(scene.motion.kind, MotionKind::None);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(scene.models[i].as, ModelAs::Points) << i;
    EXPECT_EQ(scene_model_points(scene, i, {}), 200'000'000u) << i;
    EXPECT_TRUE(fs::is_regular_file(scene.models[i].path)) << scene.models[i].path;
  }
  const PipelineConfig config = scene_memory_config(scene, {});
  EXPECT_EQ(config.gpu_budget, std::size_t{1} << 30);
  EXPECT_EQ(config.grid.resolution.x, 8192);
  EXPECT_TRUE(Grid(config.grid).wide()) << "beyond 31 key bits: 64-bit keys";
}

TEST(Scene, KeyLimitErrorSuggestsAVoxelSizeThatFits) {
  Scene scene           = parse_scene(scene_text(), "s.json");
  scene.grid.voxel_size = 0.000001;
  try {
    (void)load_scene_models(scene, {.points = 1000, .resolution = 64});
    FAIL() << "no error";
  } catch (const InvalidInput& e) {
    const std::string what = e.what();
    const auto at          = what.find("use a voxel size of at least ");
    ASSERT_NE(at, std::string::npos) << what;
    const double suggested = std::strtod(what.c_str() + at + 29, nullptr);
    EXPECT_GT(suggested, 0.000001);
    scene.grid.voxel_size    = suggested;
    const LoadedScene loaded = load_scene_models(scene, {.points = 1000, .resolution = 64});
    EXPECT_NO_THROW(Grid{loaded.config.grid});
  }
}

/// Runs one frame of the loaded scene at `time` on the CPU backend.
std::pair<FrameStats, std::array<ModelVoxels, 2>> run_scene(const LoadedScene& loaded,
                                                            double time = 0) {
  Pipeline pipeline(Backend::Cpu, loaded.config);
  set_scene_models(pipeline, loaded, time);
  const FrameStats stats = pipeline.run_frame(time, {.write_instances = false});
  return {stats, {pipeline.download(0), pipeline.download(1)}};
}

TEST(Scene, FittedGridMakesTheVoxelCountIndependentOfScale) {
  std::vector<std::size_t> counts;
  for (const double scale : {0.01, 1.0, 1000.0}) {
    Scene scene = parse_scene(scene_text(), "s.json");
    for (SceneModel& model : scene.models)
      model.scale = scale;
    scene.models[1].pose.translate = {static_cast<float>(2.5 * scale), 0, 0};
    scene.grid.resolution          = 96;
    const LoadedScene loaded       = load_scene_models(scene, {.points = 20'000});
    EXPECT_EQ(loaded.config.animation.animate, false);
    EXPECT_EQ(loaded.config.animation.deformation, Deformation::None);
    const auto [stats, voxels] = run_scene(loaded);
    EXPECT_EQ(stats.model[0].outside_grid + stats.model[1].outside_grid, 0u);
    counts.push_back(stats.model[0].voxels);
    counts.push_back(stats.model[1].voxels);
  }
  EXPECT_GT(counts[0], 1000u);
  for (std::size_t i = 2; i < counts.size(); ++i)
    EXPECT_EQ(counts[i], counts[i % 2]) << "scale #" << i / 2;
}

TEST(Scene, UnitsConvertToTheScenesUnit) {
  // The sphere in millimetres in a scene in metres is the sphere scaled by 1/1000, and a torus in
  // inches placed at 100 cm is 2.54 cm across per unit.
  Scene mm = parse_scene(scene_text(R"(, "unit": "mm")", R"(, "unit": "in")"), "s.json");
  mm.models[1].pose.translate = {0.1f, 0, 0};
  Scene scaled                = mm;
  scaled.models[0].unit       = LengthUnit::Meter;
  scaled.models[0].scale      = 0.001;
  scaled.models[1].unit       = LengthUnit::Meter;
  scaled.models[1].scale      = 0.0254;
  const LoadedScene a         = load_scene_models(mm, {.points = 1000, .resolution = 32});
  const LoadedScene b         = load_scene_models(scaled, {.points = 1000, .resolution = 32});
  for (int i = 0; i < 2; ++i) {
    EXPECT_FLOAT_EQ(a.models[i].bounds.max.x, b.models[i].bounds.max.x);
    EXPECT_FLOAT_EQ(a.models[i].bounds.min.y, b.models[i].bounds.min.y);
  }
  EXPECT_NEAR(a.models[0].bounds.max.x, 0.001, 2e-5);
  EXPECT_NEAR(a.models[1].bounds.max.x, 0.1 + 1.0 * 0.0254, 1e-5);  // torus: radius 0.7 + 0.3
}

TEST(Scene, TwoUnitSpheresIntersectInTheAnalyticBand) {
  // Unit spheres with centres d = 1.2 apart meet in a circle at x = 0.6 of radius 0.8.
  constexpr double kVoxel = 0.02, kX = 0.6, kRadius = 0.8;
  Scene scene =
      parse_scene(R"({"voxhash_scene": 1, "grid": {"voxel_size": 0.02}, "models": [{"path": ")" +
                      asset("sphere.obj") + R"("}, {"path": ")" + asset("sphere.obj") +
                      R"(", "transform": {"translate": [1.2, 0, 0]}}]})",
                  "two_spheres.json");
  const LoadedScene loaded = load_scene_models(scene, {.points = 50'000});
  EXPECT_NEAR(Grid(loaded.config.grid).voxel_size.x, kVoxel, 1e-6);
  Pipeline pipeline(Backend::Cpu, loaded.config);
  set_scene_models(pipeline, loaded, 0);
  const FrameStats stats = pipeline.run_frame(0, {.write_instances = false});
  const Grid& grid       = pipeline.grid();
  const ModelVoxels a    = pipeline.download(0);
  std::size_t band       = 0;
  for (std::size_t i = 0; i < a.keys.size(); ++i) {
    if (a.labels[i] != VoxelLabel::Intersection) continue;
    ++band;
    const Float3 c = grid.center(a.keys[i]);
    EXPECT_NEAR(c.x, kX, 2 * kVoxel);
    EXPECT_NEAR(std::hypot(c.y, c.z), kRadius, 2 * kVoxel);
  }
  EXPECT_EQ(band, stats.model[0].intersection);
  EXPECT_EQ(band, stats.model[1].intersection);
  // The band goes all round the circle: at least one voxel per voxel of circumference.
  EXPECT_GE(static_cast<double>(band), 2 * M_PI * kRadius / kVoxel);
  EXPECT_LE(static_cast<double>(band), 6 * 2 * M_PI * kRadius / kVoxel);

  const ClashReport report = compute_clash_report(pipeline);
  ASSERT_EQ(report.regions.size(), 1u);
  const ClashRegion& ring = report.regions[0];
  EXPECT_EQ(ring.voxels, band);
  EXPECT_NEAR(ring.volume, band * kVoxel * kVoxel * kVoxel, 1e-9);
  EXPECT_NEAR(ring.centroid.x, kX, kVoxel);
  EXPECT_NEAR(ring.centroid.y, 0, kVoxel);
  EXPECT_NEAR(ring.centroid.z, 0, kVoxel);
  EXPECT_NEAR(ring.bounds.min.y, -kRadius, 2 * kVoxel);
  EXPECT_NEAR(ring.bounds.max.y, kRadius, 2 * kVoxel);
  EXPECT_NEAR(ring.bounds.min.z, -kRadius, 2 * kVoxel);
  EXPECT_NEAR(ring.bounds.max.z, kRadius, 2 * kVoxel);
}

/// A grid over [-1, 1]^3 with 0.25 voxels; model A one point at (0.7, 0.1, 0.1), model B one
/// far away, A placed by `transform` (JSON members) and `extra` top-level members.
LoadedScene one_point_scene(const std::string& transform, const std::string& extra = "") {
  const std::string a = write_file("point_a.xyz", "0.7 0.1 0.1\n");
  const std::string b = write_file("point_b.xyz", "-0.9 -0.9 -0.9\n");
  const Scene scene   = parse_scene(
      R"({"voxhash_scene": 1, "grid": {"resolution": 8, "bounds": {"min": [-1, -1, -1], "max": [1, 1, 1]}},
          "models": [{"path": ")" +
          a + "\"" + transform + R"(}, {"path": ")" + b + "\"}]" + extra + "}",
      "point.json");
  return load_scene_models(scene, {});
}

/// The one voxel of model A at `time`, as a cell.
Int3 cell_of_a(const LoadedScene& loaded, double time = 0) {
  const auto [stats, voxels] = run_scene(loaded, time);
  EXPECT_EQ(voxels[0].keys.size(), 1u);
  return voxels[0].keys.empty() ? Int3{-1, -1, -1}
                                : Grid(loaded.config.grid).cell(voxels[0].keys[0]);
}

void expect_cell(Int3 got, Int3 expected) {
  EXPECT_EQ(got.x, expected.x);
  EXPECT_EQ(got.y, expected.y);
  EXPECT_EQ(got.z, expected.z);
}

TEST(Scene, RotationBy90DegreesMapsAKnownVoxelToAKnownVoxel) {
  // (0.7, 0.1, 0.1) is in cell (6, 4, 4); 90 degrees about +z (right-handed) takes it to
  // (-0.1, 0.7, 0.1), cell (3, 6, 4); about +x to (0.7, -0.1, 0.1), cell (6, 3, 4).
  expect_cell(cell_of_a(one_point_scene("")), {6, 4, 4});
  expect_cell(cell_of_a(one_point_scene(R"(, "transform": {"rotate": [0, 0, 90]})")), {3, 6, 4});
  const double s = std::sqrt(0.5);
  expect_cell(cell_of_a(one_point_scene(R"(, "transform": {"quaternion": [)" + std::to_string(s) +
                                        ", 0, 0, " + std::to_string(s) + "]}")),
              {3, 6, 4});
  expect_cell(cell_of_a(one_point_scene(R"(, "transform": {"rotate": [90, 0, 0]})")), {6, 3, 4});
  // Rotation first, then translation: (-0.1, 0.7, 0.1) + (0.25, 0, 0) = (0.15, 0.7, 0.1).
  expect_cell(cell_of_a(one_point_scene(
                  R"(, "transform": {"rotate": [0, 0, 90], "translate": [0.25, 0, 0]})")),
              {4, 6, 4});
  // x then y then z about fixed axes: 90 about x, then 90 about z:
  // (0.7, 0.1, 0.1) -> (0.7, -0.1, 0.1) -> (0.1, 0.7, 0.1), cell (4, 6, 4).
  expect_cell(cell_of_a(one_point_scene(R"(, "transform": {"rotate": [90, 0, 90]})")), {4, 6, 4});
}

TEST(Scene, KeyframesInterpolateTranslationLinearlyAndRotationBySlerp) {
  const LoadedScene loaded = one_point_scene(
      R"(, "keyframes": [{"time": 0}, {"time": 1, "rotate": [0, 0, 90], "translate": [0, 0, 0.5]}])",
      R"(, "motion": {"kind": "keyframes"})");
  expect_cell(cell_of_a(loaded, -1), {6, 4, 4});  // held before the first keyframe
  expect_cell(cell_of_a(loaded, 0), {6, 4, 4});
  // Half way: 45 degrees, (0.424, 0.566, 0.1) + (0, 0, 0.25): cell (5, 6, 5).
  expect_cell(cell_of_a(loaded, 0.5), {5, 6, 5});
  expect_cell(cell_of_a(loaded, 1), {3, 6, 6});  // (-0.1, 0.7, 0.6)
  expect_cell(cell_of_a(loaded, 7), {3, 6, 6});  // held after the last
}

void expect_same_pose(const Pose& a, const Pose& b) {
  EXPECT_EQ(a.translate.x, b.translate.x);
  EXPECT_EQ(a.translate.y, b.translate.y);
  EXPECT_EQ(a.translate.z, b.translate.z);
  // parse_scene normalizes quaternions again: the last bit may move.
  EXPECT_NEAR(a.rotate.w, b.rotate.w, 1e-15);
  EXPECT_NEAR(a.rotate.x, b.rotate.x, 1e-15);
  EXPECT_NEAR(a.rotate.y, b.rotate.y, 1e-15);
  EXPECT_NEAR(a.rotate.z, b.rotate.z, 1e-15);
}

// What the viewer's "save scene" writes is read back by the loader as the same scene, from a
// folder other than the models' (paths are written relative to the scene file).
TEST(Scene, SavedSceneReadsBackAsTheSameScene) {
  const Scene original = parse_scene(
      scene_text(R"(, "name": "pipe", "unit": "mm", "points": 1234, "transform": {"translate":
          [0.1, -2.5, 3], "rotate": [10, 20.5, -30], "scale": 0.25}, "keyframes": [{"time": 0},
          {"time": 2.5, "translate": [1, 2, 3], "rotate": [0, 90, 0]}], "as": "points")",
                 R"(, "unit": "in", "transform": {"quaternion": [0.5, 0.5, 0.5, 0.5]}, "as":
          "mesh")",
                 R"(, "name": "plant", "unit": "cm", "grid": {"voxel_size": 0.125, "bounds":
          {"min": [-5, -4, -3], "max": [5, 4, 3.5]}, "margin": 0.1}, "motion": {"kind":
          "keyframes"}, "algorithm": "hashgraph-v2", "points": 4321, "time": 1.75,
          "gpu_budget": "1536MiB")"),
      temp_dir() / "original.json");
  fs::create_directories(temp_dir() / "saved");
  const fs::path file = temp_dir() / "saved" / "scene.json";
  save_scene(original, file);
  const Scene saved = load_scene(file);

  EXPECT_EQ(saved.name, "plant");
  EXPECT_EQ(saved.unit, LengthUnit::Centimeter);
  EXPECT_EQ(saved.algorithm, TableKind::HashGraphV2);
  EXPECT_EQ(saved.points, 4321u);
  EXPECT_EQ(saved.time, 1.75);
  EXPECT_EQ(saved.motion.kind, MotionKind::Keyframes);
  EXPECT_EQ(saved.grid.voxel_size, 0.125);
  EXPECT_EQ(saved.grid.margin, 0.1);
  ASSERT_TRUE(saved.grid.bounds.has_value());
  EXPECT_EQ(saved.grid.bounds->max.z, 3.5f);
  EXPECT_EQ(saved.grid.bounds->min.x, -5.0f);
  EXPECT_EQ(saved.gpu_budget, std::size_t{1536} << 20);
  EXPECT_NE(read_text(file.string()).find("\"gpu_budget\": \"1536MiB\""), std::string::npos)
      << "a budget in the largest binary unit that holds it exactly";
  EXPECT_EQ(saved.models[0].as, ModelAs::Points);
  EXPECT_EQ(saved.models[1].as, ModelAs::Mesh);
  for (int i = 0; i < 2; ++i) {
    const SceneModel &a = original.models[i], &b = saved.models[i];
    EXPECT_EQ(fs::weakly_canonical(a.path), fs::weakly_canonical(b.path)) << i;
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.unit, b.unit);
    EXPECT_EQ(a.scale, b.scale);
    EXPECT_EQ(a.points, b.points);
    expect_same_pose(a.pose, b.pose);
    ASSERT_EQ(a.keyframes.size(), b.keyframes.size());
    for (std::size_t k = 0; k < a.keyframes.size(); ++k) {
      EXPECT_EQ(a.keyframes[k].time, b.keyframes[k].time);
      expect_same_pose(a.keyframes[k].pose, b.keyframes[k].pose);
    }
  }
  EXPECT_EQ(saved.models[0].name, "pipe");
  EXPECT_EQ(saved.models[0].scale, 0.25);
  EXPECT_EQ(saved.models[1].unit, LengthUnit::Inch);
  EXPECT_NE(read_text(file.string()).find("\"path\": \"../"), std::string::npos)
      << "model paths relative to the scene file's folder";

  // A swing with its deformation, and a resolution instead of a voxel size.
  const Scene swing = parse_scene(
      scene_text("", "", R"(, "grid": {"resolution": 96}, "motion": {"kind": "swing", "speed": 2,
          "separation": 0.75, "deformation": "twist", "amount": 0.2})"),
      temp_dir() / "swing.json");
  save_scene(swing, file);
  const Scene swing_saved = load_scene(file);
  EXPECT_EQ(swing_saved.grid.resolution, 96);
  EXPECT_EQ(swing_saved.grid.voxel_size, 0.0);
  EXPECT_FALSE(swing_saved.grid.bounds.has_value());
  EXPECT_EQ(swing_saved.motion.kind, MotionKind::Swing);
  EXPECT_EQ(swing_saved.motion.speed, 2.0f);
  EXPECT_EQ(swing_saved.motion.separation, 0.75f);
  EXPECT_EQ(swing_saved.motion.deformation, Deformation::Twist);
  EXPECT_EQ(swing_saved.motion.amount, 0.2f);
  EXPECT_FALSE(swing_saved.algorithm.has_value());
  EXPECT_FALSE(swing_saved.gpu_budget.has_value());
  EXPECT_EQ(swing_saved.models[0].as, ModelAs::File);
  EXPECT_EQ(read_text(file.string()).find("\"as\""), std::string::npos) << "no \"as\" by default";

  // Budgets no binary unit divides, and decimal ones, round-trip as whole numbers of bytes.
  for (const std::size_t bytes : {std::size_t{1000}, std::size_t{2'000'000'001}}) {
    Scene budget      = swing;
    budget.gpu_budget = bytes;
    save_scene(budget, file);
    EXPECT_EQ(load_scene(file).gpu_budget, bytes);
  }

  EXPECT_THROW(save_scene(swing, temp_dir() / "no_such_dir" / "s.json"), Error);
}

TEST(Scene, GridThatDoesNotHoldAModelWarnsOnce) {
  const std::string cut = scene_text(
      "",
      "",
      R"(, "grid": {"resolution": 32, "bounds": {"min": [-1.1, -1.1, -1.1], "max": [0, 1.1, 1.1]}})");
  const LoadedScene loaded = load_scene_models(parse_scene(cut, "cut.json"), {.points = 10'000});
  ASSERT_EQ(loaded.warnings.size(), 2u);
  EXPECT_NE(loaded.warnings[0].find("cut.json: the grid does not hold model 'sphere'"),
            std::string::npos)
      << loaded.warnings[0];
  EXPECT_GT(loaded.models[0].outside_grid, 4000u);
  EXPECT_LT(loaded.models[0].outside_grid, 6000u);
  // A fitted grid holds both.
  const LoadedScene fitted =
      load_scene_models(parse_scene(scene_text(), "s.json"), {.points = 10'000});
  EXPECT_TRUE(fitted.warnings.empty());
  EXPECT_EQ(fitted.models[0].outside_grid + fitted.models[1].outside_grid, 0u);
}

TEST(Scene, CoordinatesTooFarFromTheOriginForTheVoxelsWarn) {
  // A georeferenced scan (UTM metres: 4.5 million north, where floats are 0.5 m apart) against
  // 5 cm voxels: the file's own coordinates are the trouble.
  std::string utm;
  for (int i = 0; i < 200; ++i) {
    utm += std::to_string(512000 + i * 0.05) + " " + std::to_string(4512000 + (i % 7) * 0.3) +
           " 100." + std::to_string(i % 10) + "\n";
  }
  const std::string scan = write_file("utm_scan.xyz", utm);
  const std::string far  = R"({"voxhash_scene": 1, "models": [{"path": ")" + scan +
                          R"("}, {"path": ")" + scan + R"("}], "grid": {"voxel_size": 0.05}})";
  const LoadedScene georeferenced = load_scene_models(parse_scene(far, "utm.json"), {});
  ASSERT_EQ(georeferenced.warnings.size(), 2u);
  EXPECT_NE(georeferenced.warnings[0].find(
                "utm.json: model 'utm_scan': its coordinates in utm_scan.xyz lie so far from the "
                "origin that 32-bit floats there are 0.5 m apart, more than 1/16 of the 0.05 m "
                "voxels"),
            std::string::npos)
      << georeferenced.warnings[0];
  EXPECT_NE(georeferenced.warnings[0].find("Move the model near the origin in its file"),
            std::string::npos);
  // voxhash clash prints the warning, and positions with every digit a float holds there.
  const Outcome clash = run({"clash", write_file("utm.json", far), "--backend", "cpu"});
  ASSERT_EQ(clash.exit_code, 0) << clash.err;
  EXPECT_NE(clash.err.find("32-bit floats there are 0.5 m apart"), std::string::npos) << clash.err;
  EXPECT_NE(clash.out.find("centroid (512"), std::string::npos) << clash.out;
  EXPECT_EQ(clash.out.find("e+06"), std::string::npos) << clash.out;
  // A model file near the origin placed far away: the placement is the trouble.
  const LoadedScene placed =
      load_scene_models(parse_scene(scene_text(R"(, "transform": {"translate": [0, 3000000, 0]})",
                                               R"(, "transform": {"translate": [0, 3000000, 0]})",
                                               R"(, "grid": {"voxel_size": 0.01})"),
                                    "far.json"),
                        {.points = 1000});
  ASSERT_FALSE(placed.warnings.empty());
  EXPECT_NE(
      placed.warnings[0].find("far.json: model 'sphere': its coordinates as placed lie so far"),
      std::string::npos)
      << placed.warnings[0];
  // The same models near the origin, at the same voxel size: no warning.
  const LoadedScene near = load_scene_models(
      parse_scene(scene_text("", "", R"(, "grid": {"voxel_size": 0.01})"), "near.json"),
      {.points = 1000});
  EXPECT_TRUE(near.warnings.empty());
}

TEST(Scene, CommandLineFlagsOverrideTheScene) {
  const std::string path =
      write_file("override.json",
                 scene_text(R"(, "points": 5000)",
                            R"(, "transform": {"translate": [3, 0, 0]})",
                            R"(, "grid": {"resolution": 64}, "algorithm": "hashgraph-v1")"));
  const Outcome plain = run({"bench", "frame", "--backend", "cpu", "--scene", path});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const Scene& s = plain.bench->scene;
  EXPECT_EQ(s.models[0].points, 5000u);
  EXPECT_EQ(s.models[1].pose.translate.x, 3.0f);
  EXPECT_EQ(s.grid.resolution, 64);
  EXPECT_EQ(plain.bench->algorithm, TableKind::HashGraphV1);

  const Outcome r = run({"bench",
                         "frame",
                         "--backend",
                         "cpu",
                         "--scene",
                         path,
                         "--voxel-size",
                         "0.05",
                         "--translate-b",
                         "1.5,-2,0.25",
                         "--model-a",
                         asset("blob.obj"),
                         "--points",
                         "7000",
                         "--algo",
                         "cuckoo"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Scene& o = r.bench->scene;
  EXPECT_EQ(o.grid.voxel_size, 0.05);
  EXPECT_EQ(o.grid.resolution, 0);
  EXPECT_EQ(o.models[1].pose.translate.x, 1.5f);
  EXPECT_EQ(o.models[1].pose.translate.y, -2.0f);
  EXPECT_EQ(o.models[1].pose.translate.z, 0.25f);
  EXPECT_EQ(o.models[0].path, asset("blob.obj"));
  EXPECT_EQ(o.models[0].name, "blob");
  EXPECT_EQ(o.models[0].points, 0u);
  EXPECT_EQ(o.points, 7000u);
  EXPECT_EQ(r.bench->algorithm, TableKind::Cuckoo);

  // A voxel size with a unit, in the scene's unit (it used to be refused with a 309-digit range).
  const std::string mm_path =
      write_file("override_mm.json", scene_text("", "", R"(, "unit": "mm")"));
  const Outcome mm =
      run({"bench", "frame", "--backend", "cpu", "--scene", mm_path, "--voxel-size", "2cm"});
  ASSERT_EQ(mm.exit_code, 0) << mm.err;
  EXPECT_DOUBLE_EQ(mm.bench->scene.grid.voxel_size, 20.0);

  // A replaced model keeps "as": "points" (any file has samples) and drops "as": "mesh".
  const std::string as_path =
      write_file("override_as.json", scene_text(R"(, "as": "mesh")", R"(, "as": "points")"));
  const Outcome as = run({"bench",
                          "frame",
                          "--backend",
                          "cpu",
                          "--scene",
                          as_path,
                          "--model-a",
                          asset("blob.obj"),
                          "--model-b",
                          asset("knot.obj")});
  ASSERT_EQ(as.exit_code, 0) << as.err;
  EXPECT_EQ(as.bench->scene.models[0].as, ModelAs::File);
  EXPECT_EQ(as.bench->scene.models[1].as, ModelAs::Points);

  const Outcome res = run({"bench", "frame", "--backend", "cpu", "--scene", path, "--res", "32"});
  ASSERT_EQ(res.exit_code, 0) << res.err;
  EXPECT_EQ(res.bench->scene.grid.resolution, 32);

  // Models without a scene: in place, no motion, fitted grid.
  const Outcome models = run({"bench",
                              "frame",
                              "--backend",
                              "cpu",
                              "--model-a",
                              asset("knot.obj"),
                              "--model-b",
                              asset("blob.obj")});
  ASSERT_EQ(models.exit_code, 0) << models.err;
  EXPECT_EQ(models.bench->scene.motion.kind, MotionKind::None);
  EXPECT_FALSE(models.bench->scene.grid.bounds.has_value());
  EXPECT_EQ(models.bench->scene.models[1].name, "blob");
}

TEST(Scene, DemoSceneKeepsTheSwingAndItsDeformation) {
  const Scene demo = load_scene(asset("demo.json"));
  EXPECT_EQ(demo.motion.kind, MotionKind::Swing);
  EXPECT_EQ(demo.motion.deformation, Deformation::Wobble);
  const AnimationParams a = scene_animation(demo.motion);
  const AnimationParams defaults;
  EXPECT_TRUE(a.animate);
  EXPECT_EQ(a.speed, defaults.speed);
  EXPECT_EQ(a.separation, defaults.separation);
  EXPECT_EQ(a.amount, defaults.amount);
  EXPECT_EQ(demo.models[0].name, "sphere");
  EXPECT_EQ(demo.models[1].name, "torus");
}

TEST(Scene, ClashOnTheDemoWritesAReport) {
  const std::string json_path = (temp_dir() / "r.json").string();
  const std::string csv_path  = (temp_dir() / "r.csv").string();
  const std::string clash_csv = (temp_dir() / "c.csv").string();
  const std::string ply_path  = (temp_dir() / "band.ply").string();
  const Outcome r             = run({"clash",
                                     asset("demo.json"),
                                     "--backend",
                                     "cpu",
                                     "--json",
                                     json_path,
                                     "--regions-csv",
                                     csv_path,
                                     "--csv",
                                     clash_csv,
                                     "--export-ply",
                                     ply_path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("model A sphere"), std::string::npos) << r.out;
  // Positions to a tenth of the 0.01875 voxel: three decimals, never float noise like 3.9e-08.
  EXPECT_NE(r.out.find("centroid ("), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("e-0"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(centroid \(-?\d+\.\d{3}, )"))) << r.out;
  const json report = json::parse(read_text(json_path));
  EXPECT_EQ(report["schema"], "voxhash-clash/2");
  EXPECT_EQ(report["scene"]["name"], "demo");
  EXPECT_EQ(report["time"], 3.0);
  ASSERT_EQ(report["models"].size(), 2u);
  EXPECT_EQ(report["models"][0]["name"], "sphere");
  EXPECT_EQ(report["models"][1]["name"], "torus");
  const double voxel = report["grid"]["voxel_size"][0];
  EXPECT_NEAR(voxel, 4.8 / 256, 1e-6);  // the demo's bounds at the CPU's default resolution
  // The run's memory peaks: on the CPU backend the host's hold the device's and the pinned ones;
  // the device held at least both models' points (12 bytes each).
  const double device = report["peak_device_bytes"], pinned = report["peak_pinned_bytes"],
               host = report["peak_host_bytes"];
  EXPECT_GE(device, 2 * 12.0 * report["models"][0]["points"].get<double>());
  EXPECT_LE(device, host);
  EXPECT_LE(pinned, host);
  EXPECT_NE(r.out.find("memory: peak device "), std::string::npos) << r.out;
  const std::size_t intersection = report["models"][0]["intersection"];
  EXPECT_EQ(report["models"][1]["intersection"], intersection);
  EXPECT_GT(intersection, 0u);
  EXPECT_EQ(report["totals"]["voxels"], intersection);
  for (const json& model : report["models"]) {
    EXPECT_TRUE(model["voxels"].is_number_integer());
    EXPECT_EQ(model["outside_grid"], 0);
    EXPECT_EQ(model["outside_grid_warning"], false);
  }

  // Regions: ranked by size, together the whole intersection, each volume its voxels' volume,
  // each centroid inside its box, every box inside the grid.
  const json& regions = report["regions"];
  ASSERT_GE(regions.size(), 1u);
  EXPECT_EQ(report["totals"]["regions"], regions.size());
  EXPECT_EQ(report["totals"]["listed"], regions.size());
  std::size_t total = 0, previous = SIZE_MAX;
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const json& g            = regions[i];
    const std::size_t voxels = g["voxels"];
    EXPECT_EQ(g["rank"], i + 1);
    EXPECT_LE(voxels, previous);
    previous = voxels;
    total += voxels;
    EXPECT_NEAR(g["volume"].get<double>(), voxels * voxel * voxel * voxel, 1e-9);
    for (int a = 0; a < 3; ++a) {
      const double lo = g["bounds"]["min"][a], hi = g["bounds"]["max"][a], c = g["centroid"][a];
      EXPECT_LE(lo, c);
      EXPECT_LE(c, hi);
      EXPECT_GE(lo, -2.4 - 1e-4);
      EXPECT_LE(hi, 2.4 + 1e-4);
      EXPECT_GE(hi - lo, voxel - 1e-6);
    }
  }
  EXPECT_EQ(total, intersection);
  EXPECT_NEAR(report["totals"]["volume"].get<double>(), total * voxel * voxel * voxel, 1e-9);

  std::istringstream csv(read_text(csv_path));
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  EXPECT_TRUE(line.starts_with("rank,voxels,volume,")) << line;
  std::size_t rows = 0;
  while (std::getline(csv, line))
    ++rows;
  EXPECT_EQ(rows, regions.size());

  // Clashes: the two meshes' one pair of parts, hard, with a volume and a depth; the CSV one row
  // per clash.
  const json& clashes = report["clashes"];
  ASSERT_EQ(clashes.size(), 1u);
  EXPECT_EQ(clashes[0]["kind"], "hard");
  EXPECT_GT(clashes[0]["volume"].get<double>(), 0.0);
  EXPECT_GT(clashes[0]["depth"].get<double>(), 0.0);
  EXPECT_EQ(clashes[0]["id"].get<std::string>().size(), 16u);
  EXPECT_EQ(report["counts"]["hard"], 1);
  std::istringstream clash_rows(read_text(clash_csv));
  ASSERT_TRUE(std::getline(clash_rows, line));
  EXPECT_TRUE(line.starts_with("id,kind,model_a,")) << line;
  rows = 0;
  while (std::getline(clash_rows, line))
    ++rows;
  EXPECT_EQ(rows, clashes.size());

  const std::string ply      = read_text(ply_path);
  const std::string vertices = "\nelement vertex ";
  ASSERT_NE(ply.find(vertices), std::string::npos);
  EXPECT_EQ(std::strtoul(ply.c_str() + ply.find(vertices) + vertices.size(), nullptr, 10),
            intersection);
}

/// OBJ text of the boxes [lo, hi], each its own part (`o NAME`), 12 triangles each.
std::string boxes_obj(const std::vector<std::pair<std::string, std::pair<Float3, Float3>>>& boxes) {
  std::string text;
  int base = 1;
  for (const auto& [name, box] : boxes) {
    const auto [lo, hi] = box;
    text += "o " + name + "\n";
    for (int c = 0; c < 8; ++c) {
      text += "v " + std::to_string(c & 1 ? hi.x : lo.x) + " " +
              std::to_string(c & 2 ? hi.y : lo.y) + " " + std::to_string(c & 4 ? hi.z : lo.z) +
              "\n";
    }
    constexpr int kFaces[6][4] = {
        {0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (const auto& f : kFaces) {
      text += "f " + std::to_string(base + f[0]) + " " + std::to_string(base + f[1]) + " " +
              std::to_string(base + f[2]) + " " + std::to_string(base + f[3]) + "\n";
    }
    base += 8;
  }
  return text;
}

TEST(Scene, MeshTooFineForMemoryIsRefusedBeforeVoxelizing) {
  // A 1 m box at 10 um: ~1.2e11 surface voxels, terabytes; refused from the triangles' area
  // alone, with the voxel size that fits (the frames are never made).
  const std::string box = write_file("box.obj", boxes_obj({{"box", {{0, 0, 0}, {1, 1, 1}}}}));
  Scene scene = parse_scene(R"({"voxhash_scene": 1, "grid": {"voxel_size": 0.00001}, "models": [)"
                            R"({"name": "A", "path": ")" +
                                box + R"("}, {"name": "B", "path": ")" + box + R"("}]})",
                            "fine.json");
  try {
    (void)open_scene(scene, {.backend = Backend::Cpu, .defaults = {.points = 1000}});
    FAIL() << "no error";
  } catch (const OutOfMemory& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_TRUE(what.starts_with("fine.json: model 'A': ~1.2e+11 surface voxels at 1e-05 m need ~"))
        << what;
    EXPECT_NE(what.find(" free; use --voxel-size >= "), std::string::npos) << what;
    const auto at = what.find(">= ");
    ASSERT_NE(at, std::string::npos) << what;
    const double suggested = std::strtod(what.c_str() + at + 3, nullptr);
    EXPECT_GT(suggested, 0.00001);
    EXPECT_LT(suggested, 0.01) << "a voxel size that fits is not wildly coarse";
    scene.grid.voxel_size    = suggested;
    const LoadedScene loaded = load_scene_models(scene, {.points = 1000});
    EXPECT_NO_THROW(check_mesh_memory(Backend::Cpu, {loaded.config}, loaded));
  }
}

TEST(Scene, SurfaceVoxelEstimateIsTwiceTheAreaInVoxelsPlusTheTriangles) {
  // A 2 x 3 rectangle of two triangles: area 6, 24 voxels of 0.5 a side in area.
  const Mesh rectangle{.vertices       = {{0, 0, 0}, {2, 0, 0}, {2, 3, 0}, {0, 3, 0}},
                       .triangles      = {0, 1, 2, 0, 2, 3},
                       .triangle_parts = {},
                       .part_names     = {}};
  EXPECT_EQ(estimate_surface_voxels(rectangle, 0.5), 2 * 24 + 2u);
  EXPECT_EQ(estimate_surface_voxels(Mesh{}, 0.1), 0u);
}

TEST(Scene, ModelsWhoseSizesDifferBy1000xWarn) {
  const std::string box = write_file("box.obj", boxes_obj({{"box", {{0, 0, 0}, {1, 1, 1}}}}));
  const auto warnings   = [&](double scale) {
    const Scene scene =
        parse_scene(R"({"voxhash_scene": 1, "grid": {"resolution": 64}, "models": [)"
                      R"({"name": "A", "path": ")" +
                        box + R"(", "transform": {"scale": )" + std::to_string(scale) +
                        R"(}}, {"name": "B", "path": ")" + box + R"("}]})",
                    "units.json");
    return load_scene_models(scene, {.points = 1000}).warnings;
  };
  const std::vector<std::string> w = warnings(1000);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(w[0].starts_with("units.json: model 'A' is 1000x model 'B' (bounding-box diagonals "))
      << w[0];
  EXPECT_NE(w[0].find("a unit missing?"), std::string::npos) << w[0];
  EXPECT_TRUE(warnings(50).empty()) << "50x is a scene, not a unit mistake";
}

TEST(Scene, ClashReportNamesTheModelsParts) {
  // Model A: two boxes, parts "left" and "right"; model B: one slab ("slab") through both.
  const std::string a = write_file("two_parts.obj",
                                   boxes_obj({{"left", {{-1, -0.5f, -0.5f}, {-0.1f, 0.5f, 0.5f}}},
                                              {"right", {{0.1f, -0.5f, -0.5f}, {1, 0.5f, 0.5f}}}}));
  const std::string b =
      write_file("slab.obj", boxes_obj({{"slab", {{-0.6f, -0.2f, -1}, {0.6f, 0.2f, 1}}}}));
  const std::string scene_path =
      write_file("parts.json",
                 R"({"voxhash_scene": 1, "grid": {"voxel_size": 0.05}, "models": [{"path": ")" + a +
                     R"("}, {"path": ")" + b + R"("}]})");
  const std::string json_path = (temp_dir() / "parts.json.report").string();
  const Outcome r =
      run({"clash", scene_path, "--backend", "cpu", "--points", "20000", "--json", json_path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("left x slab"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("right x slab"), std::string::npos) << r.out;
  const json report = json::parse(read_text(json_path));
  EXPECT_EQ(report["models"][0]["name"], "two_parts");
  EXPECT_EQ(report["models"][0]["parts"], json::array({"left", "right"}));
  ASSERT_EQ(report["regions"].size(), 2u) << report.dump(2);
  std::vector<std::string> parts_a;
  for (const json& region : report["regions"]) {
    ASSERT_EQ(region["part_pairs"].size(), 1u) << region.dump(2);
    const json& pair = region["part_pairs"][0];
    EXPECT_EQ(pair["part_b"], "slab");
    EXPECT_EQ(pair["voxels"], region["voxels"]);
    parts_a.push_back(pair["part_a"]);
  }
  std::sort(parts_a.begin(), parts_a.end());
  EXPECT_EQ(parts_a, (std::vector<std::string>{"left", "right"}));
}

TEST(Scene, ClashOfDuctsAgainstStructureGivesExactAnswersPerPair) {
  // A coordination check as a user runs it: structure (beam, wall, column) against ducts, one
  // file each, tolerance and clearance in the scene with units. duct-7 runs through the wall, under
  // the beam's soffit (0.15 m into it) and into the column (0.05 m); duct-8 through the wall only;
  // duct-9 passes the column 0.1 m away.
  const std::string structure =
      write_file("structure.obj",
                 boxes_obj({{"beam", {{0, 0, 2.8f}, {10, 0.3f, 3.1f}}},
                            {"wall", {{4, -2, 0}, {4.2f, 3, 3.2f}}},
                            {"column", {{7, -0.2f, 0}, {7.3f, 0.1f, 3.2f}}}}));
  const std::string ducts =
      write_file("ducts.obj",
                 boxes_obj({{"duct-7", {{-1, 0.05f, 2.6f}, {11, 0.45f, 2.95f}}},
                            {"duct-8", {{-1, 1, 2.5f}, {11, 1.3f, 2.8f}}},
                            {"duct-9", {{5, -0.45f, 1}, {11, -0.3f, 1.3f}}}}));
  const std::string scene_path = write_file(
      "coordination.json",
      R"({"voxhash_scene": 1, "tolerance": "10mm", "clearance": "150mm", "grid": {"voxel_size": 0.02},
          "models": [{"path": ")" +
          structure + R"("}, {"path": ")" + ducts + R"("}]})");
  const std::string json_path = (temp_dir() / "coordination.report.json").string();
  const Outcome r             = run({"clash",
                                     scene_path,
                                     "--backend",
                                     "cpu",
                                     "--points",
                                     "20000",
                                     "--json",
                                     json_path,
                                     "--exit-code"});
  ASSERT_EQ(r.exit_code, 3) << r.err;
  const json report = json::parse(read_text(json_path));
  EXPECT_EQ(report["counts"]["hard"], 4) << report["clashes"].dump(2);
  EXPECT_EQ(report["counts"]["touching"], 0);
  EXPECT_EQ(report["counts"]["clearance"], 1);
  EXPECT_EQ(report["tolerance"], 0.01);
  const double voxel = 0.02;
  // (part of A, part of B) -> exact volume, depth or gap.
  const std::map<std::pair<std::string, std::string>, std::pair<double, double>> exact = {
      {{"wall", "duct-7"}, {0.2 * 0.4 * 0.35, 0.175}},
      {{"beam", "duct-7"}, {10 * 0.25 * 0.15, 0.15}},
      {{"wall", "duct-8"}, {0.2 * 0.3 * 0.3, 0.15}},
      {{"column", "duct-7"}, {0.3 * 0.05 * 0.35, 0.05}},
      {{"column", "duct-9"}, {0.0, 0.1}}};
  ASSERT_EQ(report["clashes"].size(), exact.size());
  for (const json& c : report["clashes"]) {
    const auto found = exact.find({c["part_a"], c["part_b"]});
    ASSERT_NE(found, exact.end()) << c.dump();
    const auto [volume, length] = found->second;
    if (c["kind"] == "clearance") {
      EXPECT_EQ(c["volume"], 0.0);
      EXPECT_NEAR(c["distance"].get<double>(), length, voxel) << c.dump();
    } else {
      EXPECT_EQ(c["kind"], "hard");
      EXPECT_NEAR(c["volume"].get<double>(), volume, 0.02 * volume) << c.dump();
      EXPECT_NEAR(c["depth"].get<double>(), length, voxel) << c.dump();
    }
  }
}

TEST(Scene, MeshAsPointsKeepsItsSamplesAndTheirParts) {
  // Model A: two boxes, parts "left" (x < 0) and "right" (x > 0), read as points.
  const std::string boxes =
      write_file("as_points.obj",
                 boxes_obj({{"left", {{-1, -0.5f, -0.5f}, {-0.1f, 0.5f, 0.5f}}},
                            {"right", {{0.1f, -0.5f, -0.5f}, {1, 0.5f, 0.5f}}}}));
  const Scene scene = parse_scene(R"({"voxhash_scene": 1, "models": [{"path": ")" + boxes +
                                      R"(", "as": "points", "points": 200000}, {"path": ")" +
                                      asset("torus.obj") + R"(", "as": "mesh"}]})",
                                  "as_points.json");
  EXPECT_EQ(scene.models[0].as, ModelAs::Points);
  EXPECT_EQ(scene.models[1].as, ModelAs::Mesh);
  EXPECT_EQ(parse_scene(scene_text(), "s.json").models[0].as, ModelAs::File);

  const LoadedScene loaded = load_scene_models(scene, {.points = 5000});
  const PointCloud& a      = loaded.models[0].cloud;
  EXPECT_TRUE(a.mesh.triangles.empty()) << "read as points: no triangles";
  EXPECT_TRUE(a.mesh.vertices.empty());
  ASSERT_EQ(a.points.size(), 200000u);  // placed in parallel chunks
  ASSERT_EQ(a.point_parts.size(), a.points.size());
  EXPECT_EQ(a.part_names, (std::vector<std::string>{"left", "right"}));
  std::size_t right = 0;
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    ASSERT_EQ(a.point_parts[i], a.points[i].x > 0 ? 1u : 0u) << a.points[i].x;
    right += a.point_parts[i];
  }
  EXPECT_NEAR(static_cast<double>(right), 100000.0, 1500.0);
  EXPECT_FALSE(loaded.models[1].cloud.mesh.triangles.empty()) << "\"mesh\" keeps its triangles";

  // Into a pipeline as a point cloud with its points' parts: a frame runs on them.
  Pipeline pipeline(Backend::Cpu, loaded.config);
  set_scene_models(pipeline, loaded, 0);
  const FrameStats stats = pipeline.run_frame(0, {.write_instances = false});
  EXPECT_EQ(stats.model[0].points, 200000u);
  EXPECT_GT(stats.model[0].voxels, 0u);
}

TEST(Scene, BenchFrameOnAStaticSceneNamesItsModelsAndCountsTheLastFrame) {
  const std::string scene_path =
      write_file("static.json",
                 scene_text(R"(, "name": "ball")",
                            R"(, "transform": {"translate": [1.5, 0, 0], "scale": 2})",
                            R"(, "grid": {"resolution": 48}, "points": 5000)"));
  const std::string json_path = (temp_dir() / "frame.json").string();
  const Outcome r             = run({"bench",
                                     "frame",
                                     "--backend",
                                     "cpu",
                                     "--scene",
                                     scene_path,
                                     "--frames",
                                     "2",
                                     "--warmup",
                                     "0",
                                     "--json",
                                     json_path},
                        true);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("A = ball (5000 points), B = torus (5000 points)"), std::string::npos)
      << r.out;
  const json report = json::parse(read_text(json_path));
  EXPECT_EQ(report["scene"], scene_path);
  ASSERT_EQ(report["models"].size(), 2u);
  EXPECT_EQ(report["models"][0]["name"], "ball");
  EXPECT_EQ(report["models"][1]["name"], "torus");
  EXPECT_EQ(report["models"][1]["outside_grid"], 0);

  // The same frame run here: no deformation, no motion, the same integer counts.
  const LoadedScene loaded =
      load_scene_models(load_scene(scene_path), {.points = 100'000, .resolution = 512});
  const auto [stats, voxels] = run_scene(loaded);
  const json* total          = nullptr;
  for (const json& result : report["results"]) {
    if (result["operation"] == "total") total = &result;
  }
  ASSERT_NE(total, nullptr);
  EXPECT_TRUE((*total)["voxels_a"].is_number_integer());
  EXPECT_EQ((*total)["voxels_a"], stats.model[0].voxels);
  EXPECT_EQ((*total)["voxels_b"], stats.model[1].voxels);
  EXPECT_EQ((*total)["intersection_a"], stats.model[0].intersection);
  EXPECT_EQ((*total)["inside_b"], stats.model[1].inside);
  EXPECT_EQ((*total)["outside_grid_a"], 0);
  EXPECT_EQ((*total)["resolution"], 48);
  EXPECT_TRUE(report["gpu_budget"].is_null()) << "no budget";
  EXPECT_EQ((*total)["gpu_budget"], 0);
  EXPECT_EQ((*total)["paged"], 0);
  EXPECT_EQ(r.out.find("paging ("), std::string::npos) << r.out;
}

TEST(Scene, BenchFrameReportsTheGpuBudgetAndThePaging) {
  const std::string scene_path =
      write_file("budget.json", scene_text("", "", R"(, "grid": {"resolution": 48}, "points": 4000,
          "gpu_budget": "1GiB")"));
  const std::string json_path = (temp_dir() / "budget_frame.json").string();
  const std::string csv_path  = (temp_dir() / "budget_frame.csv").string();
  const Outcome r             = run({"bench",
                                     "frame",
                                     "--backend",
                                     "cpu",
                                     "--scene",
                                     scene_path,
                                     "--gpu-budget",
                                     "4MiB",
                                     "--frames",
                                     "1",
                                     "--warmup",
                                     "0",
                                     "--json",
                                     json_path,
                                     "--csv",
                                     csv_path},
                        true);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.bench->scene.gpu_budget, std::size_t{4} << 20) << "the flag overrides the scene";
  EXPECT_NE(r.out.find("gpu budget 4.00 MiB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("paging (cuckoo, last frame, budget 4.00 MiB): "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("host peak resident set "), std::string::npos) << r.out;

  const json report = json::parse(read_text(json_path));
  EXPECT_EQ(report["gpu_budget"], 4u << 20);
  EXPECT_GT(report["host_peak_rss_bytes"].get<double>(), 0.0);
  const json* total = nullptr;
  for (const json& result : report["results"]) {
    if (result["operation"] == "total") total = &result;
  }
  ASSERT_NE(total, nullptr);
  EXPECT_EQ((*total)["gpu_budget"], 4u << 20);
  for (const char* field : {"paged",
                            "pages",
                            "resident_pages",
                            "table_backend_bytes",
                            "table_host_bytes",
                            "bytes_to_device",
                            "bytes_to_host"}) {
    ASSERT_TRUE(total->contains(field)) << field;
    EXPECT_TRUE((*total)[field].is_number_integer()) << field << ": " << (*total)[field];
    EXPECT_GE((*total)[field].get<double>(), 0.0) << field;
  }
  EXPECT_LE((*total)["paged"], 1);
  EXPECT_LE((*total)["resident_pages"], (*total)["pages"]);
  EXPECT_NE(read_text(csv_path).find("table_host_bytes"), std::string::npos);
}

TEST(Scene, OpenSceneLoadsTheSceneAndConfiguresEachPipeline) {
  const Scene scene                       = load_scene(asset("demo.json"));
  const SceneDefaults defaults            = {.points = 2000, .resolution = 48};
  const OpenScene open                    = open_scene(scene, {.defaults = defaults});
  const LoadedScene direct                = load_scene_models(scene, defaults);
  const std::array<std::size_t, 2> points = direct.point_counts();
  EXPECT_EQ(open.loaded.point_counts(), points);
  EXPECT_EQ(open.loaded.models[0].name, direct.models[0].name);
  EXPECT_EQ(open.loaded.warnings, direct.warnings);
  ASSERT_EQ(open.configs.size(), 1u) << "the scene's own algorithm";
  EXPECT_EQ(open.configs[0].algorithm, direct.config.algorithm);
  const Int3 r = open.configs[0].grid.resolution, direct_r = direct.config.grid.resolution;
  EXPECT_EQ(std::tie(r.x, r.y, r.z), std::tie(direct_r.x, direct_r.y, direct_r.z));
  EXPECT_EQ(open.configs[0].table_options.cuckoo_space, kFrameCuckooSpace);

  const auto pipeline    = make_scene_pipeline(Backend::Cpu, open.configs[0], open.loaded, 0.0);
  const FrameStats stats = pipeline->run_frame(0.0, {.write_instances = false});
  EXPECT_EQ(stats.model[0].points, points[0]);
  EXPECT_GT(stats.model[0].voxels, 0u);

  // The bench's pipelines: one per algorithm, held at once, every one's memory checked before the
  // files are read and again after, with the models' real counts.
  std::vector<std::pair<std::size_t, std::array<std::size_t, 2>>> checks;
  const OpenScene bench = open_scene(
      scene,
      {.defaults = defaults,
       .tables   = {.algorithms = {TableKind::Cuckoo, TableKind::HashGraphV2}, .cuckoo_space = 1.5},
       .check_memory = [&](const std::vector<PipelineConfig>& configs,
                           std::array<std::size_t, 2> counts) {
         checks.emplace_back(configs.size(), counts);
       }});
  ASSERT_EQ(bench.configs.size(), 2u);
  EXPECT_EQ(bench.configs[0].algorithm, TableKind::Cuckoo);
  EXPECT_EQ(bench.configs[1].algorithm, TableKind::HashGraphV2);
  for (const PipelineConfig& config : bench.configs) {
    EXPECT_EQ(config.table_options.cuckoo_space, 1.5);
    EXPECT_EQ(config.table_options.load, BuildOptions{}.load) << "the load as it was";
  }
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].first, 2u);
  EXPECT_EQ(
      checks[0].second,
      (std::array{scene_model_points(scene, 0, defaults), scene_model_points(scene, 1, defaults)}));
  EXPECT_EQ(checks[1].first, 2u);
  EXPECT_EQ(checks[1].second, points);
}

TEST(Scene, OpenSceneOnABadModelFileThrowsTheLineLoadingDid) {
  const std::string path =
      write_file("open_bad.json",
                 R"({"voxhash_scene": 1, "models": [{"path": "no_such_model.obj"}, )"
                 R"({"path": ")" +
                     asset("torus.obj") + R"("}]})");
  const Scene scene = load_scene(path);
  std::string loading, opening;
  try {
    (void)load_scene_models(scene, {.points = 100});
  } catch (const InvalidInput& e) {
    loading = e.what();
  }
  try {
    (void)open_scene(scene, {.defaults = {.points = 100}});
  } catch (const InvalidInput& e) {
    opening = e.what();
  }
  EXPECT_NE(loading.find(path + ": models[0].path: "), std::string::npos) << loading;
  EXPECT_EQ(opening, loading);
  EXPECT_EQ(opening.find('\n'), std::string::npos) << opening;
  const Outcome r = run({"clash", path, "--backend", "cpu", "--points", "100"});
  EXPECT_EQ(r.err, "voxhash: error: " + loading + "\n");

  // Memory is checked before any file is read: a refusal comes first.
  try {
    (void)open_scene(
        scene, {.check_memory = [](const std::vector<PipelineConfig>&, std::array<std::size_t, 2>) {
          throw OutOfMemory("refused before reading");
        }});
    FAIL() << "the memory check did not run";
  } catch (const OutOfMemory& e) {
    EXPECT_STREQ(e.what(), "refused before reading");
  }
}

TEST(Scene, AMeshWithANonFiniteVertexLosesOnlyItsTrianglesAndSaysSo) {
  // A cube with one extra vertex at NaN, used by one extra triangle: the triangle is dropped, the
  // cube checked, and the loss reported (the model used to be refused, naming no file).
  std::string cube = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n";
  const std::string faces =
      "f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 2 3 7\nf 2 7 6\nf 3 4 8\n"
      "f 3 8 7\nf 4 1 5\nf 4 5 8\n";
  const std::string a = write_file("nan_vertex.obj", cube + "v nan 0 0\n" + faces + "f 1 2 9\n");
  const std::string b = write_file("cube_b.obj",
                                   "v 0.5 0.3 0.2\nv 1.5 0.3 0.2\nv 1.5 1.3 0.2\nv 0.5 1.3 0.2\n"
                                   "v 0.5 0.3 1.2\nv 1.5 0.3 1.2\nv 1.5 1.3 1.2\nv 0.5 1.3 1.2\n" +
                                       faces);
  const Outcome r     = run({"clash",
                             "--model-a",
                             a,
                             "--model-b",
                             b,
                             "--backend",
                             "cpu",
                             "--res",
                             "64",
                             "--points",
                             "10000"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("model 'nan_vertex' (nan_vertex.obj): 1 vertices with a NaN or infinite "
                       "coordinate dropped, and the 1 triangles that used them"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("hard"), std::string::npos) << r.out;
}

TEST(Scene, AHugeQuaternionIsNormalizedNotDroppedToNoRotation) {
  // [1e200, 0, 0, 1e200]: its squares overflow; it is 90 degrees about z like [1, 0, 0, 1].
  const auto rotation_of = [](const std::string& quaternion) {
    return parse_scene(scene_text(R"(, "transform": {"quaternion": )" + quaternion + "}"), "q.json")
        .models[0]
        .pose.rotate;
  };
  const Quaternion huge = rotation_of("[1e200, 0, 0, 1e200]");
  const Quaternion unit = rotation_of("[1, 0, 0, 1]");
  EXPECT_NEAR(huge.w, std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(huge.z, std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(huge.w, unit.w, 1e-15);
  EXPECT_NEAR(huge.z, unit.z, 1e-15);
  EXPECT_EQ(huge.x, 0.0);
}

TEST(Scene, AClashReportToAFullDiskFailsSayingWhy) {
  const Outcome r = run(
      {"clash", asset("demo.json"), "--backend", "cpu", "--points", "2000", "--json", "/dev/full"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/dev/full: cannot write it: No space left on device"), std::string::npos)
      << r.err;
}

TEST(Scene, ClashStatusSurvivesRunsAndKeepsWhatAPersonWrote) {
  const std::string faces =
      "f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 2 3 7\nf 2 7 6\nf 3 4 8\n"
      "f 3 8 7\nf 4 1 5\nf 4 5 8\n";
  const auto cube = [&](const std::string& name, float x) {
    std::string text;
    for (int v = 0; v < 8; ++v) {
      text += "v " + std::to_string(x + (v == 1 || v == 2 || v == 5 || v == 6)) + " " +
              std::to_string(v == 2 || v == 3 || v == 6 || v == 7) + " " + std::to_string(v >= 4) +
              "\n";
    }
    return write_file(name, text + faces);
  };
  const std::string a = cube("status_a.obj", 0), b = cube("status_b.obj", 0.5f);
  const std::string status = (temp_dir() / "status.json").string();
  std::filesystem::remove(status);
  const auto clash_run = [&](const std::string& translate_b) {
    return run({"clash",
                "--model-a",
                a,
                "--model-b",
                b,
                "--translate-b",
                translate_b,
                "--backend",
                "cpu",
                "--res",
                "32",
                "--points",
                "2000",
                "--status",
                status});
  };
  const auto entry = [&] {
    const auto doc = nlohmann::json::parse(read_text(status));
    EXPECT_EQ(doc["schema"], "voxhash-clash-status/1");
    EXPECT_EQ(doc["clashes"].size(), 1u);
    return doc["clashes"][0];
  };
  // Run 1: the overlap is new.
  Outcome r = clash_run("0,0,0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("status: 1 new, 0 active, 0 resolved (run 1"), std::string::npos) << r.out;
  const std::string id = entry()["id"];
  EXPECT_EQ(entry()["status"], "new");
  // A person reviews it; run 2 finds it again and keeps what they wrote.
  auto doc                     = nlohmann::json::parse(read_text(status));
  doc["clashes"][0]["status"]  = "reviewed";
  doc["clashes"][0]["comment"] = "duct to be moved";
  doc["clashes"][0]["ticket"]  = "PRJ-12";
  (void)write_file("status.json", doc.dump(2));
  r = clash_run("0,0,0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(entry()["id"], id);
  EXPECT_EQ(entry()["status"], "reviewed");
  EXPECT_EQ(entry()["comment"], "duct to be moved");
  EXPECT_EQ(entry()["ticket"], "PRJ-12");
  EXPECT_EQ(entry()["last_run"], 2);
  // Run 3: the part moved away: resolved, the comment kept.
  r = clash_run("3,0,0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("status: 0 new, 0 active, 1 resolved (run 3"), std::string::npos) << r.out;
  EXPECT_EQ(entry()["status"], "resolved");
  EXPECT_EQ(entry()["resolved_run"], 3);
  EXPECT_EQ(entry()["comment"], "duct to be moved");
  // Run 4: back again: active, the same id.
  r = clash_run("0,0,0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(entry()["id"], id);
  EXPECT_EQ(entry()["status"], "active");
  // A file that is not a status file: one line naming it, and the file left as it was.
  const std::string bad = write_file("status.json", R"({"schema": "other"})");
  r                     = clash_run("0,0,0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(bad + ": not a clash status file"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(status), R"({"schema": "other"})");
}

TEST(Scene, ClashStatusResolvesAPartThatMovedAwayAndAddsOneThatMovedIn) {
  // Model A: one box "pump"; model B: "pipe" over it and "valve" 3 m along x. Moving B by -3 m
  // takes the pipe away and brings the valve in.
  const std::string a =
      write_file("status_pump.obj", boxes_obj({{"pump", {{0, 0, 0}, {1, 1, 1}}}}));
  const std::string b =
      write_file("status_pipes.obj",
                 boxes_obj({{"pipe", {{0.5f, 0.2f, 0.2f}, {1.5f, 0.8f, 0.8f}}},
                            {"valve", {{3.5f, 0.2f, 0.2f}, {4.5f, 0.8f, 0.8f}}}}));
  const std::string status = (temp_dir() / "moves.status.json").string();
  std::filesystem::remove(status);
  const auto clash_run = [&](const std::string& translate_b) {
    return run({"clash",
                "--model-a",
                a,
                "--model-b",
                b,
                "--translate-b",
                translate_b,
                "--backend",
                "cpu",
                "--voxel-size",
                "0.1",
                "--points",
                "2000",
                "--status",
                status});
  };
  const auto entries = [&] {
    std::map<std::string, json> by_part;
    const json doc = json::parse(read_text(status));
    for (const json& e : doc["clashes"])
      by_part[e["part_b"].get<std::string>()] = e;
    return by_part;
  };
  Outcome r = clash_run("0,0,0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(entries().size(), 1u);
  EXPECT_EQ(entries()["pipe"]["status"], "new");
  // A person approves the pipe and writes to whom it goes.
  json doc                      = json::parse(read_text(status));
  doc["clashes"][0]["status"]   = "approved";
  doc["clashes"][0]["assignee"] = "mep team";
  (void)write_file("moves.status.json", doc.dump(2));
  r = clash_run("-3,0,0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("status: 1 new, 0 active, 1 resolved (run 2"), std::string::npos) << r.out;
  auto e = entries();
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e["pipe"]["status"], "resolved");
  EXPECT_EQ(e["pipe"]["resolved_run"], 2);
  EXPECT_EQ(e["pipe"]["assignee"], "mep team");
  EXPECT_EQ(e["valve"]["status"], "new");
  EXPECT_EQ(e["valve"]["first_run"], 2);
  EXPECT_EQ(e["valve"]["part_a"], "pump");
  // Run 3: back: the pipe active again (its approval was superseded by resolved), the valve
  // resolved.
  r = clash_run("0,0,0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  e = entries();
  EXPECT_EQ(e["pipe"]["status"], "active");
  EXPECT_EQ(e["pipe"]["assignee"], "mep team");
  EXPECT_EQ(e["valve"]["status"], "resolved");
  EXPECT_EQ(e["valve"]["resolved_run"], 3);
}

/// A unit cube (part "cube") keyframed along x at 1 m/s from x in [-1, 0] at t = 0 through a unit
/// box (part "wall", x in [1, 2]) to t = 4, then back at 2 m/s to where it started at t = 6: the
/// solids overlap while 1 < t < 3 and 4.5 < t < 5.5, fully (1 m^3) at t = 2 and t = 5.
std::string moving_cube_scene(const std::string& name) {
  const std::string cube =
      write_file("moving_cube.obj", boxes_obj({{"cube", {{-1, 0, 0}, {0, 1, 1}}}}));
  const std::string wall =
      write_file("moving_wall.obj", boxes_obj({{"wall", {{1, 0, 0}, {2, 1, 1}}}}));
  return write_file(
      name,
      R"({"voxhash_scene": 1, "grid": {"voxel_size": 0.05}, "motion": {"kind": "keyframes"},
          "models": [{"path": ")" +
          cube +
          R"(", "keyframes": [{"time": 0, "translate": [0, 0, 0]},
                                     {"time": 4, "translate": [4, 0, 0]},
                                     {"time": 6, "translate": [0, 0, 0]}]},
                     {"path": ")" +
          wall + R"("}]})");
}

TEST(Scene, ClashSweepFindsEachContactOfAnAnalyticMotionWithinOneStep) {
  const std::string scene     = moving_cube_scene("sweep.json");
  const std::string json_path = (temp_dir() / "sweep.report.json").string();
  const std::string csv_path  = (temp_dir() / "sweep.report.csv").string();
  const double step = 0.1, voxel = 0.05;
  const Outcome r = run({"clash",
                         scene,
                         "--backend",
                         "cpu",
                         "--points",
                         "2000",
                         "--times",
                         "0:6:0.1",
                         "--sweep",
                         "--json",
                         json_path,
                         "--csv",
                         csv_path,
                         "--exit-code"});
  ASSERT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("sweep: 61 times from 0 to 6 s; 1 pair(s) of parts clash"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("cube x wall: first contact at "), std::string::npos) << r.out;
  const json sweep = json::parse(read_text(json_path));
  EXPECT_EQ(sweep["schema"], "voxhash-clash-sweep/1");
  EXPECT_EQ(sweep["times"]["count"], 61);
  EXPECT_GT(sweep["peak_device_bytes"].get<double>(), 0) << "the peaks over every time";
  EXPECT_LE(sweep["peak_device_bytes"].get<double>(), sweep["peak_host_bytes"].get<double>());
  EXPECT_NE(r.out.find("memory: peak device "), std::string::npos) << r.out;
  ASSERT_EQ(sweep["frames"].size(), 61u);
  ASSERT_EQ(sweep["pairs"].size(), 1u) << sweep.dump(2);
  const json& pair = sweep["pairs"][0];
  EXPECT_EQ(pair["part_a"], "cube");
  EXPECT_EQ(pair["part_b"], "wall");
  ASSERT_EQ(pair["intervals"].size(), 2u) << pair.dump(2);
  // The exact contacts: (1, 3) at 1 m/s and (4.5, 5.5) at 2 m/s. A sampled start is the first
  // time after the true one (the columns a voxel apart may see the overlap up to half a voxel of
  // travel late), a sampled end the first time at or after the true one.
  const std::array<std::array<double, 3>, 2> exact = {{{1, 3, 1}, {4.5, 5.5, 2}}};
  for (std::size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE("interval " + std::to_string(i + 1));
    const json& interval         = pair["intervals"][i];
    const auto [from, to, speed] = exact[i];
    const double start = interval["start"], end = interval["end"];
    EXPECT_GT(start, from);
    EXPECT_LE(start, from + step + voxel / speed + 1e-9);
    EXPECT_GE(end, to - 1e-9);
    EXPECT_LE(end, to + step + 1e-9);
    EXPECT_NEAR(interval["duration"].get<double>(), to - from, step + voxel / speed);
    EXPECT_EQ(interval["kind"], "hard");
    EXPECT_NEAR(interval["max_volume"].get<double>(), 1.0, 0.02);
    EXPECT_NEAR(interval["max_volume_time"].get<double>(), i == 0 ? 2.0 : 5.0, 1e-9);
    EXPECT_TRUE(interval["min_distance"].is_null());
  }
  EXPECT_EQ(pair["first_contact"], pair["intervals"][0]["start"]);
  EXPECT_NEAR(pair["clashing_time"].get<double>(), 3.0, 2 * (step + voxel));
  EXPECT_NEAR(pair["worst"]["max_volume"].get<double>(), 1.0, 0.02);
  // Frames between the contacts list nothing; at t = 2 the one hard clash.
  EXPECT_EQ(sweep["frames"][35]["clashes"], 0) << sweep["frames"][35].dump();
  EXPECT_EQ(sweep["frames"][20]["hard"], 1) << sweep["frames"][20].dump();

  std::istringstream rows(read_text(csv_path));
  std::string line;
  ASSERT_TRUE(std::getline(rows, line));
  EXPECT_TRUE(
      line.starts_with("model_a,part_a_id,part_a,model_b,part_b_id,part_b,interval,start,end,"))
      << line;
  std::vector<std::string> lines;
  while (std::getline(rows, line))
    lines.push_back(line);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(lines[0].starts_with("moving_cube,0,cube,moving_wall,0,wall,1,")) << lines[0];
  EXPECT_TRUE(lines[1].starts_with("moving_cube,0,cube,moving_wall,0,wall,2,")) << lines[1];

  // A sweep that ends inside a contact: the interval has no end, and says so.
  const Outcome open = run({"clash",
                            scene,
                            "--backend",
                            "cpu",
                            "--points",
                            "2000",
                            "--times",
                            "0:2.5:0.5",
                            "--sweep",
                            "--json",
                            json_path});
  ASSERT_EQ(open.exit_code, 0) << open.err;
  EXPECT_NE(open.out.find("from 1.5 s on, still clashing at 2.5 s (the last time)"),
            std::string::npos)
      << open.out;
  const json still = json::parse(read_text(json_path));
  ASSERT_EQ(still["pairs"].size(), 1u);
  EXPECT_TRUE(still["pairs"][0]["intervals"][0]["end"].is_null());
  EXPECT_EQ(still["pairs"][0]["intervals"][0]["start"], 1.5);
  EXPECT_EQ(still["pairs"][0]["intervals"][0]["samples"], 3);
}

TEST(Scene, ClashBatchWritesEachSceneAndTimeUnderItsOwnName) {
  const std::string first  = moving_cube_scene("batch_first.json");
  const std::string second = moving_cube_scene("batch_second.json");
  const fs::path out       = temp_dir() / "batch";
  fs::create_directories(out);
  const Outcome r = run({"clash",
                         first,
                         second,
                         "--backend",
                         "cpu",
                         "--points",
                         "2000",
                         "--times",
                         "0,2",
                         "--json",
                         (out / "r.json").string(),
                         "--csv",
                         (out / "r.csv").string(),
                         "--exit-code"});
  ASSERT_EQ(r.exit_code, 3) << r.err;
  EXPECT_FALSE(fs::exists(out / "r.json")) << "a batch writes only its runs' files";
  for (const std::string scene : {"batch_first", "batch_second"}) {
    for (const auto& [label, clashes] : {std::pair{"t0", 0}, std::pair{"t2", 1}}) {
      const fs::path json_path = out / ("r." + scene + "." + label + ".json");
      SCOPED_TRACE(json_path.string());
      ASSERT_TRUE(fs::exists(json_path));
      ASSERT_TRUE(fs::exists(out / ("r." + scene + "." + label + ".csv")));
      const json report = json::parse(read_text(json_path.string()));
      EXPECT_EQ(report["scene"]["name"], scene);
      EXPECT_EQ(report["time"], label == std::string("t0") ? 0.0 : 2.0);
      EXPECT_EQ(report["clashes"].size(), static_cast<std::size_t>(clashes));
    }
  }
  // One scene over several times: the time alone names the files; a sweep: the scene alone.
  const Outcome times = run({"clash",
                             first,
                             "--backend",
                             "cpu",
                             "--points",
                             "2000",
                             "--times",
                             "0.5,1.5",
                             "--json",
                             (out / "one.json").string()});
  ASSERT_EQ(times.exit_code, 0) << times.err;
  EXPECT_TRUE(fs::exists(out / "one.t0.5.json"));
  EXPECT_TRUE(fs::exists(out / "one.t1.5.json"));
  const Outcome sweeps = run({"clash",
                              first,
                              second,
                              "--backend",
                              "cpu",
                              "--points",
                              "2000",
                              "--times",
                              "0:2:1",
                              "--sweep",
                              "--csv",
                              (out / "s.csv").string()});
  ASSERT_EQ(sweeps.exit_code, 0) << sweeps.err;
  EXPECT_TRUE(fs::exists(out / "s.batch_first.csv"));
  EXPECT_TRUE(fs::exists(out / "s.batch_second.csv"));
  EXPECT_EQ(cli::run_output_path("dir/out.bcfzip", "a.t1"), "dir/out.a.t1.bcfzip");
  EXPECT_EQ(cli::run_output_path("out", "a"), "out.a");
  EXPECT_EQ(cli::run_output_path("out.json", ""), "out.json");
}

TEST(Scene, ClashTimesAndSweepRefuseBadInputsInOneLine) {
  const std::string scene = moving_cube_scene("bad_times.json");
  const std::string still = write_file("still.json", scene_text());
  fs::create_directories(temp_dir() / "again");
  const std::string twin = (temp_dir() / "again" / "bad_times.json").string();
  fs::copy_file(scene, twin, fs::copy_options::overwrite_existing);
  const std::string json_path = (temp_dir() / "never.json").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--times", "0:1:0"}, "--times: '0:1:0': STEP must be more than 0"},
      {{"--times", "0:1:-0.5"}, "STEP must be more than 0"},
      {{"--times", "2:1:0.1"}, "'2:1:0.1': T1 is before T0"},
      {{"--times", "0:1e9:0.001"}, "is 1000000000001 times (at most 100000): give a larger STEP"},
      {{"--times", "-1e308:1e308:1"}, "is inf times (at most 100000)"},
      {{"--times", "1e6:1.0000000001e6:1e-7"},
       "STEP is too small to tell times of this size apart"},
      {{"--times", "0:1"}, "'0:1' is not T0:T1:STEP"},
      {{"--times", "0,1,1"}, "the times must increase (1 follows 1)"},
      {{"--times", "0,nan"}, "'nan' in '0,nan' is not a finite number"},
      {{"--times", "0,1", "--time", "1"}, "--time excludes --times"},
      {{"--sweep"}, "--sweep needs --times"},
      {{"--times", "0,1", "--sweep", "--bcf", json_path}, "--bcf does not go with --sweep"},
      {{"--times", "0,1", "--sweep", "--status", json_path}, "--status does not go with --sweep"}};
  for (const auto& [flags, expected] : cases) {
    std::vector<std::string> args = {"clash", scene, "--backend", "cpu", "--points", "100"};
    args.insert(args.end(), flags.begin(), flags.end());
    const Outcome r = run(args);
    SCOPED_TRACE(expected);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // A scene without motion, given several times; two scenes of one name writing files.
  Outcome r = run({"clash", still, "--backend", "cpu", "--times", "0,1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--times: " + still + " has no motion"), std::string::npos) << r.err;
  r = run({"clash",
           "--model-a",
           asset("sphere.obj"),
           "--model-b",
           asset("torus.obj"),
           "--times",
           "0,1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("models given without a scene have no motion"), std::string::npos) << r.err;
  r = run({"clash", scene, twin, "--backend", "cpu", "--json", json_path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("would write the same files"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(json_path));
}

TEST(Scene, EveryFrameAlgorithmIsAValidSceneAlgorithmAndReadsBack) {
  // The viewer saved "algorithm": "bcht" after a switch to it, which the loader refused.
  for (const TableKind kind : kTableKinds) {
    SCOPED_TRACE(std::string(to_string(kind)));
    const Scene scene = parse_scene(
        scene_text("", "", R"(, "algorithm": ")" + std::string(to_string(kind)) + "\""), "a.json");
    ASSERT_TRUE(scene.algorithm.has_value());
    EXPECT_EQ(*scene.algorithm, kind);
    EXPECT_EQ(parse_scene(scene_to_json(scene, "."), "b.json").algorithm, kind);
  }
}

}  // namespace
}  // namespace voxhash::test
