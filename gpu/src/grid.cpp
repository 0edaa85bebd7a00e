// Grid's validation (the one place a GridParams becomes a key layout) and the key <-> world-point
// conveniences built on it.
#include <voxhash/error.hpp>
#include <voxhash/grid.hpp>

#include <cmath>
#include <string>

namespace voxhash {
namespace {

/// Bits needed to store values 0..n-1 (at least 1).
int bits_for(std::int32_t n) {
  int b = 1;
  while ((1 << b) < n)
    ++b;
  return b;
}

}  // namespace

Grid::Grid(const GridParams& params) {
  const Int3 r = params.resolution;
  if (r.x < 1 || r.y < 1 || r.z < 1) {
    throw InvalidInput("grid resolution must be at least 1 voxel per axis");
  }
  if (r.x > kMaxGridResolution || r.y > kMaxGridResolution || r.z > kMaxGridResolution) {
    throw InvalidInput("grid " + std::to_string(r.x) + "x" + std::to_string(r.y) + "x" +
                       std::to_string(r.z) + " exceeds the largest resolution, " +
                       std::to_string(kMaxGridResolution) + " voxels per axis (21 key bits)");
  }
  resolution      = r;
  bits            = {bits_for(r.x), bits_for(r.y), bits_for(r.z)};
  const Float3 lo = params.bounds.min, hi = params.bounds.max;
  // Each coordinate and each side on its own: a sum of finite floats near 3.4e38 overflows.
  if (!(hi.x > lo.x && hi.y > lo.y && hi.z > lo.z) || !std::isfinite(hi.x - lo.x) ||
      !std::isfinite(hi.y - lo.y) || !std::isfinite(hi.z - lo.z)) {
    throw InvalidInput("grid bounds must be finite with max > min on every axis");
  }
  origin     = lo;
  voxel_size = {(hi.x - lo.x) / r.x, (hi.y - lo.y) / r.y, (hi.z - lo.z) / r.z};
}

Float3 voxel_center(const GridParams& grid, Key key) {
  return Grid(grid).center(key);
}

Float3 voxel_center(const GridParams& grid, Key64 key) {
  return Grid(grid).center(key);
}

Key voxel_key(const GridParams& grid, Float3 p) {
  const Grid g(grid);
  if (g.wide()) {
    throw InvalidInput("voxel_key: the grid needs " + std::to_string(g.key_bits()) +
                       " key bits, more than a 32-bit key holds: use voxel_key64");
  }
  return g.voxelize(p);
}

Key64 voxel_key64(const GridParams& grid, Float3 p) {
  return Grid(grid).voxelize_as<Key64>(p);
}

}  // namespace voxhash
