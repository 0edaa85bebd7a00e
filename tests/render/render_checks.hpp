// Helpers the render tests share: running the voxhash binary and capturing what it prints, and
// looking for colours in the PNGs it writes.
#pragma once

#include <stb_image.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace voxhash::test {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

/// Runs `arguments` after the voxhash binary, through the shell, with `environment` prefixed
/// (e.g. "env -u DISPLAY").
inline CommandResult run_voxhash(const std::string& arguments,
                                 const std::string& environment = "") {
  const std::string command = environment + " '" VOXHASH_BINARY "' " + arguments + " 2>&1";
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> chunk;
  while (const std::size_t n = std::fread(chunk.data(), 1, chunk.size(), pipe)) {
    result.output.append(chunk.data(), n);
  }
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

inline std::string asset(const char* name) {
  return (std::filesystem::path(VOXHASH_SOURCE_DIR) / "assets" / name).string();
}

/// An RGB image read from a PNG; empty when the file cannot be read.
struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;

  static Image load(const std::string& path) {
    Image image;
    int channels          = 0;
    unsigned char* pixels = stbi_load(path.c_str(), &image.width, &image.height, &channels, 3);
    if (!pixels) return {};
    image.rgb.assign(pixels, pixels + static_cast<std::size_t>(image.width) * image.height * 3);
    stbi_image_free(pixels);
    return image;
  }

  [[nodiscard]] std::size_t pixels() const { return rgb.size() / 3; }

  /// Pixels in columns [x_begin, width) for which pred(r, g, b) holds (channels in [0, 1]).
  template <class Pred>
  [[nodiscard]] std::size_t count(Pred pred, int x_begin = 0) const {
    std::size_t n = 0;
    for (int y = 0; y < height; ++y) {
      for (int x = x_begin; x < width; ++x) {
        const unsigned char* p = &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
        n += pred(p[0] / 255.0f, p[1] / 255.0f, p[2] / 255.0f) ? 1 : 0;
      }
    }
    return n;
  }

  /// Pixels in columns [x_begin, width) within `tolerance` (per channel, in [0, 1]) of `color`.
  [[nodiscard]] std::size_t count_near(const std::array<float, 3>& color,
                                       float tolerance = 3.0f / 255,
                                       int x_begin     = 0) const {
    return count(
        [&](float r, float g, float b) {
          return std::abs(r - color[0]) <= tolerance && std::abs(g - color[1]) <= tolerance &&
                 std::abs(b - color[2]) <= tolerance;
        },
        x_begin);
  }
};

/// Pixels whose channels differ by more than `threshold` (0-255) between two images of one size.
inline std::size_t differing_pixels(const Image& a, const Image& b, int threshold) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.rgb.size(); i += 3) {
    for (int c = 0; c < 3; ++c) {
      if (std::abs(int(a.rgb[i + c]) - int(b.rgb[i + c])) > threshold) {
        ++n;
        break;
      }
    }
  }
  return n;
}

/// Yellow as the intersection voxels are drawn: kIntersection times a light factor in [0.45, 1].
inline bool intersection_yellow(float r, float g, float b) {
  return r > 0.4f && g > 0.8f * r && g < 0.95f * r && b < 0.15f * r;
}

}  // namespace voxhash::test
