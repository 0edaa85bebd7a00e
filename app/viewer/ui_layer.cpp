// UiLayer: ImGui set-up (no imgui.ini written; opaque panel background) and per-frame calls.
#include "viewer/palette.hpp"
#include "viewer/ui_layer.hpp"

#include <voxhash/error.hpp>

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>

namespace voxhash::viewer {

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

}  // namespace voxhash::viewer
