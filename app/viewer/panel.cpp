// UiLayer (ImGui set-up: no imgui.ini written, opaque panel background; per-frame calls), then
// the panel. Its sections, in the order they appear:
//   [status]      frame rate and time, pause / step / reset / fit view, the last message and the
//                 models' outside-the-grid warnings (always shown)
//   tab scene:    [models] load a model by path or drop (errors beside it); [placement] the
//                 selected model's translate / rotate / scale, mouse mode, pose time; [scene file]
//   tab clash:    [clash] the report on demand or every N frames, its clashes with their status
//                 (a status file opened, saved and edited: status, assignee, comment), regions
//                 ranked by size
//   tab view:     [layers] points, intersection, inside / outside voxels per model with editable
//                 colours, sizes, lighting, X-ray, the clipping plane
//   tab stats:    [algorithm], [rates] against the device limits, [times], [counts], [memory]
//                 (voxhash's buffers now and at their peak since the viewer started)
//   tab setup:    [parameters] points, grid, table space / load, animation; device, GL, vsync
//   [output]      screenshot and voxel export buttons, and the last result
#include "viewer/panel.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

namespace voxhash::viewer {
namespace {

const ImVec4 kErrorColor{1.0f, 0.4f, 0.35f, 1.0f};
const ImVec4 kWarningColor{1.0f, 0.8f, 0.3f, 1.0f};
const ImVec4 kDimColor{0.65f, 0.65f, 0.65f, 1.0f};
constexpr const char* kModelNames[2] = {"A", "B"};

ImVec4 to_imvec(const palette::Rgb& c) {
  return {c[0], c[1], c[2], 1.0f};
}

/// `src` into a text field's buffer, cut to fit.
template <std::size_t N>
void copy_text(std::array<char, N>& dst, const std::string& src) {
  const std::size_t n = std::min(src.size(), N - 1);
  std::memcpy(dst.data(), src.data(), n);
  dst[n] = '\0';
}

void rate_plot(const char* id, const float* values, int offset, double current) {
  char overlay[32];
  std::snprintf(overlay, sizeof(overlay), "%.3f G keys/s", current * 1e-9);
  const float top = *std::max_element(values, values + StatsHistory::kSize);
  ImGui::PlotLines(id,
                   values,
                   StatsHistory::kSize,
                   offset,
                   overlay,
                   0.0f,
                   std::max(top * 1.1f, 1e-3f),
                   ImVec2(ImGui::GetContentRegionAvail().x, 48));
}

/// [memory]: one line, the device's Buffers (pinned excluded) and pinned host memory, now and at
/// the peak.
void draw_memory(Backend backend) {
  const AllocationStats host   = allocation_stats(Backend::Cpu);
  const AllocationStats device = backend == Backend::Cpu ? host : allocation_stats(backend);
  ImGui::Text("memory: device %s (peak %s), pinned %s (peak %s)",
              format_bytes(device.in_use - device.pinned_in_use).c_str(),
              format_bytes(device.pageable_peak).c_str(),
              format_bytes(host.pinned_in_use).c_str(),
              format_bytes(host.pinned_peak).c_str());
}

}  // namespace

std::vector<std::string> overlay_lines(const AppState& state,
                                       const ViewControls& controls,
                                       const PanelInfo& info,
                                       double wall_frame_ms) {
  char fps[64];
  std::snprintf(fps,
                sizeof fps,
                "%.1f FPS (%.1f ms), pipeline %.2f ms",
                wall_frame_ms > 0 ? 1e3 / wall_frame_ms : 0.0,
                wall_frame_ms,
                state.stats().ms.total);
  char time[48];
  std::snprintf(
      time, sizeof time, "%s at t = %.2f s", state.paused() ? "PAUSED" : "running", state.time());
  std::vector<std::string> lines{fps,
                                 "algorithm: " + std::string(to_string(state.settings().algorithm)),
                                 "backend: " + info.backend + ", transfer: " + info.transfer,
                                 time};
  if (controls.mouse_mode != MouseMode::Camera) {
    lines.push_back(std::string("mouse: ") +
                    (controls.mouse_mode == MouseMode::Translate ? "moves" : "turns") + " model " +
                    kModelNames[controls.selected_model] + " (M: camera)");
  }
  return lines;
}

std::string bound_text(double rate, const RateBound& bound) {
  char text[256];
  if (bound.limit <= 0) {
    std::snprintf(text, sizeof text, "n/a of %s (not measured)", bound.name.c_str());
  } else {
    std::snprintf(text,
                  sizeof text,
                  "%.1f %% of %s (%.3g G/s)",
                  100.0 * rate * 1e-9 / bound.limit,
                  bound.name.c_str(),
                  bound.limit);
  }
  return text;
}

UiLayer::UiLayer(GLFWwindow* window) : m_glfw(window != nullptr) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io    = ImGui::GetIO();
  io.IniFilename = nullptr;
  ImGui::StyleColorsDark();
  ImGui::GetStyle().Colors[ImGuiCol_WindowBg] =
      ImVec4(palette::kPanel[0], palette::kPanel[1], palette::kPanel[2], 1.0f);
  if (m_glfw && !ImGui_ImplGlfw_InitForOpenGL(window, true)) {
    ImGui::DestroyContext();
    throw Error("ImGui: the GLFW backend failed to initialise");
  }
  if (!ImGui_ImplOpenGL3_Init("#version 450")) {
    if (m_glfw) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    throw Error("ImGui: the OpenGL3 backend failed to initialise");
  }
}

