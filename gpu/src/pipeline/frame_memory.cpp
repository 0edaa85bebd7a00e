// How much memory a frame needs, from the configuration and the point counts alone, so front ends
// can refuse a run up front instead of failing in the middle (or after minutes of swapping). Each
// term names the buffers of PipelineImpl (pipeline_impl.hpp, frame_steps.hpp) it stands for;
// tests/cpu/test_resources.cpp holds the sum against the bytes the buffers really take.
#include "core/flood_fill.hpp"

#include <voxhash/error.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <string>

namespace voxhash {
namespace {

/// Bytes per point a model holds whatever its voxels: rest and animated points, keys before and
/// after dropping those outside the grid (key_bytes each), and scratch (the CPU's sort order,
/// CUB's temporary storage for selects and scans).
constexpr std::size_t bytes_per_point(std::size_t key_bytes) {
  return 12 + 12 + 2 * key_bytes + 4;
}
/// Bytes per voxel of the flood fill and the output: state, labels, next labels (1 each), parent,
/// roots, pending votes (4 each), representative key (key_bytes), six ray-crossing counts per
/// component or undecided voxel (at most one per voxel, 24), and the voxel instances (16).
constexpr std::size_t bytes_per_voxel(std::size_t key_bytes) {
  return 3 * 1 + 3 * 4 + key_bytes + 24 + 16;
}

std::size_t block_mask_bytes(const Grid& grid, bool wide) {
  const int shift   = wide ? core::wide_mask_shift(grid) : core::BlockMask::kShift;
  const auto blocks = [shift](int resolution) {
    return static_cast<std::size_t>(((resolution - 1) >> shift) + 1);
  };
  const std::size_t bits =
      blocks(grid.resolution.x) * blocks(grid.resolution.y) * blocks(grid.resolution.z);
  return (bits + 31) / 32 * 4;
}

}  // namespace

MemoryEstimate estimate_frame_bytes(const PipelineConfig& config,
                                    std::array<std::size_t, 2> points) {
  const Grid grid(config.grid);
  const std::size_t cells = static_cast<std::size_t>(grid.resolution.x) * grid.resolution.y *
                            static_cast<std::size_t>(grid.resolution.z);
  BuildOptions table    = config.table_options;  // as PipelineImpl::prepare_tables sets them
  table.unique_ids      = true;
  table.multiplicities  = false;
  table.expected_unique = 0;
  // 64-bit keys on a wide grid (or when forced): wider keys, slots and edges.
  const bool wide             = grid.wide() || config.wide_keys;
  const std::size_t key_bytes = wide ? sizeof(Key64) : sizeof(Key);
  MemoryEstimate need;
  for (const std::size_t n : points) {
    const std::size_t voxels = std::min(n, cells);
    need.backend_bytes += bytes_per_point(key_bytes) * n +
                          estimate_bytes(config.algorithm, n, table, static_cast<int>(key_bytes)) +
                          bytes_per_voxel(key_bytes) * voxels + block_mask_bytes(grid, wide);
    need.host_bytes += sizeof(Float3) * n;
  }
  return need;
}

void check_frame_memory(Backend backend,
                        const PipelineConfig& config,
                        std::array<std::size_t, 2> points) {
  const Int3 r             = config.grid.resolution;
  const std::string counts = points[0] == points[1]
                                 ? "2 x " + std::to_string(points[0])
                                 : std::to_string(points[0]) + " + " + std::to_string(points[1]);
  require_memory(backend,
                 estimate_frame_bytes(config, points),
                 "a frame of " + counts + " points (" + std::string(to_string(config.algorithm)) +
                     ", grid " + std::to_string(r.x) + "x" + std::to_string(r.y) + "x" +
                     std::to_string(r.z) + ", " + std::string(to_string(backend)) + " backend)");
}

}  // namespace voxhash
