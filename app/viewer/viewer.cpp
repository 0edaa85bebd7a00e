// viewer::run: the one frame loop, over either kind of GlContext. Mouse: left drag orbits (or moves
// / turns the selected model in a placement mode), right / middle drag pans, wheel zooms; files
// dropped on the window load as models. Keys: Space pause, N step, R reset, F fit view, M mouse
// mode (camera / translate / rotate), Tab selected model, V vsync, H panel, O overlay, F12
// screenshot, F11 voxel export, 1, 2, ... algorithm (kTableKinds' order), Esc. With --frames N: N
// fixed 1/60 s steps, then the screenshot, the voxel export and the --timing summary, with
// progress on stderr meanwhile.
#include "progress/progress.hpp"
#include "viewer/context.hpp"
#include "viewer/gl.hpp"
#include "viewer/render_buffer.hpp"
#include "viewer/viewer.hpp"
#include "viewer/viewer_session.hpp"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace voxhash::viewer {
namespace {

/// --timing: one line per frame with the transfer path's step times and the draw, then medians,
/// so that one device run reports CUDA-GL interop (map / unmap) beside plain device buffers.
class TimingLog {
 public:
  TimingLog(std::string path_name, int frames) : m_name(std::move(path_name)) {
    m_times.reserve(frames);
    m_draw.reserve(frames);
  }

  /// Prints the frame's line to stdout and keeps it for the summary.
  void record(int frame, const TransferTimes& t, double draw_ms) {
    m_times.push_back(t);
    m_draw.push_back(draw_ms);
    std::printf(
        "timing [%s] frame %d: map %.3f ms, pipeline %.3f ms, instances %.3f ms, unmap %.3f ms, "
        "upload %.3f ms, draw %.3f ms\n",
        m_name.c_str(),
        frame,
        t.map,
        t.pipeline,
        t.instances,
        t.unmap,
        t.upload,
        draw_ms);
  }

  /// Prints the medians over the recorded frames.
  void print_summary() const {
    auto column = [&](auto of_frame) {
      std::vector<double> values;
      values.reserve(m_times.size());
      for (const TransferTimes& t : m_times)
        values.push_back(of_frame(t));
      return median(std::move(values));
    };
    auto field = [&](double TransferTimes::*member) {
      return column([member](const TransferTimes& t) { return t.*member; });
    };
    std::printf(
        "timing [%s] median of %zu frames: map %.3f ms, pipeline %.3f ms, instances %.3f ms, "
        "unmap %.3f ms, upload %.3f ms, draw %.3f ms; map + unmap %.3f ms\n",
        m_name.c_str(),
        m_times.size(),
        field(&TransferTimes::map),
        field(&TransferTimes::pipeline),
        field(&TransferTimes::instances),
        field(&TransferTimes::unmap),
        field(&TransferTimes::upload),
        median(m_draw),
        column([](const TransferTimes& t) { return t.map + t.unmap; }));
    std::fflush(stdout);
  }

 private:
  static double median(std::vector<double> values) {
    if (values.empty()) return 0;
    const auto middle = values.begin() + values.size() / 2;
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
  }

  std::string m_name;
  std::vector<TransferTimes> m_times;
  std::vector<double> m_draw;
};

/// What the loop does besides drawing, asked for by keys.
struct KeyRequests {
  bool screenshot = false;
  bool quit       = false;
};

void apply_key(int key, ViewerSession& session, KeyRequests& requests) {
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
    case GLFW_KEY_F:
      session.fit_view();
      break;
    case GLFW_KEY_M: {
      MouseMode& mode = session.controls().mouse_mode;
      mode            = mode == MouseMode::Camera      ? MouseMode::Translate
                        : mode == MouseMode::Translate ? MouseMode::Rotate
                                                       : MouseMode::Camera;
      break;
    }
    case GLFW_KEY_TAB:
      session.controls().selected_model = 1 - session.controls().selected_model;
      break;
    case GLFW_KEY_V:
      session.controls().vsync = !session.controls().vsync;
      break;
    case GLFW_KEY_H:
      session.controls().show_panel = !session.controls().show_panel;
      break;
    case GLFW_KEY_O:
      session.controls().show_overlay = !session.controls().show_overlay;
      break;
    case GLFW_KEY_ESCAPE:
      requests.quit = true;
      break;
    default:
      // 1, 2, ...: the frame algorithms in kTableKinds' order.
      if (key >= GLFW_KEY_1 && key - GLFW_KEY_1 < static_cast<int>(kTableKinds.size()))
        state.set_algorithm(kTableKinds[key - GLFW_KEY_1]);
      break;
  }
}

