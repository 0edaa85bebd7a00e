// Selection sets and the up axis (label cpu): part names matched by glob patterns; every error of a
// set scene one line naming the file and the field (or the part and both patterns); a duct box
// through a wall box in one OBJ checked set against set, its overlap volume and box against the
// exact intersection; a file in both sets placed once; set scenes written back and read to the
// same scene; a Z-up model reported in its file's own coordinates, equal to those of its Y-up twin
// turned, with the same clashes; an IFC (which assimp turns Y-up) reported in the IFC's own axes.
#include "cli/command_line.hpp"

#include <voxhash/error.hpp>
#include <voxhash/scene.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace voxhash::test {
namespace {

namespace fs = std::filesystem;
using json   = nlohmann::json;

fs::path temp_dir() {
  const fs::path dir =
      fs::temp_directory_path() / ("voxhash_test_scene_sets_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

class RemoveTempDir : public ::testing::Environment {
 public:
  void TearDown() override { fs::remove_all(temp_dir()); }
};
[[maybe_unused]] const auto* const kRemoveTempDir =
    ::testing::AddGlobalTestEnvironment(new RemoveTempDir);

std::string write_file(const std::string& name, const std::string& text) {
  const fs::path path = temp_dir() / name;
  std::ofstream(path) << text;
  return path.string();
}

struct Outcome {
  int exit_code = -1;
  std::string out, err;
};

/// `voxhash args...` with the real clash command; stdout and stderr captured.
Outcome run(std::vector<std::string> args) {
  args.insert(args.begin(), "voxhash");
  std::vector<const char*> argv;
  for (const std::string& a : args)
    argv.push_back(a.c_str());
  const cli::FrontEnds front_ends{.view =
                                      [](const viewer::ViewerOptions&) {
                                        ADD_FAILURE() << "the viewer started";
                                        return 0;
                                      },
                                  .bench =
                                      [](const bench::Options&) {
                                        ADD_FAILURE() << "the bench started";
                                        return 0;
                                      },
                                  .clash = cli::run_clash};
  Outcome outcome;
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  outcome.exit_code = cli::run(static_cast<int>(argv.size()), argv.data(), front_ends);
  outcome.out       = ::testing::internal::GetCapturedStdout();
  outcome.err       = ::testing::internal::GetCapturedStderr();
  return outcome;
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

/// An axis-aligned box as an OBJ object named `name` (closed, outward faces), its vertices turned
/// by `turn` (written as text: the same decimals whatever the turn), numbered from `base` + 1.
using Turn = std::array<double, 3> (*)(std::array<double, 3>);
std::array<double, 3> as_is(std::array<double, 3> p) {
  return p;
}
/// A Z-up file's point in a Y-up file: (x, y, z) -> (x, z, -y).
std::array<double, 3> to_y_up(std::array<double, 3> p) {
  return {p[0], p[2], -p[1]};
}

std::string obj_box(const std::string& name,
                    std::array<double, 3> lo,
                    std::array<double, 3> hi,
                    int base,
                    Turn turn = as_is) {
  std::ostringstream out;
  out << "o " << name << "\n";
  for (int c = 0; c < 8; ++c) {
    const std::array<double, 3> p =
        turn({c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2]});
    out << "v " << p[0] + 0.0 << " " << p[1] + 0.0 << " " << p[2] + 0.0 << "\n";
  }
  // Corners by bit: 1 = +x, 2 = +y, 4 = +z; two triangles per face, wound outwards.
  constexpr int kFaces[12][3] = {{0, 2, 3},
                                 {0, 3, 1},
                                 {4, 5, 7},
                                 {4, 7, 6},
                                 {0, 1, 5},
                                 {0, 5, 4},
                                 {2, 6, 7},
                                 {2, 7, 3},
                                 {0, 4, 6},
                                 {0, 6, 2},
                                 {1, 3, 7},
                                 {1, 7, 5}};
  for (const auto& f : kFaces)
    out << "f " << base + f[0] + 1 << " " << base + f[1] + 1 << " " << base + f[2] + 1 << "\n";
  return out.str();
}

// The site: a duct along x at a height of 1.5 (z up) through a wall, and a slab far off.
constexpr std::array<double, 3> kDuctLo{-1, 0.2, 1.3}, kDuctHi{1, 0.6, 1.7};
constexpr std::array<double, 3> kWallLo{-0.1, -0.5, 0}, kWallHi{0.15, 1.5, 3};
constexpr double kVoxel = 0.02;

std::string site_obj(Turn turn = as_is) {
  return obj_box("Duct-1", kDuctLo, kDuctHi, 0, turn) +
         obj_box("Wall-1", kWallLo, kWallHi, 8, turn) +
         obj_box("Slab", {3, 3, 3}, {4, 4, 4}, 16, turn);
}

/// A set scene over `files_a` / `files_b` (JSON arrays) and part patterns, with `extra` members.
std::string set_scene(const std::string& files_a,
                      const std::string& parts_a,
                      const std::string& files_b,
                      const std::string& parts_b,
                      const std::string& extra = "") {
  return R"({"voxhash_scene": 1, "grid": {"voxel_size": 0.02}, "set_a": {"name": "ducts", "files": )" +
         files_a + R"(, "parts": )" + parts_a + R"(}, "set_b": {"name": "structure", "files": )" +
         files_b + R"(, "parts": )" + parts_b + "}" + extra + "}";
}

/// The scene fails: through `voxhash clash` exit 1 and one line on stderr naming the file and
/// holding `expected`.
void expect_scene_error(const std::string& name,
                        const std::string& text,
                        const std::string& expected) {
  const std::string path = write_file(name, text);
  const Outcome r        = run({"clash", path, "--backend", "cpu", "--points", "1000"});
  EXPECT_EQ(r.exit_code, 1) << text;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(path + ": "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos)
      << "expected '" << expected << "' in " << r.err;
}

TEST(SceneSets, PartPatternsAreGlobsWithoutCase) {
  EXPECT_TRUE(part_matches("*", ""));
  EXPECT_TRUE(part_matches("*", "anything at all"));
  EXPECT_TRUE(part_matches("Duct*", "Duct-12"));
  EXPECT_TRUE(part_matches("duct*", "DUCT-12"));  // ASCII letters of either case alike
  EXPECT_FALSE(part_matches("Duct*", "Air Duct-12"));
  EXPECT_TRUE(part_matches("*Wall*", "Basic Wall:Interior 138mm:184143"));
  EXPECT_TRUE(part_matches("*wall", "Wall"));
  EXPECT_FALSE(part_matches("*Wall", "Wall-2"));
  EXPECT_TRUE(part_matches("Beam-?", "Beam-7"));
  EXPECT_FALSE(part_matches("Beam-?", "Beam-12"));
  EXPECT_FALSE(part_matches("Beam-?", "Beam-"));
  EXPECT_TRUE(part_matches("W?nd", "W\xC3\xA4nd"));  // "Wänd": one character, two bytes
  EXPECT_FALSE(part_matches("W??nd", "W\xC3\xA4nd"));
  EXPECT_TRUE(part_matches("a*b*c", "aXXbYYc"));
  EXPECT_FALSE(part_matches("a*b*c", "aXXbYY"));
  EXPECT_TRUE(part_matches("a*b", "abab"));
  EXPECT_FALSE(part_matches("", "x"));
  // Backtracking stays linear: a long name against many stars answers at once.
  EXPECT_FALSE(part_matches("*a*a*a*a*a*a*a*a*b", std::string(5000, 'a')));
}

TEST(SceneSets, ParseErrorsNameTheField) {
  const std::string site = write_file("site.obj", site_obj());
  const std::string f    = "[\"" + site + "\"]";
  expect_scene_error("both.json",
                     R"({"voxhash_scene": 1, "models": [], "set_a": {"files": [], "parts": []}})",
                     "models: give either models or set_a and set_b (selection sets), not both");
  expect_scene_error("only_a.json",
                     R"({"voxhash_scene": 1, "set_a": {"files": )" + f + R"(, "parts": ["*"]}})",
                     "set_b: missing (a scene of selection sets gives set_a and set_b)");
  expect_scene_error(
      "neither.json", R"({"voxhash_scene": 1})", "models: missing (or set_a and set_b");
  expect_scene_error("no_files.json",
                     set_scene("[]", R"(["*"])", f, R"(["*"])"),
                     "set_a.files: must have 1 to 100000 elements, not 0");
  expect_scene_error("no_parts.json",
                     set_scene(f, "[]", f, R"(["*"])"),
                     "set_a.parts: must have 1 to 100000 elements, not 0");
  expect_scene_error("empty_pattern.json",
                     set_scene(f, R"(["Duct*"])", f, R"(["*Wall*", ""])"),
                     "set_b.parts[1]: must not be empty (\"*\" matches every part)");
  expect_scene_error("set_key.json",
                     set_scene(f, R"(["Duct*"])", f, R"(["*Wall*"])", R"(, "path": "x.obj")"),
                     "path: unknown field");
  expect_scene_error(
      "file_key.json",
      set_scene(
          "[{\"path\": \"" + site + "\", \"name\": \"x\"}]", R"(["Duct*"])", f, R"(["*Wall*"])"),
      "set_a.files[0].name: unknown field (expected one of: path, unit, up, "
      "transform, as, files_outside_folder, parts)");
  expect_scene_error(
      "twice.json",
      set_scene("[\"" + site + "\", \"" + site + "\"]", R"(["Duct*"])", f, R"(["*"])"),
      "set_a.files[1]: " + site + " is listed twice in set_a.files");
  expect_scene_error("placed_twice.json",
                     set_scene("[{\"path\": \"" + site + "\", \"unit\": \"mm\"}]",
                               R"(["Duct*"])",
                               "[{\"path\": \"" + site + "\", \"unit\": \"cm\"}]",
                               R"(["*Wall*"])"),
                     "set_b.files[0]: " + site +
                         " is also in set_a.files[0], placed otherwise: a file in both "
                         "sets is read once, with one placement");
  expect_scene_error("up.json",
                     set_scene(f, R"(["Duct*"])", f, R"(["*Wall*"])", R"(, "up": "Z")"),
                     "up: unknown value 'Z' (expected one of: y, z)");
  expect_scene_error(
      "file_up.json",
      set_scene(
          "[{\"path\": \"" + site + "\", \"up\": \"x\"}]", R"(["Duct*"])", f, R"(["*Wall*"])"),
      "set_a.files[0].up: unknown value 'x' (expected one of: y, z)");
  expect_scene_error("model_up.json",
                     R"({"voxhash_scene": 1, "models": [{"path": ")" + site +
                         R"(", "up": 1}, {"path": ")" + site + R"("}]})",
                     "models[0].up: must be a string, not a number");
  expect_scene_error("set_keys.json",
                     set_scene(f, R"(["Duct*"], "keyframes": [{"time": 0}])", f, R"(["*Wall*"])"),
                     "set_a.keyframes: needs motion.kind \"keyframes\"");
}

