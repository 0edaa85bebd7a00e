// Scenes whose inside and outside the frame decides from a mesh's solid (issue 35), shared by the
// CPU checks (tests/cpu/test_inside_solids.cpp) and the CUDA ones
// (tests/gpu/test_pipeline_gpu.cpp): parts inside closed housings whose walls are 0.3 to 3 voxels
// thick, spheres in thin-walled cups, and assemblies of overlapping closed parts (one model, a part
// id per triangle), each at several placements. The reference treats a model as the union of its
// parts, each part decided by exact ray parity (a part may have several shells: a housing's cavity
// is outside it).
#pragma once

#include "common/inside_eval.hpp"

#include <voxhash/pipeline.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

namespace voxhash::test {

/// The mesh with every triangle turned over (an inner shell faces into its cavity).
inline Mesh turned_over(Mesh m) {
  for (std::size_t t = 0; t + 2 < m.triangles.size(); t += 3)
    std::swap(m.triangles[t + 1], m.triangles[t + 2]);
  return m;
}

/// The meshes as one model: part i of the result holds parts[i]'s triangles.
inline Mesh assembly(const std::vector<Mesh>& parts) {
  Mesh out;
  for (std::uint32_t p = 0; p < parts.size(); ++p) {
    const auto base = static_cast<std::uint32_t>(out.vertices.size());
    out.vertices.insert(out.vertices.end(), parts[p].vertices.begin(), parts[p].vertices.end());
    for (const std::uint32_t i : parts[p].triangles)
      out.triangles.push_back(base + i);
    out.triangle_parts.insert(out.triangle_parts.end(), parts[p].triangles.size() / 3, p);
    out.part_names.push_back("part " + std::to_string(p));
  }
  return out;
}

/// A closed housing: the box [-h, h]^3 with a cavity `wall` in from each face (one part, two
/// shells).
inline Mesh housing(double h, double wall) {
  Mesh outer = box({-h, -h, -h}, {h, h, h});
  const Mesh inner =
      turned_over(box({-h + wall, -h + wall, -h + wall}, {h - wall, h - wall, h - wall}));
  const auto base = static_cast<std::uint32_t>(outer.vertices.size());
  outer.vertices.insert(outer.vertices.end(), inner.vertices.begin(), inner.vertices.end());
  for (const std::uint32_t i : inner.triangles)
    outer.triangles.push_back(base + i);
  return outer;
}

/// A model as the reference sees it: the union of its parts, each exact.
class ExactModel {
 public:
  explicit ExactModel(const Mesh& m) {
    if (m.triangle_parts.empty()) {
      m_parts.push_back(std::make_unique<ExactMesh>(m));
      return;
    }
    std::uint32_t parts = 0;
    for (const std::uint32_t p : m.triangle_parts)
      parts = std::max(parts, p + 1);
    for (std::uint32_t p = 0; p < parts; ++p) {
      Mesh part;
      part.vertices = m.vertices;
      for (std::size_t t = 0; t < m.triangle_parts.size(); ++t) {
        if (m.triangle_parts[t] != p) continue;
        part.triangles.insert(part.triangles.end(),
                              m.triangles.begin() + static_cast<std::ptrdiff_t>(3 * t),
                              m.triangles.begin() + static_cast<std::ptrdiff_t>(3 * t + 3));
      }
      m_parts.push_back(std::make_unique<ExactMesh>(part));
    }
  }
  [[nodiscard]] bool inside(D3 p) const {
    for (const auto& part : m_parts)
      if (part->inside(p)) return true;
    return false;
  }
  /// Distance to the nearest part's surface (at most the distance to the union's boundary).
  [[nodiscard]] double distance(D3 p) const {
    double d = std::numeric_limits<double>::infinity();
    for (const auto& part : m_parts)
      d = std::min(d, part->distance(p));
    return d;
  }

