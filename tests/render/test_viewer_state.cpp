// The viewer's scene state driven headlessly in a GL context (a GLFW window under Xvfb, CPU
// backend, host-upload path): the demo opens at its time with its models intersecting; switching
// algorithms between frames leaves every frame output unchanged; the GL buffers hold exactly the
// pipeline's points and labelled voxels; the layer toggles decide what the renderer draws; a bad
// model path, a scene too large for memory and a frame whose allocation fails are messages, not
// exits (the last goes back to the previous scene); a model outside the grid is warned about;
// placement (panel fields and mouse drags) moves a model exactly and fits the grid again (a Z-up
// set scene's up is the world's y), a saved scene (a set scene too) reloads as the same frame, the
// clash list matches the frame and frames the camera on a region, dropped files load as models,
// meshes read "as" points stay points and a file loaded over an "as": "mesh" model is read as it
// is; X-ray, the clipping plane, edited colours, per-model inside colours and lighting each change
// the picture as they should; the contact band shows over the surfaces around it, lit bright;
// eye-dome lighting darkens points where depth steps and nothing else; the clash tab's status file
// is shown, edited and saved in `voxhash clash --status`'s format.
#include "clash/clash_status.hpp"
#include "render_checks.hpp"
#include "viewer/app_state.hpp"
#include "viewer/context.hpp"
#include "viewer/gauges.hpp"
#include "viewer/gl.hpp"
#include "viewer/panel.hpp"
#include "viewer/render_buffer.hpp"
#include "viewer/renderer.hpp"
#include "viewer/viewer_session.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>
#include <voxhash/pipeline.hpp>
#include <voxhash/scene.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <memory>
#include <unistd.h>
#include <utility>
#include <vector>

namespace voxhash::test {
namespace {

using viewer::AppState;

constexpr int kWidth = 320, kHeight = 240;

class ViewerStateTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      s_window = viewer::make_window_context(kWidth, kHeight, "voxhash test");
    } catch (const Error& e) {
      s_no_window = e.what();
    }
  }
  static void TearDownTestSuite() { s_window.reset(); }

  void SetUp() override {
    if (!s_window) GTEST_SKIP() << "no GL window: " << s_no_window;
    viewer::SceneSettings settings;
    settings.points_per_model = 20000;
    settings.resolution       = 128;
    m_state                   = std::make_unique<AppState>(
        Backend::Cpu, settings, std::array{asset("sphere.obj"), asset("torus.obj")});
    m_bridge = std::make_unique<viewer::HostUploadBridge>(m_buffers);
  }

  /// Runs a frame at the current time (paused: nothing advances) and expects it to succeed.
  void run_frame() { ASSERT_TRUE(m_state->update(*m_bridge, 0.0)) << m_state->message(); }

  /// Moves the animation to `time` seconds and runs that frame.
  void run_frame_at(double time) {
    if (m_state->paused()) m_state->toggle_pause();
    ASSERT_TRUE(m_state->update(*m_bridge, time - m_state->time())) << m_state->message();
    m_state->toggle_pause();
  }

  inline static std::unique_ptr<viewer::GlContext> s_window;
  inline static std::string s_no_window;
  viewer::SceneBuffers m_buffers;
  std::unique_ptr<AppState> m_state;
  std::unique_ptr<viewer::HostUploadBridge> m_bridge;
};

/// The model's voxel instances read back from its GL buffer, as (key, label) sorted by key; checks
/// that each lies in its label's range.
ModelVoxels read_voxel_buffer(const viewer::SceneBuffers& buffers,
                              int model,
                              const GridParams& grid) {
  const LabelRanges& ranges = buffers.voxel_ranges[model];
  std::vector<VoxelInstance> instances(ranges.total());
  glGetNamedBufferSubData(
      buffers.voxels_buffer(model), 0, instances.size() * sizeof(VoxelInstance), instances.data());
  for (std::uint32_t l = 0; l < 3; ++l) {
    for (std::uint32_t k = ranges.first[l]; k < ranges.first[l] + ranges.count[l]; ++k) {
      EXPECT_EQ(instances[k].label, l) << "instance " << k << " of model " << model;
    }
  }
  std::vector<std::pair<Key, std::uint32_t>> pairs;
  for (const auto& instance : instances)
    pairs.emplace_back(voxel_key(grid, instance.center), instance.label);
  std::sort(pairs.begin(), pairs.end());
  ModelVoxels voxels;
  for (const auto& [key, label] : pairs) {
    voxels.keys.push_back(key);
    voxels.labels.push_back(static_cast<VoxelLabel>(label));
  }
  return voxels;
}

TEST_F(ViewerStateTest, AlgorithmSwitchBetweenFramesKeepsEveryOutput) {
  std::size_t intersections = 0;
  for (const double time : {1.5, 2.2, 3.0}) {
    m_state->set_algorithm(TableKind::Cuckoo);
    run_frame_at(time);
    const std::array<ModelVoxels, 2> reference = {m_state->pipeline().download(0),
                                                  m_state->pipeline().download(1)};
    intersections += m_state->stats().model[0].intersection;
    for (const TableKind kind :
         {TableKind::HashGraphV1, TableKind::HashGraphV2, TableKind::Cuckoo}) {
      m_state->set_algorithm(kind);
      run_frame();
      for (int i = 0; i < 2; ++i) {
        const ModelVoxels voxels = m_state->pipeline().download(i);
        EXPECT_EQ(voxels.keys, reference[i].keys) << to_string(kind) << " t=" << time;
        EXPECT_EQ(voxels.labels, reference[i].labels) << to_string(kind) << " t=" << time;
      }
    }
  }
  EXPECT_GT(intersections, 0u) << "the chosen times should make the models overlap";
}

TEST_F(ViewerStateTest, DemoOpensWithItsModelsIntersectingAndResetGoesBackThere) {
  viewer::SceneSettings settings;
  settings.points_per_model = 20000;
  settings.resolution       = 128;
  const Scene demo          = load_scene(asset("demo.json"));
  ASSERT_GT(demo.time, 0.0) << "the demo's time is the swing's midpoint";
  m_state = std::make_unique<AppState>(Backend::Cpu, settings, demo);
  EXPECT_EQ(m_state->time(), demo.time);
  ASSERT_TRUE(m_state->update(*m_bridge, 0.0)) << m_state->message();
  EXPECT_GT(m_state->stats().model[0].intersection, 0u) << "the first frame shows the band";
  EXPECT_GT(m_buffers.voxel_ranges[0].count[2], 0u) << "and the renderer is given it";
  run_frame_at(demo.time + 0.5);
  m_state->reset();
  EXPECT_TRUE(m_state->update(*m_bridge, 0.0));
  EXPECT_EQ(m_state->time(), demo.time);
}

