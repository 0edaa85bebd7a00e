// libFuzzer target for what follows the scene parser: a scene that parses is fitted a grid around
// two small models (a unit cube's corners each, placed as the scene says) and posed at its time,
// at each keyframe and between them. A rejection must be an InvalidInput naming the file; an
// accepted grid must be one Grid takes, and every pose finite.
#include "fuzz_checks.hpp"

#include <voxhash/grid.hpp>
#include <voxhash/scene.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

bool finite_transform(const voxhash::RigidTransform& t) {
  for (const float v : t.rotation) {
    if (!std::isfinite(v)) return false;
  }
  return voxhash::fuzz::is_finite(t.translation);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace voxhash;
  constexpr std::string_view kPath = "fuzz.json";
  try {
    const Scene scene = parse_scene(fuzz::as_text(data, size), std::string(kPath));
    std::array<PlacedModel, 2> models;
    for (int i = 0; i < 2; ++i) {
      const double scale = scene.models[i].scale *
                           meters_per(scene.models[i].unit.value_or(scene.unit)) /
                           meters_per(scene.unit);
      for (int c = 0; c < 8; ++c) {
        const Float3 p{static_cast<float>((c & 1) * scale),
                       static_cast<float>((c >> 1 & 1) * scale),
                       static_cast<float>((c >> 2 & 1) * scale)};
        models[i].cloud.points.push_back(p);
      }
      models[i].bounds = {
          {0, 0, 0},
          {static_cast<float>(scale), static_cast<float>(scale), static_cast<float>(scale)}};
      models[i].radius = static_cast<float>(std::sqrt(3.0) * scale);
    }
    const GridParams params = fit_grid(scene, models, 64);
    const Grid grid(params);  // throws InvalidInput only for what fit_grid should have refused
    fuzz::require(grid.resolution.x > 0 && grid.resolution.y > 0 && grid.resolution.z > 0,
                  "a fitted grid has no voxels");
    std::vector<double> times{scene.time, scene.time + 1, scene.time - 1};
    for (const SceneModel& m : scene.models) {
      for (std::size_t k = 0; k < m.keyframes.size(); ++k) {
        times.push_back(m.keyframes[k].time);
        if (k + 1 < m.keyframes.size()) {
          times.push_back(0.5 * (m.keyframes[k].time + m.keyframes[k + 1].time));
        }
      }
    }
    for (const double t : times) {
      for (int i = 0; i < 2; ++i) {
        fuzz::require(finite_transform(to_rigid_transform(model_pose(scene, i, t))),
                      "a pose is not finite");
      }
    }
  } catch (const InvalidInput& error) {
    fuzz::require_names_file(error, kPath);
  }
  return 0;
}
