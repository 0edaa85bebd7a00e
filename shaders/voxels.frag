#version 450 core
// Voxel cubes: the label's colour lit per face in the vertex shader, with the pass's opacity
// (1, or the X-ray's for translucent outside voxels).
flat in vec3 v_color;

uniform float u_alpha;

out vec4 o_color;

void main() { o_color = vec4(v_color, u_alpha); }
