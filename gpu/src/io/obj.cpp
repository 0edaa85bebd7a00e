// OBJ meshes through tinyobjloader: vertex positions and faces, fan-triangulated here so every
// polygon becomes (corner 0, k, k + 1) triangles. Normals, texture coordinates and materials are
// not needed for sampling and are ignored (mtllib references are not followed).
#include "io/io_common.hpp"

#include <voxhash/io.hpp>

#include <tiny_obj_loader.h>

#include <cstddef>
#include <string>
#include <vector>

namespace voxhash {

Mesh load_obj_mesh(const std::filesystem::path& path) {
  std::ifstream stream = io::open_input(path);
  tinyobj::attrib_t attrib;
  std::vector<tinyobj::shape_t> shapes;
  std::vector<tinyobj::material_t> materials;
  std::string warning;
  std::string error;
  const bool loaded = tinyobj::LoadObj(&attrib,
                                       &shapes,
                                       &materials,
                                       &warning,
                                       &error,
                                       &stream,
                                       /*readMatFn=*/nullptr,
                                       /*triangulate=*/false);
  if (!loaded) {
    while (!error.empty() && (error.back() == '\n' || error.back() == '\r'))
      error.pop_back();
    io::fail(path,
             "malformed OBJ: " + (error.empty() ? std::string("tinyobjloader failed") : error));
  }

  Mesh mesh;
  const std::size_t vertex_count = attrib.vertices.size() / 3;
  mesh.vertices.reserve(vertex_count);
  for (std::size_t v = 0; v < vertex_count; ++v) {
    mesh.vertices.push_back(
        {attrib.vertices[3 * v], attrib.vertices[3 * v + 1], attrib.vertices[3 * v + 2]});
  }

  for (const tinyobj::shape_t& shape : shapes) {
    std::size_t first = 0;
    for (std::size_t face = 0; face < shape.mesh.num_face_vertices.size(); ++face) {
      const std::size_t corners = shape.mesh.num_face_vertices[face];
      for (std::size_t c = 0; c < corners; ++c) {
        const int index = shape.mesh.indices[first + c].vertex_index;
        if (index < 0 || static_cast<std::size_t>(index) >= vertex_count) {
          const std::string shape_name = shape.name.empty() ? "" : " of '" + shape.name + "'";
          io::fail(path,
                   "face " + std::to_string(face + 1) + shape_name + " refers to vertex " +
                       std::to_string(index + 1) + ", but the file has " +
                       std::to_string(vertex_count) + " vertices");
        }
      }
      for (std::size_t k = 1; k + 1 < corners; ++k) {
        mesh.triangles.push_back(
            static_cast<std::uint32_t>(shape.mesh.indices[first].vertex_index));
        mesh.triangles.push_back(
            static_cast<std::uint32_t>(shape.mesh.indices[first + k].vertex_index));
        mesh.triangles.push_back(
            static_cast<std::uint32_t>(shape.mesh.indices[first + k + 1].vertex_index));
      }
      first += corners;
    }
  }
  return mesh;
}

}  // namespace voxhash