TEST(SceneSets, LoadErrorsNameThePartsAndThePatterns) {
  const std::string site = write_file("site.obj", site_obj());
  const std::string f    = "[\"" + site + "\"]";
  expect_scene_error("in_both.json",
                     set_scene(f, R"(["Pipe*", "duct*"])", f, R"(["*-1"])"),
                     "part 'Duct-1' of site.obj is in both sets: set_a.parts[1] 'duct*' and "
                     "set_b.parts[0] '*-1' match it");
  expect_scene_error("nothing.json",
                     set_scene(f, R"(["Duct*"])", f, R"(["Beam*", "Column*"])"),
                     "set_b.parts: no part of " + site +
                         " matches 'Beam*', 'Column*' (its parts: 'Duct-1', 'Wall-1', 'Slab')");
  expect_scene_error(
      "missing_file.json",
      set_scene(f, R"(["Duct*"])", "[\"" + site + "\", \"gone.obj\"]", R"(["*Wall*"])"),
      "set_b.files[1]: ");
  const std::string cloud = write_file("scan.xyz", "0 0 0\n0.1 0 0\n0 0.1 0\n");
  const std::string scan  = "{\"path\": \"" + cloud + "\", \"parts\": [\"*\"]}";
  expect_scene_error(
      "mixed.json",
      set_scene(f, R"(["Duct*"])", "[\"" + site + "\", " + scan + "]", R"(["Wall*"])"),
      "set_b: mixes meshes (site.obj) and point clouds (scan.xyz): a set is one or "
      "the other; give the mesh files \"as\": \"points\"");
  // A file's own patterns are named as such.
  expect_scene_error("own_parts.json",
                     set_scene(f,
                               R"(["Duct*"])",
                               "[{\"path\": \"" + site + R"(", "parts": ["Slab", "D*"]}])",
                               R"(["Wall*"])"),
                     "part 'Duct-1' of site.obj is in both sets: set_a.parts[0] 'Duct*' and "
                     "set_b.files[0].parts[1] 'D*' match it");
  expect_scene_error(
      "no_patterns.json",
      R"({"voxhash_scene": 1, "set_a": {"files": [")" + site + R"("], "parts": ["Duct*"]}, )" +
          R"("set_b": {"files": [{"path": ")" + site + R"(", "parts": ["Wall*"]}, ")" + cloud +
          R"("]}})",
      "set_b.files[1]: no parts to select: give set_b.parts, or this file's own \"parts\"");
  expect_scene_error(
      "as_mesh.json",
      set_scene(f, R"(["Duct*"])", "[{\"path\": \"" + cloud + "\", \"as\": \"mesh\"}]", R"(["*"])"),
      "set_b.files[0].as: \"mesh\", but " + cloud + " is a point cloud (it has no faces)");
}

