#version 450 core
// The CUDA-drawn image, pixel for pixel (its first row is the bottom one, as GL's).
in vec2 v_uv;

uniform sampler2D u_image;

out vec4 o_color;

void main() { o_color = vec4(texture(u_image, v_uv).rgb, 1.0); }
