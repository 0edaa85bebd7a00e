// Small geometry types shared by the library and the front ends. Plain structs (no GLM) so the
// library stays independent of the viewer's math library; layouts match GLM's vec3 / tightly
// packed float triples, so buffers can be handed to OpenGL as they are.
#pragma once

#include <cstdint>

namespace voxhash {

struct Float3 {
  float x = 0, y = 0, z = 0;
};
static_assert(sizeof(Float3) == 12);

struct Int3 {
  std::int32_t x = 0, y = 0, z = 0;
};

/// An axis-aligned box.
struct Bounds {
  Float3 min;
  Float3 max;
};

}  // namespace voxhash