TEST(SceneSets, DuctThroughWallOfOneFile) {
  const std::string site = write_file("site.obj", site_obj());
  const std::string f    = "[\"" + site + "\"]";
  // "Pipe*" matches nothing, which is said, not an error: set A still holds the duct.
  const std::string path =
      write_file("ducts.json", set_scene(f, R"(["Pipe*", "Duct*"])", f, R"(["*wall*"])"));
  const std::string out = (temp_dir() / "ducts_report.json").string();
  const Outcome r       = run({"clash", path, "--backend", "cpu", "--json", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(path + ": set A 'ducts' holds 1 part, set B 'structure' 1 part; 1 part in "
                              "neither set, left out\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find(path + ": set_a.parts[0]: 'Pipe*' matches no part of " + site),
            std::string::npos)
      << r.err;
  const json report = read_json(out);
  ASSERT_EQ(report["clashes"].size(), 1u) << report.dump(1);
  const json& c = report["clashes"][0];
  EXPECT_EQ(c["kind"], "hard");
  EXPECT_EQ(c["part_a"], "Duct-1");
  EXPECT_EQ(c["part_b"], "Wall-1");
  // The models keep only their set's parts, named as the file names them.
  EXPECT_EQ(report["models"][0]["parts"], json::array({"Duct-1"}));
  EXPECT_EQ(report["models"][1]["parts"], json::array({"Wall-1"}));
  EXPECT_EQ(report["models"][0]["path"], site);
  // The exact intersection of the boxes: x [-0.1, 0.15], y [0.2, 0.6], z [1.3, 1.7].
  const double exact = 0.25 * 0.4 * 0.4;
  EXPECT_NEAR(c["volume"].get<double>(), exact, 0.02 * exact);
  const std::array<double, 3> lo{-0.1, 0.2, 1.3}, hi{0.15, 0.6, 1.7};
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(c["bounds"]["min"][a].get<double>(), lo[a], kVoxel) << a;
    EXPECT_NEAR(c["bounds"]["max"][a].get<double>(), hi[a], kVoxel) << a;
    EXPECT_NEAR(c["centroid"][a].get<double>(), (lo[a] + hi[a]) / 2, kVoxel / 4) << a;
  }
}

TEST(SceneSets, AFileInBothSetsIsPlacedOnceAndSetsDrawOnSeveralFiles) {
  // The site in both sets, its numbers centimetres as set A's entry alone says; set B also takes
  // a wall from a file of its own, in millimetres and moved 2 cm along -y.
  const std::string site = write_file("site_cm.obj", site_obj());
  const std::string wall =
      write_file("wall.obj", obj_box("Wall-2", {-100, -500, 0}, {150, 1500, 3000}, 0));
  const std::string path =
      write_file("two_files.json",
                 set_scene("[{\"path\": \"" + site + R"(", "unit": "cm"}])",
                           R"(["Duct*"])",
                           "[\"" + site + "\", {\"path\": \"" + wall +
                               R"(", "unit": "mm", "transform": {"translate": [0, -0.02, 0]}}])",
                           R"(["Wall-*"])"));
  const Scene scene = load_scene(path);
  ASSERT_EQ(scene.models[1].files.size(), 2u);
  EXPECT_EQ(scene.models[1].files[0].unit, LengthUnit::Centimeter);
  const LoadedScene loaded = load_scene_models(scene, {.points = 20'000, .resolution = 64});
  ASSERT_EQ(loaded.notes.size(), 1u);
  EXPECT_NE(loaded.notes[0].find("set A 'ducts' holds 1 part, set B 'structure' 2 parts; 1 part "
                                 "in neither set, left out"),
            std::string::npos)
      << loaded.notes[0];
  EXPECT_EQ(loaded.models[0].cloud.part_names, (std::vector<std::string>{"Duct-1"}));
  EXPECT_EQ(loaded.models[1].cloud.part_names, (std::vector<std::string>{"Wall-1", "Wall-2"}));
  // Set B's mesh: the two walls' vertices only (none of the duct or the slab), the site's in cm
  // (x from -0.001 to 0.0015 m), wall.obj's in mm (x from -0.1 to 0.15 m, y from -0.52 m).
  const Mesh& mesh = loaded.models[1].cloud.mesh;
  EXPECT_EQ(mesh.vertices.size(), 16u);
  EXPECT_EQ(mesh.triangles.size(), 2u * 12 * 3);
  EXPECT_EQ(mesh.triangle_parts.size(), 2u * 12);
  EXPECT_EQ(std::count(mesh.triangle_parts.begin(), mesh.triangle_parts.end(), 1u), 12);
  const Bounds& b = loaded.models[1].bounds;
  EXPECT_FLOAT_EQ(b.min.x, -0.1f);
  EXPECT_FLOAT_EQ(b.max.x, 0.15f);
  EXPECT_FLOAT_EQ(b.min.y, -0.52f);
  EXPECT_FLOAT_EQ(b.max.z, 3.0f);
  EXPECT_FLOAT_EQ(loaded.models[0].bounds.min.x, -0.01f);
  EXPECT_FLOAT_EQ(loaded.models[0].bounds.max.z, 0.017f);
  // Its samples lie on its parts, with their ids.
  EXPECT_EQ(loaded.models[1].cloud.points.size(), 20'000u);
  ASSERT_EQ(loaded.models[1].cloud.point_parts.size(), 20'000u);
  for (std::size_t i = 0; i < 20'000; ++i) {
    const Float3 p       = loaded.models[1].cloud.points[i];
    const bool site_wall = loaded.models[1].cloud.point_parts[i] == 0;
    EXPECT_LE(std::fabs(p.x), site_wall ? 0.0016f : 0.16f) << i;
  }
}

TEST(SceneSets, ASetOfAPointCloud) {
  // A scan of a plane across the duct (x = 0), in a file without part names: its one part, "",
  // taken whole by the file's own "*" while set B's patterns look for walls in the site.
  std::ostringstream scan;
  for (int i = 0; i <= 40; ++i) {
    for (int k = 0; k <= 40; ++k)
      scan << "0 " << 0.2 + 0.01 * i << " " << 1.3 + 0.01 * k << "\n";
  }
  const std::string site  = write_file("site_scan.obj", site_obj());
  const std::string cloud = write_file("plane.xyz", scan.str());
  const std::string path  = write_file("cloud_set.json",
                                      set_scene("[\"" + site + "\"]",
                                                R"(["Duct*"])",
                                                "[{\"path\": \"" + cloud + R"(", "parts": ["*"]}])",
                                                R"(["*Wall*"])"));
  const std::string out   = (temp_dir() / "cloud_set_report.json").string();
  const Outcome r         = run({"clash", path, "--backend", "cpu", "--json", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("set_b.parts[0]: '*Wall*' matches no part of " + cloud), std::string::npos)
      << r.err;
  const json report = read_json(out);
  EXPECT_FALSE(report["solids"].get<bool>());
  EXPECT_EQ(report["models"][1]["points"], 41 * 41);
  EXPECT_EQ(report["models"][1]["parts"], json::array({""}));
  ASSERT_EQ(report["clashes"].size(), 1u);
  EXPECT_GT(report["clashes"][0]["contact_voxels"].get<int>(), 0);
  EXPECT_EQ(report["clashes"][0]["part_a"], "Duct-1");
}

TEST(SceneSets, SetScenesRoundTrip) {
  const std::string site = write_file("site.obj", site_obj());
  const std::string wall = write_file("wall2.obj", obj_box("Wall-2", {0, 0, 0}, {1, 1, 1}, 0));
  const std::string path = write_file(
      "round_trip.json",
      set_scene(
          "[{\"path\": \"" + site +
              R"(", "unit": "mm", "up": "y", "transform": {"translate": [1, 2, 3], "rotate": [0, 0, 90]}}])",
          R"(["Duct*", "Pipe?"])",
          "[\"" + site + "\", {\"path\": \"" + wall + R"(", "as": "points"}])",
          R"(["*Wall*"], "transform": {"translate": [0, 0, 1]}, "points": 5000)",
          R"(, "up": "z")"));
  const Scene original = load_scene(path);
  const fs::path saved = temp_dir() / "saved" / "round_trip_saved.json";
  fs::create_directories(saved.parent_path());
  save_scene(original, saved);
  const Scene back = load_scene(saved);
  EXPECT_EQ(back.up, std::optional<UpAxis>(UpAxis::Z));
  for (int i = 0; i < 2; ++i) {
    const SceneModel &a = original.models[i], &b = back.models[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.parts, b.parts);
    EXPECT_EQ(a.points, b.points);
    EXPECT_EQ(a.pose.translate.z, b.pose.translate.z);
    ASSERT_EQ(a.files.size(), b.files.size());
    for (std::size_t j = 0; j < a.files.size(); ++j) {
      const SceneFile &p = a.files[j], &q = b.files[j];
      EXPECT_EQ(fs::weakly_canonical(p.path), fs::weakly_canonical(q.path));
      EXPECT_EQ(p.unit, q.unit);
      EXPECT_EQ(p.up, q.up);
      EXPECT_EQ(p.as, q.as);
      EXPECT_EQ(p.scale, q.scale);
      EXPECT_EQ(p.pose.translate.y, q.pose.translate.y);
      EXPECT_EQ(p.pose.rotate.w, q.pose.rotate.w);
      EXPECT_EQ(p.pose.rotate.z, q.pose.rotate.z);
    }
  }
  // The site's placement, given in set A, is set B's too, and is written in both.
  EXPECT_EQ(back.models[1].files[0].unit, LengthUnit::Millimeter);
  EXPECT_EQ(back.models[1].files[0].up, std::optional<UpAxis>(UpAxis::Y));
  EXPECT_EQ(back.models[1].files[1].as, ModelAs::Points);
}

