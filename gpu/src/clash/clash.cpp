// compute_clash_report: hands the pipeline's last frame to its backend's clash pass
// (clash_impl.hpp), then, on the host, ranks the regions, turns their cell sums into world units
// and attaches each region's part pairs, and turns the part pairs' sums, depths and gaps into
// clashes: kinds from the tolerance, world units, stable ids, the report's order.
#include "clash/clash_raw.hpp"

#include <voxhash/clash.hpp>
#include <voxhash/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
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

/// Throws InvalidInput for a tolerance or clearance that is not a length of 0 or more, or a
/// clearance finer than the grid can measure.
void check_options(const ClashOptions& o, const Grid& g) {
  const auto text = [](double v) {
    char out[32];
    std::snprintf(out, sizeof out, "%g", v);
    return std::string(out);
  };
  for (const auto& [name, value] :
       {std::pair{"tolerance", o.tolerance}, {"clearance", o.clearance}}) {
    if (!(value >= 0) || !std::isfinite(value)) {
      throw InvalidInput(std::string("clash ") + name + " " + text(value) +
                         ": must be a finite length of 0 or more");
    }
  }
  if (o.columns_per_voxel < 1 || o.columns_per_voxel > 8) {
    throw InvalidInput("clash columns per voxel " + std::to_string(o.columns_per_voxel) +
                       ": must be 1 to 8");
  }
  const double voxel = std::max({static_cast<double>(g.voxel_size.x),
                                 static_cast<double>(g.voxel_size.y),
                                 static_cast<double>(g.voxel_size.z)});
  if (o.clearance > 0 && o.clearance < voxel) {
    throw InvalidInput("clash clearance " + text(o.clearance) + " is below one voxel (" +
                       text(voxel) + "): a clearance check needs voxels of at most " +
                       text(o.clearance) + " (the scene's grid voxel_size, or --voxel-size)");
  }
}

std::string part_name(const ClashOptions& o, int model, std::uint32_t part) {
  const auto& names = o.part_names[model];
  if (part < names.size() && !names[part].empty()) return names[part];
  return "part " + std::to_string(part);
}

/// World position of sample coordinate c (in samples) along axis a.
double world(const core::SampleGrid& s, int a, double c) {
  return s.origin[a] + c * s.step[a];
}

Bounds sample_box(const core::SampleGrid& s, const std::uint32_t lo[3], const std::uint32_t hi[3]) {
  Bounds b;
  b.min = {static_cast<float>(world(s, 0, lo[0])),
           static_cast<float>(world(s, 1, lo[1])),
           static_cast<float>(world(s, 2, lo[2]))};
  b.max = {static_cast<float>(world(s, 0, hi[0] + 1.0)),
           static_cast<float>(world(s, 1, hi[1] + 1.0)),
           static_cast<float>(world(s, 2, hi[2] + 1.0))};
  return b;
}

/// The solids' part pairs as clashes (kinds from the tolerance; touching ones only if asked).
void solid_clashes(const clash::RawClash& raw, const ClashOptions& o, ClashReport& report) {
  const core::SampleGrid& s  = raw.samples;
  const double sample_volume = s.step[0] * s.step[1] * s.step[2];
  for (const clash::RawPairClash& p : raw.pairs) {
    Clash c;
    c.part_a     = p.part_a;
    c.part_b     = p.part_b;
    c.resolution = p.spacing;
    if (p.sums.length > 0) {
      const double length = static_cast<double>(p.sums.length) / core::kLengthScale;
      c.volume            = length * sample_volume;
      c.depth             = p.depth;
      c.kind = p.depth > o.tolerance + p.spacing ? ClashKind::Hard : ClashKind::Touching;
      if (c.kind == ClashKind::Touching && !o.touching) continue;
      c.centroid = {static_cast<float>(world(s, 0, p.sums.moment[0] / length)),
                    static_cast<float>(world(s, 1, p.sums.moment[1] / length)),
                    static_cast<float>(world(s, 2, p.sums.moment[2] / length))};
    } else {
      c.kind     = ClashKind::Clearance;
      c.distance = p.gap;
      c.centroid = {static_cast<float>(world(s, 0, p.sums.moment[0])),
                    static_cast<float>(world(s, 1, p.sums.moment[1])),
                    static_cast<float>(world(s, 2, p.sums.moment[2]))};
    }
    c.bounds = sample_box(s, p.sums.min, p.sums.max);
    report.clashes.push_back(c);
  }
}

