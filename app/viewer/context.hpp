// The viewer's two kinds of OpenGL 4.5 context behind one small interface (polyscope picks a real
// or an EGL backend by name the same way): a GLFW window with input, or an EGL device context
// drawing into an offscreen framebuffer (GPU servers, no display). The frame loop sees only this.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

struct GLFWwindow;

namespace voxhash::viewer {

/// Input gathered since the previous poll().
struct WindowInput {
  float dx = 0, dy = 0;          // cursor motion in pixels
  bool left            = false;  // buttons held now
  bool right_or_middle = false;
  float scroll         = 0;      // wheel steps
  bool ctrl            = false;  // a Control key is held now
  std::array<int, 16> keys{};    // GLFW key codes pressed, key_count of them
  int key_count = 0;
  std::vector<std::string> dropped;  // files dropped onto the window (GLFW's drop callback)
};

class GlContext {
 public:
  virtual ~GlContext() = default;

  /// What renders ("window", "offscreen, EGL 1.5 device 0 of 1 (CUDA device)").
  [[nodiscard]] virtual std::string describe() const = 0;
  /// Makes the context (and its framebuffer) current on this thread.
  virtual void make_current() = 0;
  /// Framebuffer size in pixels (0 x 0 while a window is minimized).
  [[nodiscard]] virtual std::pair<int, int> framebuffer_size() const = 0;
  /// Processes window events (waiting up to 0.1 s for one while minimized) and returns the input
  /// since the last call; offscreen there is none.
  [[nodiscard]] virtual WindowInput poll() = 0;
  /// Shows the frame just drawn (a window swaps buffers with the vsync asked for; offscreen the
  /// framebuffer keeps it to be read).
  virtual void swap(bool vsync) = 0;
  /// The user closed the window.
  [[nodiscard]] virtual bool should_close() const = 0;
  /// The GLFW window, for the panel's input; null offscreen.
  [[nodiscard]] virtual GLFWwindow* window() const = 0;
};

/// Opens a `width` x `height` window and makes its context current with GL loaded. Throws
/// voxhash::Error with one line: no display (suggesting --offscreen or `voxhash bench`), or no
/// OpenGL 4.5 core context.
[[nodiscard]] std::unique_ptr<GlContext> make_window_context(int width,
                                                             int height,
                                                             const char* title);

/// An EGL device-platform context (no window system: eglQueryDevicesEXT ->
/// eglGetPlatformDisplayEXT -> a surfaceless context, or a 1x1 pbuffer) preferring a device that
/// CUDA can share buffers with, current with GL loaded and a `width` x `height` RGBA8 + depth
/// framebuffer bound. Throws voxhash::Error naming what is missing (no EGL, device, 4.5 context).
[[nodiscard]] std::unique_ptr<GlContext> make_offscreen_context(int width, int height);

}  // namespace voxhash::viewer
