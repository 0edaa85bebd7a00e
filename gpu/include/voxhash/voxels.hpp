// What a frame says about a voxel, shared by the pipeline's API, its per-element steps and the
// voxel files: the flood fill's labels, the animation's deformations, and a model's labelled voxels
// on the host. A header of its own so that core/ and io.hpp need not include pipeline.hpp.
#pragma once

#include <voxhash/types.hpp>

#include <cstdint>
#include <vector>

namespace voxhash {

/// What the flood fill decides for a surface voxel. Device code stores it as one byte.
enum class VoxelLabel : std::uint8_t { Outside = 0, Inside = 1, Intersection = 2 };
inline constexpr int kVoxelLabels = 3;

/// How the demo's animation deforms a model (AnimationParams::deformation).
enum class Deformation { None, Twist, Bend, Wobble };

/// A model's labelled voxels, on the host, sorted by key (64-bit wide, whichever width the frame
/// ran on).
struct ModelVoxels {
  std::vector<Key64> keys;
  std::vector<VoxelLabel> labels;
};

}  // namespace voxhash
