// Exact geometry for the label tests, independent of the library's voxel logic: closed triangle
// meshes the tests generate themselves (UV sphere, torus, box, thin-walled cup, lumpy blob), rigid
// placement, a BVH, a double-precision inside test by ray parity (several directions, re-cast on a
// degenerate hit) cross-checked by the generalized winding number, and point-to-mesh distance.
#pragma once

#include <voxhash/io.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numbers>
#include <utility>
#include <vector>

namespace voxhash::test {

struct D3 {
  double x = 0, y = 0, z = 0;
};
inline D3 operator+(D3 a, D3 b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
inline D3 operator-(D3 a, D3 b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
inline D3 operator*(double s, D3 a) {
  return {s * a.x, s * a.y, s * a.z};
}
inline double dot(D3 a, D3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline D3 cross(D3 a, D3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double norm(D3 a) {
  return std::sqrt(dot(a, a));
}
inline D3 to_d3(Float3 p) {
  return {p.x, p.y, p.z};
}
inline Float3 to_f3(D3 p) {
  return {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z)};
}

// ---- Closed meshes ---------------------------------------------------------------------------

/// Revolves a profile of (r, z) points around the z axis in `segments` steps. A profile traversed
/// counter-clockwise in the (r, z) half-plane gives outward triangles. Points with r = 0 become
/// single pole vertices (an open profile must start and end on the axis); `closed` joins the last
/// point to the first (a torus' circle).
inline Mesh revolve(const std::vector<std::array<double, 2>>& profile, bool closed, int segments) {
  Mesh m;
  std::vector<std::vector<std::uint32_t>> rings;
  for (const auto& [r, z] : profile) {
    std::vector<std::uint32_t> ring;
    for (int k = 0; k < (r == 0 ? 1 : segments); ++k) {
      const double a = 2 * std::numbers::pi * k / segments;
      ring.push_back(static_cast<std::uint32_t>(m.vertices.size()));
      m.vertices.push_back(to_f3({r * std::cos(a), r * std::sin(a), z}));
    }
    rings.push_back(std::move(ring));
  }
  const std::size_t spans = closed ? profile.size() : profile.size() - 1;
  for (std::size_t i = 0; i < spans; ++i) {
    const auto& lo = rings[i];
    const auto& hi = rings[(i + 1) % rings.size()];
    for (int k = 0; k < segments; ++k) {
      const std::uint32_t a = lo[k % lo.size()], b = lo[(k + 1) % segments % lo.size()];
      const std::uint32_t c = hi[(k + 1) % segments % hi.size()], d = hi[k % hi.size()];
      if (a != b) m.triangles.insert(m.triangles.end(), {a, b, c});
      if (c != d) m.triangles.insert(m.triangles.end(), {a, c, d});
    }
  }
  return m;
}

inline Mesh uv_sphere(double radius, int rings = 48, int segments = 96) {
  std::vector<std::array<double, 2>> p;
  for (int i = 0; i <= rings; ++i) {
    const double phi = std::numbers::pi * i / rings;
    p.push_back({i == 0 || i == rings ? 0.0 : radius * std::sin(phi), -radius * std::cos(phi)});
  }
  return revolve(p, false, segments);
}

/// Torus around the z axis: major radius R, minor radius r.
inline Mesh torus_mesh(double R, double r, int tube = 32, int segments = 96) {
  std::vector<std::array<double, 2>> p;
  for (int i = 0; i < tube; ++i) {
    const double a = 2 * std::numbers::pi * i / tube;
    p.push_back({R + r * std::cos(a), r * std::sin(a)});
  }
  return revolve(p, true, segments);
}

/// A cup standing on z = 0: outer radius `radius`, height `height`, walls and floor `wall` thick.
inline Mesh cup(double radius, double height, double wall, int segments = 96) {
  return revolve({{0, 0},
                  {radius, 0},
                  {radius, height},
                  {radius - wall, height},
                  {radius - wall, wall},
                  {0, wall}},
                 false,
                 segments);
}

/// The axis-aligned box [lo, hi], 12 outward triangles.
inline Mesh box(D3 lo, D3 hi) {
  Mesh m;
  for (int i = 0; i < 8; ++i)
    m.vertices.push_back(to_f3({i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z}));
  m.triangles = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
  return m;
}

/// A star-shaped lumpy sphere (non-convex): the UV sphere's radius modulated by sinusoids.
inline Mesh blob(double radius) {
  Mesh m = uv_sphere(1.0);
  for (Float3& v : m.vertices) {
    const D3 p       = to_d3(v);
    const double lat = std::asin(std::clamp(p.z, -1.0, 1.0)), lon = std::atan2(p.y, p.x);
    const double r = radius * (0.8 + 0.15 * std::sin(3 * lon) * std::cos(2 * lat) +
                               0.08 * std::cos(5 * lat + lon));
    v              = to_f3(r * p);
  }
  return m;
}

/// Rigid placement with uniform scale: p -> R(axis, angle) (scale p) + translation.
struct Placement {
  double scale = 1;
  D3 axis{0, 0, 1};
  double angle = 0;  // radians
  D3 translation{};
};

inline D3 place(const Placement& t, D3 p) {
  const D3 k     = (1 / norm(t.axis)) * t.axis;
  const D3 v     = t.scale * p;
  const double c = std::cos(t.angle), s = std::sin(t.angle);
  // Rodrigues' rotation formula.
  return c * v + s * cross(k, v) + ((1 - c) * dot(k, v)) * k + t.translation;
}

inline Mesh placed(Mesh m, const Placement& t) {
  for (Float3& v : m.vertices)
    v = to_f3(place(t, to_d3(v)));
  return m;
}

inline Bounds bounds_of(const std::vector<Float3>& points) {
  Bounds b{{1e30f, 1e30f, 1e30f}, {-1e30f, -1e30f, -1e30f}};
  for (const Float3 p : points) {
    b.min = {std::min(b.min.x, p.x), std::min(b.min.y, p.y), std::min(b.min.z, p.z)};
    b.max = {std::max(b.max.x, p.x), std::max(b.max.y, p.y), std::max(b.max.z, p.z)};
  }
  return b;
}

// ---- Exact queries ---------------------------------------------------------------------------

/// A mesh in double precision with a BVH over its triangles (median splits, leaves of <= 4).
class ExactMesh {
 public:
  explicit ExactMesh(const Mesh& m) {
    for (const Float3 v : m.vertices)
      m_v.push_back(to_d3(v));
    for (std::size_t t = 0; t + 2 < m.triangles.size(); t += 3)
      m_tri.push_back({m.triangles[t], m.triangles[t + 1], m.triangles[t + 2]});
    std::vector<std::uint32_t> order(m_tri.size());
    for (std::uint32_t i = 0; i < order.size(); ++i)
      order[i] = i;
    build(order, 0, order.size());
    m_order = std::move(order);
  }

  struct RayHits {
    int count       = 0;
    bool degenerate = false;  // the ray grazed an edge or vertex, ran in a triangle's plane, or
                              // started on the surface: its count cannot be trusted
  };

  /// Crossings of the ray from o along d with the surface (Moller-Trumbore in double).
  RayHits cast(D3 o, D3 d) const {
    RayHits h;
    visit([&](const Node& n) { return ray_hits_box(o, d, n); },
          [&](std::uint32_t t) {
            const auto [a, b, c] = corners(t);
            const D3 e1 = b - a, e2 = c - a, p = cross(d, e2);
            const double det = dot(e1, p), scale = norm(e1) * norm(e2);
            const D3 s = o - a;
            if (std::abs(det) <= 1e-12 * scale) {
              // Parallel: degenerate only if the ray runs in the triangle's plane.
              const D3 n = cross(e1, e2);
              if (std::abs(dot(n, s)) <= 1e-12 * scale * norm(s) + 1e-300) h.degenerate = true;
              return;
            }
            const double u = dot(s, p) / det;
            const D3 q     = cross(s, e1);
            const double v = dot(d, q) / det, t_hit = dot(e2, q) / det;
            const double eps = 1e-9;
            if (u < -eps || v < -eps || u + v > 1 + eps || t_hit < -eps) return;
            if (u < eps || v < eps || u + v > 1 - eps || t_hit < eps) {
              h.degenerate = true;
              return;
            }
            ++h.count;
          });
    return h;
  }

  /// Inside by ray parity: the first three non-degenerate rays of a fixed list of directions
  /// vote (they agree on a closed mesh; `disagreed` counts queries where they did not).
  bool inside(D3 p) const {
    static const std::array<D3, 12> dirs = {{{0.5773, 0.4127, 0.7045},
                                             {-0.3119, 0.8621, -0.3994},
                                             {0.6892, -0.5377, 0.4856},
                                             {-0.7131, -0.2417, 0.6581},
                                             {0.1297, -0.7718, -0.6226},
                                             {0.8329, 0.3561, -0.4236},
                                             {-0.4823, 0.5172, 0.7070},
                                             {0.2241, 0.9511, 0.2127},
                                             {-0.9013, 0.1201, -0.4161},
                                             {0.3377, -0.2733, 0.9007},
                                             {-0.1533, -0.9412, 0.3011},
                                             {0.6115, 0.6907, 0.3860}}};
    int odd = 0, used = 0;
    for (const D3 d : dirs) {
      const RayHits h = cast(p, d);
      if (h.degenerate) continue;
      odd += h.count & 1;
      if (++used == 3) break;
    }
    if (odd != 0 && odd != used) ++disagreed;
    return 2 * odd > used;
  }

  /// Generalized winding number (sum of signed solid angles / 4 pi, Van Oosterom-Strackee):
  /// about 1 inside a closed outward mesh, 0 outside. O(triangles) per query.
  double winding_number(D3 p) const {
    double w = 0;
    for (std::uint32_t t = 0; t < m_tri.size(); ++t) {
      const auto [a0, b0, c0] = corners(t);
      const D3 a = a0 - p, b = b0 - p, c = c0 - p;
      const double la = norm(a), lb = norm(b), lc = norm(c);
      const double num = dot(a, cross(b, c));
      const double den = la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb;
      w += 2 * std::atan2(num, den);
    }
    return w / (4 * std::numbers::pi);
  }

  /// Distance from p to the surface.
  double distance(D3 p) const {
    double best = std::numeric_limits<double>::infinity();
    visit([&](const Node& n) { return box_distance2(p, n) < best * best; },
          [&](std::uint32_t t) {
            const auto [a, b, c] = corners(t);
            best                 = std::min(best, norm(p - closest_on_triangle(p, a, b, c)));
          });
    return best;
  }

  [[nodiscard]] std::size_t triangle_count() const { return m_tri.size(); }
  mutable std::atomic<std::size_t> disagreed{0};  // queries run on many threads

 private:
  struct Node {
    D3 lo, hi;
    std::uint32_t left = 0, right = 0, first = 0, count = 0;  // count > 0: a leaf, m_order[first..)
  };

  [[nodiscard]] std::array<D3, 3> corners(std::uint32_t t) const {
    return {m_v[m_tri[t][0]], m_v[m_tri[t][1]], m_v[m_tri[t][2]]};
  }

  std::uint32_t build(std::vector<std::uint32_t>& order, std::size_t first, std::size_t last) {
    const auto index = static_cast<std::uint32_t>(m_nodes.size());
    m_nodes.emplace_back();
    Node n{{1e300, 1e300, 1e300}, {-1e300, -1e300, -1e300}};
    D3 clo = n.lo, chi = n.hi;
    for (std::size_t i = first; i < last; ++i) {
      D3 centre{};
      for (const D3 v : corners(order[i])) {
        n.lo   = {std::min(n.lo.x, v.x), std::min(n.lo.y, v.y), std::min(n.lo.z, v.z)};
        n.hi   = {std::max(n.hi.x, v.x), std::max(n.hi.y, v.y), std::max(n.hi.z, v.z)};
        centre = centre + (1.0 / 3) * v;
      }
      clo = {std::min(clo.x, centre.x), std::min(clo.y, centre.y), std::min(clo.z, centre.z)};
      chi = {std::max(chi.x, centre.x), std::max(chi.y, centre.y), std::max(chi.z, centre.z)};
    }
    if (last - first <= 4) {
      n.first        = static_cast<std::uint32_t>(first);
      n.count        = static_cast<std::uint32_t>(last - first);
      m_nodes[index] = n;
      return index;
    }
    const D3 ext   = chi - clo;
    const int axis = ext.x >= ext.y && ext.x >= ext.z ? 0 : ext.y >= ext.z ? 1 : 2;
    auto key       = [&](std::uint32_t t) {
      const auto [a, b, c] = corners(t);
      return axis == 0 ? a.x + b.x + c.x : axis == 1 ? a.y + b.y + c.y : a.z + b.z + c.z;
    };
    const std::size_t mid = (first + last) / 2;
    std::nth_element(order.begin() + first,
                     order.begin() + mid,
                     order.begin() + last,
                     [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
    n.left         = build(order, first, mid);
    n.right        = build(order, mid, last);
    m_nodes[index] = n;
    return index;
  }

  /// Depth-first over the nodes `enter` accepts, calling `leaf` per triangle.
  template <class Enter, class Leaf>
  void visit(Enter enter, Leaf leaf) const {
    std::vector<std::uint32_t> stack{0};
    while (!stack.empty()) {
      const Node& n = m_nodes[stack.back()];
      stack.pop_back();
      if (!enter(n)) continue;
      if (n.count) {
        for (std::uint32_t i = 0; i < n.count; ++i)
          leaf(m_order[n.first + i]);
        continue;
      }
      stack.push_back(n.right);
      stack.push_back(n.left);
    }
  }

  static bool ray_hits_box(D3 o, D3 d, const Node& n) {
    double t0 = 0, t1 = 1e300;
    const double oo[3] = {o.x, o.y, o.z}, dd[3] = {d.x, d.y, d.z};
    const double lo[3] = {n.lo.x, n.lo.y, n.lo.z}, hi[3] = {n.hi.x, n.hi.y, n.hi.z};
    for (int a = 0; a < 3; ++a) {
      const double pad = 1e-9 * (std::abs(lo[a]) + std::abs(hi[a]) + 1);
      if (dd[a] == 0) {
        if (oo[a] < lo[a] - pad || oo[a] > hi[a] + pad) return false;
        continue;
      }
      double ta = (lo[a] - pad - oo[a]) / dd[a], tb = (hi[a] + pad - oo[a]) / dd[a];
      if (ta > tb) std::swap(ta, tb);
      t0 = std::max(t0, ta);
      t1 = std::min(t1, tb);
      if (t0 > t1) return false;
    }
    return true;
  }

  static double box_distance2(D3 p, const Node& n) {
    auto axis = [](double v, double lo, double hi) {
      return v < lo ? lo - v : v > hi ? v - hi : 0.0;
    };
    const D3 d{axis(p.x, n.lo.x, n.hi.x), axis(p.y, n.lo.y, n.hi.y), axis(p.z, n.lo.z, n.hi.z)};
    return dot(d, d);
  }

  /// Ericson, Real-Time Collision Detection 5.1.5.
  static D3 closest_on_triangle(D3 p, D3 a, D3 b, D3 c) {
    const D3 ab = b - a, ac = c - a, ap = p - a;
    const double d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) return a;
    const D3 bp     = p - b;
    const double d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) return b;
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + (d1 / (d1 - d3)) * ab;
    const D3 cp     = p - c;
    const double d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) return c;
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + (d2 / (d2 - d6)) * ac;
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
      return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
    const double denom = 1 / (va + vb + vc);
    return a + (vb * denom) * ab + (vc * denom) * ac;
  }

  std::vector<D3> m_v;
  std::vector<std::array<std::uint32_t, 3>> m_tri;
  std::vector<Node> m_nodes;
  std::vector<std::uint32_t> m_order;
};

}  // namespace voxhash::test
