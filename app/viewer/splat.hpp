// The CUDA drawing path's kernels behind plain C++ (no CUDA or GL types, so that the C++ side and
// splat_cuda.cu share it): points and voxels splatted into a depth + colour buffer with one 64-bit
// atomicMin per pixel (the depth's float bits above, RGBA8 below: the nearest fragment wins), then
// resolved into the texture GL shows. A voxel is drawn as the cube it is: every pixel of its
// projected box casts a ray at the cube, and the hit face is lit as the GL cubes are.
#pragma once

#include <voxhash/pipeline.hpp>

#include <array>
#include <cstdint>

namespace voxhash::viewer::splat {

/// One frame's camera, viewport and what to draw, in plain floats.
struct SplatParams {
  float view_proj[16]     = {};  // column-major, as glm stores it
  float inv_view_proj[16] = {};
  int width = 0, height = 0;
  float clip_plane[4]      = {0, 0, 0, 1};  // kept where dot(plane, (p, 1)) >= 0
  float light_dir[3]       = {0, 1, 0};     // unit, towards the light
  float ambient            = 0.45f;
  float half_size[3]       = {};  // half a drawn voxel's edge per axis (world units)
  int point_size           = 1;   // pixels
  std::uint32_t background = 0;   // RGBA8 (R in the low byte)
};

/// What to draw of one model.
struct ModelDraw {
  const Float3* points                = nullptr;  // device memory
  std::uint32_t point_count           = 0;
  std::uint32_t point_color           = 0;        // RGBA8
  const VoxelInstance* voxels         = nullptr;  // device memory
  std::uint32_t voxel_count           = 0;
  bool labels[kVoxelLabels]           = {};  // which labels to draw (a VoxelLabel value each)
  float label_colors[kVoxelLabels][3] = {};  // linear RGB in [0, 1]
};

/// Draws both models into `depth_color` (width x height 64-bit keys) and resolves it into the
/// surface `surface` (a cudaSurfaceObject_t of an RGBA8 array), on `stream` (a cudaStream_t).
void draw(const SplatParams& params,
          const std::array<ModelDraw, 2>& models,
          unsigned long long* depth_color,
          unsigned long long surface,
          void* stream);

/// RGBA8 of a colour in [0, 1] (alpha 255).
[[nodiscard]] std::uint32_t pack_rgba(float r, float g, float b);

}  // namespace voxhash::viewer::splat
