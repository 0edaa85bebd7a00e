// Conservative triangle voxelization, per element, shared by both backends: every voxel a
// triangle touches (Akenine-Moller's triangle/box separating-axis test, with a small slack so
// float rounding never drops a voxel), so a closed mesh gives a surface without holes at any
// resolution. Work is split into (triangle, 4x4x4 tile of its bounding box) items whose touched
// voxels are one 64-bit mask (count -> scan -> write without testing twice); point clouds get a
// coverage estimate from their voxel multiplicities.
#pragma once

#include <voxhash/detail/host_device.hpp>
#include <voxhash/grid.hpp>

#include <bit>
#include <cstdint>

namespace voxhash::core {

/// Extra half-size (in voxels) of every box tested: the test is conservative against rounding of
/// coordinates up to ~1000 voxels from the origin (float ulp there ~6e-5).
inline constexpr float kOverlapSlack = 1e-3f;
inline constexpr int kTileShift      = 2;  // tiles of 4x4x4 voxels
inline constexpr int kTileSide       = 1 << kTileShift;

struct Vec3f {
  float x, y, z;
};
VOXHASH_HD Vec3f sub(Vec3f a, Vec3f b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
VOXHASH_HD Vec3f cross3(Vec3f a, Vec3f b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
VOXHASH_HD float dot3(Vec3f a, Vec3f b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
VOXHASH_HD float abs_f(float v) {
  return v < 0 ? -v : v;
}
VOXHASH_HD float min3(float a, float b, float c) {
  return a < b ? (a < c ? a : c) : (b < c ? b : c);
}
VOXHASH_HD float max3(float a, float b, float c) {
  return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

/// A world point in voxel units of g: voxel (i, j, k) spans [i, i+1] x [j, j+1] x [k, k+1].
VOXHASH_HD Vec3f to_voxel_units(const Grid& g, Float3 p) {
  return {(p.x - g.origin.x) / g.voxel_size.x,
          (p.y - g.origin.y) / g.voxel_size.y,
          (p.z - g.origin.z) / g.voxel_size.z};
}

/// Triangle t of an indexed mesh (3 vertex indices per triangle) in voxel units of g.
VOXHASH_HD void triangle_in_voxel_units(const Grid& g,
                                        const Float3* vertices,
                                        const std::uint32_t* triangles,
                                        std::uint32_t t,
                                        Vec3f* v) {
  for (int k = 0; k < 3; ++k)
    v[k] = to_voxel_units(g, vertices[triangles[3 * t + k]]);
}

/// Akenine-Moller's triangle/box overlap test (13 separating axes: the box's 3 face normals, the
/// triangle's normal, the 9 edge cross products). Touching counts as overlap.
VOXHASH_HD bool triangle_box_overlap(Vec3f centre, Vec3f half, Vec3f a, Vec3f b, Vec3f c) {
  const Vec3f v0 = sub(a, centre), v1 = sub(b, centre), v2 = sub(c, centre);
  // Box face normals: the triangle's bounding box against the box.
  if (min3(v0.x, v1.x, v2.x) > half.x || max3(v0.x, v1.x, v2.x) < -half.x) return false;
  if (min3(v0.y, v1.y, v2.y) > half.y || max3(v0.y, v1.y, v2.y) < -half.y) return false;
  if (min3(v0.z, v1.z, v2.z) > half.z || max3(v0.z, v1.z, v2.z) < -half.z) return false;
  // Edge x box-axis cross products.
  const Vec3f e[3] = {sub(v1, v0), sub(v2, v1), sub(v0, v2)};
  const Vec3f v[3] = {v0, v1, v2};
  for (int i = 0; i < 3; ++i) {
    for (int axis = 0; axis < 3; ++axis) {
      const Vec3f unit = {axis == 0 ? 1.f : 0.f, axis == 1 ? 1.f : 0.f, axis == 2 ? 1.f : 0.f};
      const Vec3f n    = cross3(unit, e[i]);
      const float p0 = dot3(n, v[0]), p1 = dot3(n, v[1]), p2 = dot3(n, v[2]);
      const float r = half.x * abs_f(n.x) + half.y * abs_f(n.y) + half.z * abs_f(n.z);
      if (min3(p0, p1, p2) > r || max3(p0, p1, p2) < -r) return false;
    }
  }
  // The triangle's plane.
  const Vec3f n = cross3(e[0], e[1]);
  const float r = half.x * abs_f(n.x) + half.y * abs_f(n.y) + half.z * abs_f(n.z);
  const float s = dot3(n, v0);
  return s <= r && s >= -r;
}

/// The cells of a triangle's bounding box (inclusive, clamped to the grid), in voxel units.
struct CellRange {
  Int3 lo, hi;
  VOXHASH_HD bool empty() const { return lo.x > hi.x || lo.y > hi.y || lo.z > hi.z; }
  VOXHASH_HD Int3 tiles() const {
    return {((hi.x - lo.x) >> kTileShift) + 1,
            ((hi.y - lo.y) >> kTileShift) + 1,
            ((hi.z - lo.z) >> kTileShift) + 1};
  }
};

VOXHASH_HD std::int32_t clamp_cell(float v, std::int32_t n) {
  // Clamped in float first: the conversion of a value beyond int range is undefined.
  const float c = v < -1.f ? -1.f : v > static_cast<float>(n) ? static_cast<float>(n) : v;
  const auto i  = static_cast<std::int32_t>(c >= 0 ? c : c - 1.f);  // floor for c >= -1
  return i < 0 ? 0 : i > n - 1 ? n - 1 : i;
}

VOXHASH_HD CellRange triangle_cells(const Grid& g, Vec3f a, Vec3f b, Vec3f c) {
  const float s   = kOverlapSlack;
  const Vec3f lo  = {min3(a.x, b.x, c.x) - s, min3(a.y, b.y, c.y) - s, min3(a.z, b.z, c.z) - s};
  const Vec3f hi  = {max3(a.x, b.x, c.x) + s, max3(a.y, b.y, c.y) + s, max3(a.z, b.z, c.z) + s};
  const Int3& res = g.resolution;
  // Written so NaN fails: !(x <= y) holds for NaN. A box wholly beyond the grid is empty.
  if (!(hi.x >= 0 && hi.y >= 0 && hi.z >= 0 && lo.x < res.x && lo.y < res.y && lo.z < res.z)) {
    return {{0, 0, 0}, {-1, -1, -1}};
  }
  return {{clamp_cell(lo.x, res.x), clamp_cell(lo.y, res.y), clamp_cell(lo.z, res.z)},
          {clamp_cell(hi.x, res.x), clamp_cell(hi.y, res.y), clamp_cell(hi.z, res.z)}};
}

/// Tiles of the triangle's cell range: the work items it spreads over.
VOXHASH_HD std::uint32_t triangle_tile_count(const CellRange& r) {
  if (r.empty()) return 0;
  const Int3 t = r.tiles();
  return static_cast<std::uint32_t>(t.x) * t.y * t.z;
}

/// The voxels of one 4x4x4 tile that a triangle touches: bit (z * 4 + y) * 4 + x of mask is the
/// voxel first + (x, y, z). What the count pass finds, the write pass reads back without testing.
struct TileVoxels {
  Int3 first;
  std::uint64_t mask;
};

VOXHASH_HD int popcount64(std::uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __popcll(v);
#else
  return std::popcount(v);
#endif
}

/// The lowest set bit of a non-zero v.
VOXHASH_HD int lowest_bit64(std::uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(v)) - 1;
#else
  return std::countr_zero(v);
#endif
}

/// Voxel `bit` of a tile starting at cell `first`.
VOXHASH_HD Int3 tile_voxel(Int3 first, int bit) {
  return {first.x + (bit & (kTileSide - 1)),
          first.y + ((bit >> kTileShift) & (kTileSide - 1)),
          first.z + (bit >> (2 * kTileShift))};
}

/// A triangle's separating-axis test (as triangle_box_overlap) against the voxels of one tile,
/// set up once: coordinates relative to the tile's first cell (small, so rounded alike wherever
/// the tile is), and each axis's projection of the triangle widened by a voxel's reach (half-size
/// 0.5 + kOverlapSlack), so one voxel costs a dot product and two compares an axis. The nine edge
/// axes cross(unit axis, edge) have a zero component: two products each.
struct TileAxes {
  Vec3f lo, hi;                  // the triangle's box widened by the half-size (face axes)
  Vec3f normal;                  // the triangle's plane
  float plane_lo, plane_hi;      // dot(normal, voxel centre) within these: touches the plane
  Vec3f edge[3];                 // the edges
  float edge_lo[9], edge_hi[9];  // per (edge, unit axis) as plane_lo / plane_hi
};

VOXHASH_HD void widen(float p0, float p1, float p2, float r, float& lo, float& hi) {
  lo = min3(p0, p1, p2) - r;
  hi = max3(p0, p1, p2) + r;
}

/// Projection of point p on cross(unit axis `axis`, e).
VOXHASH_HD float edge_axis_dot(int axis, Vec3f e, Vec3f p) {
  if (axis == 0) return e.y * p.z - e.z * p.y;
  if (axis == 1) return e.z * p.x - e.x * p.z;
  return e.x * p.y - e.y * p.x;
}

/// The L1 norm of cross(unit axis `axis`, e): a box's reach along it per unit of half-size.
VOXHASH_HD float edge_axis_reach(int axis, Vec3f e) {
  if (axis == 0) return abs_f(e.y) + abs_f(e.z);
  if (axis == 1) return abs_f(e.x) + abs_f(e.z);
  return abs_f(e.x) + abs_f(e.y);
}

/// The axes of triangle (a, b, c) (voxel units) for the voxels of the tile starting at `first`.
VOXHASH_HD TileAxes tile_axes(Int3 first, Vec3f a, Vec3f b, Vec3f c) {
  const Vec3f o = {
      static_cast<float>(first.x), static_cast<float>(first.y), static_cast<float>(first.z)};
  const Vec3f v[3] = {sub(a, o), sub(b, o), sub(c, o)};
  const float s    = 0.5f + kOverlapSlack;
  TileAxes t;
  t.lo          = {min3(v[0].x, v[1].x, v[2].x) - s,
                   min3(v[0].y, v[1].y, v[2].y) - s,
                   min3(v[0].z, v[1].z, v[2].z) - s};
  t.hi          = {max3(v[0].x, v[1].x, v[2].x) + s,
                   max3(v[0].y, v[1].y, v[2].y) + s,
                   max3(v[0].z, v[1].z, v[2].z) + s};
  t.edge[0]     = sub(v[1], v[0]);
  t.edge[1]     = sub(v[2], v[1]);
  t.edge[2]     = sub(v[0], v[2]);
  t.normal      = cross3(t.edge[0], t.edge[1]);
  const float d = dot3(t.normal, v[0]);
  const float r = s * (abs_f(t.normal.x) + abs_f(t.normal.y) + abs_f(t.normal.z));
  t.plane_lo    = d - r;
  t.plane_hi    = d + r;
  for (int i = 0; i < 3; ++i)
    for (int axis = 0; axis < 3; ++axis) {
      const Vec3f e = t.edge[i];
      widen(edge_axis_dot(axis, e, v[0]),
            edge_axis_dot(axis, e, v[1]),
            edge_axis_dot(axis, e, v[2]),
            s * edge_axis_reach(axis, e),
            t.edge_lo[3 * i + axis],
            t.edge_hi[3 * i + axis]);
    }
  return t;
}

/// Whether the voxel centred at p (relative to the tile's first cell) may touch the triangle: its
/// box axes and plane (the cheap part, rejecting most of a tile).
VOXHASH_HD bool near_plane(const TileAxes& t, Vec3f p) {
  const float q = dot3(t.normal, p);
  return q >= t.plane_lo && q <= t.plane_hi && p.x >= t.lo.x && p.x <= t.hi.x && p.y >= t.lo.y &&
         p.y <= t.hi.y && p.z >= t.lo.z && p.z <= t.hi.z;
}

/// The rest of the test for a voxel near_plane passed: the nine edge axes.
VOXHASH_HD bool within_edges(const TileAxes& t, Vec3f p) {
  for (int i = 0; i < 3; ++i)
    for (int axis = 0; axis < 3; ++axis) {
      const float q = edge_axis_dot(axis, t.edge[i], p);
      if (q < t.edge_lo[3 * i + axis] || q > t.edge_hi[3 * i + axis]) return false;
    }
  return true;
}

/// The voxels of tile `tile` (0 .. triangle_tile_count - 1) of range r that the triangle (voxel
/// units) touches. The whole tile is tested first.
VOXHASH_HD TileVoxels
tile_voxels(const CellRange& r, std::uint32_t tile, Vec3f a, Vec3f b, Vec3f c) {
  const Int3 t     = r.tiles();
  const Int3 first = {r.lo.x + static_cast<std::int32_t>(tile % t.x) * kTileSide,
                      r.lo.y + static_cast<std::int32_t>((tile / t.x) % t.y) * kTileSide,
                      r.lo.z + static_cast<std::int32_t>(tile / (t.x * t.y)) * kTileSide};
  const Int3 last  = {first.x + kTileSide - 1 < r.hi.x ? first.x + kTileSide - 1 : r.hi.x,
                     first.y + kTileSide - 1 < r.hi.y ? first.y + kTileSide - 1 : r.hi.y,
                     first.z + kTileSide - 1 < r.hi.z ? first.z + kTileSide - 1 : r.hi.z};
  const Vec3f tile_half   = {0.5f * (last.x - first.x + 1) + kOverlapSlack,
                             0.5f * (last.y - first.y + 1) + kOverlapSlack,
                             0.5f * (last.z - first.z + 1) + kOverlapSlack};
  const Vec3f tile_centre = {
      0.5f * (first.x + last.x + 1), 0.5f * (first.y + last.y + 1), 0.5f * (first.z + last.z + 1)};
  TileVoxels v = {first, 0};
  if (!triangle_box_overlap(tile_centre, tile_half, a, b, c)) return v;
  // Two passes over the tile: the plane and box axes mark the candidates, the edge axes run only
  // on those, ~1/3 of the tile's voxels. Lanes of a warp hold different tiles, so testing in one
  // loop would run the edge axes wherever any lane needs them: every voxel.
  const TileAxes axes = tile_axes(first, a, b, c);
  std::uint64_t near  = 0;
  for (std::int32_t z = 0; z <= last.z - first.z; ++z)
    for (std::int32_t y = 0; y <= last.y - first.y; ++y)
      for (std::int32_t x = 0; x <= last.x - first.x; ++x) {
        if (!near_plane(axes, {x + 0.5f, y + 0.5f, z + 0.5f})) continue;
        near |= std::uint64_t{1} << ((z * kTileSide + y) * kTileSide + x);
      }
  for (std::uint64_t m = near; m != 0; m &= m - 1) {
    const int bit = lowest_bit64(m);
    const Int3 at = tile_voxel({0, 0, 0}, bit);
    if (within_edges(axes, {at.x + 0.5f, at.y + 0.5f, at.z + 0.5f})) {
      v.mask |= std::uint64_t{1} << bit;
    }
  }
  return v;
}

/// The segment i of a partition given by its exclusive offsets (offsets[0] = 0, ascending) that
/// holds item: the largest i with offsets[i] <= item (empty segments are skipped).
VOXHASH_HD std::uint32_t segment_of(const std::uint32_t* offsets,
                                    std::uint32_t segments,
                                    std::uint32_t item) {
  std::uint32_t lo = 0, hi = segments;  // answer in [lo, hi)
  while (hi - lo > 1) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (offsets[mid] <= item) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Work item `item` of a mesh whose triangles' tile counts were scanned into tile_offsets and
/// whose items know their triangle (item_triangle): the voxels of its triangle's tile
/// (tile_voxels).
VOXHASH_HD TileVoxels item_voxels(const Grid& g,
                                  const Float3* vertices,
                                  const std::uint32_t* triangles,
                                  const std::uint32_t* tile_offsets,
                                  const std::uint32_t* item_triangle,
                                  std::uint32_t item) {
  const std::uint32_t t = item_triangle[item];
  Vec3f v[3];
  triangle_in_voxel_units(g, vertices, triangles, t, v);
  const CellRange r = triangle_cells(g, v[0], v[1], v[2]);
  return tile_voxels(r, item - tile_offsets[t], v[0], v[1], v[2]);
}

/// What the voxel multiplicities of a point cloud say about its surface coverage.
struct Coverage {
  double fraction;            // estimated share of surface voxels holding a point
  double points_per_voxel;    // points per occupied voxel
  double recommended_points;  // points for the target coverage at this resolution
};

/// Points per surface voxel that leave about 1 in 1000 voxels of average area empty (Poisson:
/// e^-7); the recommendation scales the cloud to that.
inline constexpr double kRecommendedPointsPerVoxel = 7.0;

/// Coverage from the number of occupied voxels holding exactly one point (f1) and two (f2), and
/// all occupied voxels: Chao1's estimate of the unseen, f1^2 / (2 f2) (f1 (f1 - 1) / 2 without
/// doubletons), counts surface voxels no point landed in. Host and device.
VOXHASH_HD Coverage estimate_coverage(double points, double occupied, double f1, double f2) {
  if (occupied <= 0) return {1.0, 0.0, 0.0};
  const double unseen    = f2 > 0 ? f1 * f1 / (2 * f2) : f1 * (f1 - 1) / 2;
  const double surface   = occupied + unseen;
  const double per_voxel = points / occupied;
  return {occupied / surface, per_voxel, kRecommendedPointsPerVoxel * surface};
}

}  // namespace voxhash::core
