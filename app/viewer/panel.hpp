// The ImGui layer: its context and backends (UiLayer), and the control panel in tabs: models
// (loading by path or drop, placement, pose time, saving the scene), the clash list, the view
// (layers and their colours, lighting, X-ray, clipping plane), statistics (algorithm switch, build
// / probe rates against the device's measured limits, per-stage times, counts) and set-up (scene
// parameters, device and transfer path); screenshots and voxel exports below them.
#pragma once

#include "viewer/app_state.hpp"
#include "viewer/gauges.hpp"
#include "viewer/render_buffer.hpp"
#include "viewer/renderer.hpp"

#include <voxhash/device_limits.hpp>

#include <array>
#include <optional>
#include <string>
#include <vector>

struct GLFWwindow;

namespace voxhash::viewer {

/// The ImGui context and its backends: OpenGL3 always; GLFW for a window (mouse, keyboard),
/// nothing offscreen, where the display size and frame time are set by hand.
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

/// What the viewer shows but the panel cannot change.
struct PanelInfo {
  std::string device;    // voxhash::describe_device
  std::string backend;   // "cuda" / "cpu"
  std::string gl;        // renderer and GL version
  std::string transfer;  // the active BufferBridge, and why interop is not used if it is not
  std::optional<DeviceLimits> limits;  // measured at start-up
  std::string limits_error;            // why there are no limits
};

/// Width of the panel in pixels; the scene is centred in what it leaves free.
inline constexpr float kPanelWidth = 400.0f;

/// The overlay's background opacity (the scene shows through it).
inline constexpr float kOverlayAlpha = 0.6f;

/// The panel's tabs, in order.
enum class PanelTab { Scene, Clash, View, Stats, Setup };
inline constexpr const char* kPanelTabNames[] = {"scene", "clash", "view", "stats", "setup"};

/// What a left drag in the scene does: orbit the camera, or move / turn the selected model.
enum class MouseMode { Camera, Translate, Rotate };

/// View options the panel edits besides the scene (the front end applies vsync).
struct ViewControls {
  DrawSettings draw;
  bool vsync           = true;
  bool show_panel      = true;
  bool show_overlay    = true;  // the viewport's corner: legend, FPS, algorithm, paused
  int selected_model   = 0;     // what placement edits, drags and a single dropped file apply to
  MouseMode mouse_mode = MouseMode::Camera;
};

/// What the user asked for this frame that the panel cannot do itself.
struct PanelRequests {
  bool screenshot    = false;
  bool export_voxels = false;   // the current frame's labelled voxels to a PLY file
  bool reset         = false;   // time and camera back to the start
  bool fit_view      = false;   // the camera frames the scene's grid
  std::optional<Bounds> focus;  // the camera frames this box (a clash region)
};

/// The overlay's text: frame rate, algorithm, backend and transfer (interop) path, running or
/// paused at which time, and the mouse mode when it moves a model.
[[nodiscard]] std::vector<std::string> overlay_lines(const AppState& state,
                                                     const ViewControls& controls,
                                                     const PanelInfo& info,
                                                     double wall_frame_ms);

/// "12.3 % of <bound> (4.5 G/s)" for a rate of `rate` keys/s against `bound`; "n/a" without one.
[[nodiscard]] std::string bound_text(double rate, const RateBound& bound);

class Panel {
 public:
  /// `tab`: the tab open at first.
  explicit Panel(const AppState& state, PanelTab tab = PanelTab::Scene);

  /// Builds the panel's widgets for this frame, applying edits to `state` and `controls`.
  /// `wall_frame_ms`: the time between the last two frames.
  PanelRequests draw(AppState& state,
                     ViewControls& controls,
                     const TransferTimes& times,
                     double wall_frame_ms,
                     const PanelInfo& info);

  /// The overlay in the viewport's top-right corner (a window without decoration): the lines of
  /// overlay_lines, then a legend of the visible layers' colours.
  void draw_overlay(const AppState& state,
                    const ViewControls& controls,
                    const PanelInfo& info,
                    double wall_frame_ms) const;

  /// Shown under the screenshot and export buttons (the file written, or the error).
  void set_output_status(std::string status, bool is_error);
  [[nodiscard]] const std::string& output_status() const { return m_output_status; }
  /// Opens `tab` on the next frame.
  void open_tab(PanelTab tab) { m_open_tab = tab; }
  /// How far the last frame's panel content reached below its window, in pixels (0: it fits).
  [[nodiscard]] float overflow() const { return m_overflow; }

 private:
  void draw_status(AppState& state, double wall_frame_ms, PanelRequests& requests);
  void draw_algorithm(AppState& state);
  void draw_rates(const AppState& state, const PanelInfo& info);
  void draw_times(const AppState& state, const TransferTimes& times);
  void draw_counts(const AppState& state);
  /// Under the counts: point clouds too sparse for the grid (with the points that would cover
  /// it), thin-feature and low-confidence regions.
  void draw_label_warnings(const AppState& state);
  void draw_layers(const AppState& state, ViewControls& controls);
  void draw_parameters(AppState& state);
  /// Each model's path, load button and load error; the selected model.
  void draw_models(AppState& state, ViewControls& controls);
  /// The selected model's placement fields, the mouse mode, the pose time, saving the scene.
  void draw_placement(AppState& state, ViewControls& controls);
  void draw_scene_file(AppState& state);
  void draw_clash(AppState& state, PanelRequests& requests);
  /// The status file's path, open and save; with one open, the selected clash's status,
  /// assignee and comment to edit.
  void draw_clash_status_file(AppState& state);
  void draw_clash_status_editor(AppState& state);
  /// Makes `id` the clash the editor shows, its fields loaded from the status file.
  void select_clash(const AppState& state, const std::string& id);
  void draw_output(PanelRequests& requests);

  std::optional<PanelTab> m_open_tab;  // selected on the next frame
  float m_overflow = 0;
  std::array<std::array<char, 512>, 2> m_paths{};
  std::array<std::string, 2> m_shown_paths;  // the models' paths when m_paths was last set
  std::array<char, 512> m_scene_path{};
  std::array<char, 512> m_status_path{};
  std::string m_shown_status_path;  // the state's status file when m_status_path was last set
  std::string m_clash_id;           // the clash the status editor shows; empty: none
  int m_clash_status = 0;           // its status, an index into clash::kClashStatuses
  std::array<char, 256> m_assignee{};
  std::array<char, 2048> m_comment{};
  int m_points         = 0;
  int m_resolution     = 0;
  float m_cuckoo_space = 0;
  float m_load         = 0;
  std::string m_output_status;
  bool m_output_error = false;
};

}  // namespace voxhash::viewer