KeyRequests apply_input(const WindowInput& input, ViewerSession& session, int height) {
  session.handle_mouse(input, height);
  session.drop(input.dropped);
  KeyRequests requests;
  for (int k = 0; k < input.key_count; ++k) {
    // F12 and F11 work even while a text field has the keyboard.
    if (input.keys[k] == GLFW_KEY_F12) {
      requests.screenshot = true;
    } else if (input.keys[k] == GLFW_KEY_F11) {
      session.export_voxels(voxels_file_name());
    } else if (!session.ui_wants_keyboard()) {
      apply_key(input.keys[k], session, requests);
    }
  }
  return requests;
}

/// Runs the session's scene through plain device buffers (no GL) for `frames` frames.
void time_plain_device(ViewerSession& session, int frames) {
  const auto bridge = make_plain_device_bridge(true);
  TimingLog log(std::string(bridge->name()), frames);
  for (int frame = 0; frame < frames; ++frame) {
    session.state().update(*bridge, AppState::kStep);
    log.record(frame, bridge->times(), 0.0);
  }
  log.print_summary();
}

/// After the last of --frames N: the timing summary, then the outputs. The exit code.
int finish(const ViewerOptions& options,
           ViewerSession& session,
           const TimingLog& timing,
           int width,
           int height) {
  glFinish();
  if (options.timing) timing.print_summary();
  for (const std::string& warning : session.state().scene_warnings())
    std::fprintf(stderr, "voxhash: warning: %s\n", warning.c_str());
  for (const std::string& warning : session.state().grid_warnings()) {
    if (!warning.empty()) std::fprintf(stderr, "voxhash: warning: %s\n", warning.c_str());
  }
  if (session.state().message_is_error()) {
    std::fprintf(stderr, "voxhash: error: %s\n", session.state().message().c_str());
    return 1;
  }
  if (!options.screenshot.empty()) {
    if (!session.save_screenshot(options.screenshot, width, height)) {
      // The reason, as the panel shows it ("<path>: cannot write it: No space left on device").
      std::fprintf(stderr, "voxhash: error: %s\n", session.panel().output_status().c_str());
      return 1;
    }
    std::printf("voxhash: wrote %s after %d frames\n", options.screenshot.c_str(), *options.frames);
  }
  if (!options.export_path.empty()) {
    if (!session.export_voxels(options.export_path)) {
      std::fprintf(stderr, "voxhash: error: %s\n", session.panel().output_status().c_str());
      return 1;
    }
    std::printf(
        "voxhash: wrote %s after %d frames\n", options.export_path.c_str(), *options.frames);
  }
  if (options.timing && options.backend == Backend::Cuda) {
    time_plain_device(session, *options.frames);
  }
  return 0;
}

}  // namespace

int run(const ViewerOptions& options) {
  const std::unique_ptr<GlContext> context =
      options.offscreen ? make_offscreen_context(options.width, options.height)
                        : make_window_context(options.width, options.height, "voxhash");
  context->make_current();
  ViewerSession session(options, context->window());
  std::printf("voxhash viewer (%s): %s; %s; transfer: %s\n",
              context->describe().c_str(),
              session.info().device.c_str(),
              session.info().gl.c_str(),
              session.info().transfer.c_str());
  TimingLog timing(std::string(session.bridge().name()),
                   options.timing ? options.frames.value_or(0) : 0);

  std::optional<Progress> progress;  // --frames N: how far the run is (stderr)
  if (options.frames)
    progress.emplace("[view] frames", static_cast<std::uint64_t>(*options.frames));
  LapClock clock;
  for (int frame = 0; !context->should_close();) {
    const WindowInput input    = context->poll();
    const auto [width, height] = context->framebuffer_size();
    const KeyRequests requests = apply_input(input, session, height);
    if (requests.quit) break;
    // Wall time drives the animation, capped so that a stall (start-up, a dragged window) does not
    // make it jump.
    const double wall_dt = std::min(clock.lap() * 1e-3, 0.1);
    if (width == 0 || height == 0) continue;
    session.frame(options.frames ? AppState::kStep : wall_dt, width, height);
    if (options.timing) timing.record(frame, session.bridge().times(), session.draw_ms());
    ++frame;
    if (progress) progress->update(static_cast<std::uint64_t>(frame));
    if (requests.screenshot || session.take_screenshot_request()) {
      session.save_screenshot(screenshot_file_name(), width, height);
    }
    if (options.frames && frame == *options.frames) {
      progress->finish();
      return finish(options, session, timing, width, height);
    }
    context->swap(session.controls().vsync);
  }
  if (options.frames && session.state().message_is_error()) {
    std::fprintf(stderr, "voxhash: error: %s\n", session.state().message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace voxhash::viewer
