// What every fuzz target asserts besides "no crash, no hang, no leak": a rejected input throws
// InvalidInput naming the file first, and an accepted one holds only finite points, in-range
// indices and named parts. A broken invariant aborts, which libFuzzer reports with the input that
// caused it.
#pragma once

#include <voxhash/error.hpp>
#include <voxhash/geometry.hpp>
#include <voxhash/io.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace voxhash::fuzz {

inline void require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
  }
}

inline bool is_finite(Float3 p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
}

/// A mesh as a loader returns it: counts right, kept triangles on finite, in-range vertices, one
/// part id per triangle (or none) naming an existing part; and a few samples, all finite.
inline void require_sound_mesh(const Mesh& mesh) {
  std::size_t non_finite = 0;
  for (const Float3& v : mesh.vertices)
    non_finite += is_finite(v) ? 0 : 1;
  require(non_finite == mesh.non_finite_vertices, "non_finite_vertices is miscounted");
  require(mesh.triangles.size() % 3 == 0, "triangle indices are not a multiple of 3");
  for (const std::uint32_t index : mesh.triangles) {
    require(index < mesh.vertices.size(), "a triangle index is out of range");
    require(is_finite(mesh.vertices[index]), "a kept triangle has a non-finite vertex");
  }
  require(mesh.triangle_parts.empty() || mesh.triangle_parts.size() * 3 == mesh.triangles.size(),
          "triangle_parts is neither empty nor one per triangle");
  for (const std::uint32_t part : mesh.triangle_parts)
    require(part < mesh.part_names.size(), "a triangle's part id has no name");
  if (mesh.triangles.empty()) return;
  try {
    std::vector<std::uint32_t> parts;
    const std::vector<Float3> samples = sample_surface(mesh, 16, 1, &parts);
    for (const Float3& p : samples)
      require(is_finite(p), "a sample is not finite");
    require(parts.empty() == mesh.triangle_parts.empty(), "samples' part ids are missing");
  } catch (const InvalidInput&) {
    // Zero or overflowing area: a clean rejection.
  }
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A loader's error must start with the path it was given.
inline void require_names_file(const InvalidInput& error, std::string_view path) {
  const std::string_view message = error.what();
  require(message.size() > path.size() + 2 && message.starts_with(path) &&
              message.substr(path.size(), 2) == ": ",
          "an InvalidInput message does not start with the file's path");
}

}  // namespace voxhash::fuzz
