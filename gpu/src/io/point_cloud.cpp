// load_point_cloud: picks the reader by file extension (any letter case) and makes sure the result
// holds points. OBJ goes to tinyobjloader, text clouds (XYZ, PTS, TXT, CSV) and PLY (points or
// mesh) to voxhash's readers, STEP to OpenCASCADE, and every other mesh (STL, glTF, ...) to the
// Open Asset Import Library. A mesh with triangles is sampled on its surface, each point keeping
// its triangle's part; a mesh without triangles contributes its vertices.
#include "io/io_common.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <utility>

namespace voxhash {
namespace {

void points_from_mesh(const std::filesystem::path& path,
                      Mesh mesh,
                      std::size_t samples,
                      std::uint64_t seed,
                      PointCloud& cloud) {
  cloud.dropped_triangles = mesh.dropped_triangles;
  if (mesh.triangles.empty() && mesh.dropped_triangles > 0) {
    io::fail(path,
             "every one of its " + std::to_string(mesh.dropped_triangles) +
                 " triangles uses a vertex with a NaN / Inf coordinate (" +
                 std::to_string(mesh.non_finite_vertices) + " such vertices)");
  }
  if (mesh.triangles.empty()) {
    cloud.points.reserve(mesh.vertices.size());
    for (const Float3& v : mesh.vertices)
      io::add_point(cloud, v.x, v.y, v.z);
    return;
  }
  cloud.dropped_non_finite = mesh.non_finite_vertices;
  try {
    cloud.points = sample_surface(mesh, samples, seed, &cloud.point_parts);
  } catch (const InvalidInput& error) {
    io::fail(path, error.what());
  }
  cloud.part_names = mesh.part_names;
  cloud.mesh       = std::move(mesh);
}

/// Extensions read as text point clouds (io::parse_xyz_points), in lower case.
bool is_text_cloud_extension(const std::string& extension) {
  return extension == ".xyz" || extension == ".xyzn" || extension == ".xyzrgb" ||
         extension == ".pts" || extension == ".txt" || extension == ".csv";
}

}  // namespace

PointCloud load_point_cloud(const std::filesystem::path& path,
                            std::size_t samples,
                            std::uint64_t seed,
                            const LoadOptions& options) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) {
    return static_cast<char>(std::tolower(c));
  });

  // What the path names first (missing, a folder, a link loop), then what its extension says.
  (void)io::open_input(path);
  PointCloud cloud;
  cloud.source = path.string();
  if (extension == ".obj") {
    points_from_mesh(path, load_obj_mesh(path), samples, seed, cloud);
  } else if (extension == ".step" || extension == ".stp") {
    // Before assimp, which claims these extensions for its IFC reader and refuses CAD schemas.
    io::StepMesh step     = io::load_step_mesh(path, options);
    cloud.meters_per_unit = step.meters_per_unit;
    cloud.warnings        = std::move(step.warnings);
    points_from_mesh(path, std::move(step.mesh), samples, seed, cloud);
  } else if (extension == ".las") {
    io::load_las_points(path, cloud);
  } else if (extension == ".laz" || extension == ".e57") {
    io::fail(path,
             extension == ".laz"
                 ? "compressed LAS (LAZ) is not supported: decompress it first (laszip -i in.laz "
                   "-o out.las)"
                 : "E57 scans are not supported: export the scan as LAS, PLY or a text cloud (XYZ, "
                   "PTS)");
  } else if (is_text_cloud_extension(extension)) {
    io::load_xyz_points(path, cloud);
  } else if (extension == ".ply") {
    // voxhash's own reader, a piece at a time, for meshes and point clouds alike: assimp holds the
    // whole file and reserves what a header or list length claims.
    io::PlyModel model = io::load_ply(path);
    if (model.is_mesh) {
      points_from_mesh(path, std::move(model.mesh), samples, seed, cloud);
    } else {
      cloud.points             = std::move(model.cloud.points);
      cloud.dropped_non_finite = model.cloud.dropped_non_finite;
    }
  } else if (!extension.empty() && io::assimp_reads_extension(extension)) {
    points_from_mesh(
        path, io::load_assimp_mesh(path, options.files_outside_folder), samples, seed, cloud);
  } else {
    io::fail(path,
             "unsupported file extension '" + extension +
                 "' (expected .obj, .ply, .stl, .gltf, .glb, .step or another format the Open "
                 "Asset Import Library reads, or a point cloud: .las, .xyz, .pts, .txt, .csv)");
  }
  if (cloud.points.empty()) {
    io::fail(path,
             "no points" + (cloud.dropped_non_finite > 0
                                ? " (" + std::to_string(cloud.dropped_non_finite) +
                                      " non-finite points dropped)"
                                : std::string()));
  }
  return cloud;
}

}  // namespace voxhash
