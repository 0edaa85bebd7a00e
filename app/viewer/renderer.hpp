// Draws the scene from the GL buffers: each model's points (GL_POINTS, one colour per model) and
// its labelled voxels (instanced cubes), one draw per visible label range, so hidden layers cost
// nothing. Knows nothing of CUDA, the pipeline or the UI.
#pragma once

#include "viewer/gl.hpp"
#include "viewer/scene_buffers.hpp"

#include <voxhash/geometry.hpp>

#include <glm/glm.hpp>

#include <array>

namespace voxhash::viewer {

/// Which layers to draw; per model where it makes sense.
struct Layers {
  std::array<bool, 2> points{true, true};
  bool intersection = true;                // voxels occupied by both models
  std::array<bool, 2> inside{true, true};  // the parts of each surface inside the other
  std::array<bool, 2> outside{false, false};
};

struct DrawSettings {
  Layers layers;
  float point_size  = 1.0f;  // pixels
  float voxel_scale = 2.0f;  // cube edge in voxels (above 1 they show through dense points)
};

class Renderer {
 public:
  /// Compiles the shaders; needs a current OpenGL 4.5 context.
  Renderer();

  /// Clears the bound framebuffer's `width` x `height` viewport and draws the scene.
  void draw(const SceneBuffers& buffers,
            const DrawSettings& settings,
            const glm::mat4& view_proj,
            const glm::vec3& light_dir,
            Float3 voxel_size,
            int width,
            int height) const;

 private:
  GlProgram m_points;
  GlProgram m_voxels;
  GlVertexArray m_points_layout;
  GlVertexArray m_voxels_layout;
  struct {
    GLint view_proj, color;
  } m_points_uniforms{};
  struct {
    GLint view_proj, half_size, label_colors, light_dir;
  } m_voxels_uniforms{};
};

}  // namespace voxhash::viewer
