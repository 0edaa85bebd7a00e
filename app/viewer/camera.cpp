// OrbitCamera: spherical coordinates around a target, perspective projection.
#include "viewer/camera.hpp"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>

namespace voxhash::viewer {
namespace {
constexpr float kFovY          = 40.0f * 3.14159265f / 180.0f;
constexpr float kOrbitPerPixel = 0.006f;
constexpr float kMaxPitch      = 1.55f;
constexpr glm::vec3 kUp{0.0f, 1.0f, 0.0f};
}  // namespace

void OrbitCamera::reset() {
  m_target   = glm::vec3(0.0f);
  m_yaw      = 0.35f;
  m_pitch    = 0.35f;
  m_distance = 6.0f;
}

void OrbitCamera::orbit(float dx_pixels, float dy_pixels) {
  m_yaw -= dx_pixels * kOrbitPerPixel;
  m_pitch = std::clamp(m_pitch + dy_pixels * kOrbitPerPixel, -kMaxPitch, kMaxPitch);
}

void OrbitCamera::pan(float dx_pixels, float dy_pixels, float viewport_height) {
  const float world_per_pixel =
      2.0f * m_distance * std::tan(kFovY * 0.5f) / std::max(viewport_height, 1.0f);
  const glm::vec3 forward = -eye_direction();
  const glm::vec3 right   = glm::normalize(glm::cross(forward, kUp));
  const glm::vec3 up      = glm::cross(right, forward);
  m_target += (-dx_pixels * right + dy_pixels * up) * world_per_pixel;
}

void OrbitCamera::zoom(float steps) {
  m_distance = std::clamp(m_distance * std::pow(0.9f, steps), 0.2f, 100.0f);
}

glm::vec3 OrbitCamera::eye_direction() const {
  return {
      std::cos(m_pitch) * std::sin(m_yaw), std::sin(m_pitch), std::cos(m_pitch) * std::cos(m_yaw)};
}

glm::mat4 OrbitCamera::view_proj(float aspect, float shift_x) const {
  const glm::vec3 eye  = m_target + eye_direction() * m_distance;
  const glm::mat4 view = glm::lookAt(eye, m_target, kUp);
  const glm::mat4 proj =
      glm::perspective(kFovY, std::max(aspect, 1e-3f), m_distance * 0.01f, m_distance * 10.0f);
  const glm::mat4 shift = glm::translate(glm::mat4(1.0f), glm::vec3(2.0f * shift_x, 0.0f, 0.0f));
  return shift * proj * view;
}

}  // namespace voxhash::viewer
