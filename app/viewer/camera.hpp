// An orbit camera (GLM): yaw / pitch around a target, distance to it, and a pan of the target in
// the view plane. The front end feeds it mouse motion and scroll; the renderer reads view_proj.
#pragma once

#include <glm/glm.hpp>

namespace voxhash::viewer {

class OrbitCamera {
 public:
  OrbitCamera() { reset(); }

  void reset();
  /// Mouse motion in pixels with the orbit button held.
  void orbit(float dx_pixels, float dy_pixels);
  /// Mouse motion in pixels with the pan button held; `viewport_height` scales it to world units.
  void pan(float dx_pixels, float dy_pixels, float viewport_height);
  /// Scroll wheel steps (positive: closer).
  void zoom(float steps);

  /// `shift_x` moves the image sideways by that fraction of the viewport width (to centre the scene
  /// in the part a panel leaves free).
  [[nodiscard]] glm::mat4 view_proj(float aspect, float shift_x = 0) const;
  /// Unit vector from the target towards the eye.
  [[nodiscard]] glm::vec3 eye_direction() const;

 private:
  glm::vec3 m_target{0.0f};
  float m_yaw      = 0;  // radians around +y
  float m_pitch    = 0;  // radians above the xz plane
  float m_distance = 0;
};

}  // namespace voxhash::viewer
