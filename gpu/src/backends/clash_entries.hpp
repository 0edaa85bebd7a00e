// ClashEntries<Exec> defined (see entry_points.hpp): clash regions, solids and part-pair clashes.
// Included only by cpu_clash.cpp and cuda_clash.cu.
#pragma once

#include "backends/entry_points.hpp"
#include "clash/clash_impl.hpp"

namespace voxhash::backends {

template <class Exec>
clash::RawClash ClashEntries<Exec>::find_clashes(const detail::PipelineBackend& pipeline,
                                                 const Grid& grid,
                                                 const clash::ClashPass& pass) {
  return clash::find_clashes<Exec>(pipeline, grid, pass);
}

}  // namespace voxhash::backends