TEST(SceneSets, ModelFlagsReplaceASet) {
  const std::string site = write_file("site.obj", site_obj());
  const std::string f    = "[\"" + site + "\"]";
  const std::string path =
      write_file("replace.json", set_scene(f, R"(["Duct*"])", f, R"(["*Wall*"])"));
  const std::string lone =
      write_file("lone.obj", obj_box("Lone", {0, 0, 1.4}, {0.05, 0.4, 1.6}, 0));
  const std::string out = (temp_dir() / "replace_report.json").string();
  const Outcome r = run({"clash", path, "--backend", "cpu", "--model-b", lone, "--json", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = read_json(out);
  EXPECT_EQ(report["models"][1]["name"], "lone");
  EXPECT_EQ(report["models"][1]["parts"], json::array({"Lone"}));
  EXPECT_EQ(report["models"][0]["parts"], json::array({"Duct-1"}));
}

TEST(SceneAxes, TurnsAreExactAndInverse) {
  const Float3 p{1.5f, -2.25f, 3.125f};
  const Float3 w = world_from_scene_axes(UpAxis::Z, p);
  EXPECT_EQ(w.x, 1.5f);
  EXPECT_EQ(w.y, 3.125f);
  EXPECT_EQ(w.z, 2.25f);
  const Float3 back = scene_axes_from_world(UpAxis::Z, w);
  EXPECT_EQ(back.x, p.x);
  EXPECT_EQ(back.y, p.y);
  EXPECT_EQ(back.z, p.z);
  const Float3 same = world_from_scene_axes(UpAxis::Y, p);
  EXPECT_EQ(same.y, p.y);
  const Bounds box = world_from_scene_axes(UpAxis::Z, Bounds{{0, 1, 2}, {1, 3, 6}});
  EXPECT_EQ(box.min.y, 2.0f);
  EXPECT_EQ(box.max.y, 6.0f);
  EXPECT_EQ(box.min.z, -3.0f);
  EXPECT_EQ(box.max.z, -1.0f);

  // A pose in the scene's axes, applied by the pipeline in the world's: W (S p) = S (R p + t).
  const Pose pose{{1, 2, 3}, quaternion_from_euler(10, 20, 30)};
  const RigidTransform t        = world_transform(UpAxis::Z, pose);
  const std::array<double, 9> r = rotation_matrix(pose.rotate);
  const Float3 s{0.3f, -0.7f, 1.1f};
  const Float3 placed{static_cast<float>(r[0] * s.x + r[1] * s.y + r[2] * s.z + 1),
                      static_cast<float>(r[3] * s.x + r[4] * s.y + r[5] * s.z + 2),
                      static_cast<float>(r[6] * s.x + r[7] * s.y + r[8] * s.z + 3)};
  const Float3 expected = world_from_scene_axes(UpAxis::Z, placed);
  const Float3 x        = world_from_scene_axes(UpAxis::Z, s);
  const float* m        = t.rotation;
  EXPECT_NEAR(m[0] * x.x + m[1] * x.y + m[2] * x.z + t.translation.x, expected.x, 1e-6);
  EXPECT_NEAR(m[3] * x.x + m[4] * x.y + m[5] * x.z + t.translation.y, expected.y, 1e-6);
  EXPECT_NEAR(m[6] * x.x + m[7] * x.y + m[8] * x.z + t.translation.z, expected.z, 1e-6);

  // Grid and keys: a voxel's centre in the scene's grid is the world centre turned.
  const GridParams world{{5, 7, 9}, {{-1, -2, -3}, {4, 5, 6}}};
  const GridParams scene = scene_axes_grid(UpAxis::Z, world);
  EXPECT_EQ(scene.resolution.y, 9);
  EXPECT_EQ(scene.resolution.z, 7);
  const Grid from(world), to(scene);
  for (const Int3 c : {Int3{0, 0, 0}, Int3{4, 6, 8}, Int3{2, 3, 1}}) {
    const Float3 centre = scene_axes_from_world(UpAxis::Z, from.center_of(c));
    const Float3 got    = to.center(scene_axes_key(UpAxis::Z, from, to, from.key64(c)));
    EXPECT_NEAR(got.x, centre.x, 1e-5);
    EXPECT_NEAR(got.y, centre.y, 1e-5);
    EXPECT_NEAR(got.z, centre.z, 1e-5);
  }
}

TEST(SceneAxes, GridBoundsAreInTheScenesAxes) {
  const auto scene = [](const std::string& grid) {
    return parse_scene(R"({"voxhash_scene": 1, "up": "z", "models": [{"path": "a.obj"}, )"
                       R"({"path": "b.obj"}], "grid": {"bounds": {"min": [0, 0, 0], )"
                       R"("max": [1, 2, 3]}, )" +
                           grid + "}}",
                       "s.json");
  };
  const GridParams g = fit_grid(scene(R"("voxel_size": 0.5)"), {}, 64);
  EXPECT_EQ(g.resolution.x, 2);
  EXPECT_EQ(g.resolution.y, 6);  // the scene's z, up
  EXPECT_EQ(g.resolution.z, 4);
  EXPECT_EQ(g.bounds.min.y, 0.0f);
  EXPECT_EQ(g.bounds.max.y, 3.0f);
  EXPECT_EQ(g.bounds.min.z, -2.0f);
  EXPECT_EQ(g.bounds.max.z, 0.0f);
  // A grid too fine names its sides in the scene's axes.
  try {
    (void)fit_grid(scene(R"("voxel_size": 1e-6)"), {}, 64);
    ADD_FAILURE() << "a grid of 3e6 voxels along z fitted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("need a 1000000 x 2000000 x 3000000 grid"),
              std::string::npos)
        << e.what();
  }
}

TEST(SceneAxes, DefaultUpFollowsTheFiles) {
  const auto up_of = [](const std::string& a, const std::string& b, const std::string& extra) {
    return scene_up(parse_scene(R"({"voxhash_scene": 1, "models": [{"path": ")" + a +
                                    R"("}, {"path": ")" + b + "\"}]" + extra + "}",
                                "s.json"));
  };
  EXPECT_EQ(up_of("a.obj", "b.obj", ""), UpAxis::Y);
  EXPECT_EQ(up_of("a.ifc", "b.IFC", ""), UpAxis::Z);  // IFC is Z-up: its own axes
  EXPECT_EQ(up_of("a.ifc", "b.obj", ""), UpAxis::Y);
  EXPECT_EQ(up_of("a.ifc", "b.ifc", R"(, "up": "y")"), UpAxis::Y);
  const Scene mixed = parse_scene(
      R"({"voxhash_scene": 1, "models": [{"path": "a.ifc"}, {"path": "b.obj", "up": "z"}]})",
      "s.json");
  EXPECT_EQ(scene_up(mixed), UpAxis::Z);
  EXPECT_EQ(file_up(mixed, "a.ifc", std::nullopt), UpAxis::Z);
  const Scene y = parse_scene(
      R"({"voxhash_scene": 1, "up": "y", "models": [{"path": "a.ifc"}, {"path": "b.obj"}]})",
      "s.json");
  EXPECT_EQ(file_up(y, "a.ifc", std::nullopt), UpAxis::Z);  // turned into the Y-up scene
  EXPECT_EQ(file_up(y, "b.obj", std::nullopt), UpAxis::Y);
  EXPECT_EQ(file_up(y, "b.obj", UpAxis::Z), UpAxis::Z);
}