/// Without solids: the part pairs whose surfaces share voxels, located by their regions.
void surface_clashes(const clash::RawClash& raw, ClashReport& report) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<const core::PartTriple*>> pairs;
  for (const core::PartTriple& t : raw.parts)
    pairs[{t.part_a, t.part_b}].push_back(&t);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [parts, triples] : pairs) {
    Clash c;
    c.part_a      = parts.first;
    c.part_b      = parts.second;
    c.volume      = nan;
    c.depth       = nan;
    double sum[3] = {0, 0, 0}, weight = 0;
    bool first = true;
    for (const core::PartTriple* t : triples) {
      const ClashRegion r = to_region(raw.regions[t->region], report.grid);
      const double w      = static_cast<double>(t->voxels);
      sum[0] += w * r.centroid.x;
      sum[1] += w * r.centroid.y;
      sum[2] += w * r.centroid.z;
      weight += w;
      c.bounds = first ? r.bounds
                       : Bounds{{std::min(c.bounds.min.x, r.bounds.min.x),
                                 std::min(c.bounds.min.y, r.bounds.min.y),
                                 std::min(c.bounds.min.z, r.bounds.min.z)},
                                {std::max(c.bounds.max.x, r.bounds.max.x),
                                 std::max(c.bounds.max.y, r.bounds.max.y),
                                 std::max(c.bounds.max.z, r.bounds.max.z)}};
      first    = false;
    }
    c.centroid = {static_cast<float>(sum[0] / weight),
                  static_cast<float>(sum[1] / weight),
                  static_cast<float>(sum[2] / weight)};
    c.resolution =
        std::max({report.grid.voxel_size.x, report.grid.voxel_size.y, report.grid.voxel_size.z});
    report.clashes.push_back(c);
  }
}

/// Contact voxels, ids, order and counts of the report's clashes.
void finish_clashes(const ClashOptions& o, ClashReport& report) {
  for (Clash& c : report.clashes) {
    for (const PartPair& p : report.parts) {
      if (p.part_a == c.part_a && p.part_b == c.part_b) c.contact_voxels = p.voxels;
    }
  }
  std::sort(report.clashes.begin(), report.clashes.end(), [](const Clash& x, const Clash& y) {
    const auto key = [](const Clash& c) {
      const double depth  = std::isnan(c.depth) ? 0.0 : c.depth;
      const double volume = std::isnan(c.volume) ? static_cast<double>(c.contact_voxels) : c.volume;
      return std::make_tuple(
          static_cast<int>(c.kind), -depth, c.distance, -volume, c.part_a, c.part_b);
    };
    return key(x) < key(y);
  });
  const auto names = [&](const Clash& c) {
    return std::array<std::string, 2>{part_name(o, 0, c.part_a), part_name(o, 1, c.part_b)};
  };
  std::map<std::pair<std::string, std::string>, int> seen;
  for (const Clash& c : report.clashes) {
    const auto n = names(c);
    ++seen[{n[0], n[1]}];
  }
  const double cell =
      16.0 *
      std::max({report.grid.voxel_size.x, report.grid.voxel_size.y, report.grid.voxel_size.z});
  for (Clash& c : report.clashes) {
    const auto n = names(c);
    std::string where;
    if (seen[{n[0], n[1]}] > 1) {
      where = std::to_string(static_cast<long long>(std::floor(c.centroid.x / cell))) + "," +
              std::to_string(static_cast<long long>(std::floor(c.centroid.y / cell))) + "," +
              std::to_string(static_cast<long long>(std::floor(c.centroid.z / cell)));
    }
    c.id = clash_id(o.model_names[0], n[0], o.model_names[1], n[1], where);
    ++report.kind_counts[static_cast<int>(c.kind)];
  }
}

}  // namespace

std::string_view to_string(ClashKind kind) {
  switch (kind) {
    case ClashKind::Hard:
      return "hard";
    case ClashKind::Touching:
      return "touching";
    case ClashKind::Clearance:
      return "clearance";
  }
  return "?";
}

std::uint64_t clash_id(const std::string& model_a,
                       const std::string& part_a,
                       const std::string& model_b,
                       const std::string& part_b,
                       const std::string& cell) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const std::string* field : {&model_a, &part_a, &model_b, &part_b, &cell}) {
    for (const char ch : *field) {
      h ^= static_cast<unsigned char>(ch);
      h *= 0x100000001b3ull;
    }
    h ^= 0xFF;  // a separator no name holds, so ("ab", "c") and ("a", "bc") differ
    h *= 0x100000001b3ull;
  }
  return h;
}

ClashReport compute_clash_report(const Pipeline& pipeline, const ClashOptions& options) {
  const Grid& g = pipeline.grid();
  check_options(options, g);
  clash::ClashPass pass;
  pass.join_table           = pipeline.config().algorithm;
  pass.join_budget          = options.gpu_budget;
  pass.with_voxels          = options.voxels;
  pass.columns_per_voxel    = options.columns_per_voxel;
  pass.clearance            = options.clearance;
  pass.stream               = options.stream;
  const clash::RawClash raw = clash::find_clashes(pipeline.backend(), *pipeline.m_impl, g, pass);
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

  report.ms         = raw.ms;
  report.solids     = raw.solids;
  report.open_parts = raw.open_parts;
  if (raw.solids) {
    solid_clashes(raw, options, report);
  } else {
    surface_clashes(raw, report);
  }
  finish_clashes(options, report);

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
