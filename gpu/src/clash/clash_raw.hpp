// What the backend's clash pass reads back (clash_impl.hpp and part_clashes_impl.hpp write it,
// clash.cpp ranks it and turns cells and samples into world units): per region the sums in cells,
// the part triples, and per pair of parts the overlap's sums, depth or gap on the solids' sample
// lattice. Region ids here follow the backend's voxel numbering; only the ranked report is the same
// on every backend.
#pragma once

#include "core/clash.hpp"
#include "core/solid.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/clash.hpp>
#include <voxhash/gpu_budget.hpp>
#include <voxhash/grid.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/types.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace voxhash::detail {
class PipelineBackend;
}

namespace voxhash::clash {

/// A pair of parts whose solids overlap (sums.length > 0: their depth) or come within the
/// clearance (their gap, at the sample sums.min names).
struct RawPairClash {
  std::uint32_t part_a = 0, part_b = 0;
  core::PairSums sums;
  double depth         = 0;  // world units
  double gap           = 0;  // world units
  double spacing       = 0;  // the distance field's sample spacing across columns, world units
  std::uint32_t stride = 0;  // the distance field's stride on the lattice
};

/// What the backend's clash pass is asked for.
struct ClashPass {
  TableKind join_table = TableKind::Cuckoo;  // the part pairs' join (join_table_for)
  GpuBudget join_budget{};                   // what its build table may hold (none: no limit)
  bool with_voxels      = false;             // also the intersection voxels and their regions
  int columns_per_voxel = 2;                 // the solids' columns across each voxel axis
  double clearance      = 0;                 // world units: gaps under it are measured
  Stream stream         = nullptr;
};

struct RawClash {
  std::vector<core::RegionSums> regions;   // by region id
  std::vector<core::PartTriple> parts;     // sorted by (region, part_a, part_b), each once
  std::vector<Key64> keys;                 // with voxels: each intersection voxel's key ...
  std::vector<std::uint32_t> key_regions;  // ... and its region id
  bool solids = false;                     // both models are meshes: `pairs` holds their clashes
  core::SampleGrid samples;                // the solids' lattice
  std::vector<RawPairClash> pairs;
  std::array<std::vector<std::uint32_t>, 2>
      open_parts;  // open parts: an edge used, or a column crossed, an odd number of times
  ClashTimes ms;
};

/// The clash pass of `backend` over `pipeline`'s last frame (clash_impl.hpp's find_clashes on that
/// backend's executor; defined in backends/dispatch.cpp, which picks the backend).
[[nodiscard]] RawClash find_clashes(Backend backend,
                                    const detail::PipelineBackend& pipeline,
                                    const Grid& grid,
                                    const ClashPass& pass);

}  // namespace voxhash::clash
