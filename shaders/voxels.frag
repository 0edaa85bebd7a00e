#version 450 core
// Flat-shaded voxel cubes: the colour of the label, lit once per face in the vertex shader.
flat in vec3 v_color;

out vec4 o_color;

void main() { o_color = vec4(v_color, 1.0); }
