// Loading models and point clouds, and writing voxel exports (the voxhash_io target). OBJ meshes
// are sampled area-weighted into N points; a vertex-only OBJ, PLY (ASCII or binary little-endian,
// float x/y/z vertex properties) and XYZ text are taken as point clouds. Every failure throws
// voxhash::InvalidInput whose message names the file (and the line where there is one);
// docs/RELIABILITY.md lists them.
#pragma once

#include <voxhash/geometry.hpp>
#include <voxhash/grid.hpp>
#include <voxhash/pipeline.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace voxhash {

struct PointCloud {
  std::vector<Float3> points;
  std::size_t dropped_non_finite = 0;      // NaN / Inf points (OBJ: vertices) skipped while loading
  std::size_t dropped_triangles  = 0;      // OBJ triangles with a non-finite vertex, never sampled
  std::string source;                      // file path, or a description of the generator
  std::vector<std::uint32_t> point_parts;  // part id per point (empty = all part 0)
  std::vector<std::string> part_names;     // name of each part id
  Mesh mesh;  // the triangles the points were sampled on (an OBJ with faces), else empty
};

/// Reads an OBJ's vertices and triangles (faces with more than three corners are fan-triangulated);
/// triangles with a non-finite vertex are dropped and counted. Other OBJ statements are ignored.
[[nodiscard]] Mesh load_obj_mesh(const std::filesystem::path& path);

/// Samples `count` points uniformly by area on the mesh's triangles (deterministic for a seed).
[[nodiscard]] std::vector<Float3> sample_surface(const Mesh& mesh,
                                                 std::size_t count,
                                                 std::uint64_t seed);

/// Loads any supported file as points: an OBJ with faces is sampled into `samples` points (and
/// keeps its triangles in `mesh`, for Pipeline::set_model's mesh overload); an OBJ without faces,
/// a PLY or an XYZ file is read as it is. Non-finite points are dropped and counted, and so are an
/// OBJ's triangles that use a non-finite vertex.
[[nodiscard]] PointCloud load_point_cloud(const std::filesystem::path& path,
                                          std::size_t samples,
                                          std::uint64_t seed = 1);

/// Writes both models' labelled voxels as a coloured PLY point cloud (voxel centres):
/// intersection yellow, inside red, outside grey (model 0) / blue (model 1).
void export_voxels_ply(const std::string& path,
                       const GridParams& grid,
                       const std::array<ModelVoxels, 2>& models);

}  // namespace voxhash