UiLayer::~UiLayer() {
  ImGui_ImplOpenGL3_Shutdown();
  if (m_glfw) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
}

void UiLayer::begin_frame(int width, int height, double dt) {
  ImGui_ImplOpenGL3_NewFrame();
  if (m_glfw) {
    ImGui_ImplGlfw_NewFrame();
  } else {
    ImGuiIO& io    = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
    io.DeltaTime   = static_cast<float>(std::max(dt, 1e-4));
  }
  ImGui::NewFrame();
}

void UiLayer::end_frame() {
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

bool UiLayer::wants_mouse() const {
  return ImGui::GetIO().WantCaptureMouse;
}
bool UiLayer::wants_keyboard() const {
  return ImGui::GetIO().WantCaptureKeyboard;
}

Panel::Panel(const AppState& state, PanelTab tab)
    : m_open_tab(tab),
      m_points(static_cast<int>(state.settings().points_per_model)),
      m_resolution(state.settings().resolution),
      m_cuckoo_space(static_cast<float>(state.settings().cuckoo_space)),
      m_load(static_cast<float>(state.settings().load)) {
  for (int i = 0; i < 2; ++i) {
    m_shown_paths[i] = state.models()[i].path;
    copy_text(m_paths[i], m_shown_paths[i]);
  }
  copy_text(m_scene_path, "scene.json");
  copy_text(m_status_path, "clashes.json");
}

void Panel::draw_overlay(const AppState& state,
                         const ViewControls& controls,
                         const PanelInfo& info,
                         double wall_frame_ms) const {
  constexpr float kMargin = 10.0f;
  const ImVec2 display    = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(display.x - kMargin, kMargin), ImGuiCond_Always, ImVec2(1, 0));
  ImGui::SetNextWindowBgAlpha(kOverlayAlpha);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                 ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav |
                                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoInputs;
  if (!ImGui::Begin("overlay", nullptr, flags)) {
    ImGui::End();
    return;
  }
  const std::vector<std::string> lines = overlay_lines(state, controls, info, wall_frame_ms);
  for (std::size_t l = 0; l < lines.size(); ++l) {
    if (l == 3 && state.paused()) {
      ImGui::TextColored(kWarningColor, "%s", lines[l].c_str());
    } else {
      ImGui::TextUnformatted(lines[l].c_str());
    }
  }
  ImGui::Separator();
  const Layers& layers = controls.draw.layers;
  const Colors& colors = controls.draw.colors;
  const auto entry     = [&](const palette::Rgb& color, const char* name, bool shown) {
    ImGui::ColorButton(name, to_imvec(color), ImGuiColorEditFlags_NoTooltip, ImVec2(12, 12));
    ImGui::SameLine();
    if (shown) {
      ImGui::TextUnformatted(name);
    } else {
      ImGui::TextColored(kDimColor, "%s (hidden)", name);
    }
  };
  entry(colors.intersection, "intersection", layers.intersection);
  for (int i = 0; i < 2; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "points %s", kModelNames[i]);
    entry(colors.points[i], name, layers.points[i]);
    std::snprintf(name, sizeof name, "%s inside %s", kModelNames[i], kModelNames[1 - i]);
    entry(colors.inside[i], name, layers.inside[i]);
    std::snprintf(name, sizeof name, "%s outside %s", kModelNames[i], kModelNames[1 - i]);
    entry(colors.outside[i], name, layers.outside[i]);
  }
  ImGui::End();
}

void Panel::set_output_status(std::string status, bool is_error) {
  m_output_status = std::move(status);
  m_output_error  = is_error;
}

PanelRequests Panel::draw(AppState& state,
                          ViewControls& controls,
                          const TransferTimes& times,
                          double wall_frame_ms,
                          const PanelInfo& info) {
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(kPanelWidth, ImGui::GetIO().DisplaySize.y - 20),
                           ImGuiCond_FirstUseEver);
  ImGui::Begin("voxhash", nullptr, ImGuiWindowFlags_NoCollapse);
  PanelRequests requests;
  draw_status(state, wall_frame_ms, requests);
  if (ImGui::BeginTabBar("sections")) {
    const auto tab = [&](PanelTab which) {
      const bool open_now = m_open_tab == which;
      return ImGui::BeginTabItem(kPanelTabNames[static_cast<int>(which)],
                                 nullptr,
                                 open_now ? ImGuiTabItemFlags_SetSelected : 0);
    };
    if (tab(PanelTab::Scene)) {
      draw_models(state, controls);
      draw_placement(state, controls);
      draw_scene_file(state);
      ImGui::EndTabItem();
    }
    if (tab(PanelTab::Clash)) {
      draw_clash(state, requests);
      ImGui::EndTabItem();
    }
    if (tab(PanelTab::View)) {
      draw_layers(state, controls);
      ImGui::EndTabItem();
    }
    if (tab(PanelTab::Stats)) {
      draw_algorithm(state);
      draw_rates(state, info);
      draw_times(state, times);
      draw_counts(state);
      draw_memory(state.pipeline().backend());
      ImGui::EndTabItem();
    }
    if (tab(PanelTab::Setup)) {
      draw_parameters(state);
      ImGui::Separator();
      ImGui::TextWrapped("device: %s", info.device.c_str());
      ImGui::Text("backend: %s", info.backend.c_str());
      ImGui::TextWrapped("GL: %s", info.gl.c_str());
      ImGui::TextWrapped("transfer: %s", info.transfer.c_str());
      ImGui::Checkbox("vsync (V)", &controls.vsync);
      ImGui::EndTabItem();
    }
    m_open_tab.reset();
    ImGui::EndTabBar();
  }
  draw_output(requests);
  m_overflow = ImGui::GetScrollMaxY();
  ImGui::End();
  return requests;
}

