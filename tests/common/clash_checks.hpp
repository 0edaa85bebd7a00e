// Clash scenes with known answers and the checks the CPU and GPU clash tests share: two unit
// spheres a known distance apart (one ring-shaped region), two separate contacts (two regions),
// a two-part box model against a box touching only one part, two spheres whose voxels hold several
// parts of each model; a host reference of the regions (breadth-first search over 26-neighbours of
// the downloaded intersection voxels) and of the part pairs (the parts per voxel crossed).
#pragma once

#include "common/exact_geometry.hpp"
#include "common/pipeline_checks.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/clash.hpp>
#include <voxhash/io.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace voxhash::test {

/// One model of a clash scene: a point cloud (mesh without triangles) or a mesh, and its part ids
/// (per point, or per triangle of the mesh; empty: all part 0).
struct ClashModel {
  std::vector<Float3> points;
  Mesh mesh;
  std::vector<std::uint32_t> parts;
};

struct ClashScene {
  PipelineConfig config;
  std::array<ClashModel, 2> models;
};

/// Appends `shape`'s points to `model` as part `part`.
inline void add_part(ClashModel& model, const std::vector<Float3>& points, std::uint32_t part) {
  model.points.insert(model.points.end(), points.begin(), points.end());
  model.parts.insert(model.parts.end(), points.size(), part);
}

/// Appends a mesh to `model`'s mesh as part `part` (its triangles get that part id).
inline void add_part(ClashModel& model, const Mesh& mesh, std::uint32_t part) {
  const auto base = static_cast<std::uint32_t>(model.mesh.vertices.size());
  model.mesh.vertices.insert(model.mesh.vertices.end(), mesh.vertices.begin(), mesh.vertices.end());
  for (const std::uint32_t t : mesh.triangles)
    model.mesh.triangles.push_back(base + t);
  model.mesh.triangle_parts.insert(
      model.mesh.triangle_parts.end(), mesh.triangles.size() / 3, part);
}

/// Unit spheres centred at (-d/2, 0, 0) and (d/2, 0, 0), 128^3 voxels of 0.025 over [-1.6, 1.6]^3.
inline ClashScene two_spheres_scene(float d) {
  ClashScene s;
  s.config = static_config(128, TableKind::Cuckoo);
  add_part(s.models[0], sphere({-d / 2, 0, 0}, 1.0f, 400000, 21).points, 0);
  add_part(s.models[1], sphere({d / 2, 0, 0}, 1.0f, 400000, 22).points, 0);
  return s;
}

/// Model A: two spheres (parts 0 and 1) on the x axis; model B: a sphere meeting each of them, a
/// large contact on the left (B's part 0) and a small one on the right (B's part 1).
inline ClashScene two_contacts_scene() {
  ClashScene s;
  s.config = static_config(128, TableKind::Cuckoo);
  add_part(s.models[0], sphere({-0.8f, 0, 0}, 0.5f, 150000, 23).points, 0);
  add_part(s.models[0], sphere({0.8f, 0, 0}, 0.5f, 150000, 24).points, 1);
  add_part(s.models[1], sphere({-0.8f, 0.6f, 0}, 0.45f, 120000, 25).points, 0);
  add_part(s.models[1], sphere({0.8f, 0.75f, 0}, 0.3f, 60000, 26).points, 1);
  return s;
}

/// Model A: boxes a (part 0) and b (part 1) side by side along x with a gap; model B: box c
/// (part `part_c`) poking out through b's +x face, touching nothing of a. Corners avoid the voxel
/// faces. As meshes, or as points sampled on them (`meshes` false).
inline ClashScene two_part_boxes_scene(bool meshes, std::uint32_t part_c) {
  ClashScene s;
  s.config         = static_config(128, TableKind::Cuckoo);
  const Mesh box_a = box({-1.0113, -0.3113, -0.3113}, {-0.4113, 0.3113, 0.3113});
  const Mesh box_b = box({0.1113, -0.3113, -0.3113}, {0.7113, 0.3113, 0.3113});
  const Mesh box_c = box({0.4887, -0.2113, -0.2113}, {1.1887, 0.2113, 0.2113});
  if (meshes) {
    add_part(s.models[0], box_a, 0);
    add_part(s.models[0], box_b, 1);
    add_part(s.models[1], box_c, part_c);
    for (ClashModel& m : s.models)
      m.points = sample_surface(m.mesh, 20000, 3);
  } else {
    add_part(s.models[0], sample_surface(box_a, 150000, 4), 0);
    add_part(s.models[0], sample_surface(box_b, 150000, 5), 1);
    add_part(s.models[1], sample_surface(box_c, 150000, 6), part_c);
  }
  return s;
}