TEST_F(ViewerStateTest, GlBuffersHoldThePipelinesPointsAndVoxels) {
  run_frame_at(1.7);
  const Pipeline& pipeline = m_state->pipeline();
  for (int i = 0; i < 2; ++i) {
    const auto points = pipeline.points(i);  // host memory on the CPU backend
    ASSERT_EQ(m_buffers.point_count[i], points.size());
    std::vector<Float3> drawn(points.size());
    glGetNamedBufferSubData(m_buffers.points_buffer(i), 0, points.size_bytes(), drawn.data());
    EXPECT_EQ(0, std::memcmp(drawn.data(), points.data(), points.size_bytes())) << "model " << i;

    const ModelVoxels expected = pipeline.download(i);
    ASSERT_EQ(m_buffers.voxel_ranges[i].total(), expected.keys.size());
    const ModelVoxels drawn_voxels = read_voxel_buffer(m_buffers, i, pipeline.config().grid);
    EXPECT_EQ(drawn_voxels.keys, expected.keys) << "model " << i;
    EXPECT_EQ(drawn_voxels.labels, expected.labels) << "model " << i;
  }
}

// The bundled OBJs are meshes: voxelized from their triangles, so a sparse sampling (drawn points)
// can have fewer points than voxels, and the voxel buffers grow to hold every voxel.
TEST_F(ViewerStateTest, MeshModelsKeepTheirTrianglesAndEveryVoxelIsDrawn) {
  ASSERT_TRUE(m_state->set_points_per_model(2000)) << m_state->message();
  run_frame_at(1.7);
  const Pipeline& pipeline = m_state->pipeline();
  for (int i = 0; i < 2; ++i) {
    EXPECT_GT(m_state->models()[i].triangles, 0u);
    EXPECT_EQ(m_state->stats().model[i].point_coverage, 1.0);
    const ModelVoxels expected = pipeline.download(i);
    EXPECT_GT(expected.keys.size(), m_buffers.point_count[i]) << "model " << i;
    ASSERT_EQ(m_buffers.voxel_ranges[i].total(), expected.keys.size());
    const ModelVoxels drawn = read_voxel_buffer(m_buffers, i, pipeline.config().grid);
    EXPECT_EQ(drawn.keys, expected.keys) << "model " << i;
    EXPECT_EQ(drawn.labels, expected.labels) << "model " << i;
  }
}

TEST_F(ViewerStateTest, LayerTogglesDecideWhatIsDrawn) {
  run_frame_at(1.7);
  ASSERT_GT(m_state->stats().model[0].intersection, 0u);
  ASSERT_GT(m_state->stats().model[0].inside, 0u);
  const viewer::OffscreenFramebuffer target(kWidth, kHeight);
  const viewer::Renderer renderer;
  const viewer::OrbitCamera camera;
  const GridParams& grid = m_state->pipeline().config().grid;
  const Float3 voxel     = Grid(grid).voxel_size;
  auto draw              = [&](const viewer::Layers& layers) {
    viewer::DrawSettings settings;
    settings.layers = layers;
    renderer.draw(m_buffers,
                  settings,
                  camera.view_proj(float(kWidth) / kHeight),
                  camera.eye_direction(),
                  voxel,
                  kWidth,
                  kHeight);
    std::vector<unsigned char> rgb(kWidth * kHeight * 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, kWidth, kHeight, GL_RGB, GL_UNSIGNED_BYTE, rgb.data());
    return Image{kWidth, kHeight, std::move(rgb)};
  };
  auto reddish = [](float r, float g, float b) { return r > 0.3f && g < 0.3f * r && b < 0.3f * r; };

  viewer::Layers nothing;
  nothing.points       = {false, false};
  nothing.intersection = false;
  nothing.inside       = {false, false};
  nothing.outside      = {false, false};
  const Image empty    = draw(nothing);
  EXPECT_EQ(empty.count_near(viewer::palette::kBackground), empty.pixels());

  viewer::Layers intersection = nothing;
  intersection.intersection   = true;
  const Image yellow          = draw(intersection);
  EXPECT_GT(yellow.count(intersection_yellow), 0u);
  EXPECT_EQ(yellow.count(reddish), 0u);

  viewer::Layers inside = nothing;
  inside.inside         = {true, true};
  const Image red       = draw(inside);
  EXPECT_GT(red.count(reddish), 0u);
  EXPECT_EQ(red.count(intersection_yellow), 0u);

  viewer::Layers points = nothing;
  points.points         = {true, false};
  const Image orange    = draw(points);
  EXPECT_GT(orange.count_near(viewer::palette::kPoints[0], 0.02f), 100u);
  EXPECT_EQ(orange.count_near(viewer::palette::kPoints[1], 0.02f), 0u);
}

TEST_F(ViewerStateTest, BadModelPathIsAMessageAndTheSceneKeepsRunning) {
  run_frame_at(0.5);
  const std::string before = m_state->models()[0].path;
  EXPECT_FALSE(m_state->load_model(0, "/nonexistent/model.obj"));
  EXPECT_TRUE(m_state->message_is_error());
  EXPECT_NE(m_state->message().find("/nonexistent/model.obj"), std::string::npos)
      << m_state->message();
  EXPECT_EQ(m_state->models()[0].path, before);
  m_state->toggle_pause();
  EXPECT_TRUE(m_state->update(*m_bridge, 1.0 / 60));
  EXPECT_FALSE(m_state->paused());
}

/// A transfer path whose frames fail the way a too-large scene does on the GPU.
class OutOfMemoryBridge final : public viewer::BufferBridge {
 public:
  [[nodiscard]] std::string_view name() const override { return "failing"; }
  void reserve(const std::array<std::size_t, 2>&) override {}
  FrameStats run_frame(Pipeline&, double) override {
    throw OutOfMemory("GPU out of memory: could not allocate 4096 MiB");
  }
  [[nodiscard]] const viewer::TransferTimes& times() const override { return m_times; }

 private:
  viewer::TransferTimes m_times;
};

TEST_F(ViewerStateTest, FailingFrameIsShownAndPauses) {
  OutOfMemoryBridge failing;
  EXPECT_FALSE(m_state->update(failing, 1.0 / 60));
  EXPECT_TRUE(m_state->paused());
  EXPECT_TRUE(m_state->message_is_error());
  EXPECT_NE(m_state->message().find("out of memory"), std::string::npos) << m_state->message();
  m_state->toggle_pause();
  EXPECT_TRUE(m_state->update(*m_bridge, 1.0 / 60)) << "the next frame runs again";
}

