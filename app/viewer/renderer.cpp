// OrbitCamera (spherical coordinates around a target, perspective projection) and Renderer: two
// programs (points, voxel cubes) from the GLSL embedded at build time, and two vertex layouts whose
// buffer binding is pointed at each model's buffer in turn (DSA, no per-frame allocation); the
// points' eye-dome lighting as a full-screen pass over their depth, copied to a texture.
#include "viewer/renderer.hpp"

#include <voxhash/pipeline.hpp>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string_view>

namespace voxhash::viewer {

/// shaders/*.{vert,frag}, one constant per file (cmake/EmbedShaders.cmake generates them).
namespace shaders {
extern const std::string_view kPointsVert;
extern const std::string_view kPointsFrag;
extern const std::string_view kVoxelsVert;
extern const std::string_view kVoxelsFrag;
extern const std::string_view kImageVert;
extern const std::string_view kImageFrag;
extern const std::string_view kEdlFrag;
}  // namespace shaders

namespace {

constexpr float kFovY          = 40.0f * 3.14159265f / 180.0f;
constexpr float kOrbitPerPixel = 0.006f;
constexpr float kMaxPitch      = 1.55f;
constexpr glm::vec3 kUp{0.0f, 1.0f, 0.0f};

GlVertexArray make_layout() {
  GLuint id = 0;
  glCreateVertexArrays(1, &id);
  return GlVertexArray(id);
}

constexpr GLuint label_bit(VoxelLabel label) {
  return 1u << static_cast<unsigned>(label);
}

}  // namespace

void OrbitCamera::reset() {
  m_target   = m_home_target;
  m_yaw      = 0.35f;
  m_pitch    = 0.35f;
  m_distance = m_home_distance;
}

namespace {

/// The distance at which `box`'s bounding sphere, times `room`, fills the view's height.
float fitting_distance(const Bounds& box, float room) {
  const glm::vec3 lo(box.min.x, box.min.y, box.min.z), hi(box.max.x, box.max.y, box.max.z);
  return room * 0.5f * glm::length(hi - lo) / std::sin(kFovY * 0.5f);
}

glm::vec3 centre(const Bounds& box) {
  return 0.5f *
         (glm::vec3(box.min.x, box.min.y, box.min.z) + glm::vec3(box.max.x, box.max.y, box.max.z));
}

}  // namespace

void OrbitCamera::frame(const Bounds& box) {
  // A little room around the box: the swing carries the demo's models beyond their rest box.
  m_home_target   = centre(box);
  m_home_distance = fitting_distance(box, 1.1f);
  reset();
}

void OrbitCamera::focus(const Bounds& box) {
  m_target   = centre(box);
  m_distance = std::clamp(
      fitting_distance(box, 1.0f), m_home_distance / 30.0f, m_home_distance * 100.0f / 6.0f);
}

void OrbitCamera::orbit(float dx_pixels, float dy_pixels) {
  m_yaw -= dx_pixels * kOrbitPerPixel;
  m_pitch = std::clamp(m_pitch + dy_pixels * kOrbitPerPixel, -kMaxPitch, kMaxPitch);
}

void OrbitCamera::pan(float dx_pixels, float dy_pixels, float viewport_height) {
  m_target -= follow_cursor(dx_pixels, dy_pixels, viewport_height);
}

glm::vec3 OrbitCamera::follow_cursor(float dx_pixels,
                                     float dy_pixels,
                                     float viewport_height) const {
  const float world_per_pixel =
      2.0f * m_distance * std::tan(kFovY * 0.5f) / std::max(viewport_height, 1.0f);
  const glm::vec3 forward = -eye_direction();
  const glm::vec3 right   = glm::normalize(glm::cross(forward, kUp));
  const glm::vec3 up      = glm::cross(right, forward);
  return (dx_pixels * right - dy_pixels * up) * world_per_pixel;
}

void OrbitCamera::zoom(float steps) {
  m_distance = std::clamp(
      m_distance * std::pow(0.9f, steps), m_home_distance / 30.0f, m_home_distance * 100.0f / 6.0f);
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

void Renderer::draw_image(GLuint texture, int width, int height) const {
  glViewport(0, 0, width, height);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glUseProgram(m_image.id());
  glBindTextureUnit(0, texture);
  glUniform1i(glGetUniformLocation(m_image.id(), "u_image"), 0);
  glBindVertexArray(m_points_layout.id());  // no attributes are read
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glUseProgram(0);
}

void Renderer::shade_eye_dome(const glm::mat4& view_proj,
                              float strength,
                              int width,
                              int height) const {
  if (width != m_depth_width || height != m_depth_height) {
    GLuint id = 0;
    glCreateTextures(GL_TEXTURE_2D, 1, &id);
    m_depth = GlTexture(id);
    glTextureStorage2D(id, 1, GL_DEPTH_COMPONENT24, width, height);
    glTextureParameteri(id, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(id, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    m_depth_width  = width;
    m_depth_height = height;
  }
  glCopyTextureSubImage2D(m_depth.id(), 0, 0, 0, 0, 0, width, height);
  // The projection's far / near from view_proj: its third row is A times the view's depth axis and
  // its fourth minus that axis, with A = -(f + n) / (f - n).
  const glm::vec3 row2(view_proj[0][2], view_proj[1][2], view_proj[2][2]);
  const glm::vec3 row3(view_proj[0][3], view_proj[1][3], view_proj[2][3]);
  const float a             = -glm::dot(row2, row3) / glm::dot(row3, row3);
  const float far_over_near = (a - 1.0f) / (a + 1.0f);

  glDisable(GL_DEPTH_TEST);
  glDepthMask(GL_FALSE);
  glDisable(GL_CLIP_DISTANCE0);
  glEnable(GL_BLEND);
  glBlendFunc(GL_ZERO, GL_SRC_COLOR);
  glUseProgram(m_edl.id());
  glBindTextureUnit(0, m_depth.id());
  glUniform1i(glGetUniformLocation(m_edl.id(), "u_depth"), 0);
  glUniform1f(glGetUniformLocation(m_edl.id(), "u_far_over_near"), far_over_near);
  glUniform1f(glGetUniformLocation(m_edl.id(), "u_strength"), strength);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glDisable(GL_BLEND);
  glEnable(GL_CLIP_DISTANCE0);
  glDepthMask(GL_TRUE);
  glEnable(GL_DEPTH_TEST);
}

glm::vec4 ClipPlane::equation() const {
  if (!enabled) return {0.0f, 0.0f, 0.0f, 1.0f};
  // Kept: coordinate <= offset, or >= offset when flipped.
  const float sign = flip ? 1.0f : -1.0f;
  glm::vec4 e(0.0f);
  e[axis] = sign;
  e.w     = -sign * offset;
  return e;
}

Renderer::Renderer()
    : m_points(make_program("points", shaders::kPointsVert, shaders::kPointsFrag)),
      m_voxels(make_program("voxels", shaders::kVoxelsVert, shaders::kVoxelsFrag)),
      m_points_layout(make_layout()),
      m_voxels_layout(make_layout()),
      m_image(make_program("image", shaders::kImageVert, shaders::kImageFrag)),
      m_edl(make_program("edl", shaders::kImageVert, shaders::kEdlFrag)) {
  const GLuint points = m_points_layout.id();
  glEnableVertexArrayAttrib(points, 0);
  glVertexArrayAttribFormat(points, 0, 3, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribBinding(points, 0, 0);

  const GLuint voxels = m_voxels_layout.id();
  glEnableVertexArrayAttrib(voxels, 0);
  glVertexArrayAttribFormat(voxels, 0, 3, GL_FLOAT, GL_FALSE, offsetof(VoxelInstance, center));
  glVertexArrayAttribBinding(voxels, 0, 0);
  glEnableVertexArrayAttrib(voxels, 1);
  glVertexArrayAttribIFormat(voxels, 1, 1, GL_UNSIGNED_INT, offsetof(VoxelInstance, label));
  glVertexArrayAttribBinding(voxels, 1, 0);
  glVertexArrayBindingDivisor(voxels, 0, 1);

  m_points_uniforms = {glGetUniformLocation(m_points.id(), "u_view_proj"),
                       glGetUniformLocation(m_points.id(), "u_color"),
                       glGetUniformLocation(m_points.id(), "u_clip_plane")};
  m_voxels_uniforms = {glGetUniformLocation(m_voxels.id(), "u_view_proj"),
                       glGetUniformLocation(m_voxels.id(), "u_half_size"),
                       glGetUniformLocation(m_voxels.id(), "u_label_colors"),
                       glGetUniformLocation(m_voxels.id(), "u_light_dir"),
                       glGetUniformLocation(m_voxels.id(), "u_ambient"),
                       glGetUniformLocation(m_voxels.id(), "u_clip_plane"),
                       glGetUniformLocation(m_voxels.id(), "u_alpha"),
                       glGetUniformLocation(m_voxels.id(), "u_pull")};
}

void Renderer::draw(const SceneBuffers& buffers,
                    const DrawSettings& settings,
                    const glm::mat4& view_proj,
                    const glm::vec3& light_dir,
                    Float3 voxel_size,
                    int width,
                    int height) const {
  glViewport(0, 0, width, height);
  glClearColor(palette::kBackground[0], palette::kBackground[1], palette::kBackground[2], 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glEnable(GL_CLIP_DISTANCE0);
  const Layers& layers  = settings.layers;
  const glm::vec4 plane = settings.clip.equation();

  glUseProgram(m_points.id());
  glUniformMatrix4fv(m_points_uniforms.view_proj, 1, GL_FALSE, glm::value_ptr(view_proj));
  glUniform4fv(m_points_uniforms.clip_plane, 1, glm::value_ptr(plane));
  glPointSize(settings.point_size);
  glBindVertexArray(m_points_layout.id());
  bool drew_points = false;
  for (int i = 0; i < 2; ++i) {
    if (!layers.points[i] || buffers.point_count[i] == 0) continue;
    glUniform3fv(m_points_uniforms.color, 1, settings.colors.points[i].data());
    glVertexArrayVertexBuffer(m_points_layout.id(), 0, buffers.points_buffer(i), 0, sizeof(Float3));
    glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(buffers.point_count[i]));
    drew_points = true;
  }
  // Before the voxels: the pass reads the points' depth alone and leaves the cubes' shading as is.
  if (settings.eye_dome && drew_points) {
    shade_eye_dome(view_proj, settings.eye_dome_strength, width, height);
  }

  glUseProgram(m_voxels.id());
  glUniformMatrix4fv(m_voxels_uniforms.view_proj, 1, GL_FALSE, glm::value_ptr(view_proj));
  const float half = 0.5f * settings.voxel_scale;
  glUniform3f(
      m_voxels_uniforms.half_size, voxel_size.x * half, voxel_size.y * half, voxel_size.z * half);
  glUniform3fv(m_voxels_uniforms.light_dir, 1, glm::value_ptr(glm::normalize(light_dir)));
  glUniform1f(m_voxels_uniforms.ambient, settings.ambient);
  glUniform4fv(m_voxels_uniforms.clip_plane, 1, glm::value_ptr(plane));
  glUniform3f(m_voxels_uniforms.pull, 0.0f, 0.0f, 0.0f);
  glBindVertexArray(m_voxels_layout.id());
  glEnable(GL_CULL_FACE);
  // Opaque labels first; then the contact band over them; with X-ray the outside voxels last,
  // blended, without depth writes.
  const auto draw_labels = [&](bool outside, bool inside, bool band) {
    for (int i = 0; i < 2; ++i) {
      // Intersection voxels belong to both models: drawn once, with model 0's.
      const bool draw_label[3]     = {outside && layers.outside[i],
                                      inside && layers.inside[i],
                                      band && layers.intersection && i == 0};
      const palette::Rgb colors[3] = {
          settings.colors.outside[i], settings.colors.inside[i], settings.colors.intersection};
      glUniform3fv(m_voxels_uniforms.label_colors, 3, colors[0].data());
      glVertexArrayVertexBuffer(
          m_voxels_layout.id(), 0, buffers.voxels_buffer(i), 0, sizeof(VoxelInstance));
      const LabelRanges& ranges = buffers.voxel_ranges[i];
      for (int l = 0; l < 3; ++l) {
        if (!draw_label[l] || ranges.count[l] == 0) continue;
        glDrawArraysInstancedBaseInstance(
            GL_TRIANGLES, 0, 36, static_cast<GLsizei>(ranges.count[l]), ranges.first[l]);
      }
    }
  };
  glUniform1f(m_voxels_uniforms.alpha, 1.0f);
  draw_labels(!settings.xray, true, false);
  // The band stands out: its faces turned from the light darkened a third as much as the others',
  // and, on top, its cubes larger and moved towards the eye by kBandPull of their edges, so that
  // the surfaces around it do not hide it.
  const float band_half = settings.band_on_top ? half * kBandScale : half;
  glUniform3f(m_voxels_uniforms.half_size,
              voxel_size.x * band_half,
              voxel_size.y * band_half,
              voxel_size.z * band_half);
  glUniform1f(m_voxels_uniforms.ambient, band_ambient(settings.ambient));
  // The clip w of a point grows along the view's forward axis: its gradient is that axis.
  const glm::vec3 forward =
      glm::normalize(glm::vec3(view_proj[0][3], view_proj[1][3], view_proj[2][3]));
  const float edge = 2.0f * band_half * std::max({voxel_size.x, voxel_size.y, voxel_size.z});
  const float pull = settings.band_on_top ? kBandPull * edge : 0.0f;
  glUniform3fv(m_voxels_uniforms.pull, 1, glm::value_ptr(-forward * pull));
  draw_labels(false, false, true);
  glUniform3f(m_voxels_uniforms.pull, 0.0f, 0.0f, 0.0f);
  if (settings.xray) {
    glUniform3f(
        m_voxels_uniforms.half_size, voxel_size.x * half, voxel_size.y * half, voxel_size.z * half);
    glUniform1f(m_voxels_uniforms.ambient, settings.ambient);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
    glUniform1f(m_voxels_uniforms.alpha, settings.xray_opacity);
    draw_labels(true, false, false);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
  }
  glDisable(GL_CULL_FACE);
  glDisable(GL_CLIP_DISTANCE0);
  glBindVertexArray(0);
  glUseProgram(0);
}

}  // namespace voxhash::viewer
