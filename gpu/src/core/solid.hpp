// Per-element steps of the clash pass's solids, shared by both backends. A mesh part's solid is the
// set of intervals it covers along z-columns (Schwarz & Seidel's parity voxelization, with each
// crossing's exact height instead of a voxel): a column crosses a closed part an even number of
// times, and the crossings taken two by two, in height order, bound the part's inside. Columns are
// lines parallel to z through a lattice finer than the voxel grid (SampleGrid: `columns_per_voxel`
// across each voxel axis), so overlap volumes are sums of exact interval lengths. Which triangles a
// column crosses is decided by edge functions with a symbolic perturbation of the column (a point
// on an edge or a vertex belongs to exactly one side), so a closed surface is crossed an even
// number of times whatever its vertices line up with. Here too: the one-dimensional
// squared-distance transform of a line (Felzenszwalb & Huttenlocher's lower envelope of parabolas)
// that the depth and clearance distance fields are built from.
#pragma once

#include "core/atomics.hpp"

#include <voxhash/detail/host_device.hpp>
#include <voxhash/grid.hpp>
#include <voxhash/types.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace voxhash::core {

/// The lattice the solids are sampled on: columns (i, j) along z at x = origin + (i + 0.5) * step,
/// likewise y, and heights in the same units along z (a height h is world z = origin.z + h *
/// step.z; sample k of a column is at height k + 0.5). count: samples per axis.
struct SampleGrid {
  double origin[3]       = {0, 0, 0};
  double step[3]         = {1, 1, 1};
  std::uint32_t count[3] = {0, 0, 0};
  int part_bits          = 0;  // bits of a crossing key below the column

  [[nodiscard]] VOXHASH_HD std::uint64_t column(std::uint32_t i, std::uint32_t j) const {
    return std::uint64_t{j} * count[0] + i;
  }
  /// A crossing's or interval's sort key: its column, then its part.
  [[nodiscard]] VOXHASH_HD std::uint64_t key(std::uint64_t column, std::uint32_t part) const {
    return (column << part_bits) | part;
  }
  [[nodiscard]] VOXHASH_HD std::uint64_t column_of(std::uint64_t key) const {
    return key >> part_bits;
  }
  [[nodiscard]] VOXHASH_HD std::uint32_t part_of(std::uint64_t key) const {
    return static_cast<std::uint32_t>(key & ((std::uint64_t{1} << part_bits) - 1));
  }
};