// [status] -------------------------------------------------------------------------------------
void Panel::draw_status(AppState& state, double wall_frame_ms, PanelRequests& requests) {
  ImGui::Text("%.1f ms per frame (wall clock), t = %.2f s%s",
              wall_frame_ms,
              state.time(),
              state.paused() ? ", paused" : "");
  if (ImGui::Button(state.paused() ? "Resume" : "Pause")) state.toggle_pause();
  ImGui::SameLine();
  if (ImGui::Button("Step")) state.request_step();
  ImGui::SameLine();
  if (ImGui::Button("Reset")) requests.reset = true;
  ImGui::SameLine();
  requests.fit_view = ImGui::Button("Fit view (F)");
  if (!state.message().empty()) {
    if (state.message_is_error()) {
      ImGui::PushStyleColor(ImGuiCol_Text, kErrorColor);
      ImGui::TextWrapped("%s", state.message().c_str());
      ImGui::PopStyleColor();
    } else {
      ImGui::TextWrapped("%s", state.message().c_str());
    }
  }
  for (const std::string& warning : state.grid_warnings()) {
    if (warning.empty()) continue;
    ImGui::PushStyleColor(ImGuiCol_Text, kWarningColor);
    ImGui::TextWrapped("%s", warning.c_str());
    ImGui::PopStyleColor();
  }
}

// [algorithm] ----------------------------------------------------------------------------------
void Panel::draw_algorithm(AppState& state) {
  ImGui::TextUnformatted("algorithm (effective next frame)");
  for (const TableKind kind : kTableKinds) {
    const std::string_view name = to_string(kind);
    char label[32];
    std::snprintf(label, sizeof(label), "%.*s", static_cast<int>(name.size()), name.data());
    if (ImGui::RadioButton(label, state.settings().algorithm == kind)) state.set_algorithm(kind);
    if (kind != kTableKinds.back()) ImGui::SameLine();
  }
}

// [rates] --------------------------------------------------------------------------------------
void Panel::draw_rates(const AppState& state, const PanelInfo& info) {
  if (!ImGui::CollapsingHeader("rates", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const FrameStats& stats       = state.stats();
  const StatsHistory& history   = state.history();
  const SceneSettings& settings = state.settings();
  const std::size_t keys        = std::max(stats.model[0].voxels, stats.model[1].voxels);
  const BuildOptions options    = frame_table_options(state.pipeline().config());
  const std::size_t table =
      frame_table_bytes(settings.algorithm, keys, options.cuckoo_space, options.load);
  ImGui::Text("build: %.3f G keys/s (table about %.1f MiB)",
              stats.build_keys_per_s * 1e-9,
              static_cast<double>(table) / (1 << 20));
  const auto gauge = [&](double rate, const RateBound& bound) {
    const bool above = bound.limit > 0 && rate * 1e-9 > bound.limit;
    ImGui::PushStyleColor(ImGuiCol_Text,
                          above ? kWarningColor : ImGui::GetStyleColorVec4(ImGuiCol_Text));
    ImGui::TextWrapped("  %s%s", bound_text(rate, bound).c_str(), above ? ": above its bound" : "");
    ImGui::PopStyleColor();
  };
  if (info.limits)
    gauge(stats.build_keys_per_s, build_bound(*info.limits, settings.algorithm, table));
  rate_plot("##build", history.build_rate(), history.offset(), stats.build_keys_per_s);
  ImGui::Text("probe: %.3f G keys/s", stats.probe_keys_per_s * 1e-9);
  if (info.limits) {
    gauge(stats.probe_keys_per_s,
          probe_bound(*info.limits, settings.algorithm, table, stats.probe_keys_per_s));
  }
  rate_plot("##probe", history.probe_rate(), history.offset(), stats.probe_keys_per_s);
  if (!info.limits) ImGui::TextColored(kDimColor, "device limits: %s", info.limits_error.c_str());
}

// [times] --------------------------------------------------------------------------------------
void Panel::draw_times(const AppState& state, const TransferTimes& times) {
  if (!ImGui::CollapsingHeader("times (ms)", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const StageTimes& ms = state.stats().ms;
  if (ImGui::BeginTable("stages", 7, ImGuiTableFlags_SizingStretchSame)) {
    for (const char* name : {"animate", "voxelize", "number", "build", "probe", "fill", "total"}) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name);
    }
    for (const double v :
         {ms.animate, ms.voxelize, ms.number, ms.build, ms.probe, ms.flood_fill, ms.total}) {
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", v);
    }
    ImGui::EndTable();
  }
  if (ImGui::BeginTable("transfer", 5, ImGuiTableFlags_SizingStretchSame)) {
    for (const char* name : {"transfer:", "map", "instances", "unmap", "upload"}) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name);
    }
    ImGui::TableNextColumn();
    for (const double v : {times.map, times.instances, times.unmap, times.upload}) {
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", v);
    }
    ImGui::EndTable();
  }
  ImGui::PlotLines("##total",
                   state.history().total_ms(),
                   StatsHistory::kSize,
                   state.history().offset(),
                   "pipeline total (ms)",
                   0.0f,
                   FLT_MAX,
                   ImVec2(ImGui::GetContentRegionAvail().x, 40));
}

