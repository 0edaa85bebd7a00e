// GlfwWindow: initialisation with clear failures, context creation, input collection. Scroll and
// key callbacks are installed before ImGui's GLFW backend, which chains to them.
#include "viewer/gl.hpp"
#include "viewer/window.hpp"

#include <voxhash/error.hpp>

#include <GLFW/glfw3.h>

#include <string>

namespace voxhash::viewer {
namespace {

std::string g_glfw_error;  // the last message GLFW reported

void on_glfw_error(int, const char* description) {
  g_glfw_error = description;
}

}  // namespace

GlfwWindow::GlfwWindow(int width, int height, const char* title) {
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
  glfwSetWindowUserPointer(m_window, this);
  glfwSetScrollCallback(m_window, on_scroll);
  glfwSetKeyCallback(m_window, on_key);
  glfwGetCursorPos(m_window, &m_cursor_x, &m_cursor_y);
}

GlfwWindow::~GlfwWindow() {
  glfwDestroyWindow(m_window);
  glfwTerminate();
}

bool GlfwWindow::should_close() const {
  return glfwWindowShouldClose(m_window);
}
void GlfwWindow::close() {
  glfwSetWindowShouldClose(m_window, GLFW_TRUE);
}
void GlfwWindow::poll() {
  glfwPollEvents();
}
void GlfwWindow::wait_events() {
  glfwWaitEventsTimeout(0.1);
}
void GlfwWindow::swap() {
  glfwSwapBuffers(m_window);
}
void GlfwWindow::set_vsync(bool on) {
  glfwSwapInterval(on ? 1 : 0);
}

std::pair<int, int> GlfwWindow::framebuffer_size() const {
  int width = 0, height = 0;
  glfwGetFramebufferSize(m_window, &width, &height);
  return {width, height};
}

WindowInput GlfwWindow::take_input() {
  double x = 0, y = 0;
  glfwGetCursorPos(m_window, &x, &y);
  m_input.dx              = static_cast<float>(x - m_cursor_x);
  m_input.dy              = static_cast<float>(y - m_cursor_y);
  m_cursor_x              = x;
  m_cursor_y              = y;
  m_input.left            = glfwGetMouseButton(m_window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
  m_input.right_or_middle = glfwGetMouseButton(m_window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS ||
                            glfwGetMouseButton(m_window, GLFW_MOUSE_BUTTON_MIDDLE) == GLFW_PRESS;
  const WindowInput input = m_input;
  m_input                 = {};
  return input;
}

void GlfwWindow::on_scroll(GLFWwindow* window, double, double dy) {
  static_cast<GlfwWindow*>(glfwGetWindowUserPointer(window))->m_input.scroll +=
      static_cast<float>(dy);
}

void GlfwWindow::on_key(GLFWwindow* window, int key, int, int action, int) {
  if (action != GLFW_PRESS) return;
  WindowInput& input = static_cast<GlfwWindow*>(glfwGetWindowUserPointer(window))->m_input;
  if (input.key_count < static_cast<int>(input.keys.size())) input.keys[input.key_count++] = key;
}

}  // namespace voxhash::viewer
