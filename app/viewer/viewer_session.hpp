// One running viewer, whatever holds its GL context: scene state, the GL buffers and the bridge
// that fills them, renderer (or the CUDA drawer through the bridge), camera, ImGui panel and
// overlay, and its outputs (PNG screenshots, PLY voxel exports). The frame loop (viewer.cpp) owns
// the context and calls frame().
#pragma once

#include "viewer/app_state.hpp"
#include "viewer/context.hpp"
#include "viewer/panel.hpp"
#include "viewer/render_buffer.hpp"
#include "viewer/renderer.hpp"
#include "viewer/splat_drawer.hpp"
#include "viewer/viewer.hpp"

#include <voxhash/backend.hpp>

#include <memory>
#include <string>
#include <vector>

struct GLFWwindow;

namespace voxhash::viewer {

class ViewerSession {
 public:
  /// Loads the models (throws voxhash::InvalidInput naming a bad file), picks the transfer path,
  /// measures the device limits for the panel. Needs a current OpenGL 4.5 context; `window` is the
  /// GLFW window for the panel's input, or null offscreen.
  ViewerSession(const ViewerOptions& options, GLFWwindow* window);

  /// Advances the scene by `dt` seconds (running the pipeline when needed), then draws the scene
  /// and the panel into the bound framebuffer of `width` x `height` pixels.
  void frame(double dt, int width, int height);

  /// Time and camera back to the start.
  void reset();
  /// The window's mouse: in MouseMode::Camera left drag orbits, right / middle drag pans, the wheel
  /// zooms (with Control held and the clipping plane on, it moves the plane); in Translate / Rotate
  /// a left drag moves / turns the selected model (the grid is fitted again when the button is
  /// released). Nothing while the panel has the mouse.
  void handle_mouse(const WindowInput& input, int height);
  /// Files dropped onto the window: two or more load models A and B from the first two, one loads
  /// the selected model; an error stays beside that model in the panel.
  void drop(const std::vector<std::string>& paths);
  /// The camera frames the scene (AppState::view_bounds).
  void fit_view();
  /// Saves the bound read framebuffer as an RGB PNG (top row first); the result (path or error)
  /// is shown in the panel and returned as false on failure.
  bool save_screenshot(const std::string& path, int width, int height);
  /// True once after the panel's screenshot button was pressed.
  [[nodiscard]] bool take_screenshot_request();
  /// Writes the last frame's labelled voxels of both models to `path` as a coloured PLY point cloud
  /// (export_voxels_ply); the result (path and voxel count, or error) is shown in the panel and
  /// returned as false on failure. The scene keeps running.
  bool export_voxels(const std::string& path);

  [[nodiscard]] AppState& state() { return m_state; }
  [[nodiscard]] OrbitCamera& camera() { return m_camera; }
  [[nodiscard]] ViewControls& controls() { return m_controls; }
  [[nodiscard]] Panel& panel() { return m_panel; }
  [[nodiscard]] const BufferBridge& bridge() const { return *m_bridge.bridge; }
  [[nodiscard]] const PanelInfo& info() const { return m_info; }
  /// The panel is shown and ImGui is using the mouse / keyboard.
  [[nodiscard]] bool ui_wants_mouse() const;
  [[nodiscard]] bool ui_wants_keyboard() const;
  /// Milliseconds the last frame's drawing took (measured with glFinish in timing mode only).
  [[nodiscard]] double draw_ms() const { return m_draw_ms; }

 private:
  bool m_timing;
  AppState m_state;
  SceneBuffers m_buffers;
  BridgeChoice m_bridge;
  std::unique_ptr<ViewDrawer> m_drawer;  // --cuda-draw where interop works; null: GL draws
  Renderer m_renderer;
  OrbitCamera m_camera;
  ViewControls m_controls;
  UiLayer m_ui;
  Panel m_panel;
  PanelInfo m_info;
  LapClock m_frame_clock;               // wall time between frames, for the panel
  bool m_dragging_model       = false;  // a placement drag is under way
  bool m_screenshot_requested = false;
  double m_draw_ms            = 0;
};

/// A new file name in the working directory: voxhash-YYYYmmdd-HHMMSS[-N].png.
[[nodiscard]] std::string screenshot_file_name();

/// A new file name in the working directory: voxhash-voxels-NNN.ply, the first NNN from 001 that
/// is not taken.
[[nodiscard]] std::string voxels_file_name();

}  // namespace voxhash::viewer