// [counts] -------------------------------------------------------------------------------------
void Panel::draw_counts(const AppState& state) {
  if (!ImGui::CollapsingHeader("counts", ImGuiTreeNodeFlags_DefaultOpen)) return;
  // In the clash user's words and the scene's unit; the implementation's own in "developer".
  const std::string unit(to_string(state.scene().unit));
  const Float3 v = state.pipeline().grid().voxel_size;
  if (v.x == v.y && v.y == v.z) {
    ImGui::Text("voxel size %.4g %s", v.x, unit.c_str());
  } else {
    ImGui::Text("voxel size %.4g x %.4g x %.4g %s", v.x, v.y, v.z, unit.c_str());
  }
  const std::size_t contact = state.stats().model[0].intersection;
  ImGui::Text("contact: %zu voxels, %.4g %s^3",
              contact,
              static_cast<double>(contact) * v.x * v.y * v.z,
              unit.c_str());
  const auto table =
      [&](const char* id,
          std::initializer_list<std::pair<const char*, std::size_t ModelFrameStats::*>> rows) {
        if (!ImGui::BeginTable(id, 3, ImGuiTableFlags_SizingStretchSame)) return false;
        ImGui::TableNextColumn();
        for (const char* name : kModelNames) {
          ImGui::TableNextColumn();
          ImGui::Text("model %s", name);
        }
        for (const auto& [name, field] : rows) {
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(name);
          for (const ModelFrameStats& model : state.stats().model) {
            ImGui::TableNextColumn();
            ImGui::Text("%zu", model.*field);
          }
        }
        return true;
      };
  if (table("counts",
            {{"points", &ModelFrameStats::points},
             {"outside the grid", &ModelFrameStats::outside_grid},
             {"surface voxels", &ModelFrameStats::voxels},
             {"contact voxels", &ModelFrameStats::intersection},
             {"inside the other", &ModelFrameStats::inside},
             {"outside the other", &ModelFrameStats::outside}})) {
    ImGui::EndTable();
  }
  if (ImGui::TreeNode("developer")) {
    if (table("developer counts",
              {{"components", &ModelFrameStats::components},
               {"low confidence", &ModelFrameStats::low_confidence_regions},
               {"thin features", &ModelFrameStats::thin_feature_regions}})) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted("point coverage");
      for (int i = 0; i < 2; ++i) {
        ImGui::TableNextColumn();
        const double coverage = state.stats().model[i].point_coverage;
        if (state.models()[i].triangles) {
          ImGui::TextColored(kDimColor, "mesh");
        } else if (coverage < kMinPointCoverage) {
          ImGui::TextColored(kErrorColor, "%.1f %%", 100 * coverage);
        } else {
          ImGui::Text("%.1f %%", 100 * coverage);
        }
      }
      ImGui::EndTable();
    }
    ImGui::TreePop();
  }
  draw_label_warnings(state);
}

void Panel::draw_label_warnings(const AppState& state) {
  for (int i = 0; i < 2; ++i) {
    const ModelFrameStats& s = state.stats().model[i];
    const ModelInfo& model   = state.models()[i];
    if (!model.triangles && s.point_coverage < kMinPointCoverage) {
      ImGui::PushStyleColor(ImGuiCol_Text, kErrorColor);
      ImGui::TextWrapped(
          "model %s (%s): only %.1f %% of its surface voxels hold a point (%.0f %% needed at this "
          "grid): labels may leak through the gaps. It needs about %zu points at this grid, or "
          "a mesh.",
          kModelNames[i],
          model.path.c_str(),
          100 * s.point_coverage,
          100 * kMinPointCoverage,
          s.recommended_points);
      ImGui::PopStyleColor();
    }
    if (s.thin_feature_regions) {
      ImGui::PushStyleColor(ImGuiCol_Text, kErrorColor);
      ImGui::TextWrapped(
          "model %s: %zu region(s) reach both sides of a wall of model %s thinner than about two "
          "voxels: their labels cannot all be right (a finer grid resolves the wall).",
          kModelNames[i],
          s.thin_feature_regions,
          kModelNames[1 - i]);
      ImGui::PopStyleColor();
    }
    if (s.open_parts) {
      ImGui::PushStyleColor(ImGuiCol_Text, kErrorColor);
      ImGui::TextWrapped("%s", open_mesh_warning(s, i, model.path).c_str());
      ImGui::PopStyleColor();
    }
    const std::size_t unsure = s.low_confidence_regions > s.thin_feature_regions
                                   ? s.low_confidence_regions - s.thin_feature_regions
                                   : 0;
    if (unsure) {
      ImGui::TextColored(kDimColor,
                         "model %s: %zu region(s) labelled without a clear majority of rays",
                         kModelNames[i],
                         unsure);
    }
  }
}

