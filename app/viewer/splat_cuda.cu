// The CUDA drawing path's kernels (splat.hpp): clear, points (a square of point_size pixels each),
// voxels (each pixel of a cube's projected box casts a ray at the cube: the entry face gives the
// depth and the normal), resolve into the GL texture's surface. One thread per point, voxel or
// pixel; every write is one 64-bit atomicMin of (depth bits << 32 | RGBA8).
#include "viewer/splat.hpp"

#include <voxhash/error.hpp>

#include <cuda_runtime.h>

#include <cmath>
#include <string>

namespace voxhash::viewer::splat {
namespace {

constexpr unsigned long long kEmpty = ~0ull;
constexpr int kMaxBox               = 64;  // pixels per side a voxel may cover (zoomed in: clamped)

struct Vec4 {
  float x, y, z, w;
};

__device__ Vec4 transform(const float* m, float x, float y, float z, float w) {
  return {m[0] * x + m[4] * y + m[8] * z + m[12] * w,
          m[1] * x + m[5] * y + m[9] * z + m[13] * w,
          m[2] * x + m[6] * y + m[10] * z + m[14] * w,
          m[3] * x + m[7] * y + m[11] * z + m[15] * w};
}

__device__ bool clipped(const SplatParams& p, float x, float y, float z) {
  return p.clip_plane[0] * x + p.clip_plane[1] * y + p.clip_plane[2] * z + p.clip_plane[3] < 0;
}

/// The key of a fragment at NDC depth `ndc_z` (in [-1, 1]) with colour `rgba`.
__device__ unsigned long long key(float ndc_z, std::uint32_t rgba) {
  const float depth = fminf(fmaxf(ndc_z * 0.5f + 0.5f, 0.0f), 1.0f);
  return (static_cast<unsigned long long>(__float_as_uint(depth)) << 32) | rgba;
}

__device__ std::uint32_t rgba_of(float r, float g, float b) {
  const auto byte = [](float v) {
    return static_cast<std::uint32_t>(fminf(fmaxf(v, 0.0f), 1.0f) * 255.0f + 0.5f);
  };
  return byte(r) | (byte(g) << 8) | (byte(b) << 16) | (255u << 24);
}

__global__ void clear(unsigned long long* depth_color, int pixels) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < pixels) depth_color[i] = kEmpty;
}

__global__ void draw_points(SplatParams p,
                            const Float3* points,
                            std::uint32_t count,
                            std::uint32_t rgba,
                            unsigned long long* depth_color) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const Float3 q = points[i];
  if (clipped(p, q.x, q.y, q.z)) return;
  const Vec4 c = transform(p.view_proj, q.x, q.y, q.z, 1.0f);
  if (c.w <= 0 || fabsf(c.z) > c.w) return;
  const float sx   = (c.x / c.w * 0.5f + 0.5f) * p.width;
  const float sy   = (c.y / c.w * 0.5f + 0.5f) * p.height;
  const int x0     = static_cast<int>(floorf(sx - 0.5f * p.point_size + 0.5f));
  const int y0     = static_cast<int>(floorf(sy - 0.5f * p.point_size + 0.5f));
  const auto value = key(c.z / c.w, rgba);
  for (int y = max(y0, 0); y < min(y0 + p.point_size, p.height); ++y) {
    for (int x = max(x0, 0); x < min(x0 + p.point_size, p.width); ++x)
      atomicMin(&depth_color[static_cast<std::size_t>(y) * p.width + x], value);
  }
}

