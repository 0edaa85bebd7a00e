// The viewer's two front ends: a GLFW window, or an offscreen EGL context writing PNG frames and
// PLY voxel exports. Each owns its context and drives a ViewerSession; both return the process
// exit code.
#pragma once

#include "viewer/options.hpp"

#include <voxhash/backend.hpp>

namespace voxhash::viewer {

/// The interactive window (with --frames N: N fixed steps, then exit).
int run_windowed(const ViewerOptions& options, Backend backend);

/// --offscreen: N frames on an EGL device; screenshot, voxel export and --timing report at the end.
/// `voxhash bench frame --render` runs it too.
int run_offscreen(const ViewerOptions& options, Backend backend);

}  // namespace voxhash::viewer