/// Float bits that order as the floats do (for radix sorts and atomic max / min).
VOXHASH_HD std::uint32_t ordered_bits(float f) {
#if defined(__CUDA_ARCH__)
  const std::uint32_t u = __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
#endif
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/// The float whose ordered_bits are `u`.
VOXHASH_HD float ordered_float(std::uint32_t u) {
  u = (u & 0x80000000u) ? (u & 0x7FFFFFFFu) : ~u;
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

/// A triangle projected onto the column plane, in column units (column i at u = i), with its
/// heights; edge functions computed from one canonical end so that two triangles sharing an edge
/// see the same value with opposite signs.
struct ColumnTriangle {
  double u[3], v[3], h[3];
  double area = 0;  // twice the signed projected area

  VOXHASH_HD ColumnTriangle(const SampleGrid& s, Float3 a, Float3 b, Float3 c) {
    const Float3 p[3] = {a, b, c};
    for (int k = 0; k < 3; ++k) {
      u[k] = (static_cast<double>(p[k].x) - s.origin[0]) / s.step[0] - 0.5;
      v[k] = (static_cast<double>(p[k].y) - s.origin[1]) / s.step[1] - 0.5;
      h[k] = (static_cast<double>(p[k].z) - s.origin[2]) / s.step[2];
    }
    area = (u[1] - u[0]) * (v[2] - v[0]) - (v[1] - v[0]) * (u[2] - u[0]);
  }

  /// The sign (+1 / -1) of edge k -> k+1's function at column (pu, pv) moved by (eps, eps^2): the
  /// same number whichever end the edge starts from, negated when it starts from the other.
  [[nodiscard]] VOXHASH_HD int edge_sign(int k, double pu, double pv) const {
    const int n = k == 2 ? 0 : k + 1;
    double au = u[k], av = v[k], bu = u[n], bv = v[n];
    int flip = 1;
    if (au > bu || (au == bu && av > bv)) {
      double t = au;
      au       = bu;
      bu       = t;
      t        = av;
      av       = bv;
      bv       = t;
      flip     = -1;
    }
    const double e = (bu - au) * (pv - av) - (bv - av) * (pu - au);
    int sign       = e > 0 ? 1 : e < 0 ? -1 : 0;
    if (sign == 0) sign = (bv != av) ? (bv > av ? -1 : 1) : (bu > au ? 1 : -1);
    return sign * flip;
  }

  /// Whether column (i, j) crosses the triangle (its perturbed position strictly inside).
  [[nodiscard]] VOXHASH_HD bool crosses(double i, double j) const {
    if (area == 0) return false;
    const int want = area > 0 ? 1 : -1;
    return edge_sign(0, i, j) == want && edge_sign(1, i, j) == want && edge_sign(2, i, j) == want;
  }

  /// The height where column (i, j) meets the triangle's plane.
  [[nodiscard]] VOXHASH_HD double height(double i, double j) const {
    const double l1 = ((i - u[0]) * (v[2] - v[0]) - (j - v[0]) * (u[2] - u[0])) / area;
    const double l2 = ((u[1] - u[0]) * (j - v[0]) - (v[1] - v[0]) * (i - u[0])) / area;
    return h[0] + l1 * (h[1] - h[0]) + l2 * (h[2] - h[0]);
  }
};

/// Columns a triangle's projection may cover, clamped to the lattice, in tiles of kColumnTile^2.
inline constexpr std::uint32_t kColumnTile = 8;

struct ColumnSpan {
  std::uint32_t i0 = 0, j0 = 0, width = 0, height = 0;  // width == 0: none

  [[nodiscard]] VOXHASH_HD std::uint32_t tiles() const {
    return ((width + kColumnTile - 1) / kColumnTile) * ((height + kColumnTile - 1) / kColumnTile);
  }
};

VOXHASH_HD ColumnSpan column_span(const SampleGrid& s, const ColumnTriangle& t) {
  ColumnSpan span;
  if (!(t.area != 0)) return span;  // also NaN
  double lo[2] = {t.u[0], t.v[0]}, hi[2] = {t.u[0], t.v[0]};
  for (int k = 1; k < 3; ++k) {
    lo[0] = t.u[k] < lo[0] ? t.u[k] : lo[0];
    hi[0] = t.u[k] > hi[0] ? t.u[k] : hi[0];
    lo[1] = t.v[k] < lo[1] ? t.v[k] : lo[1];
    hi[1] = t.v[k] > hi[1] ? t.v[k] : hi[1];
  }
  std::int64_t first[2], last[2];
  for (int a = 0; a < 2; ++a) {
    const double n = static_cast<double>(s.count[a]);
    if (!(hi[a] >= 0.0) || !(lo[a] <= n - 1.0)) return span;
    first[a] = lo[a] <= 0.0 ? 0 : static_cast<std::int64_t>(ceil(lo[a]));
    last[a]  = hi[a] >= n - 1.0 ? static_cast<std::int64_t>(n) - 1
                                : static_cast<std::int64_t>(floor(hi[a]));
    if (last[a] < first[a]) return span;
  }
  span.i0     = static_cast<std::uint32_t>(first[0]);
  span.j0     = static_cast<std::uint32_t>(first[1]);
  span.width  = static_cast<std::uint32_t>(last[0] - first[0] + 1);
  span.height = static_cast<std::uint32_t>(last[1] - first[1] + 1);
  return span;
}

/// f(column i, column j, height) for every column of tile `tile` of the span that crosses t.
template <class F>
VOXHASH_HD void for_each_crossing(const ColumnTriangle& t,
                                  const ColumnSpan& span,
                                  std::uint32_t tile,
                                  F&& f) {
  const std::uint32_t across = (span.width + kColumnTile - 1) / kColumnTile;
  const std::uint32_t i0     = span.i0 + (tile % across) * kColumnTile;
  const std::uint32_t j0     = span.j0 + (tile / across) * kColumnTile;
  const std::uint32_t i1 =
      i0 + kColumnTile < span.i0 + span.width ? i0 + kColumnTile : span.i0 + span.width;
  const std::uint32_t j1 =
      j0 + kColumnTile < span.j0 + span.height ? j0 + kColumnTile : span.j0 + span.height;
  for (std::uint32_t j = j0; j < j1; ++j) {
    for (std::uint32_t i = i0; i < i1; ++i) {
      if (t.crosses(i, j)) f(i, j, t.height(i, j));
    }
  }
}

/// A part's box on the sample lattice (min above max: no inside).
struct PartBox {
  std::uint32_t min[3] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
  std::uint32_t max[3] = {0, 0, 0};
};

/// A part's inside along one column: heights [z0, z1).
struct Interval {
  std::uint64_t key = 0;  // SampleGrid::key(column, part)
  float z0 = 0, z1 = 0;
};

/// One column where a part of A and a part of B both lie: their common heights [lo, hi).
struct OverlapRow {
  std::uint32_t part_a = 0, part_b = 0;
  std::uint64_t column = 0;
  float lo = 0, hi = 0;
};

/// A part pair's overlap, summed over its rows with atomics: the length in fixed point (exact and
/// the same in any order), the length-weighted sample coordinates for the centroid, the sample box.
inline constexpr double kLengthScale = 65536.0;

struct PairSums {
  std::uint64_t length = 0;  // sum of row lengths times kLengthScale, in samples
  double moment[3]     = {0, 0, 0};
  std::uint32_t min[3] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
  std::uint32_t max[3] = {0, 0, 0};
};

/// Rows (or intervals) one thread sums in its own registers before it adds them to the shared
/// sums: the rows of a pair are neighbours, so a pair's shared sums take one atomic a chunk, not
/// one a row (a frame's overlap can be a million rows of one pair).
inline constexpr std::uint32_t kRowsPerThread = 64;

/// Adds `row` to a thread's own sums.
VOXHASH_HD void add_row(PairSums& p, const SampleGrid& s, const OverlapRow& row) {
  const double length = static_cast<double>(row.hi) - static_cast<double>(row.lo);
  const auto i        = static_cast<std::uint32_t>(row.column % s.count[0]);
  const auto j        = static_cast<std::uint32_t>(row.column / s.count[0]);
  // The box in samples, clamped to the lattice (a part may reach beyond the grid along z).
  const double last = static_cast<double>(s.count[2]) - 1.0;
  const double lo   = row.lo < 0.f ? 0.0 : static_cast<double>(row.lo);
  const auto k0     = static_cast<std::uint32_t>(lo < last ? lo : last);
  const double top  = static_cast<double>(row.hi);
  const double up   = ceil(top) - 1.0;
  const auto k1     = static_cast<std::uint32_t>(up <= 0.0 ? 0.0 : up < last ? up : last);
  p.length += static_cast<std::uint64_t>(length * kLengthScale + 0.5);
  p.moment[0] += length * (i + 0.5);
  p.moment[1] += length * (j + 0.5);
  p.moment[2] += length * 0.5 * (static_cast<double>(row.lo) + top);
  const std::uint32_t lo_cell[3] = {i, j, k0}, hi_cell[3] = {i, j, k1 < k0 ? k0 : k1};
  for (int a = 0; a < 3; ++a) {
    p.min[a] = lo_cell[a] < p.min[a] ? lo_cell[a] : p.min[a];
    p.max[a] = hi_cell[a] > p.max[a] ? hi_cell[a] : p.max[a];
  }
}

/// Adds a thread's sums to the shared ones.
VOXHASH_HD void add_sums(PairSums& to, const PairSums& from) {
  atomic_add(&to.length, from.length);
  for (int a = 0; a < 3; ++a) {
    atomic_add(&to.moment[a], from.moment[a]);
    atomic_min(&to.min[a], from.min[a]);
    atomic_max(&to.max[a], from.max[a]);
  }
}

/// A box of samples a distance field covers: samples (i0 + a * stride, j0 + b * stride, k0 + c *
/// stride) for a < n[0], b < n[1], c < n[2]; field index (c * n[1] + b) * n[0] + a.
struct FieldBox {
  std::int64_t origin[3] = {0, 0, 0};
  std::uint32_t n[3]     = {0, 0, 0};
  std::uint32_t stride   = 1;

  [[nodiscard]] VOXHASH_HD std::uint64_t size() const { return std::uint64_t{n[0]} * n[1] * n[2]; }
  [[nodiscard]] VOXHASH_HD std::uint64_t index(std::uint32_t a,
                                               std::uint32_t b,
                                               std::uint32_t c) const {
    return (std::uint64_t{c} * n[1] + b) * n[0] + a;
  }
  /// The field's lattice index along `axis` of sample s, or -1 off the lattice or outside.
  [[nodiscard]] VOXHASH_HD std::int64_t lattice(int axis, std::int64_t s) const {
    const std::int64_t d = s - origin[axis];
    if (d < 0 || d % stride != 0 || d / stride >= n[axis]) return -1;
    return d / stride;
  }
  /// The height of lattice index c along z.
  [[nodiscard]] VOXHASH_HD double height(std::uint32_t c) const {
    return static_cast<double>(origin[2] + std::int64_t{c} * stride) + 0.5;
  }
  /// The first lattice index along z whose height is at least h (may be n[2]).
  [[nodiscard]] VOXHASH_HD std::uint32_t first_at_or_above(double h) const {
    const double c = ceil((h - 0.5 - static_cast<double>(origin[2])) / stride);
    if (c <= 0) return 0;
    return c >= n[2] ? n[2] : static_cast<std::uint32_t>(c);
  }
};

/// A squared distance no field value reaches: "no boundary in this line yet".
inline constexpr float kFarSquared = 1e30f;

/// Writes the squared distances of one part's interval to field f (squared world units) along its
/// column: `inside` fields (the distance from inside the part to its boundary) get the distance to
/// the nearer end for the samples in [z0, z1) (every other sample stays 0, set before); outside
/// fields get 0 inside and, above the interval up to `next_z0` (the next interval of the same part
/// in the column, or +inf), the distance to the nearer end; the column's first interval (`first`)
/// also writes the samples below it.
VOXHASH_HD void write_interval(float* f,
                               const FieldBox& box,
                               std::uint32_t a,
                               std::uint32_t b,
                               double z0,
                               double z1,
                               double next_z0,
                               bool first,
                               bool inside,
                               double step_z) {
  const std::uint32_t c0 = box.first_at_or_above(z0);
  const std::uint32_t c1 = box.first_at_or_above(z1);
  for (std::uint32_t c = c0; c < c1; ++c) {
    const double h        = box.height(c);
    const double d        = inside ? ((h - z0) < (z1 - h) ? h - z0 : z1 - h) * step_z : 0.0;
    f[box.index(a, b, c)] = static_cast<float>(d * d);
  }
  if (inside) return;
  const std::uint32_t c2 = box.first_at_or_above(next_z0);
  for (std::uint32_t c = c1; c < c2; ++c) {
    const double h        = box.height(c);
    const double d        = ((h - z1) < (next_z0 - h) ? h - z1 : next_z0 - h) * step_z;
    f[box.index(a, b, c)] = static_cast<float>(d * d);
  }
  if (!first) return;
  for (std::uint32_t c = 0; c < c0; ++c) {
    const double d        = (z0 - box.height(c)) * step_z;
    f[box.index(a, b, c)] = static_cast<float>(d * d);
  }
}

/// The squared-distance transform of one line of n values at spacing h (world units), in place:
/// f[q] = min over p of (h (q - p))^2 + f[p] (Felzenszwalb & Huttenlocher's lower envelope), values
/// of kFarSquared or more standing for "no boundary". `stride` steps between the line's values;
/// v (n), g (n) and z (n + 1) are the caller's scratch, `step` apart (a GPU interleaves its
/// threads' scratch so that neighbouring lines' accesses coalesce): the envelope's k-th parabola
/// has its vertex at v[k], its height f[v[k]] in g[k] and starts at z[k], so that one step of
/// either walk loads v, g and z of the same k at once rather than one after another.
VOXHASH_HD void distance_transform_line(float* f,
                                        std::uint64_t stride,
                                        std::uint32_t n,
                                        double h,
                                        std::uint32_t* v_base,
                                        double* z_base,
                                        float* g_base,
                                        std::uint64_t step) {
  const auto v    = [=](std::int64_t k) -> std::uint32_t& { return v_base[k * step]; };
  const auto z    = [=](std::int64_t k) -> double& { return z_base[k * step]; };
  const auto g    = [=](std::int64_t k) -> float& { return g_base[k * step]; };
  const double hh = h * h;
  int k           = -1;
  for (std::uint32_t q = 0; q < n; ++q) {
    const float gq = f[q * stride];
    if (gq >= kFarSquared) continue;
    const double fq = gq + hh * q * q;
    double s        = -1e300;
    while (k >= 0) {
      const std::uint32_t p = v(k);
      s                     = (fq - (g(k) + hh * p * p)) / (2.0 * hh * (q - p));
      if (s > z(k)) break;
      --k;
    }
    ++k;
    v(k)     = q;
    g(k)     = gq;
    z(k)     = k == 0 ? -1e300 : s;
    z(k + 1) = 1e300;
  }
  if (k < 0) return;
  k = 0;
  for (std::uint32_t q = 0; q < n; ++q) {
    while (z(k + 1) < q)
      ++k;
    const double d = h * (static_cast<double>(q) - v(k));
    f[q * stride]  = static_cast<float>(d * d + g(k));
  }
}

}  // namespace voxhash::core