namespace {

/// After a drag or slider field: ImGui types a value into one only on Ctrl+click (or, on a drag
/// field, a double-click), which nobody guesses; the field's tooltip says so.
void typed_value_hint(bool drag = false) {
  if (ImGui::IsItemHovered() && !ImGui::IsItemActive()) {
    ImGui::SetTooltip(drag ? "drag, or Ctrl+click (double-click) to type a value"
                           : "drag, or Ctrl+click to type a value");
  }
}

}  // namespace

// [layers] -------------------------------------------------------------------------------------
void Panel::draw_layers(const AppState& state, ViewControls& controls) {
  DrawSettings& draw                    = controls.draw;
  Layers& layers                        = draw.layers;
  Colors& colors                        = draw.colors;
  constexpr ImGuiColorEditFlags kSwatch = ImGuiColorEditFlags_NoInputs;
  ImGui::TextColored(kDimColor, "click a colour to edit it");
  for (int i = 0; i < 2; ++i) {
    ImGui::PushID(i);
    ImGui::ColorEdit3("##points", colors.points[i].data(), kSwatch);
    ImGui::SameLine();
    ImGui::Checkbox(i == 0 ? "points A" : "points B", &layers.points[i]);
    ImGui::SameLine(140);
    ImGui::ColorEdit3("##inside", colors.inside[i].data(), kSwatch);
    ImGui::SameLine();
    ImGui::Checkbox("inside", &layers.inside[i]);
    ImGui::SameLine(260);
    ImGui::ColorEdit3("##outside", colors.outside[i].data(), kSwatch);
    ImGui::SameLine();
    ImGui::Checkbox("outside", &layers.outside[i]);
    ImGui::PopID();
  }
  ImGui::ColorEdit3("##intersection", colors.intersection.data(), kSwatch);
  ImGui::SameLine();
  ImGui::Checkbox("intersection voxels", &layers.intersection);
  ImGui::SameLine();
  ImGui::Checkbox("on top", &draw.band_on_top);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("the contact band drawn larger and over the surfaces just in front of it");
  }
  if (ImGui::Button("default colours")) colors = Colors{};
  ImGui::SliderFloat("point size", &draw.point_size, 1.0f, 8.0f, "%.0f px");
  typed_value_hint();
  ImGui::Checkbox("eye-dome lighting", &draw.eye_dome);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("points darkened where they lie behind the points beside them");
  }
  if (draw.eye_dome) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(120);
    ImGui::SliderFloat("##edl",
                       &draw.eye_dome_strength,
                       10.0f,
                       1000.0f,
                       "strength %.0f",
                       ImGuiSliderFlags_Logarithmic);
    typed_value_hint();
  }
  ImGui::SliderFloat("voxel size", &draw.voxel_scale, 0.2f, 3.0f, "%.1f x");
  typed_value_hint();
  ImGui::SliderFloat("ambient light", &draw.ambient, 0.0f, 1.0f, "%.2f");
  typed_value_hint();

  ImGui::Separator();
  if (ImGui::Checkbox("X-ray: outside voxels translucent", &draw.xray) && draw.xray) {
    layers.outside = {true, true};
  }
  if (draw.xray) {
    ImGui::SliderFloat("opacity", &draw.xray_opacity, 0.02f, 1.0f, "%.2f");
    typed_value_hint();
  }

  ImGui::Separator();
  ClipPlane& clip    = draw.clip;
  const Bounds& grid = state.pipeline().config().grid.bounds;
  const float lo[3]  = {grid.min.x, grid.min.y, grid.min.z};
  const float hi[3]  = {grid.max.x, grid.max.y, grid.max.z};
  if (ImGui::Checkbox("clipping plane", &clip.enabled) && clip.enabled &&
      !(clip.offset > lo[clip.axis] && clip.offset < hi[clip.axis])) {
    clip.offset = 0.5f * (lo[clip.axis] + hi[clip.axis]);
  }
  if (clip.enabled) {
    ImGui::SameLine();
    ImGui::Checkbox("flip", &clip.flip);
    ImGui::SetNextItemWidth(80);
    ImGui::Combo("axis", &clip.axis, "x\0y\0z\0");
    ImGui::SliderFloat("offset", &clip.offset, lo[clip.axis], hi[clip.axis], "%.4g");
    typed_value_hint();
    ImGui::TextColored(kDimColor, "Ctrl + mouse wheel moves it");
  }
}

