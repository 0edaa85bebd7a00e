// A scene opened for a front end, in the one order the viewer, bench frame and voxhash clash
// share: memory checked from the scene alone, the models read and placed, memory checked again for
// the fitted grid; then the front end's pipeline configurations and the pipelines themselves, the
// models handed to them and posed.
#include <voxhash/pipeline.hpp>
#include <voxhash/scene.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <vector>

namespace voxhash {

std::vector<PipelineConfig> scene_configs(const PipelineConfig& config, const SceneTables& tables) {
  std::vector<PipelineConfig> configs;
  const auto add = [&](TableKind algorithm) {
    PipelineConfig c = config;
    c.algorithm      = algorithm;
    if (tables.cuckoo_space) c.table_options.cuckoo_space = *tables.cuckoo_space;
    if (tables.load) c.table_options.load = *tables.load;
    configs.push_back(c);
  };
  if (tables.algorithms.empty()) add(config.algorithm);
  for (const TableKind algorithm : tables.algorithms)
    add(algorithm);
  return configs;
}

OpenScene open_scene(const Scene& scene, const OpenSceneOptions& options) {
  const auto check = [&](const std::vector<PipelineConfig>& configs,
                         std::array<std::size_t, 2> points) {
    if (options.check_memory) {
      options.check_memory(configs, points);
      return;
    }
    for (const PipelineConfig& config : configs)
      check_frame_memory(options.backend, config, points);
  };
  check(scene_configs(scene_memory_config(scene, options.defaults), options.tables),
        {scene_model_points(scene, 0, options.defaults),
         scene_model_points(scene, 1, options.defaults)});
  OpenScene open{.loaded = load_scene_models(scene, options.defaults)};
  open.configs = scene_configs(open.loaded.config, options.tables);
  check(open.configs, open.loaded.point_counts());  // point clouds come with their own counts
  return open;
}

std::unique_ptr<Pipeline> make_scene_pipeline(Backend backend,
                                              const PipelineConfig& config,
                                              const LoadedScene& scene,
                                              double time) {
  auto pipeline = std::make_unique<Pipeline>(backend, config);
  set_scene_models(*pipeline, scene, time);
  return pipeline;
}

void set_scene_models(Pipeline& pipeline, const LoadedScene& scene, double time) {
  for (int i = 0; i < 2; ++i) {
    const PointCloud& cloud = scene.models[i].cloud;
    if (cloud.mesh.triangles.empty()) {
      pipeline.set_model(i, cloud.points);
      pipeline.set_model_parts(i, cloud.point_parts);
    } else {
      pipeline.set_model(i, cloud.mesh, cloud.points);
    }
  }
  pose_scene(pipeline, scene.scene, time);
}

void pose_scene(Pipeline& pipeline, const Scene& scene, double time) {
  if (scene.motion.kind != MotionKind::Keyframes) return;
  for (int i = 0; i < 2; ++i)
    pipeline.set_model_transform(i, world_transform(scene_up(scene), model_pose(scene, i, time)));
}

}  // namespace voxhash
