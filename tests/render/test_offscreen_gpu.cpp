// The device-only render test: the viewer offscreen on EGL's device platform with real CUDA-GL
// interop must draw the same pixels as the host-upload path, the CUDA drawing path (--cuda-draw)
// nearly the same pixels as GL, and --timing must report interop map / unmap beside plain device
// buffers. Skips without a CUDA device or an EGL device.
#include "render_checks.hpp"
#include "viewer/renderer.hpp"

#include <voxhash/backend.hpp>

#include <filesystem>
#include <gtest/gtest.h>
#include <string>

namespace voxhash::test {
namespace {

namespace palette = viewer::palette;

const std::string kScene =
    "--offscreen --backend cuda --points 300000 --res 256 --frames 100 --width 960 --height 600 "
    "--no-panel";

std::string output_path(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / name).string();
}

class OffscreenGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device: " << cuda_unavailable_reason();
  }
};

/// Runs the viewer offscreen; skips the test when the machine has no EGL device.
#define RUN_OFFSCREEN_OR_SKIP(result, arguments)                                 \
  const CommandResult result = run_voxhash(arguments);                           \
  if (result.exit_code != 0 && result.output.find("EGL") != std::string::npos) { \
    GTEST_SKIP() << "no EGL device: " << result.output;                          \
  }                                                                              \
  ASSERT_EQ(result.exit_code, 0) << result.output

TEST_F(OffscreenGpuTest, InteropDrawsWhatTheHostUploadDraws) {
  const std::string interop_png = output_path("offscreen_interop.png");
  const std::string host_png    = output_path("offscreen_host.png");
  RUN_OFFSCREEN_OR_SKIP(interop, kScene + " --screenshot " + interop_png);
  EXPECT_NE(interop.output.find("transfer: CUDA-GL interop"), std::string::npos) << interop.output;
  RUN_OFFSCREEN_OR_SKIP(host, kScene + " --no-interop --screenshot " + host_png);
  EXPECT_NE(host.output.find("transfer: host upload (--no-interop)"), std::string::npos)
      << host.output;

  const Image a = Image::load(interop_png), b = Image::load(host_png);
  ASSERT_EQ(a.width, 960);
  ASSERT_EQ(b.width, 960);
  ASSERT_EQ(a.height, b.height);
  EXPECT_GT(a.count_near(palette::kPoints[0], 0.02f), 1000u);
  EXPECT_GT(a.count_near(palette::kPoints[1], 0.02f), 1000u);
  EXPECT_GT(a.count(intersection_yellow), 20u);
  const std::size_t differing = differing_pixels(a, b, 8);
  std::printf("interop vs host upload: %zu of %zu pixels differ by more than 8/255\n",
              differing,
              a.pixels());
  EXPECT_LE(differing, a.pixels() / 1000);
}

// Points and voxels splatted by CUDA (cubes ray-cast per pixel, one atomicMin per fragment) against
// GL's rasterizer: the same picture but for edge pixels.
TEST_F(OffscreenGpuTest, CudaDrawingShowsWhatGlDraws) {
  const std::string cuda_png = output_path("offscreen_cuda_draw.png");
  const std::string gl_png   = output_path("offscreen_gl_draw.png");
  RUN_OFFSCREEN_OR_SKIP(cuda, kScene + " --cuda-draw --screenshot " + cuda_png);
  EXPECT_NE(cuda.output.find("transfer: CUDA-GL interop, drawn by CUDA"), std::string::npos)
      << cuda.output;
  RUN_OFFSCREEN_OR_SKIP(gl, kScene + " --screenshot " + gl_png);

  const Image a = Image::load(cuda_png), b = Image::load(gl_png);
  ASSERT_EQ(a.width, 960);
  ASSERT_EQ(a.width, b.width);
  ASSERT_EQ(a.height, b.height);
  EXPECT_GT(a.count_near(palette::kPoints[0], 0.02f), 1000u);
  EXPECT_GT(a.count_near(palette::kPoints[1], 0.02f), 1000u);
  EXPECT_GT(a.count(intersection_yellow), 20u);
  const std::size_t differing = differing_pixels(a, b, 24);
  std::printf(
      "CUDA drawing vs GL: %zu of %zu pixels differ by more than 24/255\n", differing, a.pixels());
  EXPECT_LE(differing, a.pixels() / 50);
}

TEST_F(OffscreenGpuTest, TimingReportsInteropAndPlainDeviceBuffers) {
  RUN_OFFSCREEN_OR_SKIP(r, "--offscreen --backend cuda --frames 60 --no-panel --timing");
  EXPECT_NE(r.output.find("timing [CUDA-GL interop] median of 60 frames"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("timing [plain device buffers] median of 60 frames"), std::string::npos)
      << r.output;
  for (std::size_t at = 0; (at = r.output.find("median of", at)) != std::string::npos; ++at) {
    const std::size_t begin = r.output.rfind('\n', at) + 1;
    std::printf("%s\n", r.output.substr(begin, r.output.find('\n', at) - begin).c_str());
  }
}

}  // namespace
}  // namespace voxhash::test
