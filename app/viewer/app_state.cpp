// AppState: the scene and settings to a pipeline, model loading with errors kept as messages, and
// the frame clock (keyframed scenes are posed at the clock's time before each frame).
#include "viewer/app_state.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <exception>
#include <filesystem>
#include <utility>

namespace voxhash::viewer {
namespace {

/// The demo's motion (the settings' animation) for two model files in the default grid.
Scene demo_scene(const SceneSettings& settings, const std::array<std::string, 2>& paths) {
  Scene scene              = scene_of_models(paths[0], paths[1]);
  scene.motion.kind        = settings.animation.animate ? MotionKind::Swing : MotionKind::None;
  scene.motion.speed       = settings.animation.speed;
  scene.motion.separation  = settings.animation.separation;
  scene.motion.deformation = settings.animation.deformation;
  scene.motion.amount      = settings.animation.amount;
  scene.grid.bounds        = GridParams{}.bounds;
  return scene;
}

/// The viewer sizes its GL buffers by point count, so it hands the pipeline points only (a mesh's
/// triangle voxelization can give more voxels than points), posed for `time`.
void set_points(Pipeline& pipeline, const LoadedScene& loaded, double time) {
  for (int i = 0; i < 2; ++i)
    pipeline.set_model(i, loaded.models[i].cloud.points);
  pose_scene(pipeline, loaded.scene, time);
}

}  // namespace

AppState::AppState(Backend backend, const SceneSettings& settings, const Scene& scene)
    : m_backend(backend), m_settings(settings) {
  if (!reload(scene, settings, "cannot load the scene")) throw InvalidInput(m_message);
  m_settings.animation = m_loaded.config.animation;
  if (!m_loaded.warnings.empty()) report(m_loaded.warnings.front(), true);
}

AppState::AppState(Backend backend,
                   const SceneSettings& settings,
                   const std::array<std::string, 2>& paths)
    : AppState(backend, settings, demo_scene(settings, paths)) {}

PipelineConfig AppState::config(const SceneSettings& settings) const {
  PipelineConfig config             = m_loaded.config;
  config.animation                  = settings.animation;
  config.algorithm                  = settings.algorithm;
  config.table_options.cuckoo_space = settings.cuckoo_space;
  config.table_options.load         = settings.load;
  return config;
}

std::array<std::size_t, 2> AppState::point_counts() const {
  return {m_loaded.models[0].cloud.points.size(), m_loaded.models[1].cloud.points.size()};
}

void AppState::report(std::string message, bool is_error) {
  m_message          = std::move(message);
  m_message_is_error = is_error;
}

template <class F>
bool AppState::attempt(const std::string& what, F&& f) {
  try {
    f();
    return true;
  } catch (const std::exception& e) {
    report(what + ": " + e.what(), true);
    return false;
  }
}

bool AppState::reload(const Scene& scene, const SceneSettings& settings, const std::string& what) {
  return attempt(what, [&] {
    LoadedScene loaded = load_scene_models(scene, {settings.points_per_model, settings.resolution});
    PipelineConfig config             = loaded.config;
    config.algorithm                  = settings.algorithm;
    config.table_options.cuckoo_space = settings.cuckoo_space;
    config.table_options.load         = settings.load;
    if (m_pipeline) config.animation = settings.animation;
    auto pipeline = std::make_unique<Pipeline>(m_backend, config);
    set_points(*pipeline, loaded, m_time);
    for (int i = 0; i < 2; ++i) {
      const PlacedModel& model = loaded.models[i];
      m_models[i]              = {model.name,
                                  scene.models[i].path.string(),
                                  model.cloud.points.size(),
                                  model.cloud.dropped_non_finite};
    }
    m_loaded   = std::move(loaded);
    m_pipeline = std::move(pipeline);
    m_dirty    = true;
  });
}

void AppState::set_algorithm(TableKind kind) {
  m_dirty |= attempt("cannot switch algorithm", [&] {
    m_pipeline->set_algorithm(kind);
    m_settings.algorithm = kind;
  });
}

void AppState::set_resolution(int resolution) {
  m_dirty |= attempt("cannot change the grid", [&] {
    Scene changed           = m_loaded.scene;
    changed.grid.resolution = resolution;
    changed.grid.voxel_size = 0;
    const GridParams grid   = fit_grid(changed, m_loaded.models, resolution);
    m_pipeline->set_grid(grid);
    m_loaded.scene        = std::move(changed);
    m_loaded.config.grid  = grid;
    m_settings.resolution = resolution;
  });
}

void AppState::set_animation(const AnimationParams& animation) {
  m_dirty |= attempt("cannot change the animation", [&] {
    m_pipeline->set_animation(animation);
    pose_scene(*m_pipeline, m_loaded.scene, m_time);
    m_settings.animation = animation;
  });
}

void AppState::set_table_options(double cuckoo_space, double load) {
  m_dirty |= attempt("cannot change the table options", [&] {
    SceneSettings changed = m_settings;
    changed.cuckoo_space  = cuckoo_space;
    changed.load          = load;
    auto pipeline         = std::make_unique<Pipeline>(m_backend, config(changed));
    set_points(*pipeline, m_loaded, m_time);
    m_pipeline = std::move(pipeline);
    m_settings = changed;
  });
}

bool AppState::set_points_per_model(std::size_t points) {
  SceneSettings changed    = m_settings;
  changed.points_per_model = points;
  Scene scene              = m_loaded.scene;
  scene.points             = points;
  for (SceneModel& model : scene.models)
    model.points = 0;
  if (!reload(scene, changed, "cannot re-sample the models")) return false;
  m_settings = changed;
  report("re-sampled both models with " + std::to_string(points) + " points", false);
  return true;
}

bool AppState::load_model(int index, const std::string& path) {
  Scene scene              = m_loaded.scene;
  scene.models[index].path = path;
  scene.models[index].name = std::filesystem::path(path).stem().string();
  if (!reload(scene, m_settings, "cannot load model")) return false;
  report("model " + std::string(index == 0 ? "A" : "B") + ": loaded " + path + " (" +
             std::to_string(m_models[index].points) + " points)",
         false);
  return true;
}

void AppState::reset() {
  m_time  = 0;
  m_dirty = true;
}

bool AppState::update(BufferBridge& bridge, double dt) {
  if (!m_paused) m_time += dt;
  if (m_step) m_time += kStep;
  const bool run = !m_paused || m_step || m_dirty;
  m_step         = false;
  m_dirty        = false;
  if (!run) return false;
  try {
    pose_scene(*m_pipeline, m_loaded.scene, m_time);
    bridge.reserve(point_counts());
    m_stats = bridge.run_frame(*m_pipeline, m_time);
  } catch (const std::exception& e) {
    report(std::string("frame failed (paused): ") + e.what(), true);
    m_paused = true;
    return false;
  }
  m_history.push(m_stats);
  return true;
}

}  // namespace voxhash::viewer
