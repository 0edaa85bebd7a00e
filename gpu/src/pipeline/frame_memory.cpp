// How much memory a frame needs, from the configuration and the point counts alone, so front ends
// can refuse a run up front instead of failing in the middle (or after minutes of swapping). Each
// term names the buffers of PipelineImpl (pipeline_impl.hpp, frame_steps.hpp) it stands for;
// tests/cpu/test_resources.cpp holds the sum against the bytes the buffers really take. Also the
// frame's rules the estimate shares with the frame: its key width and whether its tables page.
#include "core/flood_fill.hpp"
#include "pipeline/paged_voxels.hpp"

#include <voxhash/error.hpp>
#include <voxhash/paged_table.hpp>
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
/// roots, pending votes, undecided voxels (4 each), representative key (key_bytes), the inside
/// test's buffers (40: ~360 bytes a region — its sketch, samples, 24 rays' counts and votes — in a
/// room of up to ~1.6 times the regions, pipeline/room.hpp; a region per nine voxels), and the
/// voxel instances (16).
constexpr std::size_t bytes_per_voxel(std::size_t key_bytes) {
  return 3 * 1 + 4 * 4 + key_bytes + 40 + 16;
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

/// A paged voxel table of n keys: its backend memory (estimate_bytes: page slots, lists, an
/// operation's partition) and, when its pages exceed the budget, their pinned host copies.
MemoryEstimate paged_voxel_bytes(const BuildOptions& options,
                                 std::size_t n,
                                 std::size_t key_bytes) {
  MemoryEstimate m;
  const auto k            = static_cast<int>(key_bytes);
  m.backend_bytes         = estimate_bytes(TableKind::PagedCuckoo, n, options, k);
  const std::size_t pages = paged_page_count(options, n);
  const std::size_t page  = paged_page_bytes(options, k);
  if (pages * page > options.page_budget) m.host_bytes = pages * page;
  return m;
}

}  // namespace

int frame_key_bits(const PipelineConfig& config) {
  return Grid(config.grid).wide() || config.wide_keys ? 64 : 32;
}

std::size_t frame_table_bytes(const PipelineConfig& config, std::size_t voxels) {
  return estimate_bytes(
      config.algorithm, voxels, frame_table_options(config), frame_key_bits(config) / 8);
}

bool frame_paged(const PipelineConfig& config, std::array<std::size_t, 2> voxels) {
  return config.gpu_budget.pages(frame_table_bytes(config, voxels[0]) +
                                 frame_table_bytes(config, voxels[1]));
}

MemoryEstimate estimate_frame_bytes(const PipelineConfig& config,
                                    std::array<std::size_t, 2> points) {
  const Grid grid(config.grid);
  const std::size_t cells = static_cast<std::size_t>(grid.resolution.x) * grid.resolution.y *
                            static_cast<std::size_t>(grid.resolution.z);
  const BuildOptions table = frame_table_options(config);  // as PipelineImpl builds them
  // 64-bit keys on a wide grid (or when forced): wider keys, slots and edges.
  const bool wide             = frame_key_bits(config) == 64;
  const std::size_t key_bytes = wide ? sizeof(Key64) : sizeof(Key);
  // Beyond the budget (frame_paged, as the frame decides) each model's voxels are paged
  // (PagedVoxels).
  const auto voxels_of = [&](std::size_t n) { return std::min(n, cells); };
  const bool paged     = frame_paged(config, {voxels_of(points[0]), voxels_of(points[1])});
  MemoryEstimate need;
  for (const std::size_t n : points) {
    const std::size_t voxels = voxels_of(n);
    // The voxel list (VoxelList): the sorted keys, the unique list (both sized for every key) and
    // the radix sort's second buffer.
    need.backend_bytes += bytes_per_point(key_bytes) * n + bytes_per_voxel(key_bytes) * voxels +
                          block_mask_bytes(grid, wide) + 3 * key_bytes * n;
    need.host_bytes += sizeof(Float3) * n;
    if (!paged) {
      need.backend_bytes += frame_table_bytes(config, voxels);
      continue;
    }
    const MemoryEstimate pages =
        paged_voxel_bytes(pipeline::paged_voxel_options(
                              table, config.gpu_budget.per_model(), static_cast<int>(key_bytes)),
                          voxels,
                          key_bytes);
    need.backend_bytes += pages.backend_bytes;
    need.host_bytes += pages.host_bytes;
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