/// An allocation inside the frame fails after a change (the budget allows no memory beyond what
/// the changed scene holds before its first frame; the finer grid's frame needs more, since the
/// models are meshes voxelized from their triangles): the message says so, the scene goes back to
/// the last good one and keeps running; the buffers show that scene again.
TEST_F(ViewerStateTest, FrameOutOfMemoryAfterAChangeGoesBackToThePreviousScene) {
  run_frame_at(0.5);
  m_state->toggle_pause();
  const std::size_t voxels = m_state->stats().model[0].voxels;
  m_state->set_resolution(256);
  ASSERT_FALSE(m_state->message_is_error()) << m_state->message();
  {
    set_allocation_budget(Backend::Cpu, allocation_stats(Backend::Cpu).in_use);
    const bool ran = m_state->update(*m_bridge, 0.0);
    set_allocation_budget(Backend::Cpu, std::nullopt);
    ASSERT_FALSE(ran);
  }
  EXPECT_TRUE(m_state->message_is_error());
  EXPECT_NE(m_state->message().find("out of memory"), std::string::npos) << m_state->message();
  EXPECT_NE(m_state->message().find("back to the previous scene (20000 points per model, grid 128"),
            std::string::npos)
      << m_state->message();
  EXPECT_FALSE(m_state->paused());
  EXPECT_EQ(m_state->settings().resolution, 128);
  EXPECT_EQ(m_state->point_counts()[0], 20000u);
  ASSERT_TRUE(m_state->update(*m_bridge, 0.0)) << m_state->message();
  EXPECT_EQ(m_buffers.point_count[0], 20000u);
  EXPECT_EQ(m_state->stats().model[0].voxels, voxels) << "the same scene at the same time";
}

TEST_F(ViewerStateTest, SceneThatCannotFitIsRefusedBeforeSampling) {
  run_frame_at(0.5);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(m_state->set_points_per_model(std::size_t{1} << 30));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  EXPECT_TRUE(m_state->message_is_error());
  EXPECT_NE(m_state->message().find("GiB of host memory"), std::string::npos) << m_state->message();
  EXPECT_EQ(m_state->settings().points_per_model, 20000u);
  m_state->request_step();
  EXPECT_TRUE(m_state->update(*m_bridge, 0.0)) << m_state->message();
}

TEST_F(ViewerStateTest, ModelOutsideTheGridIsWarned) {
  const std::string far = (std::filesystem::temp_directory_path() /
                           ("voxhash_far_" + std::to_string(getpid()) + ".xyz"))
                              .string();
  {
    std::ofstream out(far);
    for (int i = 0; i < 300; ++i)
      out << 10 + i * 1e-3 << " 10 10\n";
  }
  run_frame_at(0.5);
  EXPECT_EQ(m_state->grid_warnings()[0], "");
  EXPECT_EQ(m_state->grid_warnings()[1], "");
  ASSERT_TRUE(m_state->load_model(1, far)) << m_state->message();
  run_frame_at(0.6);
  std::filesystem::remove(far);
  EXPECT_EQ(m_state->grid_warnings()[0], "");
  EXPECT_EQ(m_state->grid_warnings()[1],
            "model B (" + far + "): 100.0 % of its 300 points are outside the grid");
}

TEST_F(ViewerStateTest, ResamplingResizesTheBuffers) {
  run_frame_at(0.5);
  ASSERT_TRUE(m_state->set_points_per_model(30000)) << m_state->message();
  run_frame();
  EXPECT_EQ(m_buffers.point_count[0], 30000u);
  EXPECT_EQ(m_buffers.point_count[1], 30000u);
  EXPECT_GE(m_buffers.capacity(0), 30000u);
}

TEST_F(ViewerStateTest, PausedStateRunsNoFrameUntilStepped) {
  run_frame_at(0.5);
  EXPECT_FALSE(m_state->update(*m_bridge, 1.0));
  EXPECT_DOUBLE_EQ(m_state->time(), 0.5);
  m_state->request_step();
  EXPECT_TRUE(m_state->update(*m_bridge, 1.0));
  EXPECT_NEAR(m_state->time(), 0.5 + 1.0 / 60, 1e-12);
  m_state->reset();
  EXPECT_TRUE(m_state->update(*m_bridge, 1.0));
  EXPECT_EQ(m_state->time(), 0.0);
}

/// A session over the test's window (no panel: the mouse is the scene's).
std::unique_ptr<viewer::ViewerSession> static_session() {
  viewer::ViewerOptions options;
  options.scene      = scene_of_models(asset("sphere.obj"), asset("torus.obj"));
  options.points     = 20000;
  options.resolution = 128;
  options.no_panel   = true;
  return std::make_unique<viewer::ViewerSession>(options, nullptr);
}

/// What the renderer draws for `settings` from the default camera, read back.
Image render(const viewer::SceneBuffers& buffers,
             const AppState& state,
             const viewer::DrawSettings& settings) {
  const viewer::OffscreenFramebuffer target(kWidth, kHeight);
  const viewer::Renderer renderer;
  viewer::OrbitCamera camera;
  camera.frame(state.pipeline().config().grid.bounds);
  renderer.draw(buffers,
                settings,
                camera.view_proj(float(kWidth) / kHeight),
                camera.eye_direction(),
                state.pipeline().grid().voxel_size,
                kWidth,
                kHeight);
  std::vector<unsigned char> rgb(kWidth * kHeight * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, kWidth, kHeight, GL_RGB, GL_UNSIGNED_BYTE, rgb.data());
  return Image{kWidth, kHeight, std::move(rgb)};
}

viewer::DrawSettings voxels_only() {
  viewer::DrawSettings settings;
  settings.layers.points = {false, false};
  return settings;
}

std::size_t not_background(const Image& image) {
  return image.pixels() - image.count_near(viewer::palette::kBackground);
}

TEST_F(ViewerStateTest, XrayShowsTheInsideThroughTheShells) {
  run_frame_at(1.7);
  viewer::DrawSettings opaque = voxels_only();
  opaque.layers.outside       = {true, true};
  viewer::DrawSettings xray   = opaque;
  xray.xray                   = true;
  const Image shells          = render(m_buffers, *m_state, opaque);
  const Image seen            = render(m_buffers, *m_state, xray);
  EXPECT_GT(not_background(shells), 1000u);
  EXPECT_GT(not_background(seen), 1000u);
  EXPECT_GT(differing_pixels(shells, seen, 8), shells.pixels() / 50);
  // How much of the picture the inside and intersection voxels make: little behind opaque
  // shells, much more through translucent ones.
  const auto inner_share = [&](viewer::DrawSettings settings) {
    const Image with             = render(m_buffers, *m_state, settings);
    settings.layers.inside       = {false, false};
    settings.layers.intersection = false;
    return differing_pixels(with, render(m_buffers, *m_state, settings), 8);
  };
  const std::size_t hidden = inner_share(opaque), shown = inner_share(xray);
  EXPECT_GT(shown, 2 * hidden + 50) << "hidden " << hidden << ", shown " << shown;
}

