// Loading models and point clouds, and writing voxel exports (the voxhash_io target). Meshes are
// sampled area-weighted into N points: OBJ through tinyobjloader, PLY (ASCII or binary, either
// byte order) by voxhash's own reader, STEP through OpenCASCADE (tessellated at a deflection
// LoadOptions gives), every other mesh format (STL, glTF / GLB, FBX, COLLADA, 3DS, OFF, ...) through
// the Open Asset Import Library. A vertex-only OBJ or PLY and text clouds (XYZ, PTS, TXT, CSV) are
// point clouds. Every failure throws voxhash::InvalidInput whose message names the file (and the
// line where there is one); docs/RELIABILITY.md lists them.
#pragma once

#include <voxhash/geometry.hpp>
#include <voxhash/grid.hpp>
#include <voxhash/voxels.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace voxhash {

struct PointCloud {
  std::vector<Float3> points;
  std::vector<std::uint32_t> point_parts;  // part id per point (empty = all part 0)
  std::vector<std::string> part_names;     // name of each part id (the mesh's parts when sampled)
  std::size_t dropped_non_finite = 0;  // NaN / Inf points (meshes: vertices) skipped while loading
  std::size_t dropped_triangles  = 0;  // mesh triangles with a non-finite vertex, never sampled
  std::string source;                  // file path, or a description of the generator
  /// Metres in one unit of the coordinates, where the file declares its unit (STEP: its own, e.g.
  /// 0.001 for a file in millimetres); 0: the file does not say.
  double meters_per_unit = 0;
  /// What was read but left out, one line each naming the file (STEP faces that could not be
  /// tessellated); the scene loader passes them on as its warnings.
  std::vector<std::string> warnings;
  Mesh mesh;  // the triangles the points were sampled on (a file with faces), else empty
};

/// Reads an OBJ's vertices, triangles and parts (faces with more than three corners are
/// fan-triangulated; each `o` or `g` statement names the part of the faces after it, `g a b` naming
/// "a b", faces before any naming part ""); triangles with a non-finite vertex are dropped and
/// counted. Parts with the same name share an id; triangle_parts is left empty for a single part.
/// Normals, texture coordinates, materials and the other statements are not used.
[[nodiscard]] Mesh load_obj_mesh(const std::filesystem::path& path);

/// Samples `count` points uniformly by area on the mesh's triangles, in parallel (oneTBB) and
/// deterministic for a seed: the same points whatever the thread count, and the first k of `count`
/// samples are those of sample_surface(mesh, k, seed). With `point_parts`, also writes each
/// sample's triangle's part id there (left empty when the mesh's triangle_parts is).
[[nodiscard]] std::vector<Float3> sample_surface(const Mesh& mesh,
                                                 std::size_t count,
                                                 std::uint64_t seed,
                                                 std::vector<std::uint32_t>* point_parts = nullptr);

/// How load_point_cloud may read a model.
struct LoadOptions {
  /// Let a model file refer to files outside its own folder (a glTF's buffers by `../` or a link
  /// leaving it); off, such a reference is refused, naming it.
  bool files_outside_folder = false;
  /// Exact geometry (STEP's surfaces) is tessellated so that no triangle lies farther than this
  /// from the surface: in metres of the model as the caller reads it (`meters_per_unit`, else the
  /// file's unit); 0: `relative_deflection` times the longest side of the model's bounding box.
  double deflection          = 0;
  double relative_deflection = 1.0 / 1024;
  /// Metres in one of the file's coordinate units as the caller reads them (a scene model's
  /// "unit"), for `deflection`; 0: the unit the file declares.
  double meters_per_unit = 0;
};

/// Loads any supported file as points, choosing the reader by extension (any letter case): a file
/// with faces (.obj, a .ply with a face element, .stl, .gltf, .glb and every other extension the
/// Open Asset Import Library reads, .step / .stp through OpenCASCADE) is sampled into `samples`
/// points, which carry their triangle's part, and keeps its triangles in `mesh` for
/// Pipeline::set_model's mesh overload; a vertex-only OBJ or PLY and a text cloud (.xyz, .xyzn,
/// .xyzrgb, .pts, .txt, .csv) are read as they are. Non-finite points are dropped and counted, and
/// so are triangles that use a non-finite vertex.
[[nodiscard]] PointCloud load_point_cloud(const std::filesystem::path& path,
                                          std::size_t samples,
                                          std::uint64_t seed         = 1,
                                          const LoadOptions& options = {});

/// Writes `bytes` to `path` whole or not at all: into a temporary file beside it, then renamed
/// over it (a device or other special file, such as /dev/stdout, is written in place). Throws
/// InvalidInput naming the path and the system's reason (a full disk, no permission) and leaves
/// no partial file.
void write_file(const std::filesystem::path& path, std::string_view bytes);

/// Writes both models' labelled voxels as a coloured PLY point cloud (voxel centres):
/// intersection yellow, inside red, outside grey (model 0) / blue (model 1).
void export_voxels_ply(const std::string& path,
                       const GridParams& grid,
                       const std::array<ModelVoxels, 2>& models);

}  // namespace voxhash
