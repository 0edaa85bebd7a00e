// Placing a model by hand in the viewer: the panel's fields (translate, rotate in degrees about x,
// then y, then z, uniform scale) to and from the scene's pose, and models placed again on the host
// from a rest copy (scene units before scale, rotation and translation), so that dragging a model
// around never accumulates rounding.
#pragma once

#include <voxhash/geometry.hpp>
#include <voxhash/scene.hpp>

#include <vector>

namespace voxhash::viewer {

/// What the panel edits for one model; as a scene file's "transform" gives it.
struct ModelPlacement {
  Float3 translate{};       // scene units
  Float3 rotate_degrees{};  // about x, then y, then z (fixed axes): R = Rz Ry Rx
  double scale = 1;         // uniform, > 0
};

/// The placement of a scene model (its quaternion as Euler angles; at gimbal lock, y = ±90°, the
/// rotation about x is taken as 0).
[[nodiscard]] ModelPlacement placement_of(const SceneModel& model);
/// Sets the model's pose and scale from `placement`.
void set_placement(SceneModel& model, const ModelPlacement& placement);

/// A model's points and mesh vertices before its scale, rotation and translation (the file's
/// coordinates in scene units and the scene's axes; a set: its files as their entries place them).
struct RestModel {
  std::vector<Float3> points;
  std::vector<Float3> vertices;
};

/// The rest copy of `placed`, which `model`'s placement put where it is in the world's axes (the
/// scene's turned by its up axis `up`).
[[nodiscard]] RestModel rest_of(const PlacedModel& placed, const SceneModel& model, UpAxis up);
/// Places `rest` with `model`'s scale and pose into `placed` (points, mesh vertices, bounds and
/// radius) in the world's axes, in double precision.
void place_model(const RestModel& rest, const SceneModel& model, UpAxis up, PlacedModel& placed);

}  // namespace voxhash::viewer
