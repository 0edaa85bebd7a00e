// Clash regions of the last frame: the intersection voxels grouped into 26-connected regions with
// their size, volume, bounding box and centroid in world units, ranked by size. (Placeholder for
// the declaration the wip-clash branch brings; the lead drops this file at merge.)
#pragma once

#include <voxhash/geometry.hpp>
#include <voxhash/pipeline.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace voxhash {

/// How many intersection voxels of one clash region lie where part_a of model A meets part_b of B.
struct ClashPartPair {
  std::uint32_t part_a = 0;
  std::uint32_t part_b = 0;
  std::size_t voxels   = 0;
};

struct ClashRegion {
  std::size_t voxels = 0;
  double volume      = 0;  // voxels times the voxel's volume, world units cubed
  Bounds bounds;           // of the region's voxels (their boxes, not centres), world units
  Float3 centroid;         // mean of the voxel centres
  std::vector<ClashPartPair> parts;
};

struct ClashOptions {};

struct ClashReport {
  std::vector<ClashRegion> regions;  // largest first
  std::size_t voxels = 0;            // intersection voxels in all regions
  double volume      = 0;
};

/// The clash regions of `pipeline`'s last frame.
[[nodiscard]] ClashReport compute_clash_report(const Pipeline& pipeline,
                                               const ClashOptions& options = {});

}  // namespace voxhash
