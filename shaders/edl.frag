#version 450 core
// Eye-dome lighting (as in CloudCompare and Potree) over the points' depth: a pixel farther than
// its neighbours, in log depth, is darkened by exp(-strength x the mean of how much farther); a
// neighbour without a point adds nothing, and a pixel without one is left as it is. The output
// multiplies the colour already drawn.
uniform sampler2D u_depth;  // the depth buffer as drawn, [0, 1]
uniform float u_far_over_near;
uniform float u_strength;

out vec4 o_color;

// log of the eye distance, up to a constant, from a depth-buffer value of a perspective projection.
float log_distance(float depth) { return -log(u_far_over_near - depth * (u_far_over_near - 1.0)); }

void main() {
  const ivec2 pixel = ivec2(gl_FragCoord.xy);
  const float depth = texelFetch(u_depth, pixel, 0).r;
  if (depth >= 1.0) discard;
  const ivec2 kNeighbours[8] = ivec2[8](ivec2(1, 0), ivec2(-1, 0), ivec2(0, 1), ivec2(0, -1),
                                        ivec2(1, 1), ivec2(-1, -1), ivec2(1, -1), ivec2(-1, 1));
  const ivec2 last = textureSize(u_depth, 0) - 1;
  const float here = log_distance(depth);
  float farther    = 0.0;
  for (int i = 0; i < 8; ++i) {
    const float d = texelFetch(u_depth, clamp(pixel + kNeighbours[i], ivec2(0), last), 0).r;
    if (d < 1.0) farther += max(here - log_distance(d), 0.0);
  }
  o_color = vec4(vec3(exp(-u_strength * farther / 8.0)), 1.0);
}