TEST(SceneAxes, ZUpModelReportsInItsFilesCoordinates) {
  // The site in a Z-up file, and its twin turned into a Y-up file: the same scene either way.
  const std::string z_file = write_file("site_z.obj", site_obj());
  const std::string y_file = write_file("site_y.obj", site_obj(to_y_up));
  const auto scene_of      = [](const std::string& file, const char* up) {
    const std::string f = "[\"" + file + "\"]";
    return set_scene(f, R"(["Duct*"])", f, R"(["Wall*"])", std::string(R"(, "up": ")") + up + "\"");
  };
  const std::string z_report = (temp_dir() / "z_report.json").string();
  const std::string y_report = (temp_dir() / "y_report.json").string();
  const std::string z_ply    = (temp_dir() / "z_band.ply").string();
  const Outcome z            = run({"clash",
                                    write_file("z.json", scene_of(z_file, "z")),
                                    "--backend",
                                    "cpu",
                                    "--json",
                                    z_report,
                                    "--export-ply",
                                    z_ply});
  const Outcome y            = run({"clash",
                                    write_file("y.json", scene_of(y_file, "y")),
                                    "--backend",
                                    "cpu",
                                    "--json",
                                    y_report});
  ASSERT_EQ(z.exit_code, 0) << z.err;
  ASSERT_EQ(y.exit_code, 0) << y.err;
  const json zr = read_json(z_report), yr = read_json(y_report);
  EXPECT_EQ(zr["scene"]["up"], "z");
  EXPECT_EQ(yr["scene"]["up"], "y");
  ASSERT_EQ(zr["clashes"].size(), 1u);
  ASSERT_EQ(yr["clashes"].size(), 1u);
  const json &cz = zr["clashes"][0], &cy = yr["clashes"][0];
  // The same clash: the same frame in the world's axes, measured the same.
  EXPECT_EQ(cz["volume"], cy["volume"]);
  EXPECT_EQ(cz["depth"], cy["depth"]);
  EXPECT_EQ(cz["id"], cy["id"]);
  EXPECT_EQ(zr["totals"], yr["totals"]);
  // Locations in each file's own axes: the Z-up report's are the Y-up one's turned back, exactly.
  const auto turned = [](const json& v) {  // a Y-up file's point in the Z-up file: (x, -z, y)
    return json::array({v[0].get<double>(), -v[2].get<double>(), v[1].get<double>()});
  };
  EXPECT_EQ(cz["centroid"], turned(cy["centroid"]));
  EXPECT_EQ(cz["bounds"]["min"][0], cy["bounds"]["min"][0]);
  EXPECT_EQ(cz["bounds"]["min"][1], -cy["bounds"]["max"][2].get<double>());
  EXPECT_EQ(cz["bounds"]["max"][1], -cy["bounds"]["min"][2].get<double>());
  EXPECT_EQ(cz["bounds"]["max"][2], cy["bounds"]["max"][1]);
  // ... and they are the file's coordinates: the duct at a height (z) of 1.5.
  EXPECT_NEAR(cz["centroid"][0].get<double>(), 0.025, kVoxel / 4);
  EXPECT_NEAR(cz["centroid"][1].get<double>(), 0.4, kVoxel / 4);
  EXPECT_NEAR(cz["centroid"][2].get<double>(), 1.5, kVoxel / 4);
  EXPECT_NEAR(cz["bounds"]["min"][2].get<double>(), 1.3, kVoxel);
  EXPECT_NEAR(cz["bounds"]["max"][1].get<double>(), 0.6, kVoxel);
  const double exact = 0.25 * 0.4 * 0.4;
  EXPECT_NEAR(cz["volume"].get<double>(), exact, 0.02 * exact);
  // Regions and the grid turned the same way; the cells count in the turned grid.
  ASSERT_EQ(zr["regions"].size(), yr["regions"].size());
  for (std::size_t i = 0; i < zr["regions"].size(); ++i) {
    EXPECT_EQ(zr["regions"][i]["centroid"], turned(yr["regions"][i]["centroid"]));
    EXPECT_EQ(zr["regions"][i]["voxels"], yr["regions"][i]["voxels"]);
  }
  // The clash band's voxel centres too: all within a voxel of the overlap, in the file's axes.
  {
    std::ifstream ply(z_ply, std::ios::binary);
    std::string line;
    std::size_t vertices = 0;
    while (std::getline(ply, line) && line != "end_header") {
      if (line.rfind("element vertex ", 0) == 0) vertices = std::stoul(line.substr(15));
    }
    EXPECT_EQ(vertices, zr["totals"]["voxels"].get<std::size_t>());
    const std::array<double, 3> lo{-0.1, 0.2, 1.3}, hi{0.15, 0.6, 1.7};
    for (std::size_t v = 0; v < vertices; ++v) {
      float xyz[3];
      unsigned char rgb[3];
      ply.read(reinterpret_cast<char*>(xyz), sizeof xyz);
      ply.read(reinterpret_cast<char*>(rgb), sizeof rgb);
      for (int a = 0; a < 3; ++a) {
        ASSERT_GE(xyz[a], lo[a] - kVoxel) << v << " " << a;
        ASSERT_LE(xyz[a], hi[a] + kVoxel) << v << " " << a;
      }
    }
  }
  const json &gz = zr["grid"], &gy = yr["grid"];
  EXPECT_EQ(gz["resolution"],
            json::array({gy["resolution"][0], gy["resolution"][2], gy["resolution"][1]}));
  EXPECT_EQ(gz["origin"][2], gy["origin"][1]);
  for (std::size_t i = 0; i < zr["regions"].size(); ++i) {
    const json& r = zr["regions"][i];
    for (int a = 0; a < 3; ++a) {
      const double voxel = gz["voxel_size"][a].get<double>();
      const double cell_lo =
          gz["origin"][a].get<double>() + r["cells"]["min"][a].get<double>() * voxel;
      EXPECT_NEAR(cell_lo, r["bounds"]["min"][a].get<double>(), voxel * 1e-3) << i << " " << a;
    }
  }
}

