#version 450 core
// One flat colour per model, unshaded, so screenshots can be checked by colour.
uniform vec3 u_color;

out vec4 o_color;

void main() { o_color = vec4(u_color, 1.0); }