TEST_F(ViewerStateTest, ClippingPlaneCutsAwayWhatLiesBeyondIt) {
  run_frame_at(1.7);
  const Bounds grid = m_state->pipeline().config().grid.bounds;
  viewer::DrawSettings whole;  // points and voxels
  viewer::DrawSettings cut = whole;
  cut.clip.enabled         = true;
  cut.clip.axis            = 0;
  const auto drawn         = [&](float offset, bool flip) {
    cut.clip.offset = offset;
    cut.clip.flip   = flip;
    return not_background(render(m_buffers, *m_state, cut));
  };
  const std::size_t all = not_background(render(m_buffers, *m_state, whole));
  ASSERT_GT(all, 2000u);
  EXPECT_EQ(drawn(grid.min.x - 1, false), 0u) << "everything lies beyond";
  EXPECT_EQ(drawn(grid.max.x + 1, false), all) << "nothing lies beyond";
  const float middle      = 0.5f * (grid.min.x + grid.max.x);
  const std::size_t below = drawn(middle, false), above = drawn(middle, true);
  EXPECT_GT(below, all / 10);
  EXPECT_LT(below, all * 9 / 10);
  EXPECT_GT(above, all / 10);
  EXPECT_LT(above, all * 9 / 10);
}

TEST_F(ViewerStateTest, ControlWheelMovesTheClippingPlane) {
  const auto session               = static_session();
  viewer::ClipPlane& clip          = session->controls().draw.clip;
  clip.enabled                     = true;
  clip.axis                        = 1;
  clip.offset                      = 0;
  const Bounds grid                = session->state().pipeline().config().grid.bounds;
  const viewer::OrbitCamera before = session->camera();
  viewer::WindowInput wheel;
  wheel.scroll = 2;
  wheel.ctrl   = true;
  session->handle_mouse(wheel, kHeight);
  EXPECT_NEAR(clip.offset, 0.02f * (grid.max.y - grid.min.y), 1e-5);
  EXPECT_EQ(session->camera().view_proj(1.0f), before.view_proj(1.0f)) << "no zoom";
  wheel.ctrl = false;
  session->handle_mouse(wheel, kHeight);
  EXPECT_NE(session->camera().view_proj(1.0f), before.view_proj(1.0f)) << "a zoom";
}

TEST_F(ViewerStateTest, EditedColoursInsideColoursPerModelAndLighting) {
  run_frame_at(1.7);
  viewer::DrawSettings settings = voxels_only();
  settings.layers.inside        = {false, false};
  const Image yellow            = render(m_buffers, *m_state, settings);
  ASSERT_GT(yellow.count(intersection_yellow), 50u);

  // Edited: the intersection green.
  settings.colors.intersection = {0.0f, 1.0f, 0.0f};
  const Image green            = render(m_buffers, *m_state, settings);
  EXPECT_EQ(green.count(intersection_yellow), 0u);
  EXPECT_GT(
      green.count([](float r, float g, float b) { return g > 0.4f && r < 0.05f && b < 0.05f; }),
      50u);

  // Lighting: unlit faces are all exactly the colour; lit ones vary with the face.
  settings.ambient          = 1.0f;
  const Image flat          = render(m_buffers, *m_state, settings);
  const std::size_t painted = not_background(flat);
  EXPECT_EQ(flat.count_near({0.0f, 1.0f, 0.0f}, 1.0f / 255), painted);
  settings.ambient = 0.2f;
  const Image lit  = render(m_buffers, *m_state, settings);
  EXPECT_LT(lit.count_near({0.0f, 1.0f, 0.0f}, 1.0f / 255), painted / 2);

  // Inside A and inside B in their own colours.
  settings                     = voxels_only();
  settings.ambient             = 1.0f;
  settings.layers.intersection = false;
  const viewer::Colors colors;
  ASSERT_NE(colors.inside[0], colors.inside[1]);
  const Image inside = render(m_buffers, *m_state, settings);
  EXPECT_GT(inside.count_near(colors.inside[0], 1.0f / 255), 20u);
  EXPECT_GT(inside.count_near(colors.inside[1], 1.0f / 255), 20u);
}

TEST_F(ViewerStateTest, ContactBandIsDrawnOverTheSurfacesAroundItAndLitBright) {
  run_frame_at(1.7);
  viewer::DrawSettings band_only = voxels_only();
  band_only.layers.inside        = {false, false};
  band_only.ambient              = 0.2f;
  const Image band               = render(m_buffers, *m_state, band_only);
  const std::size_t band_pixels  = band.count(intersection_yellow);
  ASSERT_GT(band_pixels, 50u);
  // No face of the band darker than the band's own floor of light.
  const viewer::palette::Rgb& yellow = viewer::palette::kIntersection;
  const float floor                  = viewer::band_ambient(band_only.ambient);
  EXPECT_GT(floor, band_only.ambient);
  EXPECT_EQ(band.count([&](float r, float g, float b) {
    return intersection_yellow(r, g, b) && r < floor * yellow[0] - 0.01f;
  }),
            0u);

  // On top, the inside voxels around it (the default layers) hide less of it than when it is drawn
  // as they are.
  viewer::DrawSettings with_inside = band_only;
  with_inside.layers.inside        = {true, true};
  const std::size_t on_top = render(m_buffers, *m_state, with_inside).count(intersection_yellow);
  with_inside.band_on_top  = false;
  const std::size_t level  = render(m_buffers, *m_state, with_inside).count(intersection_yellow);
  EXPECT_GT(on_top, level + level / 4) << on_top << " vs " << level << " of " << band_pixels;
}

