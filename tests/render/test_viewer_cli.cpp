// The viewer as a user runs it, under Xvfb with Mesa on the CPU backend: command-line errors and
// exit codes (outputs into a missing folder refused before any frame), the missing-display
// message, screenshots that must show both models' points, the intersection voxels and the panel,
// the offscreen (EGL) path rendering the same frame, --export writing the last frame's voxels, a
// scene too large for memory refused before loading, and the warning for a model outside the grid.
#include "render_checks.hpp"
#include "viewer/app_state.hpp"
#include "viewer/panel.hpp"
#include "viewer/render_buffer.hpp"
#include "viewer/renderer.hpp"

#include <voxhash/pipeline.hpp>
#include <voxhash/scene.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace voxhash::test {
namespace {

namespace palette = viewer::palette;

const std::string kSmallScene = "--backend cpu --points 20000 --res 128 --width 960 --height 600";

std::string output_path(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / name).string();
}

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

/// The overlay's translucent background over the scene's.
std::array<float, 3> overlay_background() {
  std::array<float, 3> c{};
  for (int k = 0; k < 3; ++k) {
    c[k] = viewer::kOverlayAlpha * palette::kPanel[k] +
           (1 - viewer::kOverlayAlpha) * palette::kBackground[k];
  }
  return c;
}

/// Runs the pipeline's frames for an AppState without GL: the voxels do not depend on the path
/// that takes them to the screen.
class PipelineOnlyBridge final : public viewer::BufferBridge {
 public:
  [[nodiscard]] std::string_view name() const override { return "pipeline only"; }
  void reserve(const std::array<std::size_t, 2>&) override {}
  FrameStats run_frame(Pipeline& pipeline, double time) override {
    return pipeline.run_frame(time);
  }
  [[nodiscard]] const viewer::TransferTimes& times() const override { return m_times; }

 private:
  viewer::TransferTimes m_times;
};

/// What a PLY written by export_voxels_ply holds: the header's vertex count, and each vertex's
/// colour (x y z floats, then red green blue bytes).
struct PlyVoxels {
  std::size_t header_count = 0;
  std::vector<std::array<unsigned char, 3>> colours;
};

PlyVoxels read_ply(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  PlyVoxels ply;
  const std::size_t count = bytes.find("element vertex ");
  const std::size_t body  = bytes.find("end_header\n");
  if (!bytes.starts_with("ply\n") || count == std::string::npos || body == std::string::npos) {
    return ply;
  }
  ply.header_count              = std::stoul(bytes.substr(count + 15));
  constexpr std::size_t kRecord = 3 * sizeof(float) + 3;
  for (std::size_t at = body + 11; at + kRecord <= bytes.size(); at += kRecord) {
    const auto* rgb = reinterpret_cast<const unsigned char*>(bytes.data() + at + 12);
    ply.colours.push_back({rgb[0], rgb[1], rgb[2]});
  }
  return ply;
}

TEST(ViewerCli, HelpListsTheOptions) {
  const CommandResult r = run_voxhash("--help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* flag : {"--model-a",
                           "--model-b",
                           "--points",
                           "--res",
                           "--algo",
                           "--backend",
                           "--frames",
                           "--screenshot",
                           "--export",
                           "--offscreen",
                           "--width",
                           "--height",
                           "--xray",
                           "--cuda-draw",
                           "--clip",
                           "--tab",
                           "--clash-every"}) {
    EXPECT_NE(r.output.find(flag), std::string::npos) << flag;
  }
}

TEST(ViewerCli, UnknownFlagIsAOneLineUsageError) {
  const CommandResult r = run_voxhash("--bogus");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_NE(r.output.find("unknown option '--bogus'"), std::string::npos) << r.output;
}

TEST(ViewerCli, MalformedValuesAreUsageErrors) {
  for (const char* args : {"--points",
                           "--points abc",
                           "--res 3000000",
                           "--algo quadratic",
                           "--backend opencl",
                           "--screenshot x.png",
                           "--export x.ply",
                           "--offscreen",
                           "--clip w:1",
                           "--clip x:abc",
                           "--clip x",
                           "--tab nope",
                           "--clash-every -1"}) {
    const CommandResult r = run_voxhash(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_EQ(lines(r.output), 1u) << args << ": " << r.output;
  }
}

TEST(ViewerCli, NoDisplaySuggestsOffscreenAndBench) {
  const CommandResult r = run_voxhash(kSmallScene, "env -u DISPLAY -u WAYLAND_DISPLAY");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.output), 1u) << r.output;
  EXPECT_NE(r.output.find("--offscreen"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("voxhash bench"), std::string::npos) << r.output;
}

TEST(ViewerCli, BadModelPathNamesTheFile) {
  const CommandResult r = run_voxhash(kSmallScene + " --frames 1 --model-a /nonexistent/m.obj");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("/nonexistent/m.obj"), std::string::npos) << r.output;
}