TEST(SceneAxes, KeyframesMoveAlongTheScenesAxes) {
  // The duct raised 0.2 along z (up) at t = 0, lowered to its place at t = 1: at t = 0.5 it is
  // 0.1 up, and the overlap with the wall with it.
  const std::string site = write_file("site_keys.obj", site_obj());
  const std::string f    = "[\"" + site + "\"]";
  const std::string path =
      write_file("keys.json",
                 set_scene(f,
                           R"(["Duct*"], "keyframes": [{"time": 0, "translate": [0, 0, 0.2]}, )"
                           R"({"time": 1, "translate": [0, 0, 0]}])",
                           f,
                           R"(["Wall*"])",
                           R"(, "up": "z", "motion": {"kind": "keyframes"}, "time": 0.5)"));
  const std::string report = (temp_dir() / "keys_report.json").string();
  const Outcome r          = run({"clash", path, "--backend", "cpu", "--json", report});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json out = read_json(report);
  ASSERT_EQ(out["clashes"].size(), 1u);
  const json& c = out["clashes"][0];
  EXPECT_NEAR(c["centroid"][0].get<double>(), 0.025, kVoxel / 4);
  EXPECT_NEAR(c["centroid"][1].get<double>(), 0.4, kVoxel / 4);
  EXPECT_NEAR(c["centroid"][2].get<double>(), 1.6, kVoxel / 4);
  EXPECT_NEAR(c["volume"].get<double>(), 0.04, 0.02 * 0.04);
}