TEST_F(ViewerStateTest, EyeDomeLightingDarkensPointsWhereDepthStepsAndNothingElse) {
  run_frame_at(1.7);
  viewer::DrawSettings points_only;
  points_only.layers.inside       = {false, false};
  points_only.layers.intersection = false;
  points_only.point_size          = 3.0f;  // splats that overlap: depth steps between them
  points_only.eye_dome            = false;
  const Image flat                = render(m_buffers, *m_state, points_only);
  points_only.eye_dome            = true;
  const Image lit                 = render(m_buffers, *m_state, points_only);
  ASSERT_EQ(flat.rgb.size(), lit.rgb.size());
  // Darkened by more than a quarter: points behind an edge of nearer ones (a slope is shaded
  // a little, by its depth's gradient).
  std::size_t edges = 0, changed_background = 0, brighter = 0, points = 0;
  for (std::size_t p = 0; p < flat.pixels(); ++p) {
    const unsigned char* a          = &flat.rgb[p * 3];
    const unsigned char* b          = &lit.rgb[p * 3];
    const viewer::palette::Rgb& sky = viewer::palette::kBackground;
    bool background                 = true;
    for (int c = 0; c < 3; ++c)
      background &= std::fabs(a[c] / 255.0f - sky[c]) <= 3.0f / 255;
    const bool changed = !std::equal(a, a + 3, b);
    points += background ? 0 : 1;
    changed_background += background && changed ? 1 : 0;
    brighter += (b[0] > a[0] || b[1] > a[1] || b[2] > a[2]) ? 1 : 0;
    edges += !background && 4 * int(b[0] + b[1] + b[2]) < 3 * int(a[0] + a[1] + a[2]) ? 1 : 0;
  }
  EXPECT_EQ(changed_background, 0u) << "the flat background is left as it is";
  EXPECT_EQ(brighter, 0u) << "the pass only darkens";
  EXPECT_GT(edges, points / 20) << edges << " of " << points;
  EXPECT_LT(edges, points / 2) << edges << " of " << points;

  // Voxels are not shaded by it.
  viewer::DrawSettings voxels = voxels_only();
  voxels.eye_dome             = false;
  const Image cubes           = render(m_buffers, *m_state, voxels);
  voxels.eye_dome             = true;
  EXPECT_EQ(render(m_buffers, *m_state, voxels).rgb, cubes.rgb);
}

/// A state of the two bundled models as placed by their files, without motion (a user's scene).
std::unique_ptr<AppState> static_state() {
  viewer::SceneSettings settings;
  settings.points_per_model = 20000;
  settings.resolution       = 128;
  return std::make_unique<AppState>(
      Backend::Cpu, settings, scene_of_models(asset("sphere.obj"), asset("torus.obj")));
}

viewer::ModelPlacement placement_with_scale(double scale) {
  viewer::ModelPlacement placement;
  placement.scale = scale;
  return placement;
}

std::vector<Float3> points_of(const Pipeline& pipeline, int model) {
  const auto points = pipeline.points(model);  // host memory on the CPU backend
  return {points.begin(), points.end()};
}

TEST_F(ViewerStateTest, PlacementMovesAModelExactlyAndFitsTheGridAgain) {
  m_state = static_state();
  run_frame();
  const std::vector<Float3> rest = points_of(m_state->pipeline(), 1);
  const GridParams grid_before   = m_state->pipeline().config().grid;

  // p -> Rz(90) (2 p) + (3, 0, 0.5): (x, y, z) -> (3 - 2y, 2x, 2z + 0.5).
  viewer::ModelPlacement placement;
  placement.translate      = {3.0f, 0.0f, 0.5f};
  placement.rotate_degrees = {0.0f, 0.0f, 90.0f};
  placement.scale          = 2;
  ASSERT_TRUE(m_state->set_placement(1, placement, true)) << m_state->message();
  run_frame();
  const std::vector<Float3> placed = points_of(m_state->pipeline(), 1);
  ASSERT_EQ(placed.size(), rest.size());
  for (std::size_t k = 0; k < rest.size(); k += 97) {
    EXPECT_NEAR(placed[k].x, 3 - 2 * rest[k].y, 1e-5) << k;
    EXPECT_NEAR(placed[k].y, 2 * rest[k].x, 1e-5) << k;
    EXPECT_NEAR(placed[k].z, 2 * rest[k].z + 0.5, 1e-5) << k;
  }
  const GridParams grid = m_state->pipeline().config().grid;
  EXPECT_GT(grid.bounds.max.x, grid_before.bounds.max.x + 1) << "the grid fitted again";
  EXPECT_EQ(m_state->stats().model[1].outside_grid, 0u);
  EXPECT_EQ(m_state->scene().models[1].scale, 2.0);
  const viewer::ModelPlacement read = m_state->placement(1);
  EXPECT_NEAR(read.rotate_degrees.z, 90.0f, 1e-4);
  EXPECT_NEAR(read.rotate_degrees.x, 0.0f, 1e-4);

  // Back where it was: from the rest copy, so without drift.
  ASSERT_TRUE(m_state->set_placement(1, viewer::ModelPlacement{}, true)) << m_state->message();
  run_frame();
  const std::vector<Float3> back = points_of(m_state->pipeline(), 1);
  for (std::size_t k = 0; k < rest.size(); ++k) {
    ASSERT_NEAR(back[k].x, rest[k].x, 1e-6) << k;
    ASSERT_NEAR(back[k].y, rest[k].y, 1e-6) << k;
    ASSERT_NEAR(back[k].z, rest[k].z, 1e-6) << k;
  }
  EXPECT_FALSE(m_state->set_placement(1, placement_with_scale(0), true));
  EXPECT_TRUE(m_state->message_is_error());
}

TEST_F(ViewerStateTest, SavedSceneReloadsAsTheSameFrame) {
  m_state = static_state();
  viewer::ModelPlacement placement;
  placement.translate      = {0.9f, 0.1f, -0.2f};
  placement.rotate_degrees = {15.0f, 30.0f, 45.0f};
  ASSERT_TRUE(m_state->set_placement(1, placement, true)) << m_state->message();
  m_state->set_algorithm(TableKind::HashGraphV2);
  run_frame();
  ASSERT_GT(m_state->stats().model[0].intersection, 0u) << "the placement should make them meet";

  const std::string file = (std::filesystem::temp_directory_path() /
                            ("voxhash_saved_" + std::to_string(getpid()) + ".json"))
                               .string();
  ASSERT_TRUE(m_state->save_scene(file)) << m_state->message();
  EXPECT_FALSE(m_state->message_is_error());
  const Scene scene = load_scene(file);
  std::filesystem::remove(file);
  EXPECT_EQ(scene.algorithm, TableKind::HashGraphV2);

  viewer::SceneSettings other;  // the file gives the points and the grid
  AppState reloaded(Backend::Cpu, other, scene);
  viewer::HostUploadBridge bridge(m_buffers);
  ASSERT_TRUE(reloaded.update(bridge, 0.0)) << reloaded.message();
  EXPECT_EQ(reloaded.pipeline().config().grid.resolution.x,
            m_state->pipeline().config().grid.resolution.x);
  for (int i = 0; i < 2; ++i) {
    const ModelVoxels a = m_state->pipeline().download(i), b = reloaded.pipeline().download(i);
    EXPECT_EQ(a.keys, b.keys) << "model " << i;
    EXPECT_EQ(a.labels, b.labels) << "model " << i;
  }
}