/// The unit spheres of two_spheres_scene(1) with their points dealt round-robin to parts 0-2 (A)
/// and 10-13 (B): most voxels of the ring hold several parts of each model, so a voxel's part
/// pairs are the crossing of its parts of A with its parts of B.
inline ClashScene interleaved_parts_scene() {
  ClashScene s = two_spheres_scene(1.0f);
  for (int i = 0; i < 2; ++i) {
    std::vector<std::uint32_t>& parts = s.models[i].parts;
    for (std::size_t j = 0; j < parts.size(); ++j)
      parts[j] =
          i == 0 ? static_cast<std::uint32_t>(j % 3) : 10 + static_cast<std::uint32_t>(j % 4);
  }
  return s;
}

/// Loads `scene` into `pipeline` (parts included) and runs one frame.
inline void run_scene_frame(Pipeline& pipeline, const ClashScene& scene) {
  for (int i = 0; i < 2; ++i) {
    const ClashModel& m = scene.models[i];
    if (m.mesh.triangles.empty()) {
      pipeline.set_model(i, m.points);
      pipeline.set_model_parts(i, m.parts);
    } else {
      pipeline.set_model(i, m.mesh, m.points);
    }
  }
  pipeline.run_frame(0.0);
}

inline ClashReport run_clash(Backend backend,
                             const ClashScene& scene,
                             TableKind kind              = TableKind::Cuckoo,
                             const ClashOptions& options = {}) {
  PipelineConfig config = scene.config;
  config.algorithm      = kind;
  Pipeline pipeline(backend, config);
  run_scene_frame(pipeline, scene);
  return compute_clash_report(pipeline, options);
}

/// Part pairs keyed by (part of A, part of B).
using PairCounts = std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t>;

inline PairCounts pair_counts(const std::vector<PartPair>& pairs) {
  PairCounts counts;
  for (const PartPair& p : pairs)
    counts[{p.part_a, p.part_b}] += p.voxels;
  return counts;
}

/// The part pairs of `report` (of `pipeline`'s frame of the point-cloud `scene`, made with
/// ClashOptions::voxels) are the host's crossing: in each intersection voxel, every part of A
/// with a point there against every part of B with a point there, per listed region and over all.
/// Returns the voxels holding more than one part of each model.
inline std::size_t expect_parts_are_the_crossing(const ClashReport& report,
                                                 const Pipeline& pipeline,
                                                 const ClashScene& scene) {
  std::unordered_map<Key, std::uint32_t> region_of;
  for (std::size_t v = 0; v < report.voxel_keys.size(); ++v)
    region_of[report.voxel_keys[v]] = report.voxel_regions[v];
  std::array<std::unordered_map<Key, std::set<std::uint32_t>>, 2> parts;
  for (int i = 0; i < 2; ++i) {
    const std::span<const Float3> points = pipeline.points(i);
    std::vector<Float3> host(points.size());
    copy_bytes(host.data(), Backend::Cpu, points.data(), pipeline.backend(), points.size_bytes());
    const std::vector<std::uint32_t>& ids = scene.models[i].parts;
    for (std::size_t j = 0; j < host.size(); ++j) {
      const Key key = report.grid.voxelize(host[j]);
      if (region_of.contains(key)) parts[i][key].insert(ids.empty() ? 0u : ids[j]);
    }
  }
  PairCounts total;
  std::vector<PairCounts> by_region(report.regions.size());
  std::size_t crossed = 0;
  for (const auto& [key, region] : region_of) {
    const std::set<std::uint32_t>&a = parts[0][key], &b = parts[1][key];
    crossed += a.size() > 1 && b.size() > 1;
    for (const std::uint32_t pa : a)
      for (const std::uint32_t pb : b) {
        ++total[{pa, pb}];
        if (region != kNotFound) ++by_region[region][{pa, pb}];
      }
  }
  EXPECT_EQ(pair_counts(report.parts), total);
  for (std::size_t r = 0; r < report.regions.size(); ++r)
    EXPECT_EQ(pair_counts(report.regions[r].parts), by_region[r]) << "region " << r;
  return crossed;
}

/// A region as the host reference finds it.
struct ReferenceRegion {
  std::size_t voxels = 0;
  Int3 min{1 << 30, 1 << 30, 1 << 30}, max{-1, -1, -1};
  double sum[3] = {0, 0, 0};
};

