// Loading models and point clouds, and writing voxel exports. OBJ meshes (tinyobjloader) are
// sampled area-weighted into N points; a vertex-only OBJ, PLY (ASCII or binary little-endian, float
// x/y/z vertex properties) and XYZ text are taken as point clouds. Every failure throws
// voxhash::InvalidInput whose message names the file and the problem.
#pragma once

#include <voxhash/geometry.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace voxhash {

struct Mesh {
  std::vector<Float3> vertices;
  std::vector<std::uint32_t> triangles;  // 3 vertex indices per triangle
};

struct PointCloud {
  std::vector<Float3> points;
  std::size_t dropped_non_finite = 0;  // NaN / Inf points skipped while loading
  std::string source;                  // file path, or a description of the generator
  Mesh mesh;  // the triangles the points were sampled on (an OBJ with faces), else empty
};

/// Reads an OBJ's triangles (faces with more than three corners are fan-triangulated).
[[nodiscard]] Mesh load_obj_mesh(const std::filesystem::path& path);

/// Samples `count` points uniformly by area on the mesh's triangles (deterministic for a seed).
[[nodiscard]] std::vector<Float3> sample_surface(const Mesh& mesh,
                                                 std::size_t count,
                                                 std::uint64_t seed);

/// Loads any supported file as points: an OBJ with faces is sampled into `samples` points (and
/// keeps its triangles in `mesh`, for Pipeline::set_model's mesh overload); an OBJ without faces,
/// a PLY or an XYZ file is read as it is. Non-finite points are dropped and counted.
[[nodiscard]] PointCloud load_point_cloud(const std::filesystem::path& path,
                                          std::size_t samples,
                                          std::uint64_t seed = 1);

}  // namespace voxhash
