// load_point_cloud: picks the reader by file extension (.obj, .ply, .xyz, any letter case) and
// makes sure the result holds points. An OBJ with faces is sampled on its surface; one without
// faces contributes its vertices.
#include "io/io_common.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

namespace voxhash {
namespace {

void read_obj_points(const std::filesystem::path& path,
                     std::size_t samples,
                     std::uint64_t seed,
                     PointCloud& cloud) {
  Mesh mesh               = load_obj_mesh(path);
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
    cloud.points = sample_surface(mesh, samples, seed);
  } catch (const InvalidInput& error) {
    io::fail(path, error.what());
  }
  cloud.mesh = std::move(mesh);
}

}  // namespace

PointCloud load_point_cloud(const std::filesystem::path& path,
                            std::size_t samples,
                            std::uint64_t seed) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) {
    return static_cast<char>(std::tolower(c));
  });

  PointCloud cloud;
  cloud.source = path.string();
  if (extension == ".obj") {
    read_obj_points(path, samples, seed, cloud);
  } else if (extension == ".ply") {
    io::parse_ply_points(path, io::read_file(path), cloud);
  } else if (extension == ".xyz") {
    io::parse_xyz_points(path, io::read_file(path), cloud);
  } else {
    io::fail(path, "unsupported file extension '" + extension + "' (expected .obj, .ply or .xyz)");
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
