// Placeholder for wip-clash's compute_clash_report: a host breadth-first search over the last
// frame's intersection voxels (26-neighbours), one part pair (0, 0) per region. The lead drops
// this file at merge; the real one runs on the backend.
#include <voxhash/clash.hpp>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace voxhash {

ClashReport compute_clash_report(const Pipeline& pipeline, const ClashOptions&) {
  const Grid& grid         = pipeline.grid();
  const ModelVoxels voxels = pipeline.download(0);
  std::unordered_map<Key, int> region_of;  // -1: not visited yet
  for (std::size_t i = 0; i < voxels.keys.size(); ++i) {
    if (voxels.labels[i] == VoxelLabel::Intersection) region_of.emplace(voxels.keys[i], -1);
  }
  const double cell =
      static_cast<double>(grid.voxel_size.x) * grid.voxel_size.y * grid.voxel_size.z;
  ClashReport report;
  for (const Key seed : voxels.keys) {
    const auto found = region_of.find(seed);
    if (found == region_of.end() || found->second >= 0) continue;
    const int id = static_cast<int>(report.regions.size());
    ClashRegion region;
    region.bounds = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    double sum[3] = {0, 0, 0};
    std::vector<Key> stack{seed};
    found->second = id;
    while (!stack.empty()) {
      const Key k = stack.back();
      stack.pop_back();
      const Int3 c   = grid.cell(k);
      const Float3 m = grid.center(k);
      ++region.voxels;
      sum[0] += m.x, sum[1] += m.y, sum[2] += m.z;
      const Float3 h    = {grid.voxel_size.x / 2, grid.voxel_size.y / 2, grid.voxel_size.z / 2};
      region.bounds.min = {std::min(region.bounds.min.x, m.x - h.x),
                           std::min(region.bounds.min.y, m.y - h.y),
                           std::min(region.bounds.min.z, m.z - h.z)};
      region.bounds.max = {std::max(region.bounds.max.x, m.x + h.x),
                           std::max(region.bounds.max.y, m.y + h.y),
                           std::max(region.bounds.max.z, m.z + h.z)};
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const Int3 n{c.x + dx, c.y + dy, c.z + dz};
            if (!grid.in_grid(n)) continue;
            const auto next = region_of.find(grid.key(n));
            if (next == region_of.end() || next->second >= 0) continue;
            next->second = id;
            stack.push_back(next->first);
          }
    }
    const double n  = static_cast<double>(region.voxels);
    region.centroid = {static_cast<float>(sum[0] / n),
                       static_cast<float>(sum[1] / n),
                       static_cast<float>(sum[2] / n)};
    region.volume   = n * cell;
    region.parts    = {{0, 0, region.voxels}};
    report.voxels += region.voxels;
    report.volume += region.volume;
    report.regions.push_back(std::move(region));
  }
  std::stable_sort(report.regions.begin(), report.regions.end(), [](const auto& a, const auto& b) {
    return a.voxels > b.voxels;
  });
  return report;
}

}  // namespace voxhash