// [parameters] ---------------------------------------------------------------------------------
void Panel::draw_parameters(AppState& state) {
  const int current_points = static_cast<int>(state.settings().points_per_model);
  ImGui::InputInt("points per model", &m_points, 10000, 100000);
  m_points = std::clamp(m_points, 1000, 1 << 26);
  if (m_points != current_points) {
    ImGui::SameLine();
    if (ImGui::Button("re-sample") &&
        !state.set_points_per_model(static_cast<std::size_t>(m_points))) {
      m_points = current_points;
    }
  }

  ImGui::SliderInt("grid resolution", &m_resolution, 16, 1024);
  if (ImGui::IsItemDeactivatedAfterEdit()) state.set_resolution(m_resolution);
  typed_value_hint();

  // The tables' own settings: what a clash check does not need to touch.
  if (ImGui::TreeNode("developer: table sizes")) {
    ImGui::SliderFloat("cuckoo space", &m_cuckoo_space, 1.05f, 3.0f, "%.2f N");
    if (ImGui::IsItemDeactivatedAfterEdit()) state.set_table_options(m_cuckoo_space, m_load);
    typed_value_hint();
    ImGui::SliderFloat("hashgraph load", &m_load, 0.25f, 4.0f, "%.2f");
    if (ImGui::IsItemDeactivatedAfterEdit()) state.set_table_options(m_cuckoo_space, m_load);
    typed_value_hint();
    ImGui::TreePop();
  }

  AnimationParams animation = state.settings().animation;
  bool changed              = ImGui::SliderFloat("speed", &animation.speed, 0.0f, 4.0f);
  typed_value_hint();
  int deformation = static_cast<int>(animation.deformation);
  changed |= ImGui::Combo("deformation", &deformation, "none\0twist\0bend\0wobble\0");
  animation.deformation = static_cast<Deformation>(deformation);
  changed |= ImGui::SliderFloat("amount", &animation.amount, 0.0f, 0.5f);
  typed_value_hint();
  if (changed) state.set_animation(animation);
}

// [models] -------------------------------------------------------------------------------------
void Panel::draw_models(AppState& state, ViewControls& controls) {
  ImGui::TextColored(kDimColor, "load by path, or drop files on the window (one: the selected");
  ImGui::TextColored(kDimColor, "model; two: A and B)");
  for (int i = 0; i < 2; ++i) {
    ImGui::PushID(i);
    const ModelInfo& model = state.models()[i];
    if (model.path != m_shown_paths[i]) {  // loaded some other way (a drop)
      m_shown_paths[i] = model.path;
      copy_text(m_paths[i], model.path);
    }
    ImGui::RadioButton(kModelNames[i], &controls.selected_model, i);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-60);
    const bool enter = ImGui::InputText(
        "##path", m_paths[i].data(), m_paths[i].size(), ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if (ImGui::Button("Load") || enter) state.load_model(i, m_paths[i].data());
    if (!state.model_error(i).empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, kErrorColor);
      ImGui::TextWrapped("%s", state.model_error(i).c_str());
      ImGui::PopStyleColor();
    }
    ImGui::TextColored(kDimColor,
                       "  %s, %zu points%s%s",
                       model.name.c_str(),
                       model.points,
                       model.triangles ? ", mesh" : "",
                       model.dropped ? " (non-finite points dropped)" : "");
    ImGui::PopID();
  }
}

// [placement] ----------------------------------------------------------------------------------
void Panel::draw_placement(AppState& state, ViewControls& controls) {
  ImGui::Separator();
  ImGui::TextUnformatted("placement");
  const int i = controls.selected_model;
  if (!state.placeable()) {
    ImGui::TextColored(kDimColor, "the scene's keyframes place the models");
  } else {
    ImGui::Text("model %s (Tab switches)", kModelNames[i]);
    ModelPlacement placement = state.placement(i);
    const float speed        = 0.002f * state.pipeline().grid().voxel_size.x *
                        static_cast<float>(state.pipeline().config().grid.resolution.x);
    // The translation's label carries the scene's unit ("translate (mm)").
    const std::string translate = "translate (" + std::string(to_string(state.scene().unit)) + ")";
    ImGui::TextColored(kDimColor, "drag a field, or Ctrl+click (double-click) it to type");
    bool edited = ImGui::DragFloat3(translate.c_str(), &placement.translate.x, speed, 0, 0, "%.4g");
    bool done   = ImGui::IsItemDeactivatedAfterEdit();
    typed_value_hint(true);
    edited |= ImGui::DragFloat3("rotate (deg)", &placement.rotate_degrees.x, 0.5f, 0, 0, "%.1f");
    done |= ImGui::IsItemDeactivatedAfterEdit();
    typed_value_hint(true);
    float scale = static_cast<float>(placement.scale);
    if (ImGui::DragFloat(
            "scale", &scale, 0.005f, 1e-6f, 1e6f, "%.4g", ImGuiSliderFlags_Logarithmic)) {
      placement.scale = std::max(scale, 1e-6f);
      edited          = true;
    }
    done |= ImGui::IsItemDeactivatedAfterEdit();
    typed_value_hint(true);
    // The grid is fitted again once an edit ends (as at the end of a mouse drag).
    if (edited || done) state.set_placement(i, placement, done);
    int mode = static_cast<int>(controls.mouse_mode);
    ImGui::TextUnformatted("left drag (M):");
    ImGui::SameLine();
    ImGui::RadioButton("camera", &mode, static_cast<int>(MouseMode::Camera));
    ImGui::SameLine();
    ImGui::RadioButton("move", &mode, static_cast<int>(MouseMode::Translate));
    ImGui::SameLine();
    ImGui::RadioButton("turn", &mode, static_cast<int>(MouseMode::Rotate));
    controls.mouse_mode = static_cast<MouseMode>(mode);
  }
  double time = state.time();
  ImGui::SetNextItemWidth(120);
  if (ImGui::InputDouble(
          "pose at t (s)", &time, 0.1, 1.0, "%.3f", ImGuiInputTextFlags_EnterReturnsTrue)) {
    state.set_time(time);
    if (!state.paused()) state.toggle_pause();
  }
  ImGui::SameLine();
  if (ImGui::Button(state.paused() ? "Resume" : "Hold this pose")) state.toggle_pause();
}

