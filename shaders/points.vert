#version 450 core
// Model points, read straight from the buffer the pipeline wrote (CUDA-GL interop) or the host
// uploaded: one vertex per point, tightly packed voxhash::Float3. The clipping plane cuts them.
layout(location = 0) in vec3 a_position;

uniform mat4 u_view_proj;
uniform vec4 u_clip_plane;  // kept where dot(plane, (p, 1)) >= 0; (0, 0, 0, 1): no clipping

void main() {
  gl_Position        = u_view_proj * vec4(a_position, 1.0);
  gl_ClipDistance[0] = dot(u_clip_plane, vec4(a_position, 1.0));
}
