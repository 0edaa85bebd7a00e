#version 450 core
// Model points, read straight from the buffer the pipeline wrote (CUDA-GL interop) or the host
// uploaded: one vertex per point, tightly packed voxhash::Float3.
layout(location = 0) in vec3 a_position;

uniform mat4 u_view_proj;

void main() { gl_Position = u_view_proj * vec4(a_position, 1.0); }