TEST_F(ViewerStateTest, ZUpSetSceneMovesUpAndSavesAsTheSameFrame) {
  // The sphere and the torus as selection sets (all their parts) in a Z-up scene.
  Scene scene = scene_of_models(asset("sphere.obj"), asset("torus.obj"));
  scene.up    = UpAxis::Z;
  for (SceneModel& model : scene.models) {
    SceneFile file;
    file.path   = model.path;
    model.files = {file};
    model.parts = {"*"};
    model.path.clear();
  }
  viewer::SceneSettings settings;
  settings.points_per_model = 20000;
  settings.resolution       = 128;
  m_state                   = std::make_unique<AppState>(Backend::Cpu, settings, scene);
  run_frame();
  const std::vector<Float3> rest = points_of(m_state->pipeline(), 1);

  // One unit up the scene's z is one unit up the world's y (the screen's up).
  viewer::ModelPlacement placement;
  placement.translate = {0.0f, 0.0f, 1.0f};
  ASSERT_TRUE(m_state->set_placement(1, placement, true)) << m_state->message();
  run_frame();
  const std::vector<Float3> placed = points_of(m_state->pipeline(), 1);
  ASSERT_EQ(placed.size(), rest.size());
  for (std::size_t k = 0; k < rest.size(); k += 97) {
    EXPECT_NEAR(placed[k].x, rest[k].x, 1e-6) << k;
    EXPECT_NEAR(placed[k].y, rest[k].y + 1, 1e-6) << k;
    EXPECT_NEAR(placed[k].z, rest[k].z, 1e-6) << k;
  }

  const std::string file = (std::filesystem::temp_directory_path() /
                            ("voxhash_saved_sets_" + std::to_string(getpid()) + ".json"))
                               .string();
  ASSERT_TRUE(m_state->save_scene(file)) << m_state->message();
  const Scene saved = load_scene(file);
  std::filesystem::remove(file);
  EXPECT_EQ(saved.up, std::optional<UpAxis>(UpAxis::Z));
  ASSERT_TRUE(saved.models[1].is_set());
  EXPECT_EQ(saved.models[1].pose.translate.z, 1.0f);
  AppState reloaded(Backend::Cpu, viewer::SceneSettings{}, saved);
  viewer::HostUploadBridge bridge(m_buffers);
  ASSERT_TRUE(reloaded.update(bridge, 0.0)) << reloaded.message();
  for (int i = 0; i < 2; ++i) {
    const ModelVoxels a = m_state->pipeline().download(i), b = reloaded.pipeline().download(i);
    EXPECT_EQ(a.keys, b.keys) << "model " << i;
  }
}

TEST_F(ViewerStateTest, ClashListMatchesTheFrameOnDemandAndEveryNFrames) {
  run_frame_at(1.7);
  EXPECT_FALSE(m_state->clash().has_value());
  ASSERT_TRUE(m_state->compute_clash()) << m_state->message();
  ASSERT_TRUE(m_state->clash().has_value()) << "nothing changed: computed at once";
  const ClashReport& report = *m_state->clash();
  EXPECT_EQ(report.voxels, m_state->stats().model[0].intersection);
  ASSERT_GT(report.regions.size(), 0u);
  std::size_t voxels = 0;
  for (std::size_t r = 0; r < report.regions.size(); ++r) {
    voxels += report.regions[r].voxels;
    if (r > 0) {
      EXPECT_GE(report.regions[r - 1].voxels, report.regions[r].voxels);
    }
  }
  EXPECT_EQ(voxels, report.voxels);
  EXPECT_EQ(m_state->clash_time(), 1.7);

  // Every 2 frames: the report follows the animation.
  m_state->set_clash_interval(2);
  m_state->toggle_pause();
  ASSERT_TRUE(m_state->update(*m_bridge, 0.05));
  EXPECT_EQ(m_state->clash_time(), 1.7);
  ASSERT_TRUE(m_state->update(*m_bridge, 0.05));
  EXPECT_NEAR(m_state->clash_time(), 1.8, 1e-9);
  EXPECT_EQ(m_state->clash()->voxels, m_state->stats().model[0].intersection);

  // A change asks for the next frame's report.
  m_state->set_clash_interval(0);
  m_state->toggle_pause();
  m_state->set_time(1.5);
  ASSERT_TRUE(m_state->compute_clash());
  EXPECT_NEAR(m_state->clash_time(), 1.8, 1e-9) << "not from the stale frame";
  ASSERT_TRUE(m_state->update(*m_bridge, 0.0));
  EXPECT_EQ(m_state->clash_time(), 1.5);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST_F(ViewerStateTest, ClashStatusIsShownEditedAndSavedInTheClashCommandsFormat) {
  namespace fs       = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("voxhash_status_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "clashes.json").string();
  ASSERT_TRUE(m_state->open_clash_status(path)) << m_state->message();
  ASSERT_NE(m_state->clash_status(), nullptr);
  EXPECT_EQ(m_state->clash_status()->runs(), 0u) << "no file yet: an empty status";
  run_frame_at(1.7);
  ASSERT_TRUE(m_state->compute_clash()) << m_state->message();
  ASSERT_FALSE(m_state->clash()->clashes.empty());
  const std::string id                    = clash::id_text(m_state->clash()->clashes[0].id);
  std::optional<clash::StatusEntry> entry = m_state->clash_status()->find(id);
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->status, "new") << "the report merged in as the next run";
  EXPECT_TRUE(m_state->clash_status_unsaved());
  EXPECT_FALSE(fs::exists(path)) << "nothing written before a save or an edit";

  // An edit is written at once, in the file `voxhash clash --status` reads.
  ASSERT_TRUE(m_state->edit_clash_status(id, "reviewed", "ana", "the torus moves up"))
      << m_state->message();
  EXPECT_FALSE(m_state->clash_status_unsaved());
  const std::string written = read_text(path);
  entry                     = clash::ClashStatus::read(path).find(id);
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->status, "reviewed");
  EXPECT_EQ(entry->assignee, "ana");
  EXPECT_EQ(entry->comment, "the torus moves up");
  EXPECT_EQ(entry->first_run, 1u);
  // A bad edit is a message, and the file stays as it was.
  EXPECT_FALSE(m_state->edit_clash_status(id, "done", "", ""));
  EXPECT_NE(m_state->message().find("\"done\" is not one of new, active, reviewed, approved, "
                                    "resolved"),
            std::string::npos)
      << m_state->message();
  EXPECT_FALSE(m_state->edit_clash_status("0123456789abcdef", "approved", "", ""));
  EXPECT_NE(m_state->message().find("is not in the status file"), std::string::npos);
  EXPECT_EQ(read_text(path), written);

  // The models apart: the clash is resolved in the next run, what the person wrote kept.
  run_frame_at(0.0);
  ASSERT_TRUE(m_state->compute_clash()) << m_state->message();
  ASSERT_TRUE(m_state->clash()->clashes.empty()) << "the swing starts apart";
  EXPECT_EQ(m_state->clash_status()->find(id)->status, "resolved");
  ASSERT_TRUE(m_state->save_clash_status()) << m_state->message();
  const clash::ClashStatus saved = clash::ClashStatus::read(path);
  EXPECT_EQ(saved.runs(), 2u);
  EXPECT_EQ(saved.find(id)->status, "resolved");
  EXPECT_EQ(saved.find(id)->resolved_run, 2u);
  EXPECT_EQ(saved.find(id)->comment, "the torus moves up");

  // A file that is not a status file: a message; the open one stays.
  const std::string bad = (dir / "bad.json").string();
  std::ofstream(bad) << "{\"schema\": \"other\"}";
  EXPECT_FALSE(m_state->open_clash_status(bad));
  EXPECT_NE(m_state->message().find(bad + ": not a clash status file"), std::string::npos)
      << m_state->message();
  EXPECT_EQ(m_state->clash_status_path(), path);
  fs::remove_all(dir);
}

