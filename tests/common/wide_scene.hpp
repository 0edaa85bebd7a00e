// Scenes for the 64-bit-key pipeline, shared by the CPU tests (tests/cpu/test_pipeline64.cpp) and
// the CUDA ones (tests/gpu/test_pipeline64_gpu.cpp): analytic meshes (a sphere dipping into a box,
// a sphere nested in a blob) small in voxels on a grid of up to 2^21 voxels per axis, placed away
// from the grid's centre so their keys lie far above 2^32; run without motion and scored against
// exact geometry by common/inside_eval.hpp's evaluate_scene, as the Inside sweeps are.
#pragma once

#include "common/inside_eval.hpp"

#include <voxhash/pipeline.hpp>

#include <string>
#include <vector>

namespace voxhash::test {

/// Voxels per axis of the wide grids: 2^20, keys far above 2^32.
inline constexpr int kWide = 1 << 20;

/// A cubic grid of `resolution` voxels per axis whose voxels are `voxel` world units, with the
/// world origin at cell (0.3, 0.55, 0.8) of the resolution: shapes near the origin get large
/// cell coordinates on every axis.
inline GridParams wide_grid(int resolution, double voxel) {
  const double span = resolution * voxel;
  GridParams g;
  g.resolution = {resolution, resolution, resolution};
  g.bounds     = {{static_cast<float>(-0.3 * span),
                   static_cast<float>(-0.55 * span),
                   static_cast<float>(-0.8 * span)},
                  {static_cast<float>(0.7 * span),
                   static_cast<float>(0.45 * span),
                   static_cast<float>(0.2 * span)}};
  return g;
}

/// Two mesh pairs about 0.6 world units across, 2000 rest points per mesh.
inline std::vector<Scene> wide_scenes() {
  std::vector<Scene> scenes = {{"sphere dipping into a box",
                                box({-0.3, -0.3, -0.3}, {0.3, 0.3, 0.0}),
                                placed(uv_sphere(0.22), {1, {0, 0, 1}, 0, {0.05, 0.02, 0.12}})},
                               {"blob nested in a sphere", placed(uv_sphere(0.3), {}), blob(0.24)}};
  for (Scene& s : scenes)
    s.mesh_samples = 2000;
  return scenes;
}

/// Whether two runs gave the same voxels and labels for both models.
inline bool same_voxels(const SceneOutcome& a, const SceneOutcome& b) {
  return a.voxels[0].keys == b.voxels[0].keys && a.voxels[0].labels == b.voxels[0].labels &&
         a.voxels[1].keys == b.voxels[1].keys && a.voxels[1].labels == b.voxels[1].labels;
}

}  // namespace voxhash::test