/// An IFC 2x3 file of one block, 2 x 4 x 6 m, its corner at (0, 0, 3) of the IFC's Z-up axes: a
/// rectangle profile extruded along z, placed at (1, 2, 3).
constexpr const char* kBlockIfc = R"IFC(ISO-10303-21;
HEADER;
FILE_DESCRIPTION(('ViewDefinition [CoordinationView]'),'2;1');
FILE_NAME('box.ifc','2026-01-01T00:00:00',(''),(''),'','','');
FILE_SCHEMA(('IFC2X3'));
ENDSEC;
DATA;
#1=IFCPERSON($,$,'',$,$,$,$,$);
#2=IFCORGANIZATION($,'',$,$,$);
#3=IFCPERSONANDORGANIZATION(#1,#2,$);
#4=IFCAPPLICATION(#2,'1','t','t');
#5=IFCOWNERHISTORY(#3,#4,$,.ADDED.,$,$,$,0);
#6=IFCSIUNIT(*,.LENGTHUNIT.,$,.METRE.);
#7=IFCUNITASSIGNMENT((#6));
#8=IFCCARTESIANPOINT((0.,0.,0.));
#9=IFCDIRECTION((0.,0.,1.));
#10=IFCDIRECTION((1.,0.,0.));
#11=IFCAXIS2PLACEMENT3D(#8,#9,#10);
#12=IFCGEOMETRICREPRESENTATIONCONTEXT($,'Model',3,1.E-05,#11,$);
#13=IFCPROJECT('0YvctVUKr0kugbFTf53O9L',#5,'P',$,$,$,$,(#12),#7);
#14=IFCLOCALPLACEMENT($,#11);
#15=IFCSITE('1YvctVUKr0kugbFTf53O9L',#5,'Site',$,$,#14,$,$,.ELEMENT.,$,$,$,$,$);
#16=IFCRELAGGREGATES('2YvctVUKr0kugbFTf53O9L',#5,$,$,#13,(#15));
#20=IFCCARTESIANPOINT((1.,2.,3.));
#21=IFCAXIS2PLACEMENT3D(#20,#9,#10);
#22=IFCLOCALPLACEMENT(#14,#21);
#23=IFCCARTESIANPOINT((0.,0.));
#24=IFCAXIS2PLACEMENT2D(#23,$);
#25=IFCRECTANGLEPROFILEDEF(.AREA.,$,#24,2.,4.);
#26=IFCEXTRUDEDAREASOLID(#25,#11,#9,6.);
#27=IFCSHAPEREPRESENTATION(#12,'Body','SweptSolid',(#26));
#28=IFCPRODUCTDEFINITIONSHAPE($,$,(#27));
#29=IFCBUILDINGELEMENTPROXY('3YvctVUKr0kugbFTf53O9L',#5,'Block-1',$,$,#22,#28,$,$);
#30=IFCRELCONTAINEDINSPATIALSTRUCTURE('4YvctVUKr0kugbFTf53O9L',#5,$,$,(#29),#15);
ENDSEC;
END-ISO-10303-21;
)IFC";

