// The shared voxel grid, in one place: GridParams (what a user sets: resolution and world bounds)
// and Grid, the validated grid as host and device code use it: world point -> voxel cell -> 32-bit
// key and back. A key packs (x, y, z) with as many bits per axis as that axis' resolution needs, at
// most 31 bits in all, so no key can equal the tables' sentinel 0xFFFFFFFF.
#pragma once

#include <voxhash/detail/host_device.hpp>
#include <voxhash/geometry.hpp>
#include <voxhash/types.hpp>

#include <cstdint>

namespace voxhash {

struct GridParams {
  Int3 resolution{512, 512, 512};  // voxels per axis; bits per axis sum to <= 31
  Bounds bounds{{-2.4f, -2.4f, -2.4f}, {2.4f, 2.4f, 2.4f}};  // the world box the grid covers
};

/// A validated grid, trivially copyable so kernels take it by value.
struct Grid {
  Int3 resolution{};
  Int3 bits{};          // key bits per axis
  Float3 origin{};      // world position of the grid's minimum corner
  Float3 voxel_size{};  // world size of one voxel per axis

  Grid() = default;
  /// Throws InvalidInput for a grid no key can address: resolution < 1, more than 31 key bits,
  /// empty or non-finite bounds.
  explicit Grid(const GridParams& params);

  VOXHASH_HD bool in_grid(Int3 c) const {
    return c.x >= 0 && c.y >= 0 && c.z >= 0 && c.x < resolution.x && c.y < resolution.y &&
           c.z < resolution.z;
  }

  VOXHASH_HD Key key(Int3 c) const {
    return static_cast<Key>(c.x) | (static_cast<Key>(c.y) << bits.x) |
           (static_cast<Key>(c.z) << (bits.x + bits.y));
  }

  VOXHASH_HD Int3 cell(Key k) const {
    return {static_cast<std::int32_t>(k & ((1u << bits.x) - 1u)),
            static_cast<std::int32_t>((k >> bits.x) & ((1u << bits.y) - 1u)),
            static_cast<std::int32_t>(k >> (bits.x + bits.y))};
  }

  /// The cell containing p (may be outside the grid; NaN maps outside).
  VOXHASH_HD Int3 cell_of(Float3 p) const {
    const float fx = (p.x - origin.x) / voxel_size.x;
    const float fy = (p.y - origin.y) / voxel_size.y;
    const float fz = (p.z - origin.z) / voxel_size.z;
    // Written so NaN fails the range test: !(f >= 0) is true for NaN.
    if (!(fx >= 0.f && fy >= 0.f && fz >= 0.f && fx < resolution.x && fy < resolution.y &&
          fz < resolution.z)) {
      return {-1, -1, -1};
    }
    return {static_cast<std::int32_t>(fx),
            static_cast<std::int32_t>(fy),
            static_cast<std::int32_t>(fz)};
  }

  /// Key of the voxel containing p, or kEmptyKey when p lies outside the grid.
  VOXHASH_HD Key voxelize(Float3 p) const {
    const Int3 c = cell_of(p);
    return in_grid(c) ? key(c) : kEmptyKey;
  }

  /// World-space centre of the voxel with key k.
  VOXHASH_HD Float3 center(Key k) const {
    const Int3 c = cell(k);
    return {origin.x + (c.x + 0.5f) * voxel_size.x,
            origin.y + (c.y + 0.5f) * voxel_size.y,
            origin.z + (c.z + 0.5f) * voxel_size.z};
  }
};

/// World-space centre of the voxel with key `key` in `grid` (validates the grid each call).
[[nodiscard]] Float3 voxel_center(const GridParams& grid, Key key);
/// Key of the voxel containing world point p, or kEmptyKey if p is outside the grid.
[[nodiscard]] Key voxel_key(const GridParams& grid, Float3 p);

}  // namespace voxhash