/// The 26-connected regions of model 0's intersection voxels by breadth-first search, ordered as
/// the report orders them (most voxels first, then the box's min corner z, y, x).
inline std::vector<ReferenceRegion> reference_regions(const GridParams& params,
                                                      const ModelVoxels& mv) {
  const Grid g(params);
  std::unordered_map<Key, bool> seen;  // intersection voxel -> visited
  for (std::size_t i = 0; i < mv.keys.size(); ++i) {
    if (mv.labels[i] == VoxelLabel::Intersection) seen[mv.keys[i]] = false;
  }
  std::vector<ReferenceRegion> regions;
  for (const Key start : mv.keys) {
    const auto it = seen.find(start);
    if (it == seen.end() || it->second) continue;
    it->second = true;
    ReferenceRegion r;
    std::deque<Key> queue{start};
    while (!queue.empty()) {
      const Int3 c = g.cell(queue.front());
      queue.pop_front();
      ++r.voxels;
      r.min = {std::min(r.min.x, c.x), std::min(r.min.y, c.y), std::min(r.min.z, c.z)};
      r.max = {std::max(r.max.x, c.x), std::max(r.max.y, c.y), std::max(r.max.z, c.z)};
      r.sum[0] += c.x;
      r.sum[1] += c.y;
      r.sum[2] += c.z;
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const Int3 n = {c.x + dx, c.y + dy, c.z + dz};
            if (!g.in_grid(n)) continue;
            const auto next = seen.find(g.key(n));
            if (next == seen.end() || next->second) continue;
            next->second = true;
            queue.push_back(next->first);
          }
    }
    regions.push_back(r);
  }
  std::sort(regions.begin(), regions.end(), [](const auto& a, const auto& b) {
    return std::make_tuple(b.voxels, a.min.z, a.min.y, a.min.x, a.max.z, a.max.y, a.max.x) <
           std::make_tuple(a.voxels, b.min.z, b.min.y, b.min.x, b.max.z, b.max.y, b.max.x);
  });
  return regions;
}

/// The report's regions are the reference's: counts and cell boxes exactly, world boxes, volumes
/// and centroids from them.
inline void expect_matches_reference(const ClashReport& report,
                                     const std::vector<ReferenceRegion>& reference) {
  ASSERT_EQ(report.regions.size(), reference.size());
  EXPECT_EQ(report.total_regions, reference.size());
  const Grid& g          = report.grid;
  const double voxel_vol = double{g.voxel_size.x} * g.voxel_size.y * g.voxel_size.z;
  std::size_t total      = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    SCOPED_TRACE("region " + std::to_string(i));
    const ClashRegion& r     = report.regions[i];
    const ReferenceRegion& e = reference[i];
    total += e.voxels;
    EXPECT_EQ(r.voxels, e.voxels);
    EXPECT_EQ(std::tie(r.min_cell.x, r.min_cell.y, r.min_cell.z),
              std::tie(e.min.x, e.min.y, e.min.z));
    EXPECT_EQ(std::tie(r.max_cell.x, r.max_cell.y, r.max_cell.z),
              std::tie(e.max.x, e.max.y, e.max.z));
    EXPECT_NEAR(r.volume, e.voxels * voxel_vol, 1e-9 * r.volume);
    EXPECT_NEAR(r.bounds.min.x, g.origin.x + e.min.x * g.voxel_size.x, 1e-5);
    EXPECT_NEAR(r.bounds.max.z, g.origin.z + (e.max.z + 1) * g.voxel_size.z, 1e-5);
    EXPECT_NEAR(r.centroid.x, g.origin.x + (e.sum[0] / e.voxels + 0.5) * g.voxel_size.x, 1e-5);
    EXPECT_NEAR(r.centroid.y, g.origin.y + (e.sum[1] / e.voxels + 0.5) * g.voxel_size.y, 1e-5);
    EXPECT_NEAR(r.centroid.z, g.origin.z + (e.sum[2] / e.voxels + 0.5) * g.voxel_size.z, 1e-5);
  }
  EXPECT_EQ(report.voxels, total);
}

inline bool same_pairs(const std::vector<PartPair>& a, const std::vector<PartPair>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.part_a == y.part_a && x.part_b == y.part_b && x.voxels == y.voxels;
  });
}

/// Two reports of the same frame are identical, field by field.
inline void expect_same_report(const ClashReport& a, const ClashReport& b) {
  EXPECT_EQ(a.total_regions, b.total_regions);
  EXPECT_EQ(a.voxels, b.voxels);
  EXPECT_EQ(a.volume, b.volume);
  EXPECT_TRUE(same_pairs(a.parts, b.parts));
  EXPECT_EQ(a.voxel_keys, b.voxel_keys);
  EXPECT_EQ(a.voxel_regions, b.voxel_regions);
  ASSERT_EQ(a.regions.size(), b.regions.size());
  for (std::size_t i = 0; i < a.regions.size(); ++i) {
    SCOPED_TRACE("region " + std::to_string(i));
    const ClashRegion &x = a.regions[i], &y = b.regions[i];
    EXPECT_EQ(x.voxels, y.voxels);
    EXPECT_EQ(x.volume, y.volume);
    EXPECT_EQ(std::tie(x.min_cell.x, x.min_cell.y, x.min_cell.z),
              std::tie(y.min_cell.x, y.min_cell.y, y.min_cell.z));
    EXPECT_EQ(std::tie(x.max_cell.x, x.max_cell.y, x.max_cell.z),
              std::tie(y.max_cell.x, y.max_cell.y, y.max_cell.z));
    EXPECT_EQ(std::tie(x.centroid.x, x.centroid.y, x.centroid.z),
              std::tie(y.centroid.x, y.centroid.y, y.centroid.z));
    EXPECT_TRUE(same_pairs(x.parts, y.parts));
  }
}

}  // namespace voxhash::test
