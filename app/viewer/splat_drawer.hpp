// The CUDA drawing path's GL side: a drawer whose target is an RGBA8 GL texture registered with
// CUDA once (again only when the viewport's size changes), mapped by the interop bridge with the
// frame's buffers and filled by the splat kernels (splat.hpp); the renderer shows it as a
// full-screen image. What it cannot draw (X-ray's blending) the GL path draws.
#pragma once

#include "viewer/gl.hpp"
#include "viewer/render_buffer.hpp"
#include "viewer/renderer.hpp"

#include <glm/glm.hpp>

#include <memory>

namespace voxhash::viewer {

class ViewDrawer : public DeviceDrawer {
 public:
  /// The next draws' camera, viewport, layers and colours (as Renderer::draw takes them); resizes
  /// the target for a new viewport size.
  virtual void set_view(const DrawSettings& settings,
                        const glm::mat4& view_proj,
                        const glm::vec3& light_dir,
                        Float3 voxel_size,
                        int width,
                        int height) = 0;
  /// The GL texture the last draw filled.
  [[nodiscard]] virtual GLuint texture() const = 0;
};

/// The CUDA drawer (needs a current GL context and a CUDA device); throws voxhash::Error on builds
/// without CUDA or when the texture cannot be registered.
[[nodiscard]] std::unique_ptr<ViewDrawer> make_cuda_drawer();

}  // namespace voxhash::viewer
