// ViewerSession: construction order (state, buffers, bridge, renderer, UI) and the frame.
#include "viewer/gl.hpp"
#include "viewer/screenshot.hpp"
#include "viewer/stopwatch.hpp"
#include "viewer/viewer_session.hpp"
#include "viewer/voxel_export.hpp"

#include <voxhash/device_limits.hpp>

#include <exception>

namespace voxhash::viewer {
namespace {

SceneSettings settings_from(const ViewerOptions& options, Backend backend) {
  SceneSettings settings;
  settings.points_per_model = points_or_default(options, backend);
  settings.resolution       = resolution_or_default(options, backend);
  settings.algorithm        = options.algorithm;
  return settings;
}

std::string transfer_text(const BridgeChoice& choice) {
  std::string text(choice.bridge->name());
  if (!choice.fallback_reason.empty()) text += " (" + choice.fallback_reason + ")";
  return text;
}

}  // namespace

ViewerSession::ViewerSession(const ViewerOptions& options, Backend backend, GLFWwindow* window)
    : m_timing(options.timing),
      m_state(backend, settings_from(options, backend), {options.model_a, options.model_b}),
      m_bridge(make_buffer_bridge(backend, m_buffers, !options.no_interop, options.timing)),
      m_ui(window),
      m_panel(m_state) {
  m_controls.show_panel = !options.no_panel;
  m_info.device         = describe_device(backend);
  m_info.backend        = std::string(to_string(backend));
  m_info.gl             = describe_gl();
  m_info.transfer       = transfer_text(m_bridge);
  if (!m_controls.show_panel) {
    m_info.limits_error = "not measured (started with --no-panel)";
    return;
  }
  try {
    m_info.limits = measure_device_limits(backend, true);
  } catch (const std::exception& e) {
    m_info.limits_error = e.what();
  }
}

void ViewerSession::frame(double dt, int width, int height) {
  const double wall_frame_ms = m_frame_clock.lap();
  m_state.update(*m_bridge.bridge, dt);

  Stopwatch watch;
  const float aspect        = static_cast<float>(width) / static_cast<float>(height);
  const float shift         = m_controls.show_panel ? 0.5f * kPanelWidth / width : 0.0f;
  const glm::vec3 light_dir = m_camera.eye_direction() + glm::vec3(0.0f, 0.6f, 0.0f);
  m_renderer.draw(m_buffers,
                  m_controls.draw,
                  m_camera.view_proj(aspect, shift),
                  light_dir,
                  m_state.pipeline().grid().voxel_size,
                  width,
                  height);
  if (m_controls.show_panel) {
    m_ui.begin_frame(width, height, dt);
    const PanelRequests requests =
        m_panel.draw(m_state, m_controls, m_bridge.bridge->times(), wall_frame_ms, m_info);
    m_ui.end_frame();
    if (requests.reset) reset();
    m_screenshot_requested |= requests.screenshot;
    if (requests.export_voxels) export_voxels(voxels_file_name());
  }
  if (m_timing) {
    glFinish();
    m_draw_ms = watch.lap();
  }
}

void ViewerSession::reset() {
  m_state.reset();
  m_camera.reset();
}

bool ViewerSession::save_screenshot(const std::string& path, int width, int height) {
  try {
    viewer::save_screenshot(path, width, height);
    m_panel.set_output_status("saved " + path, false);
    return true;
  } catch (const std::exception& e) {
    m_panel.set_output_status(e.what(), true);
    return false;
  }
}

bool ViewerSession::export_voxels(const std::string& path) {
  try {
    const std::size_t voxels = viewer::export_voxels(m_state.pipeline(), path);
    m_panel.set_output_status("saved " + path + " (" + std::to_string(voxels) + " voxels)", false);
    return true;
  } catch (const std::exception& e) {
    m_panel.set_output_status(e.what(), true);
    return false;
  }
}

bool ViewerSession::take_screenshot_request() {
  const bool requested   = m_screenshot_requested;
  m_screenshot_requested = false;
  return requested;
}

bool ViewerSession::ui_wants_mouse() const {
  return m_controls.show_panel && m_ui.wants_mouse();
}
bool ViewerSession::ui_wants_keyboard() const {
  return m_controls.show_panel && m_ui.wants_keyboard();
}

}  // namespace voxhash::viewer
