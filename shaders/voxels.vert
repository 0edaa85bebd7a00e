#version 450 core
// Labelled voxels as instanced cubes: one instance per voxel (centre + label, 16 bytes); the 36
// vertices of its cube come from gl_VertexID, so no vertex buffer is needed. The renderer draws
// only the instance ranges of the visible labels.
layout(location = 0) in vec3 a_center;
layout(location = 1) in uint a_label;

uniform mat4 u_view_proj;
uniform vec3 u_half_size;
uniform vec3 u_label_colors[3];
uniform vec3 u_light_dir;

flat out vec3 v_color;

// Quads of cube corners (corner c sits at (c & 1, (c >> 1) & 1, (c >> 2) & 1)), one per face,
// counter-clockwise seen from outside so that back faces can be culled.
const int kFaces[24] = int[24](0, 4, 6, 2,   // -x
                               1, 3, 7, 5,   // +x
                               0, 1, 5, 4,   // -y
                               2, 6, 7, 3,   // +y
                               0, 2, 3, 1,   // -z
                               4, 5, 7, 6);  // +z
const vec3 kNormals[6] = vec3[6](vec3(-1, 0, 0), vec3(1, 0, 0), vec3(0, -1, 0), vec3(0, 1, 0),
                                 vec3(0, 0, -1), vec3(0, 0, 1));
const int kQuadToTriangles[6] = int[6](0, 1, 2, 0, 2, 3);

void main() {
  const int face   = gl_VertexID / 6;
  const int corner = kFaces[face * 4 + kQuadToTriangles[gl_VertexID % 6]];
  const vec3 unit  = vec3(corner & 1, (corner >> 1) & 1, (corner >> 2) & 1) * 2.0 - 1.0;
  gl_Position      = u_view_proj * vec4(a_center + unit * u_half_size, 1.0);

  const float light = 0.45 + 0.55 * max(dot(kNormals[face], u_light_dir), 0.0);
  v_color           = u_label_colors[min(a_label, 2u)] * light;
}