TEST(SceneAxes, IfcReportsInItsOwnAxes) {
  const std::string ifc = write_file("block.ifc", kBlockIfc);
  const auto run_scene  = [&](const std::string& name, const std::string& extra) {
    const std::string report = (temp_dir() / (name + "_report.json")).string();
    const Outcome r =
        run({"clash",
             write_file(name + ".json",
                        R"({"voxhash_scene": 1, "grid": {"voxel_size": 0.1},)"
                         R"( "models": [{"path": ")" +
                            ifc + R"("}, {"path": ")" + ifc +
                            R"(", "transform": {"translate": [0.5, 0, 0]}}])" + extra + "}"),
             "--backend",
             "cpu",
             "--json",
             report});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return read_json(report);
  };
  // A scene of IFC files is Z-up by default: the overlap, x from 0.5 to 2, y from 0 to 4, z (up)
  // from 3 to 9, is reported in the IFC's coordinates although assimp turned them Y-up.
  const json own = run_scene("ifc_own", "");
  EXPECT_EQ(own["scene"]["up"], "z");
  ASSERT_EQ(own["clashes"].size(), 1u);
  const json& c = own["clashes"][0];
  EXPECT_EQ(c["part_a"], "IfcBuildingElementProxy_Block-1_3YvctVUKr0kugbFTf53O9L");
  EXPECT_NEAR(c["volume"].get<double>(), 1.5 * 4 * 6, 0.02 * 36);
  const std::array<double, 3> centroid{1.25, 2, 6};
  for (int a = 0; a < 3; ++a)
    EXPECT_NEAR(c["centroid"][a].get<double>(), centroid[a], 0.025) << a;
  EXPECT_NEAR(c["bounds"]["min"][2].get<double>(), 3, 0.1);
  EXPECT_NEAR(c["bounds"]["max"][2].get<double>(), 9, 0.1);
  // A Y-up scene takes the IFC turned Y-up, as assimp gives it: (x, y, z) -> (x, z, -y).
  const json turned = run_scene("ifc_y", R"(, "up": "y")");
  EXPECT_EQ(turned["scene"]["up"], "y");
  ASSERT_EQ(turned["clashes"].size(), 1u);
  const json& t = turned["clashes"][0];
  EXPECT_NEAR(t["centroid"][0].get<double>(), 1.25, 0.025);
  EXPECT_NEAR(t["centroid"][1].get<double>(), 6, 0.025);
  EXPECT_NEAR(t["centroid"][2].get<double>(), -2, 0.025);
  EXPECT_EQ(t["volume"], c["volume"]);
}

}  // namespace
}  // namespace voxhash::test
