// Per-element steps of the inside test against an open mesh, shared by both backends: the
// generalized winding number (Jacobson, Kavan & Sorkine-Hornung 2013) of a triangle soup at a
// point, the sum of its triangles' signed solid angles over 4 pi (Van Oosterom & Strackee's
// formula). It is 1 inside a closed, outward-facing surface and 0 outside; where the surface has
// holes it moves smoothly between the two instead of flipping, so 1/2 is the boundary of the
// inside a hole-free surface would have had. The sum is split in fixed chunks of triangles and the
// partial sums added in chunk order, so both backends add the same numbers in the same order.
#pragma once

#include "core/inside_test.hpp"

#include <voxhash/detail/host_device.hpp>
#include <voxhash/types.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace voxhash::core {

/// Triangles one partial sum of the winding number covers.
inline constexpr std::uint32_t kWindingChunk = 256;

/// A winding number of this magnitude or more is inside (either sign: a mesh whose faces all point
/// inwards winds -1 around its inside).
inline constexpr double kWindingInside = 0.5;

/// Winding numbers within this of kWindingInside leave the sample's answer in doubt (a hole near
/// it, or the point nearly on the surface).
inline constexpr double kWindingDoubt = 0.25;

/// The signed solid angle triangle (a, b, c) subtends at p, in steradians (positive where p sees
/// the triangle's back: counter-clockwise from outside, p inside); 0 for p on its plane.
VOXHASH_HD double solid_angle(Float3 a, Float3 b, Float3 c, const double p[3]) {
  const double ax = a.x - p[0], ay = a.y - p[1], az = a.z - p[2];
  const double bx = b.x - p[0], by = b.y - p[1], bz = b.z - p[2];
  const double cx = c.x - p[0], cy = c.y - p[1], cz = c.z - p[2];
  const double la  = sqrt(ax * ax + ay * ay + az * az);
  const double lb  = sqrt(bx * bx + by * by + bz * bz);
  const double lc  = sqrt(cx * cx + cy * cy + cz * cz);
  const double det = ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx);
  const double div = la * lb * lc + (ax * bx + ay * by + az * bz) * lc +
                     (ax * cx + ay * cy + az * cz) * lb + (bx * cx + by * cy + bz * cz) * la;
  return 2.0 * atan2(det, div);
}

/// Triangles [first, first + count) of a mesh's winding number at p, unscaled (steradians).
VOXHASH_HD double winding_part(const Float3* vertices,
                               const std::uint32_t* triangles,
                               std::uint32_t first,
                               std::uint32_t count,
                               const double p[3]) {
  double sum = 0.0;
  for (std::uint32_t t = first; t < first + count; ++t) {
    sum += solid_angle(vertices[triangles[3 * t]],
                       vertices[triangles[3 * t + 1]],
                       vertices[triangles[3 * t + 2]],
                       p);
  }
  return sum;
}

/// The winding number from its chunks' partial sums (steradians), added in chunk order.
VOXHASH_HD double winding_number(const double* partial, std::uint32_t chunks) {
  double sum = 0.0;
  for (std::uint32_t k = 0; k < chunks; ++k)
    sum += partial[k];
  return sum / (4.0 * 3.14159265358979323846);
}

/// Partial sums a batch of winding numbers keeps at once (32 MiB of doubles): a batch is as many
/// points as take this many chunks.
inline constexpr std::size_t kWindingBatch = std::size_t{1} << 22;

/// A subject's label from the winding numbers at its `filled` samples: the majority's, Inside on a
/// tie; kRegionLowConfidence where the samples disagree, one is in doubt (kWindingDoubt) or there
/// is none (then Outside).
VOXHASH_HD std::uint8_t tally_winding(const double* winding, int filled, VoxelLabel* label) {
  int in     = 0;
  bool doubt = filled == 0;
  for (int s = 0; s < filled; ++s) {
    const double w = fabs(winding[s]);
    in += w >= kWindingInside;
    doubt = doubt || fabs(w - kWindingInside) < kWindingDoubt;
  }
  *label = filled > 0 && 2 * in >= filled ? VoxelLabel::Inside : VoxelLabel::Outside;
  return doubt || (in != 0 && in != filled) ? kRegionLowConfidence : std::uint8_t{0};
}

}  // namespace voxhash::core
