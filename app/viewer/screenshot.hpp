// Screenshots: the bound read framebuffer to a PNG (glReadPixels + stb_image_write).
#pragma once

#include <string>

namespace voxhash::viewer {

/// Writes the bound read framebuffer's `width` x `height` pixels to `path` as an RGB PNG, top row
/// first. Throws voxhash::Error when the file cannot be written.
void save_screenshot(const std::string& path, int width, int height);

/// A new file name in the working directory: voxhash-YYYYmmdd-HHMMSS[-N].png.
[[nodiscard]] std::string screenshot_file_name();

}  // namespace voxhash::viewer
