// The shared voxel grid, in one place: GridParams (what a user sets: resolution and world bounds)
// and Grid, the validated grid as host and device code use it: world point -> voxel cell -> key
// and back. A key packs (x, y, z) with as many bits per axis as that axis' resolution needs: at
// most 31 bits in all fit a 32-bit key (Key, the fast path), more (up to 21 bits per axis, 63 in
// all) need a 64-bit one (Key64, a "wide" grid); no key can equal its width's sentinel.
#pragma once

#include <voxhash/detail/host_device.hpp>
#include <voxhash/geometry.hpp>
#include <voxhash/types.hpp>

#include <cstdint>

namespace voxhash {

struct GridParams {
  Int3 resolution{512, 512, 512};  // voxels per axis, at most kMaxGridResolution
  Bounds bounds{{-2.4f, -2.4f, -2.4f}, {2.4f, 2.4f, 2.4f}};  // the world box the grid covers
};

/// The most voxels per axis a grid may have (21 key bits per axis; 63 in all).
inline constexpr std::int32_t kMaxGridResolution = 1 << 21;

/// The most key bits a grid addresses with 32-bit keys; wider grids use 64-bit keys.
inline constexpr int kNarrowKeyBits = 31;

/// A validated grid, trivially copyable so kernels take it by value.
struct Grid {
  Int3 resolution{};
  Int3 bits{};          // key bits per axis
  Float3 origin{};      // world position of the grid's minimum corner
  Float3 voxel_size{};  // world size of one voxel per axis

  Grid() = default;
  /// Throws InvalidInput for a grid no key can address: resolution < 1 or above
  /// kMaxGridResolution on an axis, empty or non-finite bounds.
  explicit Grid(const GridParams& params);

  /// Key bits of a cell (the three axes' bits together).
  [[nodiscard]] VOXHASH_HD int key_bits() const { return bits.x + bits.y + bits.z; }
  /// Whether the grid's keys need 64 bits (Key64); otherwise Key, and key() / cell() / center()
  /// / voxelize() are the 32-bit functions.
  [[nodiscard]] VOXHASH_HD bool wide() const { return key_bits() > kNarrowKeyBits; }

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
  VOXHASH_HD Float3 center(Key k) const { return center_of(cell(k)); }

  /// The 64-bit key of cell c (any grid; a wide grid needs it).
  VOXHASH_HD Key64 key64(Int3 c) const {
    return static_cast<Key64>(c.x) | (static_cast<Key64>(c.y) << bits.x) |
           (static_cast<Key64>(c.z) << (bits.x + bits.y));
  }

  VOXHASH_HD Int3 cell(Key64 k) const {
    return {static_cast<std::int32_t>(k & ((Key64{1} << bits.x) - 1u)),
            static_cast<std::int32_t>((k >> bits.x) & ((Key64{1} << bits.y) - 1u)),
            static_cast<std::int32_t>(k >> (bits.x + bits.y))};
  }

  VOXHASH_HD Float3 center(Key64 k) const { return center_of(cell(k)); }

  /// The key of width K (Key or Key64) of cell c: key() or key64().
  template <class K>
  VOXHASH_HD K key_as(Int3 c) const {
    if constexpr (sizeof(K) == sizeof(Key)) {
      return key(c);
    } else {
      return key64(c);
    }
  }

  /// Key of width K of the voxel containing p, or kEmptyKeyOf<K> outside the grid.
  template <class K>
  VOXHASH_HD K voxelize_as(Float3 p) const {
    const Int3 c = cell_of(p);
    return in_grid(c) ? key_as<K>(c) : kEmptyKeyOf<K>;
  }

  /// World-space centre of cell c.
  VOXHASH_HD Float3 center_of(Int3 c) const {
    return {origin.x + (c.x + 0.5f) * voxel_size.x,
            origin.y + (c.y + 0.5f) * voxel_size.y,
            origin.z + (c.z + 0.5f) * voxel_size.z};
  }
};

/// World-space centre of the voxel with key `key` in `grid` (validates the grid each call).
[[nodiscard]] Float3 voxel_center(const GridParams& grid, Key key);
/// The same for a 64-bit key (any grid; a wide one needs it).
[[nodiscard]] Float3 voxel_center(const GridParams& grid, Key64 key);
/// Key of the voxel containing world point p, or kEmptyKey if p is outside the grid (a grid of
/// at most 31 key bits, else InvalidInput; voxel_key64 for any).
[[nodiscard]] Key voxel_key(const GridParams& grid, Float3 p);
[[nodiscard]] Key64 voxel_key64(const GridParams& grid, Float3 p);

}  // namespace voxhash
