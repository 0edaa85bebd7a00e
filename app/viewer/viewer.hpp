// The desktop viewer (GLFW + OpenGL 4.5 + ImGui), and its offscreen EGL twin.
#pragma once

namespace voxhash::viewer {

/// Parses the viewer's command line and runs it. Returns the process exit code.
int run(int argc, char** argv);

}  // namespace voxhash::viewer
