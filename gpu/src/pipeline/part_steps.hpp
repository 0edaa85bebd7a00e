// Part ids per voxel key for the clash report, written once for both backends: a mesh model's
// keys come from voxelize_triangles (inside_steps.hpp) in (triangle, tile) item order, so each
// key's triangle, and through it its part, is found from the two offset arrays that pass scanned.
#pragma once

#include "core/triangle_voxelizer.hpp"

#include <cstddef>
#include <cstdint>

namespace voxhash::pipeline {

/// parts[j] = triangle_parts[t] for key j of the voxelization, t the triangle that wrote it:
/// voxel_offsets (items + 1 entries) gives the item of key j, tile_offsets (triangle_count + 1)
/// the triangle of that item. One thread per key.
template <class Exec>
void key_parts_of_triangles(Exec& exec,
                            const std::uint32_t* tile_offsets,
                            std::uint32_t triangle_count,
                            const std::uint32_t* voxel_offsets,
                            std::uint32_t items,
                            const std::uint32_t* triangle_parts,
                            std::size_t key_count,
                            std::uint32_t* parts) {
  exec.for_each(key_count, [=] VOXHASH_LAMBDA(std::uint32_t j) {
    const std::uint32_t item = core::segment_of(voxel_offsets, items, j);
    parts[j]                 = triangle_parts[core::segment_of(tile_offsets, triangle_count, item)];
  });
}

}  // namespace voxhash::pipeline
