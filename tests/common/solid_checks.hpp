// Clash scenes of closed meshes with exact answers, for the part-pair clash tests on both backends:
// spheres, boxes and cylinders (a duct through a wall) placed at random rotations, each pair's
// overlap volume, penetration depth and gap known in closed form, or (rotated boxes) from an
// independent reference: the z-lines of a fine lattice clipped exactly by each convex solid's
// planes, their common lengths summed (a quadrature that shares no code with voxhash).
#pragma once

#include "common/clash_checks.hpp"
#include "common/exact_geometry.hpp"

#include <voxhash/clash.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <optional>
#include <random>
#include <vector>

namespace voxhash::test {

/// A closed cylinder of radius r from z = -h/2 to h/2 around the z axis, `segments` sides.
inline Mesh cylinder_mesh(double r, double h, int segments = 256) {
  return revolve({{0, -h / 2}, {r, -h / 2}, {r, h / 2}, {0, h / 2}}, false, segments);
}

/// The area of the regular polygon the cylinder's cross-section is.
inline double polygon_area(double r, int segments) {
  return 0.5 * segments * r * r * std::sin(2 * std::numbers::pi / segments);
}

/// A random rotation (axis uniform on the sphere, angle uniform).
inline Placement random_rotation(std::mt19937& random) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> angle(0, 2 * std::numbers::pi);
  Placement p;
  p.axis  = {normal(random), normal(random), normal(random)};
  p.angle = angle(random);
  return p;
}

/// `p` followed by a shift by `t`.
inline Placement then_shift(Placement p, D3 t) {
  p.translation = p.translation + t;
  return p;
}

/// A scene of two mesh models over [-1.6, 1.6]^3 at `resolution`, each a list of parts placed by
/// `pose` (the same rigid motion for both: the exact answers do not change).
inline ClashScene solid_scene(const std::vector<Mesh>& parts_a,
                              const std::vector<Mesh>& parts_b,
                              const Placement& pose,
                              int resolution = 128) {
  ClashScene s;
  s.config = static_config(resolution, TableKind::Cuckoo);
  for (std::size_t p = 0; p < parts_a.size(); ++p)
    add_part(s.models[0], placed(parts_a[p], pose), static_cast<std::uint32_t>(p));
  for (std::size_t p = 0; p < parts_b.size(); ++p)
    add_part(s.models[1], placed(parts_b[p], pose), static_cast<std::uint32_t>(p));
  for (ClashModel& m : s.models)
    m.points = sample_surface(m.mesh, 20000, 5);
  return s;
}

/// Volume of the lens two spheres of radii r1, r2 with centres d apart share.
inline double lens_volume(double r1, double r2, double d) {
  if (d >= r1 + r2) return 0;
  if (d <= std::abs(r1 - r2)) return 4.0 / 3 * std::numbers::pi * std::pow(std::min(r1, r2), 3);
  const double t = r1 + r2 - d;
  return std::numbers::pi * t * t *
         (d * d + 2 * d * r2 - 3 * r2 * r2 + 2 * d * r1 + 6 * r1 * r2 - 3 * r1 * r1) / (12 * d);
}

/// The volume of a UV sphere's polyhedron relative to its sphere's (its faces cut inside).
inline double uv_sphere_share(const Mesh& m) {
  double volume = 0;
  for (std::size_t t = 0; t < m.triangles.size(); t += 3) {
    const D3 a = to_d3(m.vertices[m.triangles[t]]), b = to_d3(m.vertices[m.triangles[t + 1]]),
             c = to_d3(m.vertices[m.triangles[t + 2]]);
    volume += dot(a, cross(b, c)) / 6;
  }
  return volume;
}

/// A convex solid as half-spaces n.p <= d (world coordinates).
struct Convex {
  std::vector<std::pair<D3, double>> planes;
};

