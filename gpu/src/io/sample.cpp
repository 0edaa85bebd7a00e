// Area-weighted surface sampling: an alias table picks each sample's triangle in constant time, and
// barycentric coordinates (1 - sqrt(r1), sqrt(r1)(1 - r2), sqrt(r1) r2) place it
// uniformly inside. Sample i takes numbers 3i, 3i + 1 and 3i + 2 of a SplitMix64 stream, each
// computed from its position, so oneTBB fills the samples in parallel and a seed gives the same
// points whatever the thread count (and the first k of n samples are the k samples of count k).
// Work is in double; each sample can carry its triangle's part id.
#include "exec/host_parallel.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace voxhash {
namespace {

struct Double3 {
  double x, y, z;
};

Double3 to_double(Float3 p) {
  return {p.x, p.y, p.z};
}

/// SplitMix64's output function (Steele, Lea and Flood 2014).
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Number n of the SplitMix64 stream that starts at `state`, uniform in [0, 1) from its top 53
/// bits: the stream's state after n + 1 steps is state + (n + 1) * gamma.
double uniform01(std::uint64_t state, std::uint64_t n) {
  constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ull;
  return static_cast<double>(mix64(state + (n + 1) * kGamma) >> 11) * 0x1.0p-53;
}

double triangle_area(Double3 a, Double3 b, Double3 c) {
  const Double3 u{b.x - a.x, b.y - a.y, b.z - a.z};
  const Double3 v{c.x - a.x, c.y - a.y, c.z - a.z};
  const Double3 n{u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x};
  return 0.5 * std::sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
}

/// Walker's alias table (Vose's construction): picks index i with probability weight[i] / total
/// in constant time from one uniform number, whose integer part (times n) chooses a column and
/// whose fraction chooses between the column's index and its alias. A zero weight is never
/// picked: its column always gives its alias, an index of positive weight.
class AliasTable {
 public:
  AliasTable(const std::vector<double>& weight, double total)
      : m_keep(weight.size()), m_alias(weight.size()) {
    const std::size_t n = weight.size();
    std::vector<double> scaled(n);
    std::vector<std::uint32_t> small, large;
    for (std::size_t i = 0; i < n; ++i) {
      scaled[i] = weight[i] * static_cast<double>(n) / total;
      (scaled[i] < 1 ? small : large).push_back(static_cast<std::uint32_t>(i));
    }
    while (!small.empty() && !large.empty()) {
      const std::uint32_t s = small.back(), l = large.back();
      small.pop_back();
      m_keep[s]  = scaled[s];
      m_alias[s] = l;
      scaled[l] -= 1 - scaled[s];
      if (scaled[l] < 1) {
        large.pop_back();
        small.push_back(l);
      }
    }
    // What is left has scaled weight 1 up to rounding: each column keeps its own index (a zero
    // weight, which rounding alone cannot leave here, would give the heaviest index instead).
    const auto heaviest =
        static_cast<std::uint32_t>(std::max_element(weight.begin(), weight.end()) - weight.begin());
    for (const std::vector<std::uint32_t>* rest : {&small, &large}) {
      for (const std::uint32_t i : *rest) {
        m_keep[i]  = weight[i] > 0 ? 1.0 : 0.0;
        m_alias[i] = weight[i] > 0 ? i : heaviest;
      }
    }
  }

  /// The index for u uniform in [0, 1).
  [[nodiscard]] std::size_t pick(double u) const {
    const double x           = u * static_cast<double>(m_keep.size());
    const std::size_t column = std::min(static_cast<std::size_t>(x), m_keep.size() - 1);
    return x - static_cast<double>(column) < m_keep[column] ? column : m_alias[column];
  }

 private:
  std::vector<double> m_keep;          // the share of column i that picks i itself
  std::vector<std::uint32_t> m_alias;  // what the rest of column i picks
};

/// Samples per chunk of the parallel loop.
constexpr std::size_t kGrain = std::size_t{1} << 14;

}  // namespace

std::vector<Float3> sample_surface(const Mesh& mesh,
                                   std::size_t count,
                                   std::uint64_t seed,
                                   std::vector<std::uint32_t>* point_parts) {
  if (mesh.triangles.size() % 3 != 0) {
    throw InvalidInput("sample_surface: " + std::to_string(mesh.triangles.size()) +
                       " triangle indices is not a multiple of 3");
  }
  for (const std::uint32_t index : mesh.triangles) {
    if (index >= mesh.vertices.size()) {
      throw InvalidInput("sample_surface: triangle index " + std::to_string(index) +
                         " is out of range for " + std::to_string(mesh.vertices.size()) +
                         " vertices");
    }
  }
  const std::size_t triangle_count = mesh.triangles.size() / 3;
  if (triangle_count == 0) throw InvalidInput("sample_surface: the mesh has no triangles");
  const bool with_parts = point_parts != nullptr && !mesh.triangle_parts.empty();
  if (with_parts && mesh.triangle_parts.size() != triangle_count) {
    throw InvalidInput("sample_surface: " + std::to_string(mesh.triangle_parts.size()) +
                       " triangle part ids for " + std::to_string(triangle_count) + " triangles");
  }

  std::vector<double> area(triangle_count);
  double total_area = 0;
  for (std::size_t t = 0; t < triangle_count; ++t) {
    area[t] = triangle_area(to_double(mesh.vertices[mesh.triangles[3 * t]]),
                            to_double(mesh.vertices[mesh.triangles[3 * t + 1]]),
                            to_double(mesh.vertices[mesh.triangles[3 * t + 2]]));
    total_area += area[t];
  }
  if (!std::isfinite(total_area)) {
    throw InvalidInput("sample_surface: the mesh has non-finite vertex coordinates");
  }
  if (total_area <= 0) {
    throw InvalidInput("sample_surface: the mesh has zero surface area (all " +
                       std::to_string(triangle_count) + " triangles are degenerate)");
  }
  const AliasTable table(area, total_area);

  std::vector<Float3> samples(count);
  if (point_parts != nullptr) point_parts->clear();
  if (with_parts) point_parts->resize(count);
  const std::uint64_t state = mix64(seed);
  const auto sample         = [&](std::size_t i) {
    const std::size_t t = table.pick(uniform01(state, 3 * i));
    const Double3 a     = to_double(mesh.vertices[mesh.triangles[3 * t]]);
    const Double3 b     = to_double(mesh.vertices[mesh.triangles[3 * t + 1]]);
    const Double3 c     = to_double(mesh.vertices[mesh.triangles[3 * t + 2]]);
    const double s      = std::sqrt(uniform01(state, 3 * i + 1));
    const double r      = uniform01(state, 3 * i + 2);
    const double wa     = 1 - s;
    const double wb     = s * (1 - r);
    const double wc     = s * r;
    samples[i]          = {static_cast<float>(wa * a.x + wb * b.x + wc * c.x),
                           static_cast<float>(wa * a.y + wb * b.y + wc * c.y),
                           static_cast<float>(wa * a.z + wb * b.z + wc * c.z)};
    if (with_parts) (*point_parts)[i] = mesh.triangle_parts[t];
  };
  parallel_chunks(count, kGrain, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      sample(i);
  });
  return samples;
}

}  // namespace voxhash
