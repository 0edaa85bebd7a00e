// What the backend's clash pass reads back (clash_impl.hpp writes it, clash.cpp ranks it and
// turns cells into world units): per region the sums in cells, and the part triples. Region ids
// here follow the backend's voxel numbering; only the ranked report is the same on every backend.
#pragma once

#include "core/clash.hpp"

#include <voxhash/types.hpp>

#include <cstdint>
#include <vector>

namespace voxhash::clash {

struct RawClash {
  std::vector<core::RegionSums> regions;   // by region id
  std::vector<core::PartTriple> parts;     // sorted by (region, part_a, part_b), each once
  std::vector<Key64> keys;                 // with voxels: each intersection voxel's key ...
  std::vector<std::uint32_t> key_regions;  // ... and its region id
};

}  // namespace voxhash::clash
