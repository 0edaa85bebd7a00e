// The offscreen kind of GlContext: EGL device enumeration, display, config, context, then an
// offscreen framebuffer. The EXT entry points come from eglGetProcAddress; failures are collected
// into the thrown message. On an NVIDIA GPU this is the context CUDA-GL interop runs on; elsewhere
// (Mesa) it may be a software device.
#include "viewer/context.hpp"
#include "viewer/gl.hpp"

#include <voxhash/error.hpp>

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

namespace voxhash::viewer {
namespace {

bool has_extension(const char* list, std::string_view name) {
  if (!list) return false;
  for (std::string_view rest = list; !rest.empty();) {
    const auto space = rest.find(' ');
    if (rest.substr(0, space) == name) return true;
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  return false;
}

template <class F>
F load(const char* name) {
  auto f = reinterpret_cast<F>(eglGetProcAddress(name));
  if (!f) throw Error(std::string("EGL: ") + name + " is not available");
  return f;
}

class EglContext final : public GlContext {
 public:
  /// Picks a device that exposes EGL_NV_device_cuda when there is one, else the first that gives
  /// a 4.5 core context; makes the context current, loads GL and binds the framebuffer.
  EglContext(int width, int height);
  EglContext(const EglContext&)            = delete;
  EglContext& operator=(const EglContext&) = delete;
  ~EglContext() override {
    m_framebuffer.reset();
    release();
  }

  [[nodiscard]] std::string describe() const override { return "offscreen, " + m_description; }
  void make_current() override {
    eglMakeCurrent(m_display, m_surface, m_surface, m_context);
    m_framebuffer->bind();
  }
  [[nodiscard]] std::pair<int, int> framebuffer_size() const override {
    return {m_width, m_height};
  }
  [[nodiscard]] WindowInput poll() override { return {}; }
  void swap(bool) override {}
  [[nodiscard]] bool should_close() const override { return false; }
  [[nodiscard]] GLFWwindow* window() const override { return nullptr; }

 private:
  void release() noexcept;

  EGLDisplay m_display = EGL_NO_DISPLAY;
  EGLContext m_context = EGL_NO_CONTEXT;
  EGLSurface m_surface = EGL_NO_SURFACE;  // EGL_NO_SURFACE when surfaceless
  std::string m_description;
  int m_width, m_height;
  std::optional<OffscreenFramebuffer> m_framebuffer;  // destroyed while the context is current
};

EglContext::EglContext(int width, int height) : m_width(width), m_height(height) {
  if (!has_extension(eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS), "EGL_EXT_platform_device")) {
    throw Error("EGL offers no device platform (EGL_EXT_platform_device): no GPU driver with EGL");
  }
  const auto query_devices    = load<PFNEGLQUERYDEVICESEXTPROC>("eglQueryDevicesEXT");
  const auto query_string     = load<PFNEGLQUERYDEVICESTRINGEXTPROC>("eglQueryDeviceStringEXT");
  const auto platform_display = load<PFNEGLGETPLATFORMDISPLAYEXTPROC>("eglGetPlatformDisplayEXT");

  std::array<EGLDeviceEXT, 16> devices{};
  EGLint count = 0;
  if (!query_devices(static_cast<EGLint>(devices.size()), devices.data(), &count) || count == 0) {
    throw Error("EGL: no devices (eglQueryDevicesEXT)");
  }
  // A device CUDA can share buffers with first, then the others in order.
  std::stable_partition(devices.begin(), devices.begin() + count, [&](EGLDeviceEXT d) {
    return has_extension(query_string(d, EGL_EXTENSIONS), "EGL_NV_device_cuda");
  });

  std::string failures;
  for (EGLint i = 0; i < count && m_context == EGL_NO_CONTEXT; ++i) {
    const char* extensions = query_string(devices[i], EGL_EXTENSIONS);
    EGLDisplay display     = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
    EGLint major = 0, minor = 0;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) {
      failures += " device " + std::to_string(i) + ": eglInitialize failed;";
      continue;
    }
    const bool surfaceless =
        has_extension(eglQueryString(display, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context");
    const EGLint config_attribs[]  = {EGL_SURFACE_TYPE,
                                     surfaceless ? 0 : EGL_PBUFFER_BIT,
                                      EGL_RENDERABLE_TYPE,
                                      EGL_OPENGL_BIT,
                                      EGL_RED_SIZE,
                                      8,
                                      EGL_GREEN_SIZE,
                                      8,
                                      EGL_BLUE_SIZE,
                                      8,
                                      EGL_NONE};
    EGLConfig config               = nullptr;
    EGLint configs                 = 0;
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                      4,
                                      EGL_CONTEXT_MINOR_VERSION,
                                      5,
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                      EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                      EGL_NONE};
    EGLContext context             = EGL_NO_CONTEXT;
    if (eglBindAPI(EGL_OPENGL_API) &&
        eglChooseConfig(display, config_attribs, &config, 1, &configs) && configs > 0) {
      context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
    }
    if (context == EGL_NO_CONTEXT) {
      failures += " device " + std::to_string(i) + ": no OpenGL 4.5 core context;";
      eglTerminate(display);
      continue;
    }
    EGLSurface surface = EGL_NO_SURFACE;
    if (!surfaceless) {
      const EGLint pbuffer_attribs[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
      surface                        = eglCreatePbufferSurface(display, config, pbuffer_attribs);
    }
    if (!eglMakeCurrent(display, surface, surface, context)) {
      failures += " device " + std::to_string(i) + ": eglMakeCurrent failed;";
      if (surface != EGL_NO_SURFACE) eglDestroySurface(display, surface);
      eglDestroyContext(display, context);
      eglTerminate(display);
      continue;
    }
    m_display     = display;
    m_context     = context;
    m_surface     = surface;
    m_description = "EGL " + std::to_string(major) + "." + std::to_string(minor) + " device " +
                    std::to_string(i) + " of " + std::to_string(count) +
                    (has_extension(extensions, "EGL_NV_device_cuda") ? " (CUDA device)" : "");
  }
  if (m_context == EGL_NO_CONTEXT) {
    throw Error("EGL: no device gives an OpenGL 4.5 core context:" + failures);
  }
  try {
    load_gl(eglGetProcAddress);
    m_framebuffer.emplace(width, height);
  } catch (...) {
    release();
    throw;
  }
}

void EglContext::release() noexcept {
  if (m_display == EGL_NO_DISPLAY) return;
  eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (m_surface != EGL_NO_SURFACE) eglDestroySurface(m_display, m_surface);
  eglDestroyContext(m_display, m_context);
  eglTerminate(m_display);
  m_display = EGL_NO_DISPLAY;
}

}  // namespace

std::unique_ptr<GlContext> make_offscreen_context(int width, int height) {
  return std::make_unique<EglContext>(width, height);
}

}  // namespace voxhash::viewer
