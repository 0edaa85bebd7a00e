// run_offscreen: N fixed-step frames into an offscreen framebuffer on an EGL device context (the
// same session, renderer and interop as the window), then the screenshot and the voxel export,
// and with --timing the same number of frames into plain device buffers for comparison.
#include "viewer/egl_context.hpp"
#include "viewer/frame_timing.hpp"
#include "viewer/front_ends.hpp"
#include "viewer/gl.hpp"
#include "viewer/viewer_session.hpp"

#include <cstdio>
#include <string>

namespace voxhash::viewer {
namespace {

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

}  // namespace

int run_offscreen(const ViewerOptions& options, Backend backend) {
  const EglContext context;
  const OffscreenFramebuffer target(options.width, options.height);
  ViewerSession session(options, backend, nullptr);
  std::printf("voxhash viewer (offscreen, %s): %s; %s; transfer: %s\n",
              context.device_description().c_str(),
              session.info().device.c_str(),
              session.info().gl.c_str(),
              session.info().transfer.c_str());

  const int frames = *options.frames;
  TimingLog timing(std::string(session.bridge().name()), options.timing ? frames : 0);
  for (int frame = 0; frame < frames; ++frame) {
    session.frame(AppState::kStep, options.width, options.height);
    if (options.timing) timing.record(frame, session.bridge().times(), session.draw_ms());
  }
  glFinish();
  if (options.timing) timing.print_summary();
  if (session.state().message_is_error()) {
    std::fprintf(stderr, "voxhash: error: %s\n", session.state().message().c_str());
    return 1;
  }
  if (!options.screenshot.empty()) {
    if (!session.save_screenshot(options.screenshot, options.width, options.height)) {
      std::fprintf(
          stderr, "voxhash: error: cannot write screenshot '%s'\n", options.screenshot.c_str());
      return 1;
    }
    std::printf("voxhash: wrote %s after %d frames\n", options.screenshot.c_str(), frames);
  }
  if (!options.export_path.empty()) {
    if (!session.export_voxels(options.export_path)) {
      std::fprintf(
          stderr, "voxhash: error: cannot write voxels '%s'\n", options.export_path.c_str());
      return 1;
    }
    std::printf("voxhash: wrote %s after %d frames\n", options.export_path.c_str(), frames);
  }
  if (options.timing && backend == Backend::Cuda) time_plain_device(session, frames);
  return 0;
}

}  // namespace voxhash::viewer
