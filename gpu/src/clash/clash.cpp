// compute_clash_report: hands the pipeline's last frame to its backend's clash pass
// (clash_impl.hpp), then, on the host, ranks the regions, turns their cell sums into world units
// and attaches each region's part pairs.
#include "backends/backend_impl.hpp"
#include "clash/clash_raw.hpp"

#include <voxhash/clash.hpp>

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

namespace voxhash {
namespace {

/// Most voxels first, then part ids ascending.
void rank_pairs(std::vector<PartPair>& pairs) {
  std::sort(pairs.begin(), pairs.end(), [](const PartPair& x, const PartPair& y) {
    return std::tie(y.voxels, x.part_a, x.part_b) < std::tie(x.voxels, y.part_a, y.part_b);
  });
}

/// Orders regions for the report: most voxels first, then by the box (z, y, x of its corners),
/// then by the cell sums, so every backend lists the same regions in the same order.
auto region_order_key(const core::RegionSums& s) {
  return std::make_tuple(~std::uint64_t{s.voxels},
                         s.min[2],
                         s.min[1],
                         s.min[0],
                         s.max[2],
                         s.max[1],
                         s.max[0],
                         s.sum[2],
                         s.sum[1],
                         s.sum[0]);
}

ClashRegion to_region(const core::RegionSums& s, const Grid& g) {
  ClashRegion r;
  const double size[3]   = {g.voxel_size.x, g.voxel_size.y, g.voxel_size.z};
  const double origin[3] = {g.origin.x, g.origin.y, g.origin.z};
  float lo[3], hi[3], centre[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = static_cast<float>(origin[a] + size[a] * s.min[a]);
    hi[a] = static_cast<float>(origin[a] + size[a] * (s.max[a] + 1.0));
    centre[a] =
        static_cast<float>(origin[a] + size[a] * (static_cast<double>(s.sum[a]) / s.voxels + 0.5));
  }
  r.voxels   = s.voxels;
  r.volume   = s.voxels * size[0] * size[1] * size[2];
  r.bounds   = {{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
  r.centroid = {centre[0], centre[1], centre[2]};
  r.min_cell = {static_cast<std::int32_t>(s.min[0]),
                static_cast<std::int32_t>(s.min[1]),
                static_cast<std::int32_t>(s.min[2])};
  r.max_cell = {static_cast<std::int32_t>(s.max[0]),
                static_cast<std::int32_t>(s.max[1]),
                static_cast<std::int32_t>(s.max[2])};
  return r;
}

}  // namespace

ClashReport compute_clash_report(const Pipeline& pipeline, const ClashOptions& options) {
  const Grid& g             = pipeline.grid();
  const clash::RawClash raw = detail::backend_impl(pipeline.backend())
                                  .find_clash_regions(*pipeline.m_impl,
                                                      g,
                                                      pipeline.config().algorithm,
                                                      options.gpu_budget,
                                                      options.voxels,
                                                      options.stream);
  ClashReport report;
  report.grid          = g;
  report.total_regions = raw.regions.size();

  std::vector<std::uint32_t> order(raw.regions.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    return region_order_key(raw.regions[x]) < region_order_key(raw.regions[y]);
  });
  const std::size_t listed =
      options.max_regions ? std::min(options.max_regions, order.size()) : order.size();
  std::vector<std::uint32_t> rank(raw.regions.size(), kNotFound);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const core::RegionSums& s = raw.regions[order[i]];
    report.voxels += s.voxels;
    if (i < listed) {
      rank[order[i]] = static_cast<std::uint32_t>(i);
      report.regions.push_back(to_region(s, g));
    }
  }
  report.volume =
      static_cast<double>(report.voxels) * g.voxel_size.x * g.voxel_size.y * g.voxel_size.z;

  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> totals;
  for (const core::PartTriple& t : raw.parts) {
    totals[{t.part_a, t.part_b}] += t.voxels;
    if (rank[t.region] != kNotFound) {
      report.regions[rank[t.region]].parts.push_back({t.part_a, t.part_b, t.voxels});
    }
  }
  for (const auto& [parts, voxels] : totals)
    report.parts.push_back({parts.first, parts.second, voxels});
  rank_pairs(report.parts);
  for (ClashRegion& r : report.regions)
    rank_pairs(r.parts);

  if (options.voxels) {
    std::vector<std::uint32_t> by_key(raw.keys.size());
    std::iota(by_key.begin(), by_key.end(), 0u);
    std::sort(
        by_key.begin(), by_key.end(), [&](auto x, auto y) { return raw.keys[x] < raw.keys[y]; });
    report.voxel_keys.reserve(by_key.size());
    report.voxel_regions.reserve(by_key.size());
    for (const std::uint32_t i : by_key) {
      report.voxel_keys.push_back(raw.keys[i]);
      report.voxel_regions.push_back(rank[raw.key_regions[i]]);
    }
  }
  return report;
}

}  // namespace voxhash
