// The build options of a frame's two voxel tables, from its PipelineConfig: a set of unique voxel
// keys with their ranks as values (no dense ids, multiplicities or multivalue lists). Under a GPU
// budget the tables keep BuildOptions' space (or less), as do their Starfish pages: there memory,
// and the bytes pages move over the link, are what the user asked to save; without one the
// frame's kFrameCuckooSpace (pipeline.hpp) buys shorter probes. PipelineImpl builds with these and
// estimate_frame_bytes (frame_memory.cpp) counts them.
#pragma once

#include <voxhash/hash_table.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>

namespace voxhash::pipeline {

[[nodiscard]] inline BuildOptions frame_table_options(const PipelineConfig& config) {
  BuildOptions options    = config.table_options;
  options.unique_ids      = false;
  options.multiplicities  = false;
  options.multivalue      = false;
  options.expected_unique = 0;
  if (config.gpu_budget != 0)
    options.cuckoo_space = std::min(options.cuckoo_space, BuildOptions{}.cuckoo_space);
  return options;
}

}  // namespace voxhash::pipeline
