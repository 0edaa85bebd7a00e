// Small geometry types shared by the library and the front ends. Plain structs (no GLM) so the
// library stays independent of the viewer's math library; layouts match GLM's vec3 / tightly
// packed float triples, so buffers can be handed to OpenGL as they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace voxhash {

struct Float3 {
  float x = 0, y = 0, z = 0;
};
static_assert(sizeof(Float3) == 12);

struct Int3 {
  std::int32_t x = 0, y = 0, z = 0;
};

/// An axis-aligned box.
struct Bounds {
  Float3 min;
  Float3 max;
};

/// A rigid motion p -> rotation * p + translation (rotation row-major). Identity by default.
struct RigidTransform {
  float rotation[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  Float3 translation{};
};

/// A triangle mesh: what OBJ and the other mesh formats load into, and what the pipeline voxelizes.
/// Parts are the named pieces of a model (OBJ `o` / `g`, glTF nodes, ...), one id per triangle.
struct Mesh {
  std::vector<Float3> vertices;               // as read: a non-finite one stays, so indices hold
  std::vector<std::uint32_t> triangles;       // 3 vertex indices per triangle, all finite vertices
  std::vector<std::uint32_t> triangle_parts;  // part id per triangle (empty = all part 0)
  std::vector<std::string> part_names;        // name of each part id (OBJ o/g, glTF node...)
  std::size_t non_finite_vertices = 0;        // vertices with a NaN / Inf coordinate
  std::size_t dropped_triangles   = 0;  // triangles that used one of them, left out of triangles
};

}  // namespace voxhash
