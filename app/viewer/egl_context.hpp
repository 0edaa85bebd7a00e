// An offscreen OpenGL 4.5 core context on EGL's device platform (no window system, no display):
// eglQueryDevicesEXT -> eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT) -> a surfaceless context
// (a 1x1 pbuffer where surfaceless is not offered). On an NVIDIA GPU this is the context CUDA-GL
// interop runs on; elsewhere (Mesa) it may be a software device.
#pragma once

#include <string>

namespace voxhash::viewer {

class EglContext {
 public:
  /// Picks a device that exposes EGL_NV_device_cuda when there is one, else the first that gives
  /// a 4.5 core context; makes the context current and loads GL. Throws voxhash::Error naming
  /// what is missing (no EGL, no device, no 4.5 context).
  EglContext();
  EglContext(const EglContext&)            = delete;
  EglContext& operator=(const EglContext&) = delete;
  ~EglContext();

  /// The chosen device's extensions that identify it (for the panel).
  [[nodiscard]] const std::string& device_description() const { return m_description; }

 private:
  void release() noexcept;

  void* m_display = nullptr;  // EGLDisplay
  void* m_context = nullptr;  // EGLContext
  void* m_surface = nullptr;  // EGLSurface, null when surfaceless
  std::string m_description;
};

}  // namespace voxhash::viewer
