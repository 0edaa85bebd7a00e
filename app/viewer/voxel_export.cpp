// export_voxels / voxels_file_name.
#include "viewer/voxel_export.hpp"

#include <voxhash/io.hpp>

#include <array>
#include <cstdio>
#include <filesystem>

namespace voxhash::viewer {

std::size_t export_voxels(const Pipeline& pipeline, const std::string& path) {
  const std::array<ModelVoxels, 2> models = {pipeline.download(0), pipeline.download(1)};
  export_voxels_ply(path, pipeline.config().grid, models);
  return models[0].keys.size() + models[1].keys.size();
}

std::string voxels_file_name() {
  char name[32];
  for (int n = 1;; ++n) {
    std::snprintf(name, sizeof(name), "voxhash-voxels-%03d.ply", n);
    if (!std::filesystem::exists(name)) return name;
  }
}

}  // namespace voxhash::viewer
