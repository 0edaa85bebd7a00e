// Per-point animation shared by both backends: an optional deformation of the rest pose (twist,
// bend or wobble) followed by a time-varying rigid motion that makes the two models swing through
// each other along x while turning slowly.
#pragma once

#include <voxhash/detail/host_device.hpp>
#include <voxhash/geometry.hpp>
#include <voxhash/voxels.hpp>

#include <cmath>

namespace voxhash::core {

/// Everything one model's animation needs for one frame (computed once on the host per frame).
struct MotionParams {
  Deformation deform = Deformation::None;
  float amount       = 0;  // deformation strength
  float phase        = 0;  // time in radians for the deformation's own motion
  float rotation[9]  = {1, 0, 0, 0, 1, 0, 0, 0, 1};  // row-major
  Float3 translation{};
};

VOXHASH_HD Float3 deform(const MotionParams& m, Float3 p) {
  switch (m.deform) {
    case Deformation::Twist: {  // rotate about y by an angle growing with height
      const float a = m.amount * 2.0f * p.y * sinf(m.phase);
      const float c = cosf(a), s = sinf(a);
      return {c * p.x + s * p.z, p.y, -s * p.x + c * p.z};
    }
    case Deformation::Bend: {  // shift x by a parabola in y
      return {p.x + m.amount * p.y * p.y * sinf(m.phase), p.y, p.z};
    }
    case Deformation::Wobble: {  // radial ripple travelling over the surface
      const float r = 1.0f + m.amount * 0.5f * sinf(3.0f * p.y + 2.0f * p.x + m.phase);
      return {p.x * r, p.y * r, p.z * r};
    }
    case Deformation::None:
      break;
  }
  return p;
}

VOXHASH_HD Float3 animate_point(const MotionParams& m, Float3 rest) {
  const Float3 p = deform(m, rest);
  const float* r = m.rotation;
  return {r[0] * p.x + r[1] * p.y + r[2] * p.z + m.translation.x,
          r[3] * p.x + r[4] * p.y + r[5] * p.z + m.translation.y,
          r[6] * p.x + r[7] * p.y + r[8] * p.z + m.translation.z};
}

}  // namespace voxhash::core