/// The box [lo, hi] placed by `pose` as half-spaces.
inline Convex placed_box(D3 lo, D3 hi, const Placement& pose) {
  Convex c;
  const D3 centre = 0.5 * (lo + hi);
  const D3 origin = place(pose, {0, 0, 0});
  for (int a = 0; a < 3; ++a) {
    for (const int side : {-1, 1}) {
      D3 n{};
      (a == 0 ? n.x : a == 1 ? n.y : n.z)             = side;
      const D3 face                                   = side > 0 ? hi : lo;
      D3 point                                        = centre;
      (a == 0 ? point.x : a == 1 ? point.y : point.z) = a == 0 ? face.x : a == 1 ? face.y : face.z;
      const D3 pn                                     = place(pose, n) - origin;  // rotated normal
      c.planes.push_back({pn, dot(pn, place(pose, point))});
    }
  }
  return c;
}

/// The z-interval of the line (x, y) inside `c` (empty: lo >= hi).
inline std::pair<double, double> line_interval(const Convex& c, double x, double y) {
  double lo = -1e300, hi = 1e300;
  for (const auto& [n, d] : c.planes) {
    const double rest = d - n.x * x - n.y * y;  // n.z * z <= rest
    if (n.z > 1e-15) {
      hi = std::min(hi, rest / n.z);
    } else if (n.z < -1e-15) {
      lo = std::max(lo, rest / n.z);
    } else if (rest < 0) {
      return {0, 0};
    }
  }
  return {lo, hi};
}

/// |a ∩ b| by the midpoint rule over an n x n lattice of z-lines across [-extent, extent]^2, each
/// line's common length exact.
inline double convex_overlap_volume(const Convex& a, const Convex& b, double extent, int n = 1200) {
  const double h = 2 * extent / n;
  double sum     = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      const double x = -extent + (i + 0.5) * h, y = -extent + (j + 0.5) * h;
      const auto [a0, a1] = line_interval(a, x, y);
      const auto [b0, b1] = line_interval(b, x, y);
      sum += std::max(0.0, std::min(a1, b1) - std::max(a0, b0));
    }
  }
  return sum * h * h;
}

/// The report's clash of part_a x part_b, if it lists one.
inline std::optional<Clash> clash_of(const ClashReport& r,
                                     std::uint32_t part_a,
                                     std::uint32_t part_b) {
  for (const Clash& c : r.clashes) {
    if (c.part_a == part_a && c.part_b == part_b) return c;
  }
  return std::nullopt;
}

/// The same clashes, field by field (volumes to rounding, depths and distances to the float
/// fields' last bits, which the GPU's fused multiply-adds may change).
inline void expect_same_clashes(const ClashReport& gpu, const ClashReport& cpu) {
  EXPECT_EQ(gpu.solids, cpu.solids);
  EXPECT_EQ(gpu.open_parts, cpu.open_parts);
  ASSERT_EQ(gpu.clashes.size(), cpu.clashes.size());
  for (std::size_t i = 0; i < cpu.clashes.size(); ++i) {
    SCOPED_TRACE("clash " + std::to_string(i));
    const Clash &g = gpu.clashes[i], &c = cpu.clashes[i];
    EXPECT_EQ(g.id, c.id);
    EXPECT_EQ(g.kind, c.kind);
    EXPECT_EQ(g.part_a, c.part_a);
    EXPECT_EQ(g.part_b, c.part_b);
    EXPECT_EQ(std::isnan(g.volume), std::isnan(c.volume));
    EXPECT_EQ(std::isnan(g.depth), std::isnan(c.depth));
    if (!std::isnan(c.volume)) {
      EXPECT_NEAR(g.volume, c.volume, 1e-6 * std::max(1e-9, c.volume));
    }
    if (!std::isnan(c.depth)) {
      EXPECT_NEAR(g.depth, c.depth, 1e-4 * std::max(1e-3, c.depth));
    }
    EXPECT_NEAR(g.distance, c.distance, 1e-4 * std::max(1e-3, c.distance));
    EXPECT_EQ(g.resolution, c.resolution);
    EXPECT_EQ(g.contact_voxels, c.contact_voxels);
    for (const auto& [x, y] : {std::pair{g.centroid, c.centroid},
                               {g.bounds.min, c.bounds.min},
                               {g.bounds.max, c.bounds.max}}) {
      EXPECT_NEAR(x.x, y.x, 1e-4);
      EXPECT_NEAR(x.y, y.y, 1e-4);
      EXPECT_NEAR(x.z, y.z, 1e-4);
    }
  }
}

}  // namespace voxhash::test
