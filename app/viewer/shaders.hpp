// GLSL sources from shaders/, embedded at build time (cmake/EmbedShaders.cmake generates their
// definitions, one constant per file: points.vert -> kPointsVert).
#pragma once

#include <string_view>

namespace voxhash::viewer::shaders {

extern const std::string_view kPointsVert;
extern const std::string_view kPointsFrag;
extern const std::string_view kVoxelsVert;
extern const std::string_view kVoxelsFrag;

}  // namespace voxhash::viewer::shaders
