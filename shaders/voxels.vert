#version 450 core
// Labelled voxels as instanced cubes: one instance per voxel (centre + label, 16 bytes); the 36
// vertices of its cube come from gl_VertexID, so no vertex buffer is needed. The renderer draws
// only the instance ranges of the visible labels. Each face is lit by one directional light and
// an ambient term (its normal is the cube face's); the clipping plane cuts the cubes. A pass may
// move its cubes towards the eye (u_pull, world units) to win the depth test against surfaces just
// in front of them; the clipping plane still cuts them where they are.
layout(location = 0) in vec3 a_center;
layout(location = 1) in uint a_label;

uniform mat4 u_view_proj;
uniform vec3 u_half_size;
uniform vec3 u_label_colors[3];
uniform vec3 u_light_dir;  // towards the light, unit length
uniform float u_ambient;   // light on faces turned away from it; 1: unlit
uniform vec4 u_clip_plane;  // kept where dot(plane, (p, 1)) >= 0; (0, 0, 0, 1): no clipping
uniform vec3 u_pull;        // added to every corner before projection; 0: drawn where they are

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
  const vec3 world  = a_center + unit * u_half_size;
  gl_Position      = u_view_proj * vec4(world + u_pull, 1.0);
  gl_ClipDistance[0] = dot(u_clip_plane, vec4(world, 1.0));

  const float light = u_ambient + (1.0 - u_ambient) * max(dot(kNormals[face], u_light_dir), 0.0);
  v_color           = u_label_colors[min(a_label, 2u)] * light;
}
