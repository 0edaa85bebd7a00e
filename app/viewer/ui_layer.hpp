// The ImGui context and its backends: OpenGL3 always; GLFW for a window (mouse, keyboard),
// nothing for offscreen frames, where the display size and frame time are set by hand.
#pragma once

struct GLFWwindow;

namespace voxhash::viewer {

class UiLayer {
 public:
  /// `window` null: offscreen (no input). Needs a current OpenGL 4.5 context.
  explicit UiLayer(GLFWwindow* window);
  UiLayer(const UiLayer&)            = delete;
  UiLayer& operator=(const UiLayer&) = delete;
  ~UiLayer();

  void begin_frame(int width, int height, double dt);
  /// Renders the frame's widgets into the bound framebuffer.
  void end_frame();

  /// ImGui is using the mouse / keyboard: the camera and shortcuts should not.
  [[nodiscard]] bool wants_mouse() const;
  [[nodiscard]] bool wants_keyboard() const;

 private:
  bool m_glfw;
};

}  // namespace voxhash::viewer
