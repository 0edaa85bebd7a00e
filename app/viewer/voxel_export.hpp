// Voxel exports: the pipeline's last frame as a coloured PLY point cloud (export_voxels_ply), for
// the panel's button, F11 and --export.
#pragma once

#include <voxhash/pipeline.hpp>

#include <cstddef>
#include <string>

namespace voxhash::viewer {

/// Writes both models' labelled voxels of `pipeline`'s last frame to `path` and returns how many
/// were written. Throws voxhash::InvalidInput (naming the path) when the file cannot be written.
std::size_t export_voxels(const Pipeline& pipeline, const std::string& path);

/// A new file name in the working directory: voxhash-voxels-NNN.ply, the first NNN from 001 that
/// is not taken.
[[nodiscard]] std::string voxels_file_name();

}  // namespace voxhash::viewer
