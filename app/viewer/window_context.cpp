// The window kind of GlContext: GLFW 3.3 initialised with clear failures, a 4.5 core context, and
// the input the frame loop reads. Scroll and key callbacks are installed before ImGui's GLFW
// backend, which chains to them; the drop callback (files dragged onto the window) is ours alone.
#include "viewer/context.hpp"
#include "viewer/gl.hpp"

#include <voxhash/error.hpp>

#include <GLFW/glfw3.h>

#include <string>

namespace voxhash::viewer {
namespace {

std::string g_glfw_error;  // the last message GLFW reported

void on_glfw_error(int, const char* description) {
  g_glfw_error = description;
}

class WindowContext final : public GlContext {
 public:
  WindowContext(int width, int height, const char* title) {
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
      throw Error("no display (" + g_glfw_error +
                  "): run `voxhash --offscreen --frames N --screenshot FILE` to render without a "
                  "window, or `voxhash bench` for the headless benchmarks");
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    m_window = glfwCreateWindow(width, height, title, nullptr, nullptr);
    if (!m_window) {
      glfwTerminate();
      throw Error("cannot open a window with an OpenGL 4.5 core context (" + g_glfw_error +
                  "): the viewer needs OpenGL 4.5; try --offscreen on a GPU server");
    }
    glfwMakeContextCurrent(m_window);
    try {
      load_gl(glfwGetProcAddress);
    } catch (...) {
      glfwDestroyWindow(m_window);
      glfwTerminate();
      throw;
    }
    glfwSwapInterval(m_vsync ? 1 : 0);
    glfwSetWindowUserPointer(m_window, this);
    glfwSetScrollCallback(m_window, on_scroll);
    glfwSetKeyCallback(m_window, on_key);
    glfwSetDropCallback(m_window, on_drop);
    glfwGetCursorPos(m_window, &m_cursor_x, &m_cursor_y);
  }
  WindowContext(const WindowContext&)            = delete;
  WindowContext& operator=(const WindowContext&) = delete;
  ~WindowContext() override {
    glfwDestroyWindow(m_window);
    glfwTerminate();
  }

  [[nodiscard]] std::string describe() const override { return "window"; }
  void make_current() override { glfwMakeContextCurrent(m_window); }

  [[nodiscard]] std::pair<int, int> framebuffer_size() const override {
    int width = 0, height = 0;
    glfwGetFramebufferSize(m_window, &width, &height);
    return {width, height};
  }

  [[nodiscard]] WindowInput poll() override {
    const auto [width, height] = framebuffer_size();
    if (width == 0 || height == 0) {
      glfwWaitEventsTimeout(0.1);
    } else {
      glfwPollEvents();
    }
    double x = 0, y = 0;
    glfwGetCursorPos(m_window, &x, &y);
    m_input.dx              = static_cast<float>(x - m_cursor_x);
    m_input.dy              = static_cast<float>(y - m_cursor_y);
    m_cursor_x              = x;
    m_cursor_y              = y;
    m_input.left            = glfwGetMouseButton(m_window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
    m_input.right_or_middle = glfwGetMouseButton(m_window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS ||
                              glfwGetMouseButton(m_window, GLFW_MOUSE_BUTTON_MIDDLE) == GLFW_PRESS;
    m_input.ctrl = glfwGetKey(m_window, GLFW_KEY_LEFT_CONTROL) == GLFW_PRESS ||
                   glfwGetKey(m_window, GLFW_KEY_RIGHT_CONTROL) == GLFW_PRESS;
    const WindowInput input = m_input;
    m_input                 = {};
    return input;
  }

  void swap(bool vsync) override {
    if (vsync != m_vsync) {
      m_vsync = vsync;
      glfwSwapInterval(vsync ? 1 : 0);
    }
    glfwSwapBuffers(m_window);
  }

  [[nodiscard]] bool should_close() const override { return glfwWindowShouldClose(m_window); }
  [[nodiscard]] GLFWwindow* window() const override { return m_window; }

 private:
  static void on_scroll(GLFWwindow* window, double, double dy) {
    static_cast<WindowContext*>(glfwGetWindowUserPointer(window))->m_input.scroll +=
        static_cast<float>(dy);
  }

  static void on_key(GLFWwindow* window, int key, int, int action, int) {
    if (action != GLFW_PRESS) return;
    WindowInput& input = static_cast<WindowContext*>(glfwGetWindowUserPointer(window))->m_input;
    if (input.key_count < static_cast<int>(input.keys.size())) input.keys[input.key_count++] = key;
  }

  static void on_drop(GLFWwindow* window, int count, const char** paths) {
    WindowInput& input = static_cast<WindowContext*>(glfwGetWindowUserPointer(window))->m_input;
    input.dropped.insert(input.dropped.end(), paths, paths + count);
  }

  GLFWwindow* m_window = nullptr;
  WindowInput m_input;
  double m_cursor_x = 0, m_cursor_y = 0;
  bool m_vsync = true;
};

}  // namespace

std::unique_ptr<GlContext> make_window_context(int width, int height, const char* title) {
  return std::make_unique<WindowContext>(width, height, title);
}

}  // namespace voxhash::viewer