TEST_F(ViewerStateTest, DroppedFilesLoadAsModelsAndErrorsStayBesideTheModel) {
  const auto session                 = static_session();
  viewer::AppState& state            = session->state();
  session->controls().selected_model = 1;
  session->drop({"/nonexistent/dropped.stl"});
  EXPECT_NE(state.model_error(1).find("/nonexistent/dropped.stl"), std::string::npos)
      << state.model_error(1);
  EXPECT_EQ(state.model_error(0), "");
  EXPECT_EQ(state.models()[1].path, asset("torus.obj"));

  session->drop({asset("torus.obj")});
  EXPECT_EQ(state.model_error(1), "") << "a good load clears the error";
  session->drop({asset("torus.obj"), asset("sphere.obj")});
  EXPECT_EQ(state.models()[0].path, asset("torus.obj"));
  EXPECT_EQ(state.models()[1].path, asset("sphere.obj"));
}

TEST_F(ViewerStateTest, MeshesReadAsPointsAndALoadedFileDropsAsMesh) {
  Scene scene        = scene_of_models(asset("sphere.obj"), asset("torus.obj"));
  scene.models[0].as = ModelAs::Points;
  scene.models[1].as = ModelAs::Mesh;
  viewer::SceneSettings settings;
  settings.points_per_model = 20000;
  settings.resolution       = 64;
  AppState state(Backend::Cpu, settings, scene);
  EXPECT_EQ(state.models()[0].triangles, 0u) << "the sphere as points";
  EXPECT_EQ(state.models()[0].points, 20000u);
  EXPECT_GT(state.models()[1].triangles, 0u) << "the torus as a mesh";

  // A point cloud loaded over the "mesh" model: "as" was about the previous file.
  const std::string cloud = (std::filesystem::path(::testing::TempDir()) /
                             ("voxhash_as_" + std::to_string(getpid()) + ".xyz"))
                                .string();
  std::ofstream(cloud) << "0 0 0\n0.5 0 0\n0 0.5 0\n0 0 0.5\n";
  EXPECT_TRUE(state.load_model(1, cloud)) << state.message();
  EXPECT_EQ(state.models()[1].triangles, 0u);
  EXPECT_TRUE(state.load_model(1, asset("torus.obj"))) << state.message();
  EXPECT_GT(state.models()[1].triangles, 0u) << "a mesh file is a mesh again";
  std::filesystem::remove(cloud);
}

TEST_F(ViewerStateTest, MouseDragMovesTheSelectedModelAndReleaseFitsTheGrid) {
  const auto session = static_session();
  session->frame(0.0, kWidth, kHeight);
  const float before_x           = session->state().placement(0).translate.x;
  const float grid_max           = session->state().pipeline().config().grid.bounds.max.x;
  session->controls().mouse_mode = viewer::MouseMode::Translate;
  viewer::WindowInput drag;
  drag.left = true;
  drag.dx   = 200;  // to the right: +x seen from the default view
  session->handle_mouse(drag, kHeight);
  session->handle_mouse(drag, kHeight);
  EXPECT_GT(session->state().placement(0).translate.x, before_x + 0.5f);
  EXPECT_EQ(session->state().placement(1).translate.x, 0.0f) << "only the selected model";
  EXPECT_EQ(session->state().pipeline().config().grid.bounds.max.x, grid_max)
      << "not while dragging";
  session->handle_mouse(viewer::WindowInput{}, kHeight);  // released
  EXPECT_GT(session->state().pipeline().config().grid.bounds.max.x, grid_max + 0.5f);

  session->controls().mouse_mode = viewer::MouseMode::Rotate;
  drag.dx                        = 60;  // half a degree a pixel, about y
  session->handle_mouse(drag, kHeight);
  EXPECT_NEAR(session->state().placement(0).rotate_degrees.y, 30.0f, 1e-3);
}

TEST_F(ViewerStateTest, FitViewShowsBothPlacedModels) {
  const auto session = static_session();
  viewer::ModelPlacement far;
  far.translate = {6.0f, -2.0f, 1.0f};
  ASSERT_TRUE(session->state().set_placement(1, far, true)) << session->state().message();
  session->fit_view();
  const Bounds box = session->state().view_bounds();
  EXPECT_GT(box.max.x, 6.5f) << "model B where it was placed";
  EXPECT_LT(box.min.x, -0.5f) << "and model A";
  for (int corner = 0; corner < 8; ++corner) {
    const glm::vec3 p(corner & 1 ? box.max.x : box.min.x,
                      corner & 2 ? box.max.y : box.min.y,
                      corner & 4 ? box.max.z : box.min.z);
    const glm::vec4 q = session->camera().view_proj(1.6f) * glm::vec4(p, 1.0f);
    EXPECT_LT(std::abs(q.x / q.w), 1.0f) << corner;
    EXPECT_LT(std::abs(q.y / q.w), 1.0f) << corner;
  }
}

