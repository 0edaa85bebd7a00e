// Clash regions of the pipeline's last frame: its intersection voxels grouped into 26-connected
// regions on the pipeline's backend (union-find over a hash table of the intersection keys), each
// with its size in voxels and in world units and the pairs of parts of the two models that meet
// in it. What `voxhash clash` writes and the viewer's clash list shows.
#pragma once

#include <voxhash/geometry.hpp>
#include <voxhash/grid.hpp>
#include <voxhash/pipeline.hpp>
#include <voxhash/types.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace voxhash {

/// A part of model 0 and a part of model 1 that occupy the same voxels, and how many: a voxel
/// counts once for every pair of a part of A and a part of B that both occupy it.
struct PartPair {
  std::uint32_t part_a = 0;  // part id in model 0 (Pipeline::set_model_parts)
  std::uint32_t part_b = 0;  // part id in model 1
  std::size_t voxels   = 0;
};

/// One 26-connected region of intersection voxels.
struct ClashRegion {
  std::size_t voxels = 0;
  double volume      = 0;       // voxels times one voxel's volume, in world units cubed
  Bounds bounds;                // world box of its voxels (outer faces)
  Float3 centroid;              // mean of its voxel centres
  Int3 min_cell, max_cell;      // the same box in grid cells, inclusive
  std::vector<PartPair> parts;  // most voxels first, then by part_a, part_b
};

struct ClashReport {
  /// Largest first; ties ordered by min_cell (z, y, x), then max_cell. At most
  /// ClashOptions::max_regions of them; the totals below count every region.
  std::vector<ClashRegion> regions;
  std::size_t total_regions = 0;
  std::size_t voxels        = 0;  // intersection voxels of the frame
  double volume             = 0;
  std::vector<PartPair> parts;  // over every region, ordered as a region's
  Grid grid;                    // the grid the voxels are in (cells -> world)
  /// With ClashOptions::voxels: every intersection voxel's key, sorted, and the index of its
  /// region in `regions` (kNotFound for a region beyond max_regions). 64-bit, whichever width the
  /// frame's keys had.
  std::vector<Key64> voxel_keys;
  std::vector<std::uint32_t> voxel_regions;
};

struct ClashOptions {
  std::size_t max_regions = 0;        // list only the largest N regions (0: all)
  bool voxels             = false;    // also return the voxels and their regions (a PLY export)
  Stream stream           = nullptr;  // where the CUDA backend queues its work
  /// The part pairs' join: bytes of backend memory its build table may hold (0: no limit); a
  /// larger one is joined over pages (JoinOptions::gpu_budget).
  std::size_t gpu_budget = 0;
};

/// The clash report of `pipeline`'s last frame (call after run_frame, before the grid or a model
/// changes). Intersection voxels are those both models occupy; regions are their 26-connected
/// components; a region's part pairs come from the parts each model's points or triangles have in
/// that voxel (Pipeline::set_model_parts; all part 0 where none were set): each model's distinct
/// (voxel, part) pairs in the intersection voxels are inner-joined with the other's on the voxel
/// key (join(), on the pipeline's table where the join builds on it, else cuckoo; over pages
/// beyond options.gpu_budget: an InvalidInput for a budget too small for it). Runs on the
/// pipeline's backend and reads the result back once (the join and the compactions read their
/// sizes back on the way); allocates its scratch per call. Synchronizes options.stream. Throws
/// OutOfMemory, naming the rows, when the part pairs (one row per part of A and part of B sharing
/// a voxel) would exceed 2^31 - 1 rows or a fifth of the backend's free memory.
[[nodiscard]] ClashReport compute_clash_report(const Pipeline& pipeline,
                                               const ClashOptions& options = {});

}  // namespace voxhash
