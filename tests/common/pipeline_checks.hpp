// Scenes with exact ground truth for the frame pipeline (spheres and a torus sampled densely),
// and the checks the CPU and GPU pipeline tests share: labels of voxels more than 1.5 voxels from
// the other surface match an exact inside test; intersection voxels lie within 1.5 voxels of both
// surfaces; the analytic intersection curve is covered.
#pragma once

#include <voxhash/pipeline.hpp>

#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <numbers>
#include <random>
#include <vector>

namespace voxhash::test {

/// An analytic closed shape: signed distance (negative inside) and a surface sampler.
struct Shape {
  std::function<float(Float3)> distance;
  std::vector<Float3> points;
};

inline float length(Float3 p) {
  return std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
}

inline Shape sphere(Float3 c, float r, std::size_t n, std::uint64_t seed) {
  Shape s;
  s.distance = [=](Float3 p) { return length({p.x - c.x, p.y - c.y, p.z - c.z}) - r; };
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g;
  s.points.resize(n);
  for (auto& p : s.points) {
    Float3 d{g(rng), g(rng), g(rng)};
    const float l = length(d);
    p             = {c.x + r * d.x / l, c.y + r * d.y / l, c.z + r * d.z / l};
  }
  return s;
}

/// Torus around the z axis through c: major radius R, minor radius r.
inline Shape torus(Float3 c, float R, float r, std::size_t n, std::uint64_t seed) {
  Shape s;
  s.distance = [=](Float3 p) {
    const float x = p.x - c.x, y = p.y - c.y, z = p.z - c.z;
    const float q = std::sqrt(x * x + y * y) - R;
    return std::sqrt(q * q + z * z) - r;
  };
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  s.points.reserve(n);
  const float two_pi = 2 * std::numbers::pi_v<float>;
  while (s.points.size() < n) {  // area-uniform: accept the tube angle by its ring radius
    const float a = two_pi * u(rng), b = two_pi * u(rng);
    if (u(rng) * (R + r) > R + r * std::cos(b)) continue;
    const float ring = R + r * std::cos(b);
    s.points.push_back({c.x + ring * std::cos(a), c.y + ring * std::sin(a), c.z + r * std::sin(b)});
  }
  return s;
}

inline PipelineConfig static_config(int resolution, TableKind kind) {
  PipelineConfig config;
  config.grid.resolution   = {resolution, resolution, resolution};
  config.grid.bounds       = {{-1.6f, -1.6f, -1.6f}, {1.6f, 1.6f, 1.6f}};
  config.animation.animate = false;
  config.algorithm         = kind;
  return config;
}

struct SceneResult {
  std::array<ModelVoxels, 2> voxels;
  FrameStats stats;
};

inline SceneResult run_scene(Backend backend,
                             const PipelineConfig& config,
                             const Shape& a,
                             const Shape& b) {
  Pipeline pipeline(backend, config);
  pipeline.set_model(0, a.points);
  pipeline.set_model(1, b.points);
  SceneResult r;
  r.stats     = pipeline.run_frame(0.0);
  r.voxels[0] = pipeline.download(0);
  r.voxels[1] = pipeline.download(1);
  return r;
}

/// Checks model `index`'s labels against the exact inside test of the other shape.
inline void check_labels(const GridParams& grid,
                         const ModelVoxels& mv,
                         const Shape& self,
                         const Shape& other,
                         const char* what) {
  const float voxel = (grid.bounds.max.x - grid.bounds.min.x) / grid.resolution.x;
  std::size_t wrong = 0, checked = 0, bad_intersections = 0;
  for (std::size_t i = 0; i < mv.keys.size(); ++i) {
    const Float3 c = voxel_center(grid, mv.keys[i]);
    const float d  = other.distance(c);
    if (mv.labels[i] == VoxelLabel::Intersection) {
      const bool ok = std::abs(d) <= 1.5f * voxel && std::abs(self.distance(c)) <= 1.5f * voxel;
      bad_intersections += !ok;
      continue;
    }
    if (std::abs(d) <= 1.5f * voxel) continue;
    ++checked;
    const VoxelLabel expected = d < 0 ? VoxelLabel::Inside : VoxelLabel::Outside;
    if (mv.labels[i] != expected && wrong++ < 5) {
      ADD_FAILURE() << what << ": voxel at (" << c.x << ", " << c.y << ", " << c.z << "), distance "
                    << d / voxel << " voxels from the other surface, labelled " << int(mv.labels[i])
                    << ", expected " << int(expected);
    }
  }
  EXPECT_EQ(wrong, 0u) << what << ": " << wrong << " of " << checked << " labels wrong";
  EXPECT_EQ(bad_intersections, 0u) << what << ": intersection voxels far from a surface";
  EXPECT_GT(checked, mv.keys.size() / 2) << what << ": too few voxels checked";
}

/// Every point of `curve` has an intersection voxel of model 0 within one voxel (26-neighbours).
inline void check_curve_covered(const GridParams& grid,
                                const ModelVoxels& mv,
                                const std::vector<Float3>& curve) {
  std::vector<Key> inter;
  for (std::size_t i = 0; i < mv.keys.size(); ++i) {
    if (mv.labels[i] == VoxelLabel::Intersection) inter.push_back(mv.keys[i]);
  }
  ASSERT_FALSE(inter.empty());
  const float voxel     = (grid.bounds.max.x - grid.bounds.min.x) / grid.resolution.x;
  std::size_t uncovered = 0;
  for (const Float3 p : curve) {
    bool covered = false;
    for (int dz = -1; dz <= 1 && !covered; ++dz)
      for (int dy = -1; dy <= 1 && !covered; ++dy)
        for (int dx = -1; dx <= 1 && !covered; ++dx) {
          const Key k = voxel_key(grid, {p.x + dx * voxel, p.y + dy * voxel, p.z + dz * voxel});
          covered     = std::binary_search(inter.begin(), inter.end(), k);
        }
    uncovered += !covered;
  }
  EXPECT_EQ(uncovered, 0u) << uncovered << " of " << curve.size()
                           << " curve points have no intersection voxel within one voxel";
}

/// The circle where two spheres (centres on the x axis) meet.
inline std::vector<Float3> sphere_sphere_curve(float ca, float ra, float cb, float rb, int n) {
  const float d = cb - ca;
  const float x = (d * d - rb * rb + ra * ra) / (2 * d);  // from ca
  const float h = std::sqrt(ra * ra - x * x);
  std::vector<Float3> out;
  for (int i = 0; i < n; ++i) {
    const float t = 2 * std::numbers::pi_v<float> * i / n;
    out.push_back({ca + x, h * std::cos(t), h * std::sin(t)});
  }
  return out;
}

}  // namespace voxhash::test