TEST_F(ViewerStateTest, FocusFramesAClashRegionInTheMiddleOfTheView) {
  run_frame_at(1.7);
  ASSERT_TRUE(m_state->compute_clash());
  const ClashRegion& region = m_state->clash()->regions.front();
  viewer::OrbitCamera camera;
  camera.frame(m_state->pipeline().config().grid.bounds);
  camera.focus(region.bounds);
  const glm::vec3 c((region.bounds.min.x + region.bounds.max.x) / 2,
                    (region.bounds.min.y + region.bounds.max.y) / 2,
                    (region.bounds.min.z + region.bounds.max.z) / 2);
  const glm::vec4 clip = camera.view_proj(1.5f) * glm::vec4(c, 1.0f);
  EXPECT_NEAR(clip.x / clip.w, 0.0f, 1e-4);
  EXPECT_NEAR(clip.y / clip.w, 0.0f, 1e-4);
  for (int corner = 0; corner < 8; ++corner) {
    const glm::vec3 p(corner & 1 ? region.bounds.max.x : region.bounds.min.x,
                      corner & 2 ? region.bounds.max.y : region.bounds.min.y,
                      corner & 4 ? region.bounds.max.z : region.bounds.min.z);
    const glm::vec4 q = camera.view_proj(1.5f) * glm::vec4(p, 1.0f);
    EXPECT_LT(std::abs(q.x / q.w), 1.0f) << "the region fits in the view";
    EXPECT_LT(std::abs(q.y / q.w), 1.0f);
  }
}

/// Device limits of the order of an H100's (docs/BENCHMARKS.md), a 32 MiB L2 table: test inputs.
DeviceLimits h100_limits() {
  DeviceLimits limits;
  limits.read4_dram   = 33.0;
  limits.read8_dram   = 32.2;
  limits.read4_l2     = 120.0;
  limits.read8_l2     = 100.0;
  limits.exch8_dram   = 13.4;
  limits.exch8_l2     = 40.0;
  limits.sort_pairs   = 30.6;
  limits.l2_table_mib = 32;
  return limits;
}

TEST(Gauges, EachRateIsHeldAgainstTheBoundThatLimitsIt) {
  const DeviceLimits limits  = h100_limits();
  constexpr std::size_t kMiB = 1 << 20;
  // HashGraph builds sort pairs: their bound is the sort, not the exchange (which a V2 build
  // outruns).
  for (const TableKind kind : {TableKind::HashGraphV1, TableKind::HashGraphV2}) {
    const viewer::RateBound b = viewer::build_bound(limits, kind, 100 * kMiB);
    EXPECT_EQ(b.limit, 30.6);
    EXPECT_NE(b.name.find("sort"), std::string::npos) << b.name;
  }
  EXPECT_EQ(viewer::build_bound(limits, TableKind::Cuckoo, 8 * kMiB).limit, 40.0);
  EXPECT_EQ(viewer::build_bound(limits, TableKind::Cuckoo, 8 * kMiB).name,
            "random 64-bit exchanges, L2");
  EXPECT_EQ(viewer::build_bound(limits, TableKind::Cuckoo, 200 * kMiB).limit, 13.4);
  // Probes: the slot size, where the table lives.
  EXPECT_EQ(viewer::probe_bound(limits, TableKind::Cuckoo, 8 * kMiB, 20e9).limit, 100.0);
  EXPECT_EQ(viewer::probe_bound(limits, TableKind::HashGraphV2, 8 * kMiB, 20e9).limit, 120.0);
  EXPECT_EQ(viewer::probe_bound(limits, TableKind::Cuckoo, 200 * kMiB, 20e9).name,
            "random 8-byte reads, DRAM");
  // 2 x 8M voxels probed at 100 G/s, far past the DRAM bound: the keys are coherent, the cache
  // serves them: the L2 bound.
  const viewer::RateBound coherent =
      viewer::probe_bound(limits, TableKind::HashGraphV2, 200 * kMiB, 100e9);
  EXPECT_EQ(coherent.limit, 120.0);
  EXPECT_NE(coherent.name.find("L2"), std::string::npos);
  EXPECT_LE(100e9 * 1e-9 / coherent.limit, 1.0);
  EXPECT_EQ(viewer::bound_text(20e9, {40.0, "random 64-bit exchanges, L2"}),
            "50.0 % of random 64-bit exchanges, L2 (40 G/s)");
  EXPECT_EQ(viewer::frame_table_bytes(TableKind::Cuckoo, 1000, 1.25, 1), 10000u);
}

TEST_F(ViewerStateTest, OverlaySaysAlgorithmBackendTransferAndPause) {
  run_frame_at(0.5);  // leaves it paused
  viewer::ViewControls controls;
  viewer::PanelInfo info;
  info.backend                   = "cpu";
  info.transfer                  = "host upload (CPU backend)";
  std::vector<std::string> lines = viewer::overlay_lines(*m_state, controls, info, 20.0);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0].rfind("50.0 FPS (20.0 ms)", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1], "algorithm: cuckoo");
  EXPECT_EQ(lines[2], "backend: cpu, transfer: host upload (CPU backend)");
  EXPECT_EQ(lines[3], "PAUSED at t = 0.50 s");
  m_state->toggle_pause();
  m_state->set_algorithm(TableKind::HashGraphV2);
  controls.mouse_mode     = viewer::MouseMode::Translate;
  controls.selected_model = 1;
  lines                   = viewer::overlay_lines(*m_state, controls, info, 20.0);
  EXPECT_EQ(lines[1], "algorithm: hashgraph-v2");
  EXPECT_EQ(lines[3], "running at t = 0.50 s");
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[4], "mouse: moves model B (M: camera)");
}

// Every tab's content fits a 1280 x 800 window without scrolling (with the device limits
// measured, so that the rates show their gauges).
TEST_F(ViewerStateTest, EveryPanelTabFitsA1280x800Window) {
  viewer::ViewerOptions options;
  options.scene      = scene_of_models(asset("sphere.obj"), asset("torus.obj"));
  options.points     = 20000;
  options.resolution = 128;
  options.width      = 1280;
  options.height     = 800;
  // The clash tab with a status file open (its status column and editor) fits too.
  const std::string status = std::filesystem::temp_directory_path() /
                             ("voxhash_fit_status_" + std::to_string(getpid()) + ".json");
  options.status_path = status;
  {
    viewer::ViewerSession session(options, nullptr);
    const viewer::OffscreenFramebuffer target(1280, 800);
    session.state().set_clash_interval(1);
    for (int tab = 0; tab < 5; ++tab) {
      session.panel().open_tab(static_cast<viewer::PanelTab>(tab));
      for (int frame = 0; frame < 3; ++frame)
        session.frame(1.0 / 60, 1280, 800);
      EXPECT_EQ(session.panel().overflow(), 0.0f) << viewer::kPanelTabNames[tab];
    }
  }
  std::filesystem::remove(status);
  // The measurement sees a panel that does not fit: 1280 x 400.
  viewer::ViewerSession small(options, nullptr);
  const viewer::OffscreenFramebuffer target(1280, 400);
  small.panel().open_tab(viewer::PanelTab::Stats);
  for (int frame = 0; frame < 3; ++frame)
    small.frame(1.0 / 60, 1280, 400);
  EXPECT_GT(small.panel().overflow(), 100.0f);
}

}  // namespace
}  // namespace voxhash::test
