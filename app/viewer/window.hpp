// The desktop window: GLFW 3.3 with an OpenGL 4.5 core context (GLAD loaded), vsync, and the
// input the viewer reads each frame (mouse drag and buttons, scroll, key presses).
#pragma once

#include <array>
#include <utility>

struct GLFWwindow;

namespace voxhash::viewer {

/// Input gathered since the previous take_input().
struct WindowInput {
  float dx = 0, dy = 0;          // cursor motion in pixels
  bool left            = false;  // buttons held now
  bool right_or_middle = false;
  float scroll         = 0;    // wheel steps
  std::array<int, 16> keys{};  // GLFW key codes pressed, key_count of them
  int key_count = 0;
};

class GlfwWindow {
 public:
  /// Opens the window and makes its context current. Throws voxhash::Error with one line: no
  /// display (suggesting --offscreen or `voxhash bench`), or no OpenGL 4.5 core context.
  GlfwWindow(int width, int height, const char* title);
  GlfwWindow(const GlfwWindow&)            = delete;
  GlfwWindow& operator=(const GlfwWindow&) = delete;
  ~GlfwWindow();

  [[nodiscard]] GLFWwindow* handle() const { return m_window; }
  [[nodiscard]] bool should_close() const;
  void close();
  void poll();
  /// Sleeps until an event arrives (at most 0.1 s), e.g. while minimized.
  void wait_events();
  void swap();
  void set_vsync(bool on);
  /// Framebuffer size in pixels (0 x 0 while minimized).
  [[nodiscard]] std::pair<int, int> framebuffer_size() const;
  [[nodiscard]] WindowInput take_input();

 private:
  static void on_scroll(GLFWwindow* window, double dx, double dy);
  static void on_key(GLFWwindow* window, int key, int scancode, int action, int mods);

  GLFWwindow* m_window = nullptr;
  WindowInput m_input;
  double m_cursor_x = 0, m_cursor_y = 0;
};

}  // namespace voxhash::viewer