void Panel::draw_scene_file(AppState& state) {
  ImGui::Separator();
  ImGui::TextUnformatted("scene file");
  ImGui::SetNextItemWidth(-60);
  const bool enter = ImGui::InputText(
      "##scene", m_scene_path.data(), m_scene_path.size(), ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if (ImGui::Button("Save") || enter) state.save_scene(m_scene_path.data());
}

// [clash] --------------------------------------------------------------------------------------
void Panel::draw_clash(AppState& state, PanelRequests& requests) {
  if (ImGui::Button("Compute now")) state.compute_clash();
  ImGui::SameLine();
  int every = state.clash_interval();
  ImGui::SetNextItemWidth(100);
  if (ImGui::InputInt("every N frames", &every)) state.set_clash_interval(every);
  draw_clash_status_file(state);
  const std::optional<ClashReport>& report = state.clash();
  if (!report) {
    ImGui::TextColored(kDimColor, "no report yet");
    return;
  }
  const char* unit = to_string(state.scene().unit).data();
  ImGui::TextWrapped("t = %.2f s: %zu clash(es): %zu hard, %zu touching, %zu clearance",
                     state.clash_time(),
                     report->clashes.size(),
                     report->kind_counts[0],
                     report->kind_counts[1],
                     report->kind_counts[2]);
  ImGui::PushStyleColor(ImGuiCol_Text, kDimColor);
  ImGui::TextWrapped("tolerance %g %s, clearance %g %s (the scene's); click a clash to frame it",
                     state.scene().tolerance,
                     unit,
                     state.scene().clearance,
                     unit);
  ImGui::PopStyleColor();
  const clash::ClashStatus* status = state.clash_status();
  const ImGuiTableFlags flags      = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  const float room = ImGui::GetContentRegionAvail().y - (status ? 150 : 40);
  if (ImGui::BeginTable("clashes", status ? 5 : 4, flags, ImVec2(0, room * 0.55f))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("kind");
    ImGui::TableSetupColumn("parts (A x B)", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("volume");
    ImGui::TableSetupColumn("depth / gap");
    if (status) ImGui::TableSetupColumn("status");
    ImGui::TableHeadersRow();
    const ImVec4 kind_colour[kClashKinds] = {kErrorColor, kWarningColor, kDimColor};
    for (std::size_t i = 0; i < report->clashes.size(); ++i) {
      const Clash& c       = report->clashes[i];
      const std::string id = clash::id_text(c.id);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(static_cast<int>(i));
      ImGui::PushStyleColor(ImGuiCol_Text, kind_colour[static_cast<int>(c.kind)]);
      if (ImGui::Selectable(to_string(c.kind).data(),
                            status && id == m_clash_id,
                            ImGuiSelectableFlags_SpanAllColumns)) {
        requests.focus = c.bounds;
        if (status) select_clash(state, id);
      }
      ImGui::PopStyleColor();
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::Text(
          "%s x %s", state.part_name(0, c.part_a).c_str(), state.part_name(1, c.part_b).c_str());
      ImGui::TableNextColumn();
      if (std::isnan(c.volume)) {
        ImGui::Text("%zu voxels", c.contact_voxels);
      } else {
        ImGui::Text("%.3g %s^3", c.volume, unit);
      }
      ImGui::TableNextColumn();
      if (c.kind == ClashKind::Clearance) {
        ImGui::Text("gap %.3g %s", c.distance, unit);
      } else if (!std::isnan(c.depth)) {
        ImGui::Text("%.3g %s", c.depth, unit);
      }
      if (!status) continue;
      ImGui::TableNextColumn();
      const std::optional<clash::StatusEntry> entry = status->find(id);
      if (entry) {
        ImGui::TextUnformatted(entry->status.c_str());
        if (!entry->comment.empty() && ImGui::IsItemHovered()) {
          ImGui::SetTooltip("%s", entry->comment.c_str());
        }
      }
    }
    // The status file's clashes this report no longer finds.
    if (status) {
      int row = static_cast<int>(report->clashes.size());
      for (const clash::StatusEntry& entry : status->entries()) {
        if (entry.resolved_run == 0) continue;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::PushID(row++);
        ImGui::PushStyleColor(ImGuiCol_Text, kDimColor);
        if (ImGui::Selectable(
                "gone", entry.id == m_clash_id, ImGuiSelectableFlags_SpanAllColumns)) {
          select_clash(state, entry.id);
        }
        ImGui::TableNextColumn();
        ImGui::Text("%s x %s", entry.part_a.c_str(), entry.part_b.c_str());
        ImGui::TableNextColumn();
        ImGui::TableNextColumn();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(entry.status.c_str());
        ImGui::PopStyleColor();
        ImGui::PopID();
      }
    }
    ImGui::EndTable();
  }
  if (status) {
    if (m_clash_id.empty() && !report->clashes.empty()) {
      select_clash(state, clash::id_text(report->clashes.front().id));
    }
    draw_clash_status_editor(state);
  }
  ImGui::TextWrapped("%zu region(s) of the contact band, %zu voxels, %.4g %s^3",
                     report->total_regions,
                     report->voxels,
                     report->volume,
                     unit);
  if (report->total_regions > report->regions.size()) {
    ImGui::TextColored(kDimColor, "the largest %zu listed", report->regions.size());
  }
  if (!ImGui::BeginTable("regions", 4, flags, ImVec2(0, ImGui::GetContentRegionAvail().y - 40))) {
    return;
  }
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("#");
  ImGui::TableSetupColumn("voxels");
  ImGui::TableSetupColumn("volume");
  ImGui::TableSetupColumn("parts (A x B: voxels)", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  for (std::size_t r = 0; r < report->regions.size(); ++r) {
    const ClashRegion& region = report->regions[r];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    char label[24];
    std::snprintf(label, sizeof label, "%zu", r + 1);
    if (ImGui::Selectable(label, false, ImGuiSelectableFlags_SpanAllColumns)) {
      requests.focus = region.bounds;
    }
    ImGui::TableNextColumn();
    ImGui::Text("%zu", region.voxels);
    ImGui::TableNextColumn();
    ImGui::Text("%.3g", region.volume);
    ImGui::TableNextColumn();
    std::string parts;
    for (const PartPair& pair : region.parts) {
      if (!parts.empty()) parts += "; ";
      parts += state.part_name(0, pair.part_a) + " x " + state.part_name(1, pair.part_b) + ": " +
               std::to_string(pair.voxels);
    }
    ImGui::TextUnformatted(parts.c_str());
  }
  ImGui::EndTable();
}

void Panel::draw_clash_status_file(AppState& state) {
  if (state.clash_status_path() != m_shown_status_path) {
    m_shown_status_path = state.clash_status_path();
    copy_text(m_status_path, m_shown_status_path);
  }
  ImGui::SetNextItemWidth(-110);
  const bool enter = ImGui::InputText(
      "##status", m_status_path.data(), m_status_path.size(), ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if (ImGui::Button("Open") || enter) {
    if (state.open_clash_status(m_status_path.data()) && !m_clash_id.empty()) {
      select_clash(state, m_clash_id);
    }
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(state.clash_status() == nullptr);
  if (ImGui::Button(state.clash_status_unsaved() ? "Save*" : "Save")) state.save_clash_status();
  ImGui::EndDisabled();
  if (!state.clash_status()) {
    ImGui::TextColored(kDimColor, "status file: none (open one to keep status and comments)");
  }
}

void Panel::select_clash(const AppState& state, const std::string& id) {
  m_clash_id                                    = id;
  m_clash_status                                = 0;
  const clash::ClashStatus* status              = state.clash_status();
  const std::optional<clash::StatusEntry> entry = status ? status->find(id) : std::nullopt;
  copy_text(m_assignee, entry ? entry->assignee : "");
  copy_text(m_comment, entry ? entry->comment : "");
  if (!entry) return;
  for (std::size_t s = 0; s < clash::kClashStatuses.size(); ++s) {
    if (clash::kClashStatuses[s] == entry->status) m_clash_status = static_cast<int>(s);
  }
}

void Panel::draw_clash_status_editor(AppState& state) {
  const clash::ClashStatus* status = state.clash_status();
  const std::optional<clash::StatusEntry> entry =
      m_clash_id.empty() ? std::nullopt : status->find(m_clash_id);
  if (!entry) {
    ImGui::TextColored(kDimColor, "click a clash to edit its status and comment");
    return;
  }
  ImGui::TextWrapped("%s x %s: first found in run %zu%s",
                     entry->part_a.c_str(),
                     entry->part_b.c_str(),
                     entry->first_run,
                     entry->resolved_run ? ", no longer found" : "");
  ImGui::SetNextItemWidth(120);
  const auto status_name = [](void*, int i, const char** out) {
    *out = clash::kClashStatuses[static_cast<std::size_t>(i)].data();
    return true;
  };
  ImGui::Combo("##clash-status",
               &m_clash_status,
               status_name,
               nullptr,
               static_cast<int>(clash::kClashStatuses.size()));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  ImGui::InputTextWithHint("##assignee", "assignee", m_assignee.data(), m_assignee.size());
  ImGui::InputTextMultiline(
      "##comment", m_comment.data(), m_comment.size(), ImVec2(-70, ImGui::GetTextLineHeight() * 3));
  ImGui::SameLine();
  if (ImGui::Button("Apply")) {
    state.edit_clash_status(
        m_clash_id,
        std::string(clash::kClashStatuses[static_cast<std::size_t>(m_clash_status)]),
        m_assignee.data(),
        m_comment.data());
  }
}

// [output] -------------------------------------------------------------------------------------
void Panel::draw_output(PanelRequests& requests) {
  ImGui::SetCursorPosY(std::max(ImGui::GetCursorPosY(), ImGui::GetWindowHeight() - 60));
  ImGui::Separator();
  requests.screenshot = ImGui::Button("Screenshot (F12)");
  ImGui::SameLine();
  requests.export_voxels = ImGui::Button("Export voxels (F11)");
  if (!m_output_status.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, m_output_error ? kErrorColor : kDimColor);
    ImGui::TextWrapped("%s", m_output_status.c_str());
    ImGui::PopStyleColor();
  }
}

}  // namespace voxhash::viewer
