// Euler angles from quaternions through the rotation matrix (R = Rz Ry Rx), and the host placement
// of a model and its inverse, both in double precision, in the scene's axes turned into the
// world's.
#include "viewer/placement.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace voxhash::viewer {
namespace {

constexpr double kDegrees = 180.0 / std::numbers::pi;

bool finite(Float3 p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
}

}  // namespace

ModelPlacement placement_of(const SceneModel& model) {
  const std::array<double, 9> m = rotation_matrix(model.pose.rotate);
  // R = Rz(c) Ry(b) Rx(a): m[6] = -sin b, m[7] = cos b sin a, m[8] = cos b cos a,
  // m[3] = sin c cos b, m[0] = cos c cos b.
  const double b = std::asin(std::clamp(-m[6], -1.0, 1.0));
  double a = 0, c = 0;
  if (std::abs(m[6]) < 1 - 1e-12) {
    a = std::atan2(m[7], m[8]);
    c = std::atan2(m[3], m[0]);
  } else {
    c = std::atan2(-m[1], m[4]);
  }
  return {model.pose.translate,
          {static_cast<float>(a * kDegrees),
           static_cast<float>(b * kDegrees),
           static_cast<float>(c * kDegrees)},
          model.scale};
}

void set_placement(SceneModel& model, const ModelPlacement& placement) {
  model.pose.translate = placement.translate;
  model.pose.rotate    = quaternion_from_euler(
      placement.rotate_degrees.x, placement.rotate_degrees.y, placement.rotate_degrees.z);
  model.scale = placement.scale;
}

RestModel rest_of(const PlacedModel& placed, const SceneModel& model, UpAxis up) {
  const std::array<double, 9> r = rotation_matrix(model.pose.rotate);
  const Float3 t                = model.pose.translate;
  const auto unplace            = [&](Float3 world) {
    const Float3 p = scene_axes_from_world(up, world);
    const double x = p.x - double{t.x}, y = p.y - double{t.y}, z = p.z - double{t.z};
    // R^T (p - t) / scale
    return Float3{static_cast<float>((r[0] * x + r[3] * y + r[6] * z) / model.scale),
                  static_cast<float>((r[1] * x + r[4] * y + r[7] * z) / model.scale),
                  static_cast<float>((r[2] * x + r[5] * y + r[8] * z) / model.scale)};
  };
  RestModel rest;
  rest.points.reserve(placed.cloud.points.size());
  for (const Float3 p : placed.cloud.points)
    rest.points.push_back(unplace(p));
  rest.vertices.reserve(placed.cloud.mesh.vertices.size());
  for (const Float3 v : placed.cloud.mesh.vertices)
    rest.vertices.push_back(unplace(v));
  return rest;
}

void place_model(const RestModel& rest, const SceneModel& model, UpAxis up, PlacedModel& placed) {
  const std::array<double, 9> r = rotation_matrix(model.pose.rotate);
  const Float3 t                = model.pose.translate;
  const double s                = model.scale;
  placed.bounds    = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
  placed.radius    = 0;
  const auto place = [&](Float3 p, Float3& out) {
    const double x = s * p.x, y = s * p.y, z = s * p.z;
    out = world_from_scene_axes(up,
                                Float3{static_cast<float>(r[0] * x + r[1] * y + r[2] * z + t.x),
                                       static_cast<float>(r[3] * x + r[4] * y + r[5] * z + t.y),
                                       static_cast<float>(r[6] * x + r[7] * y + r[8] * z + t.z)});
    if (!finite(out)) return;
    Bounds& b = placed.bounds;
    b.min     = {std::min(b.min.x, out.x), std::min(b.min.y, out.y), std::min(b.min.z, out.z)};
    b.max     = {std::max(b.max.x, out.x), std::max(b.max.y, out.y), std::max(b.max.z, out.z)};
    placed.radius =
        std::max(placed.radius, std::sqrt(out.x * out.x + out.y * out.y + out.z * out.z));
  };
  for (std::size_t i = 0; i < rest.points.size(); ++i)
    place(rest.points[i], placed.cloud.points[i]);
  for (std::size_t i = 0; i < rest.vertices.size(); ++i)
    place(rest.vertices[i], placed.cloud.mesh.vertices[i]);
}

}  // namespace voxhash::viewer
