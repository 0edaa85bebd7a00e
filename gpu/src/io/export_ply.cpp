// export_voxels_ply: both models' labelled voxels as one binary little-endian PLY point cloud of
// voxel centres with per-point colours, for inspection in MeshLab, CloudCompare or Blender.
#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <fstream>
#include <string>

namespace voxhash {
namespace {

using Rgb = std::array<std::uint8_t, 3>;

constexpr Rgb kIntersectionColour{255, 220, 0};
constexpr Rgb kInsideColour{220, 40, 40};
constexpr std::array<Rgb, 2> kOutsideColour{{{160, 160, 160}, {60, 110, 230}}};
constexpr std::size_t kBytesPerVoxel = 3 * sizeof(float) + 3;

Rgb voxel_colour(int model, VoxelLabel label) {
  switch (label) {
    case VoxelLabel::Intersection:
      return kIntersectionColour;
    case VoxelLabel::Inside:
      return kInsideColour;
    case VoxelLabel::Outside:
      break;
  }
  return kOutsideColour[static_cast<std::size_t>(model)];
}

void append_little_endian(std::string& out, float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  for (int b = 0; b < 4; ++b)
    out.push_back(static_cast<char>((bits >> (8 * b)) & 0xFFu));
}

}  // namespace

void export_voxels_ply(const std::string& path,
                       const GridParams& grid,
                       const std::array<ModelVoxels, 2>& models) {
  std::size_t count = 0;
  for (std::size_t m = 0; m < models.size(); ++m) {
    if (models[m].keys.size() != models[m].labels.size()) {
      throw InvalidInput(path + ": model " + std::to_string(m) + " has " +
                         std::to_string(models[m].keys.size()) + " voxels but " +
                         std::to_string(models[m].labels.size()) + " labels");
    }
    count += models[m].keys.size();
  }

  std::string bytes =
      "ply\n"
      "format binary_little_endian 1.0\n"
      "comment voxhash voxel centres: yellow intersection, red inside the other model, grey model "
      "0 "
      "/ blue model 1 outside\n"
      "element vertex " +
      std::to_string(count) +
      "\n"
      "property float x\nproperty float y\nproperty float z\n"
      "property uchar red\nproperty uchar green\nproperty uchar blue\n"
      "end_header\n";
  bytes.reserve(bytes.size() + count * kBytesPerVoxel);
  for (int m = 0; m < 2; ++m) {
    const ModelVoxels& model = models[static_cast<std::size_t>(m)];
    for (std::size_t i = 0; i < model.keys.size(); ++i) {
      const Float3 centre = voxel_center(grid, model.keys[i]);
      append_little_endian(bytes, centre.x);
      append_little_endian(bytes, centre.y);
      append_little_endian(bytes, centre.z);
      for (const std::uint8_t channel : voxel_colour(m, model.labels[i])) {
        bytes.push_back(static_cast<char>(channel));
      }
    }
  }

  write_file(path, std::string_view(bytes.data(), bytes.size()));
}

}  // namespace voxhash
