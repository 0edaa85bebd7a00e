#version 450 core
// A full-screen triangle (no vertex buffer: corners from gl_VertexID) for the CUDA-drawn image.
out vec2 v_uv;

void main() {
  const vec2 corner = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);
  v_uv              = corner;
  gl_Position       = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
