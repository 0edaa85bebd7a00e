// Area-weighted surface sampling: a cumulative area table picks each sample's triangle by binary
// search, and barycentric coordinates (1 - sqrt(r1), sqrt(r1)(1 - r2), sqrt(r1) r2) place it
// uniformly inside. Work is in double; the random stream is std::mt19937_64, so a seed reproduces.
// Each sample can carry its triangle's part id.
#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

namespace voxhash {
namespace {

struct Double3 {
  double x, y, z;
};

Double3 to_double(Float3 p) {
  return {p.x, p.y, p.z};
}

/// Uniform in [0, 1) from the top 53 bits: the same numbers with every standard library.
double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

double triangle_area(Double3 a, Double3 b, Double3 c) {
  const Double3 u{b.x - a.x, b.y - a.y, b.z - a.z};
  const Double3 v{c.x - a.x, c.y - a.y, c.z - a.z};
  const Double3 n{u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x};
  return 0.5 * std::sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
}

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
  if (point_parts != nullptr) point_parts->clear();
  if (with_parts) point_parts->reserve(count);

  std::vector<double> cumulative_area(triangle_count);
  double total_area = 0;
  for (std::size_t t = 0; t < triangle_count; ++t) {
    total_area += triangle_area(to_double(mesh.vertices[mesh.triangles[3 * t]]),
                                to_double(mesh.vertices[mesh.triangles[3 * t + 1]]),
                                to_double(mesh.vertices[mesh.triangles[3 * t + 2]]));
    cumulative_area[t] = total_area;
  }
  if (!std::isfinite(total_area)) {
    throw InvalidInput("sample_surface: the mesh has non-finite vertex coordinates");
  }
  if (total_area <= 0) {
    throw InvalidInput("sample_surface: the mesh has zero surface area (all " +
                       std::to_string(triangle_count) + " triangles are degenerate)");
  }

  std::mt19937_64 rng(seed);
  std::vector<Float3> samples;
  samples.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    // upper_bound never lands on a zero-area triangle: its cumulative value equals its
    // predecessor's. The clamp guards a target that rounds up to the total.
    const double target = uniform01(rng) * total_area;
    const auto found    = std::upper_bound(cumulative_area.begin(), cumulative_area.end(), target);
    const std::size_t t =
        std::min(static_cast<std::size_t>(found - cumulative_area.begin()), triangle_count - 1);
    const Double3 a = to_double(mesh.vertices[mesh.triangles[3 * t]]);
    const Double3 b = to_double(mesh.vertices[mesh.triangles[3 * t + 1]]);
    const Double3 c = to_double(mesh.vertices[mesh.triangles[3 * t + 2]]);
    const double s  = std::sqrt(uniform01(rng));
    const double r  = uniform01(rng);
    const double wa = 1 - s;
    const double wb = s * (1 - r);
    const double wc = s * r;
    samples.push_back({static_cast<float>(wa * a.x + wb * b.x + wc * c.x),
                       static_cast<float>(wa * a.y + wb * b.y + wc * c.y),
                       static_cast<float>(wa * a.z + wb * b.z + wc * c.z)});
    if (with_parts) point_parts->push_back(mesh.triangle_parts[t]);
  }
  return samples;
}

}  // namespace voxhash
