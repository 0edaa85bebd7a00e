// save_screenshot / screenshot_file_name.
#include "viewer/gl.hpp"
#include "viewer/screenshot.hpp"

#include <voxhash/error.hpp>

#include <stb_image_write.h>

#include <ctime>
#include <filesystem>
#include <vector>

namespace voxhash::viewer {

void save_screenshot(const std::string& path, int width, int height) {
  std::vector<unsigned char> pixels(static_cast<std::size_t>(width) * height * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  stbi_flip_vertically_on_write(1);  // GL's first row is the bottom one
  if (!stbi_write_png(path.c_str(), width, height, 3, pixels.data(), width * 3)) {
    throw Error("cannot write screenshot '" + path + "'");
  }
}

std::string screenshot_file_name() {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "voxhash-%Y%m%d-%H%M%S", std::localtime(&now));
  std::string name = std::string(stamp) + ".png";
  for (int n = 2; std::filesystem::exists(name); ++n) {
    name = std::string(stamp) + "-" + std::to_string(n) + ".png";
  }
  return name;
}

}  // namespace voxhash::viewer