__global__ void draw_voxels(SplatParams p, ModelDraw model, unsigned long long* depth_color) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= model.voxel_count) return;
  const VoxelInstance v     = model.voxels[i];
  const std::uint32_t label = v.label < kVoxelLabels ? v.label : kVoxelLabels - 1;
  if (!model.labels[label]) return;
  const float lo[3] = {
      v.center.x - p.half_size[0], v.center.y - p.half_size[1], v.center.z - p.half_size[2]};
  const float hi[3] = {
      v.center.x + p.half_size[0], v.center.y + p.half_size[1], v.center.z + p.half_size[2]};
  // The cube's box on the screen.
  float min_x = 1e30f, min_y = 1e30f, max_x = -1e30f, max_y = -1e30f;
  for (int corner = 0; corner < 8; ++corner) {
    const Vec4 c = transform(p.view_proj,
                             corner & 1 ? hi[0] : lo[0],
                             corner & 2 ? hi[1] : lo[1],
                             corner & 4 ? hi[2] : lo[2],
                             1.0f);
    if (c.w <= 0) return;  // reaches behind the eye: left to the GL path's near plane
    const float sx = (c.x / c.w * 0.5f + 0.5f) * p.width, sy = (c.y / c.w * 0.5f + 0.5f) * p.height;
    min_x = fminf(min_x, sx), max_x = fmaxf(max_x, sx);
    min_y = fminf(min_y, sy), max_y = fmaxf(max_y, sy);
  }
  const int x0       = max(static_cast<int>(floorf(min_x)), 0);
  const int y0       = max(static_cast<int>(floorf(min_y)), 0);
  const int x1       = min(min(static_cast<int>(ceilf(max_x)), p.width), x0 + kMaxBox);
  const int y1       = min(min(static_cast<int>(ceilf(max_y)), p.height), y0 + kMaxBox);
  const float* color = model.label_colors[label];
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) {
      // The pixel centre's ray from the near plane to the far plane.
      const float nx = (x + 0.5f) / p.width * 2 - 1, ny = (y + 0.5f) / p.height * 2 - 1;
      const Vec4 a     = transform(p.inv_view_proj, nx, ny, -1, 1);
      const Vec4 b     = transform(p.inv_view_proj, nx, ny, 1, 1);
      const float o[3] = {a.x / a.w, a.y / a.w, a.z / a.w};
      const float d[3] = {b.x / b.w - o[0], b.y / b.w - o[1], b.z / b.w - o[2]};
      float t_in = 0, t_out = 1;
      int axis   = -1;
      float sign = 0;
      bool miss  = false;
      for (int k = 0; k < 3 && !miss; ++k) {
        if (fabsf(d[k]) < 1e-20f) {
          miss = o[k] < lo[k] || o[k] > hi[k];
          continue;
        }
        float t0 = (lo[k] - o[k]) / d[k], t1 = (hi[k] - o[k]) / d[k];
        float s = -1;  // entering through the low face: its normal points to -k
        if (t0 > t1) {
          const float t = t0;
          t0 = t1, t1 = t, s = 1;
        }
        if (t0 > t_in) t_in = t0, axis = k, sign = s;
        t_out = fminf(t_out, t1);
        miss  = t_in > t_out;
      }
      if (miss || axis < 0) continue;
      const float h[3] = {o[0] + t_in * d[0], o[1] + t_in * d[1], o[2] + t_in * d[2]};
      if (clipped(p, h[0], h[1], h[2])) continue;  // the cut face: the cube is open there
      const Vec4 c      = transform(p.view_proj, h[0], h[1], h[2], 1.0f);
      const float shade = p.ambient + (1 - p.ambient) * fmaxf(sign * p.light_dir[axis], 0.0f);
      atomicMin(&depth_color[static_cast<std::size_t>(y) * p.width + x],
                key(c.z / c.w, rgba_of(color[0] * shade, color[1] * shade, color[2] * shade)));
    }
  }
}

__global__ void resolve(const unsigned long long* depth_color,
                        int width,
                        int height,
                        std::uint32_t background,
                        cudaSurfaceObject_t surface) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const unsigned long long k = depth_color[static_cast<std::size_t>(y) * width + x];
  const std::uint32_t c      = k == kEmpty ? background : static_cast<std::uint32_t>(k);
  surf2Dwrite(make_uchar4(c & 0xff, (c >> 8) & 0xff, (c >> 16) & 0xff, 255), surface, x * 4, y);
}

void check_launch(const char* what) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) {
    throw CudaError(std::string(what) + ": " + cudaGetErrorString(status),
                    static_cast<int>(status));
  }
}

unsigned blocks(std::size_t n, unsigned threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

}  // namespace

std::uint32_t pack_rgba(float r, float g, float b) {
  const auto byte = [](float v) {
    return static_cast<std::uint32_t>(std::fmin(std::fmax(v, 0.0f), 1.0f) * 255.0f + 0.5f);
  };
  return byte(r) | (byte(g) << 8) | (byte(b) << 16) | (255u << 24);
}

void draw(const SplatParams& params,
          const std::array<ModelDraw, 2>& models,
          unsigned long long* depth_color,
          unsigned long long surface,
          void* stream_handle) {
  const auto stream           = static_cast<cudaStream_t>(stream_handle);
  constexpr unsigned kThreads = 256;
  const std::size_t pixels    = static_cast<std::size_t>(params.width) * params.height;
  if (pixels == 0) return;
  clear<<<blocks(pixels, kThreads), kThreads, 0, stream>>>(depth_color, static_cast<int>(pixels));
  for (const ModelDraw& model : models) {
    if (model.points && model.point_count) {
      draw_points<<<blocks(model.point_count, kThreads), kThreads, 0, stream>>>(
          params, model.points, model.point_count, model.point_color, depth_color);
    }
    if (model.voxels && model.voxel_count) {
      draw_voxels<<<blocks(model.voxel_count, kThreads), kThreads, 0, stream>>>(
          params, model, depth_color);
    }
  }
  const dim3 tile(16, 16);
  const dim3 grid((params.width + 15) / 16, (params.height + 15) / 16);
  resolve<<<grid, tile, 0, stream>>>(
      depth_color, params.width, params.height, params.background, surface);
  check_launch("CUDA drawing");
}

}  // namespace voxhash::viewer::splat
