// run_windowed: the GLFW loop. Mouse: left drag orbits, right / middle drag pans, wheel zooms.
// Keys: Space pause, N step, R reset, V vsync, H panel, F12 screenshot, F11 voxel export,
// 1/2/3 algorithm, Esc.
#include "viewer/frame_timing.hpp"
#include "viewer/front_ends.hpp"
#include "viewer/screenshot.hpp"
#include "viewer/stopwatch.hpp"
#include "viewer/viewer_session.hpp"
#include "viewer/voxel_export.hpp"
#include "viewer/window.hpp"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace voxhash::viewer {
namespace {

void apply_key(int key, GlfwWindow& window, ViewerSession& session) {
  AppState& state = session.state();
  switch (key) {
    case GLFW_KEY_SPACE:
      state.toggle_pause();
      break;
    case GLFW_KEY_N:
      state.request_step();
      break;
    case GLFW_KEY_R:
      session.reset();
      break;
    case GLFW_KEY_V:
      session.controls().vsync = !session.controls().vsync;
      break;
    case GLFW_KEY_H:
      session.controls().show_panel = !session.controls().show_panel;
      break;
    case GLFW_KEY_1:
      state.set_algorithm(TableKind::Cuckoo);
      break;
    case GLFW_KEY_2:
      state.set_algorithm(TableKind::HashGraphV1);
      break;
    case GLFW_KEY_3:
      state.set_algorithm(TableKind::HashGraphV2);
      break;
    case GLFW_KEY_ESCAPE:
      window.close();
      break;
    default:
      break;
  }
}

void apply_input(const WindowInput& input,
                 GlfwWindow& window,
                 ViewerSession& session,
                 int height,
                 bool& screenshot) {
  OrbitCamera& camera = session.camera();
  if (!session.ui_wants_mouse()) {
    if (input.left) camera.orbit(input.dx, input.dy);
    if (input.right_or_middle) camera.pan(input.dx, input.dy, static_cast<float>(height));
    if (input.scroll != 0) camera.zoom(input.scroll);
  }
  for (int k = 0; k < input.key_count; ++k) {
    // F12 and F11 work even while a text field has the keyboard.
    if (input.keys[k] == GLFW_KEY_F12) {
      screenshot = true;
    } else if (input.keys[k] == GLFW_KEY_F11) {
      session.export_voxels(voxels_file_name());
    } else if (!session.ui_wants_keyboard()) {
      apply_key(input.keys[k], window, session);
    }
  }
}

}  // namespace

int run_windowed(const ViewerOptions& options, Backend backend) {
  GlfwWindow window(options.width, options.height, "voxhash");
  ViewerSession session(options, backend, window.handle());
  std::printf("voxhash viewer: %s; %s; transfer: %s\n",
              session.info().device.c_str(),
              session.info().gl.c_str(),
              session.info().transfer.c_str());
  bool vsync = session.controls().vsync;
  window.set_vsync(vsync);
  TimingLog timing(std::string(session.bridge().name()),
                   options.timing ? options.frames.value_or(0) : 0);

  Stopwatch clock;
  for (int frame = 0; !window.should_close();) {
    window.poll();
    const auto [width, height] = window.framebuffer_size();
    bool screenshot            = false;
    apply_input(window.take_input(), window, session, height, screenshot);
    // Wall time drives the animation, capped so that a stall (start-up, a dragged window) does not
    // make it jump.
    const double wall_dt = std::min(clock.lap() * 1e-3, 0.1);
    if (width == 0 || height == 0) {
      window.wait_events();
      continue;
    }
    session.frame(options.frames ? AppState::kStep : wall_dt, width, height);
    if (options.timing) timing.record(frame, session.bridge().times(), session.draw_ms());
    ++frame;
    if (screenshot || session.take_screenshot_request()) {
      session.save_screenshot(screenshot_file_name(), width, height);
    }
    if (vsync != session.controls().vsync) {
      vsync = session.controls().vsync;
      window.set_vsync(vsync);
    }
    if (options.frames && frame == *options.frames) {
      if (options.timing) timing.print_summary();
      if (!options.screenshot.empty() &&
          !session.save_screenshot(options.screenshot, width, height)) {
        std::fprintf(
            stderr, "voxhash: error: cannot write screenshot '%s'\n", options.screenshot.c_str());
        return 1;
      }
      if (!options.export_path.empty() && !session.export_voxels(options.export_path)) {
        std::fprintf(
            stderr, "voxhash: error: cannot write voxels '%s'\n", options.export_path.c_str());
        return 1;
      }
      break;
    }
    window.swap();
  }
  if (session.state().message_is_error() && options.frames) {
    std::fprintf(stderr, "voxhash: error: %s\n", session.state().message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace voxhash::viewer