TEST(ViewerCli, ScreenshotShowsBothModelsIntersectionAndPanel) {
  // The demo opens with its models through each other (the intersection voxels drawn by default).
  const std::string png = output_path("viewer_window.png");
  std::filesystem::remove(png);
  const CommandResult r = run_voxhash(kSmallScene + " --frames 100 --screenshot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("transfer: host upload (CPU backend)"), std::string::npos) << r.output;

  const Image image = Image::load(png);
  ASSERT_EQ(image.width, 960) << png;
  ASSERT_EQ(image.height, 600);
  const std::size_t total = image.pixels();
  EXPECT_LT(image.count_near(palette::kBackground), total * 9 / 10) << "mostly background";
  const int scene_x = static_cast<int>(viewer::kPanelWidth) + 20;
  EXPECT_GT(image.count_near(palette::kPoints[0], 0.02f, scene_x), 500u) << "model A's points";
  EXPECT_GT(image.count_near(palette::kPoints[1], 0.02f, scene_x), 500u) << "model B's points";
  EXPECT_GT(image.count(intersection_yellow, scene_x), 20u) << "intersection voxels";
  EXPECT_GT(image.count_near(palette::kPanel), total / 20) << "the panel's background";
  EXPECT_GT(image.count_near(overlay_background(), 0.02f, image.width * 3 / 4), 2000u)
      << "the overlay in the top-right corner";
}

TEST(ViewerCli, NoPanelHidesThePanel) {
  const std::string png = output_path("viewer_no_panel.png");
  const CommandResult r = run_voxhash(kSmallScene + " --frames 5 --no-panel --screenshot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Image image = Image::load(png);
  ASSERT_GT(image.pixels(), 0u);
  EXPECT_LT(image.count_near(palette::kPanel), image.pixels() / 100);
  EXPECT_EQ(image.count_near(overlay_background(), 0.01f), 0u) << "no overlay either";
  EXPECT_GT(image.count_near(palette::kPoints[0], 0.02f), 500u);
}

TEST(ViewerCli, OffscreenRendersTheWindowsFrame) {
  const std::string window_png    = output_path("frame_window.png");
  const std::string offscreen_png = output_path("frame_offscreen.png");
  const std::string scene         = kSmallScene + " --frames 60 --no-panel --algo hashgraph-v2";
  const CommandResult window      = run_voxhash(scene + " --screenshot " + window_png);
  ASSERT_EQ(window.exit_code, 0) << window.output;
  const CommandResult offscreen = run_voxhash(scene + " --offscreen --screenshot " + offscreen_png);
  if (offscreen.exit_code != 0 && offscreen.output.find("EGL") != std::string::npos) {
    GTEST_SKIP() << "no EGL device here: " << offscreen.output;
  }
  ASSERT_EQ(offscreen.exit_code, 0) << offscreen.output;
  const Image a = Image::load(window_png), b = Image::load(offscreen_png);
  ASSERT_EQ(a.width, b.width);
  ASSERT_EQ(a.height, b.height);
  EXPECT_LE(differing_pixels(a, b, 8), a.pixels() / 1000);
}

TEST(ViewerCli, CudaDrawingFallsBackToGlWithoutInterop) {
  const std::string gl_png    = output_path("draw_gl.png");
  const std::string asked_png = output_path("draw_cuda_asked.png");
  const std::string scene     = kSmallScene + " --frames 30 --no-panel";
  const CommandResult gl      = run_voxhash(scene + " --screenshot " + gl_png);
  ASSERT_EQ(gl.exit_code, 0) << gl.output;
  const CommandResult asked = run_voxhash(scene + " --cuda-draw --screenshot " + asked_png);
  ASSERT_EQ(asked.exit_code, 0) << asked.output;
  EXPECT_NE(asked.output.find(
                "transfer: host upload (CPU backend), drawn by GL (CUDA drawing needs CUDA-GL "
                "interop)"),
            std::string::npos)
      << asked.output;
  const Image a = Image::load(gl_png), b = Image::load(asked_png);
  ASSERT_GT(a.pixels(), 0u);
  EXPECT_EQ(differing_pixels(a, b, 0), 0u);
}

TEST(ViewerCli, ExportWritesBothModelsLabelledVoxels) {
  const std::string ply = output_path("viewer_voxels.ply");
  std::filesystem::remove(ply);
  const CommandResult r = run_voxhash(kSmallScene + " --frames 100 --no-panel --export " + ply);
  ASSERT_EQ(r.exit_code, 0) << r.output;

  // The same 100 steps of the demo (the viewer's scene without one given) without a window give
  // the counts the file must hold.
  viewer::SceneSettings settings;
  settings.points_per_model = 20000;
  settings.resolution       = 128;
  viewer::AppState state(Backend::Cpu, settings, load_scene(asset("demo.json")));
  PipelineOnlyBridge bridge;
  for (int frame = 0; frame < 100; ++frame) {
    ASSERT_TRUE(state.update(bridge, viewer::AppState::kStep)) << state.message();
  }
  const auto& model = state.stats().model;
  ASSERT_GT(model[0].intersection, 0u) << "100 steps should make the models overlap";

  const PlyVoxels voxels = read_ply(ply);
  EXPECT_EQ(voxels.header_count, model[0].voxels + model[1].voxels);
  ASSERT_EQ(voxels.colours.size(), voxels.header_count) << "one 15-byte record per vertex";
  const auto yellow = std::count_if(voxels.colours.begin(), voxels.colours.end(), [](auto c) {
    return c[0] > 150 && c[1] > 150 && c[2] < 100;
  });
  EXPECT_EQ(static_cast<std::size_t>(yellow), model[0].intersection + model[1].intersection);
}

TEST(ViewerCli, OutputsIntoAMissingDirectoryFailBeforeAnyFrame) {
  // Without a display the window cannot open: exit code 2 (not 1, "no display") shows that the
  // command line refused the path before anything started.
  for (const char* flag : {"--export", "--screenshot"}) {
    const std::string file = output_path("no_such_dir/out");
    const CommandResult r =
        run_voxhash(kSmallScene + " --frames 100000 --no-panel " + flag + " " + file,
                    "env -u DISPLAY -u WAYLAND_DISPLAY");
    EXPECT_EQ(r.exit_code, 2) << flag << ": " << r.output;
    EXPECT_EQ(lines(r.output), 1u) << flag << ": " << r.output;
    EXPECT_NE(r.output.find(flag), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(output_path("no_such_dir")), std::string::npos) << r.output;
  }
}

TEST(ViewerCli, OutputsToAFullDeviceFailSayingWhy) {
  // A screenshot to a full disk once printed "wrote", exit 0, and left an empty PNG; then it said
  // "cannot write screenshot" without the reason. Now: the file, the system's reason, exit 1.
  for (const char* flag : {"--screenshot", "--export"}) {
    const CommandResult r =
        run_voxhash(kSmallScene + " --offscreen --frames 2 --no-panel " + flag + " /dev/full");
    EXPECT_EQ(r.exit_code, 1) << flag << ": " << r.output;
    EXPECT_NE(r.output.find("voxhash: error: /dev/full: cannot write it: No space left on device"),
              std::string::npos)
        << flag << ": " << r.output;
  }
}

TEST(ViewerCli, PointsDroppedForNaNAreWarnedOnStderr) {
  // The viewer showed the first scene warning in its panel and printed none: a second model's
  // dropped points went unsaid, and a headless run said nothing of either.
  const std::string a = output_path("nan_a.xyz"), b = output_path("nan_b.xyz");
  for (const std::string& path : {a, b}) {
    std::ofstream out(path);
    for (int i = 0; i < 300; ++i)
      out << std::cos(i * 0.02) << " " << std::sin(i * 0.02) << " 0\n";
    out << "nan 0 0\n";
  }
  const CommandResult r = run_voxhash(
      kSmallScene + " --offscreen --frames 2 --no-panel --model-a " + a + " --model-b " + b);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* model :
       {"model 'nan_a' (nan_a.xyz): 1 points", "model 'nan_b' (nan_b.xyz): 1 points"}) {
    EXPECT_NE(r.output.find(model), std::string::npos) << model << ": " << r.output;
  }
}

TEST(ViewerCli, ZeroPointsAndEmptyModelPathsAreUsageErrors) {
  // Without a display, a command line taken for a good one fails later with exit code 1.
  for (const char* args : {"--frames 1 --points 0",
                           "--frames 1 --model-a=",
                           "view --frames 1 --model-b=",
                           "view --frames 1 --points 0"}) {
    const CommandResult r = run_voxhash(args, "env -u DISPLAY -u WAYLAND_DISPLAY");
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_EQ(lines(r.output), 1u) << args << ": " << r.output;
  }
}

TEST(ViewerCli, OnePointPerModelRuns) {
  const CommandResult r = run_voxhash(
      "view --backend cpu --points 1 --res 16 --frames 2 --no-panel --width 320 "
      "--height 240");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(ViewerCli, SceneThatCannotFitFailsBeforeLoadingInOneLine) {
  const CommandResult r = run_voxhash("view --backend cpu --points 2^30 --frames 1 --no-panel");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const std::size_t error = r.output.find("voxhash: error: a frame of 2 x 1073741824 points");
  ASSERT_NE(error, std::string::npos) << r.output;
  EXPECT_NE(r.output.find("GiB of host memory", error), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\n', error), r.output.size() - 1) << "one line, the last";
}

TEST(ViewerCli, ModelOutsideTheGridIsWarnedOnStderr) {
  const std::string far = output_path("far.xyz");
  {
    std::ofstream out(far);
    for (int i = 0; i < 100; ++i)
      out << -20 - i * 1e-3 << " 0 0\n";
  }
  // The demo's grid bounds stay (models given without a scene would get a fitted grid).
  const CommandResult r = run_voxhash(
      "view --backend cpu --points 2000 --res 32 --frames 2 --no-panel --width 320 --height 240 "
      "--scene '" +
      asset("demo.json") + "' --model-a '" + far + "'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("voxhash: warning: model A (" + far +
                          "): 100.0 % of its 100 points are outside"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("model B ("), std::string::npos) << r.output;
}

}  // namespace
}  // namespace voxhash::test
