// ViewerSession: construction order (state, buffers, bridge, renderer, UI), the frame, and the
// outputs: screenshots (glReadPixels + stb_image_write) and voxel exports (export_voxels_ply).
#include "viewer/gl.hpp"
#include "viewer/render_buffer.hpp"
#include "viewer/viewer_session.hpp"

#include <voxhash/device_limits.hpp>
#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <stb_image_write.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

namespace voxhash::viewer {
namespace {

SceneSettings settings_from(const ViewerOptions& options) {
  SceneSettings settings;
  settings.points_per_model = options.points;
  settings.resolution       = options.resolution;
  settings.algorithm        = options.algorithm;
  return settings;
}

PanelTab tab_named(const std::string& name) {
  for (int t = 0; t < static_cast<int>(std::size(kPanelTabNames)); ++t) {
    if (name == kPanelTabNames[t]) return static_cast<PanelTab>(t);
  }
  return PanelTab::Scene;
}

std::string transfer_text(const BridgeChoice& choice) {
  std::string text(choice.bridge->name());
  if (!choice.fallback_reason.empty()) text += " (" + choice.fallback_reason + ")";
  return text;
}

}  // namespace

ViewerSession::ViewerSession(const ViewerOptions& options, GLFWwindow* window)
    : m_timing(options.timing),
      m_state(options.backend, settings_from(options), options.scene),
      m_bridge(make_buffer_bridge(options.backend, m_buffers, !options.no_interop, options.timing)),
      m_ui(window),
      m_panel(m_state, tab_named(options.tab)) {
  m_state.set_clash_interval(options.clash_every);
  // A bad status file is refused before the window runs, as a bad scene is.
  if (!options.status_path.empty() && !m_state.open_clash_status(options.status_path)) {
    throw InvalidInput(m_state.message());
  }
  fit_view();
  m_controls.selected_model = options.selected_model;
  m_controls.show_panel     = !options.no_panel;
  m_controls.show_overlay   = !options.no_panel;
  m_controls.draw.xray      = options.xray;
  if (options.xray) m_controls.draw.layers.outside = {true, true};
  if (options.clip_axis >= 0) {
    m_controls.draw.clip = {true, options.clip_axis, options.clip_offset, false};
  }
  m_info.device   = describe_device(options.backend);
  m_info.backend  = std::string(to_string(options.backend));
  m_info.gl       = describe_gl();
  m_info.transfer = transfer_text(m_bridge);
  if (options.cuda_draw) {
    if (!m_bridge.fallback_reason.empty()) {
      m_info.transfer += ", drawn by GL (CUDA drawing needs CUDA-GL interop)";
    } else {
      try {
        m_drawer = make_cuda_drawer();
        m_info.transfer += ", drawn by CUDA";
      } catch (const Error& e) {
        m_info.transfer += std::string(", drawn by GL (") + e.what() + ")";
      }
    }
  }
  if (!m_controls.show_panel) {
    m_info.limits_error = "not measured (started with --no-panel)";
    return;
  }
  try {
    m_info.limits = measure_device_limits(options.backend, true);
  } catch (const std::exception& e) {
    m_info.limits_error = e.what();
  }
}

void ViewerSession::frame(double dt, int width, int height) {
  const double wall_frame_ms = m_frame_clock.lap();
  const float aspect         = static_cast<float>(width) / static_cast<float>(height);
  const float shift          = m_controls.show_panel ? 0.5f * kPanelWidth / width : 0.0f;
  const glm::mat4 view_proj  = m_camera.view_proj(aspect, shift);
  const glm::vec3 light_dir  = m_camera.eye_direction() + glm::vec3(0.0f, 0.6f, 0.0f);
  // The CUDA drawer draws while the bridge has the buffers mapped; X-ray's blending is GL's.
  const bool cuda_draw = m_drawer && !m_controls.draw.xray;
  if (cuda_draw) {
    m_drawer->set_view(
        m_controls.draw, view_proj, light_dir, m_state.pipeline().grid().voxel_size, width, height);
  }
  m_bridge.bridge->attach(cuda_draw ? m_drawer.get() : nullptr);
  const bool ran = m_state.update(*m_bridge.bridge, dt);

  LapClock watch;
  if (cuda_draw) {
    if (!ran) m_bridge.bridge->redraw();
    m_renderer.draw_image(m_drawer->texture(), width, height);
  } else {
    m_renderer.draw(m_buffers,
                    m_controls.draw,
                    view_proj,
                    light_dir,
                    m_state.pipeline().grid().voxel_size,
                    width,
                    height);
  }
  if (m_controls.show_panel || m_controls.show_overlay) {
    m_ui.begin_frame(width, height, dt);
    if (m_controls.show_overlay) m_panel.draw_overlay(m_state, m_controls, m_info, wall_frame_ms);
    const PanelRequests requests =
        m_controls.show_panel
            ? m_panel.draw(m_state, m_controls, m_bridge.bridge->times(), wall_frame_ms, m_info)
            : PanelRequests{};
    m_ui.end_frame();
    if (requests.reset) reset();
    if (requests.fit_view) fit_view();
    if (requests.focus) m_camera.focus(*requests.focus);
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
  fit_view();
}

void ViewerSession::fit_view() {
  m_camera.frame(m_state.view_bounds());
}

void ViewerSession::handle_mouse(const WindowInput& input, int height) {
  const int model = m_controls.selected_model;
  if (m_dragging_model && !input.left) {
    // The end of a drag: the grid is fitted to where the model now is.
    m_dragging_model = false;
    m_state.set_placement(model, m_state.placement(model), true);
  }
  if (ui_wants_mouse()) return;
  const bool drag_model = m_controls.mouse_mode != MouseMode::Camera && m_state.placeable();
  if (input.left && drag_model) {
    if (input.dx != 0 || input.dy != 0) {
      ModelPlacement placement = m_state.placement(model);
      const UpAxis up          = scene_up(m_state.scene());  // the placement's axes
      if (m_controls.mouse_mode == MouseMode::Translate) {
        const glm::vec3 world =
            m_camera.follow_cursor(input.dx, input.dy, static_cast<float>(height));
        const Float3 d      = scene_axes_from_world(up, Float3{world.x, world.y, world.z});
        placement.translate = {
            placement.translate.x + d.x, placement.translate.y + d.y, placement.translate.z + d.z};
      } else {
        // A sideways drag turns the model about the scene's up axis, an upward one about x.
        constexpr float kDegreesPerPixel = 0.5f;
        (up == UpAxis::Z ? placement.rotate_degrees.z : placement.rotate_degrees.y) +=
            input.dx * kDegreesPerPixel;
        placement.rotate_degrees.x += input.dy * kDegreesPerPixel;
      }
      m_dragging_model = m_state.set_placement(model, placement, false);
    }
  } else if (input.left) {
    m_camera.orbit(input.dx, input.dy);
  }
  if (input.right_or_middle) m_camera.pan(input.dx, input.dy, static_cast<float>(height));
  ClipPlane& clip = m_controls.draw.clip;
  if (input.scroll != 0 && input.ctrl && clip.enabled) {
    // A hundredth of the grid's side along the plane's axis per wheel step.
    const Bounds& grid = m_state.pipeline().config().grid.bounds;
    const float lo[3]  = {grid.min.x, grid.min.y, grid.min.z};
    const float hi[3]  = {grid.max.x, grid.max.y, grid.max.z};
    clip.offset = std::clamp(clip.offset + input.scroll * 0.01f * (hi[clip.axis] - lo[clip.axis]),
                             lo[clip.axis],
                             hi[clip.axis]);
  } else if (input.scroll != 0) {
    m_camera.zoom(input.scroll);
  }
}

void ViewerSession::drop(const std::vector<std::string>& paths) {
  if (paths.size() >= 2) {
    m_state.load_model(0, paths[0]);
    m_state.load_model(1, paths[1]);
  } else if (paths.size() == 1) {
    m_state.load_model(m_controls.selected_model, paths[0]);
  }
}

bool ViewerSession::save_screenshot(const std::string& path, int width, int height) {
  std::vector<unsigned char> pixels(static_cast<std::size_t>(width) * height * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  stbi_flip_vertically_on_write(1);  // GL's first row is the bottom one
  // Encoded in memory, then written whole or not at all (stb's own file writer does not check
  // its writes: a full disk left an empty PNG and "wrote").
  std::string png;
  const auto append = [](void* out, void* data, int size) {
    static_cast<std::string*>(out)->append(static_cast<const char*>(data),
                                           static_cast<std::size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &png, width, height, 3, pixels.data(), width * 3)) {
    m_panel.set_output_status("cannot encode screenshot '" + path + "'", true);
    return false;
  }
  try {
    write_file(path, png);
  } catch (const InvalidInput& e) {
    m_panel.set_output_status(e.what(), true);
    return false;
  }
  m_panel.set_output_status("saved " + path, false);
  return true;
}

bool ViewerSession::export_voxels(const std::string& path) {
  try {
    const Pipeline& pipeline          = m_state.pipeline();
    std::array<ModelVoxels, 2> models = {pipeline.download(0), pipeline.download(1)};
    GridParams grid                   = pipeline.config().grid;
    to_scene_axes(models, grid, scene_up(m_state.scene()));  // the files' axes, as reports give
    export_voxels_ply(path, grid, models);
    const std::size_t voxels = models[0].keys.size() + models[1].keys.size();
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

std::string screenshot_file_name() {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "voxhash-%Y%m%d-%H%M%S", std::localtime(&now));
  std::string name = std::string(stamp) + ".png";
  for (int n = 2; std::filesystem::exists(name); ++n) {
    name = std::string(stamp) + "-" + std::to_string(n) + ".png";
  }
  return name;
}

std::string voxels_file_name() {
  char name[32];
  for (int n = 1;; ++n) {
    std::snprintf(name, sizeof(name), "voxhash-voxels-%03d.ply", n);
    if (!std::filesystem::exists(name)) return name;
  }
}

}  // namespace voxhash::viewer
