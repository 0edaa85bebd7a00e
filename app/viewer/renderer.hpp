// Drawing the scene from the GL buffers: the palette, an orbit camera, and the renderer, which
// draws each model's points (GL_POINTS, one colour per model) and its labelled voxels (instanced,
// lit cubes), one draw per visible label range, so hidden layers cost nothing; X-ray draws the
// outside voxels translucent after the opaque ones; a clipping plane cuts everything. Knows nothing
// of CUDA, the pipeline or the UI.
#pragma once

#include "viewer/gl.hpp"
#include "viewer/render_buffer.hpp"

#include <voxhash/geometry.hpp>

#include <glm/glm.hpp>

#include <array>

namespace voxhash::viewer {

/// The viewer's colours (linear RGB in [0, 1]), shared by the renderer, the panel's legend and
/// the screenshot tests, which look for the models' point colours and the panel background.
namespace palette {

using Rgb = std::array<float, 3>;

inline constexpr Rgb kBackground{0.16f, 0.17f, 0.20f};
inline constexpr std::array<Rgb, 2> kPoints{{{1.00f, 0.55f, 0.10f}, {0.20f, 0.65f, 1.00f}}};
/// Surface voxels outside the other model, per model.
inline constexpr std::array<Rgb, 2> kOutside{{{0.62f, 0.62f, 0.62f}, {0.25f, 0.35f, 0.85f}}};
/// Surface voxels inside the other model, per model: A's red, B's magenta.
inline constexpr std::array<Rgb, 2> kInside{{{0.90f, 0.15f, 0.15f}, {0.85f, 0.20f, 0.75f}}};
inline constexpr Rgb kIntersection{1.00f, 0.90f, 0.10f};
/// The panel's window background (opaque, so screenshots show it exactly).
inline constexpr Rgb kPanel{0.06f, 0.06f, 0.06f};

}  // namespace palette

/// An orbit camera: yaw / pitch around a target, distance to it, and a pan of the target in the
/// view plane. The frame loop feeds it mouse motion and scroll; the renderer reads view_proj.
class OrbitCamera {
 public:
  OrbitCamera() { reset(); }

  /// Back to the home view: the framed box's centre from the default direction.
  void reset();
  /// Makes `box` (the scene's models) the home view and goes there: its centre is the target, and
  /// its bounding sphere, with a tenth more room, fills the view's height; zooming stays within a
  /// range relative to it.
  void frame(const Bounds& box);
  /// Mouse motion in pixels with the orbit button held.
  void orbit(float dx_pixels, float dy_pixels);
  /// Frames `box` (a clash region) without changing the home view.
  void focus(const Bounds& box);
  /// Mouse motion in pixels with the pan button held; `viewport_height` scales it to world units.
  void pan(float dx_pixels, float dy_pixels, float viewport_height);
  /// The world motion, in the view plane through the target, that follows the cursor's motion.
  [[nodiscard]] glm::vec3 follow_cursor(float dx_pixels,
                                        float dy_pixels,
                                        float viewport_height) const;
  /// Scroll wheel steps (positive: closer).
  void zoom(float steps);

  /// `shift_x` moves the image sideways by that fraction of the viewport width (to centre the scene
  /// in the part a panel leaves free).
  [[nodiscard]] glm::mat4 view_proj(float aspect, float shift_x = 0) const;
  /// Unit vector from the target towards the eye.
  [[nodiscard]] glm::vec3 eye_direction() const;

 private:
  glm::vec3 m_home_target{0.0f};
  float m_home_distance = 6.0f;
  glm::vec3 m_target{0.0f};
  float m_yaw      = 0;  // radians around +y
  float m_pitch    = 0;  // radians above the xz plane
  float m_distance = 0;
};

/// Which layers to draw; per model where it makes sense.
struct Layers {
  std::array<bool, 2> points{true, true};
  bool intersection = true;                // voxels occupied by both models
  std::array<bool, 2> inside{true, true};  // the parts of each surface inside the other
  std::array<bool, 2> outside{false, false};
};

/// The colours the renderer draws with (the panel edits them); the palette's at first.
struct Colors {
  std::array<palette::Rgb, 2> points  = palette::kPoints;
  std::array<palette::Rgb, 2> outside = palette::kOutside;
  std::array<palette::Rgb, 2> inside  = palette::kInside;
  palette::Rgb intersection           = palette::kIntersection;
};

/// A clipping plane across one axis: what lies beyond `offset` along the axis (below it with
/// `flip`) is cut away, points and voxel cubes alike, in the shaders.
struct ClipPlane {
  bool enabled = false;
  int axis     = 0;  // 0 x, 1 y, 2 z
  float offset = 0;  // world coordinate on the axis
  bool flip    = false;

  /// (n, d) with dot(n, p) + d >= 0 where p is kept; (0, 0, 0, 1) when disabled.
  [[nodiscard]] glm::vec4 equation() const;
};

struct DrawSettings {
  Layers layers;
  Colors colors;
  float point_size  = 1.0f;  // pixels
  float voxel_scale = 2.0f;  // cube edge in voxels (above 1 they show through dense points)
  /// X-ray: outside voxels translucent (drawn after the opaque ones, depth writes off), so the
  /// inside and intersection voxels show through the shells.
  bool xray          = false;
  float xray_opacity = 0.06f;
  ClipPlane clip;
  float ambient = 0.45f;  // voxel faces turned away from the light get this much; 1: unlit
  /// The contact band over the surfaces just in front of it: its cubes kBandScale larger and moved
  /// kBandPull of their edges towards the eye. Off: drawn as the other labels are.
  bool band_on_top = true;
  /// Eye-dome lighting on the points: a point farther than the points beside it is darkened by
  /// exp(-eye_dome_strength x the mean log-depth step to them), so depth reads without normals.
  bool eye_dome           = true;
  float eye_dome_strength = 200.0f;
};

/// The contact band's cubes, relative to the other labels' (DrawSettings::voxel_scale).
inline constexpr float kBandScale = 1.25f;
/// How far the band's cubes are moved towards the eye, in their edges.
inline constexpr float kBandPull = 1.0f;
/// The light on the band's faces turned from the light: a third of the darkening of the others'.
[[nodiscard]] constexpr float band_ambient(float ambient) {
  return 1.0f - (1.0f - ambient) / 3.0f;
}

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
  /// Clears the `width` x `height` viewport and shows `texture` (the CUDA-drawn image) over it.
  void draw_image(GLuint texture, int width, int height) const;

 private:
  /// Darkens the points drawn so far by eye-dome lighting over the bound framebuffer's depth.
  void shade_eye_dome(const glm::mat4& view_proj, float strength, int width, int height) const;

  GlProgram m_points;
  GlProgram m_voxels;
  GlVertexArray m_points_layout;
  GlVertexArray m_voxels_layout;
  GlProgram m_image;
  GlProgram m_edl;
  /// The points' depth for the eye-dome pass, sized to the last viewport drawn.
  mutable GlTexture m_depth;
  mutable int m_depth_width = 0, m_depth_height = 0;
  struct {
    GLint view_proj, color, clip_plane;
  } m_points_uniforms{};
  struct {
    GLint view_proj, half_size, label_colors, light_dir, ambient, clip_plane, alpha, pull;
  } m_voxels_uniforms{};
};

}  // namespace voxhash::viewer