 private:
  std::vector<std::unique_ptr<ExactMesh>> m_parts;
};

/// Model `self`'s labels against `other` (far: > 1.5 voxel diagonals from any of other's parts'
/// surfaces; intersections within 1.5 voxels of both models).
inline ModelScore score_union(const GridParams& grid,
                              const ModelVoxels& mv,
                              const ExactModel& self,
                              const ExactModel& other) {
  const double voxel = (grid.bounds.max.x - grid.bounds.min.x) / grid.resolution.x;
  const double far   = 1.5 * std::sqrt(3.0) * voxel;
  ModelScore s;
  s.voxels = mv.keys.size();
  for (std::size_t i = 0; i < mv.keys.size(); ++i) {
    const D3 c     = to_d3(voxel_center(grid, mv.keys[i]));
    const double d = other.distance(c);
    if (mv.labels[i] == VoxelLabel::Intersection) {
      s.bad_intersections += d > 1.5 * voxel || self.distance(c) > 1.5 * voxel;
      continue;
    }
    const bool wrong = (mv.labels[i] == VoxelLabel::Inside) != other.inside(c);
    if (d > far) {
      ++s.far;
      s.far_wrong += wrong;
    } else {
      ++s.near;
      s.near_wrong += wrong;
    }
  }
  return s;
}

/// The edge of a voxel of scene s's fitted grid.
inline double voxel_of(const Scene& s) {
  const GridParams g = fitted_grid(s);
  return (g.bounds.max.x - g.bounds.min.x) / g.resolution.x;
}

/// Housings with a part inside (walls 0.3 to 3 voxels), spheres in cups with 2- and 3-voxel walls,
/// and assemblies of 2 to 5 overlapping closed parts with a model through them, at `resolution`
/// (walls in voxels of the grid fitted around each scene).
inline std::vector<Scene> solid_scenes(int resolution) {
  std::vector<Scene> out;
  // Scene `name` with model a made by `a_of(wall)`, its wall `wall_voxels` voxels thick.
  auto add = [&](std::string name, auto a_of, double wall_voxels, Mesh b) {
    Scene s{std::move(name), a_of(0.05), std::move(b)};
    s.resolution = resolution;
    s.a          = a_of(wall_voxels * voxel_of(s));  // the outer shell fixes the grid
    out.push_back(std::move(s));
  };
  const Placement turns[] = {{}, {1, {1, 2, 3}, 0.5, {0.013, -0.007, 0.004}}};
  for (const double wall : {0.3, 0.8, 1.5, 3.0}) {
    for (int t = 0; t < 2; ++t) {
      add(
          "sphere in a housing, " + std::to_string(wall).substr(0, 3) + "-voxel walls" +
              (t ? ", turned" : ""),
          [&](double w) { return placed(housing(0.7, w), turns[t]); },
          wall,
          placed(uv_sphere(0.35), {1, {0, 0, 1}, 0, {0.05, -0.03, 0.02}}));
    }
  }
  for (const double wall : {2.0, 3.0}) {
    for (int t = 0; t < 2; ++t) {
      add(
          "sphere in a cup, " + std::to_string(wall).substr(0, 3) + "-voxel walls" +
              (t ? ", tipped" : ""),
          [&](double w) {
            return placed(cup(0.7, 0.9, w), {1, {1, 0, 0}, t ? 0.3 : 0.0, {0, 0, -0.45}});
          },
          wall,
          placed(uv_sphere(0.3), {1, {0, 0, 1}, 0, {0.04, 0.02, 0.05}}));
    }
  }
  std::vector<Mesh> parts = {
      box({-0.8, -0.3, -0.3}, {0.2, 0.3, 0.3}),
      placed(uv_sphere(0.4), {1, {0, 0, 1}, 0, {0.25, 0.05, 0}}),
      placed(box({-0.2, -0.6, -0.2}, {0.2, 0.6, 0.2}), {1, {0, 0, 1}, 0.4, {}}),
      placed(torus_mesh(0.45, 0.12), {1, {1, 0, 0}, 0.7, {0.1, 0, 0.1}}),
      placed(uv_sphere(0.25), {1, {0, 0, 1}, 0, {-0.5, 0, 0.2}})};
  for (std::size_t n = 2; n <= parts.size(); ++n) {
    const std::vector<Mesh> some(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(n));
    Scene s{"assembly of " + std::to_string(n) + " overlapping parts, blob through it",
            assembly(some),
            placed(blob(0.5), {1, {1, 1, 0}, 0.3, {0.2, 0.1, 0.15}})};
    s.resolution = resolution;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace voxhash::test
