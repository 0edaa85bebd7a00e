// AppState: settings to pipeline (meshes with their triangles, clouds as points), memory checked
// before changes that need it, model loading with errors kept as messages, the way back to the last
// good scene, and the frame clock.
#include "viewer/app_state.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <cstdio>
#include <exception>
#include <utility>

namespace voxhash::viewer {
namespace {

constexpr const char* kModelNames[2] = {"A", "B"};

}  // namespace

AppState::AppState(Backend backend,
                   const SceneSettings& settings,
                   const std::array<std::string, 2>& paths)
    : m_backend(backend), m_settings(settings) {
  check_memory(m_settings, {m_settings.points_per_model, m_settings.points_per_model});
  for (int i = 0; i < 2; ++i) {
    if (!read_model(i, paths[i], m_settings.points_per_model, m_loaded[i], m_models[i])) {
      throw InvalidInput(m_message);
    }
  }
  check_memory(m_settings, point_counts());  // point clouds come with their own counts
  m_pipeline = make_pipeline(m_settings);
}

PipelineConfig AppState::config(const SceneSettings& settings) {
  PipelineConfig config;
  config.grid.resolution = {settings.resolution, settings.resolution, settings.resolution};
  config.animation       = settings.animation;
  config.algorithm       = settings.algorithm;
  config.table_options.cuckoo_space = settings.cuckoo_space;
  config.table_options.load         = settings.load;
  return config;
}

std::unique_ptr<Pipeline> AppState::make_pipeline(const SceneSettings& settings) const {
  auto pipeline = std::make_unique<Pipeline>(m_backend, config(settings));
  for (int i = 0; i < 2; ++i)
    set_pipeline_model(*pipeline, i, m_loaded[i]);
  return pipeline;
}

void AppState::check_memory(const SceneSettings& settings,
                            std::array<std::size_t, 2> points) const {
  check_frame_memory(m_backend, config(settings), points);
}

std::array<std::size_t, 2> AppState::point_counts() const {
  return {m_loaded[0].rest.size(), m_loaded[1].rest.size()};
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

bool AppState::read_model(int index,
                          const std::string& path,
                          std::size_t points,
                          LoadedModel& model,
                          ModelInfo& info) {
  return attempt("cannot load model", [&] {
    PointCloud cloud = load_point_cloud(path, points, static_cast<std::uint64_t>(index) + 1);
    info = {path, cloud.points.size(), cloud.dropped_non_finite, cloud.mesh.triangles.size() / 3};
    model.rest = std::move(cloud.points);
    model.mesh = std::move(cloud.mesh);
  });
}

void AppState::set_pipeline_model(Pipeline& pipeline, int index, const LoadedModel& model) {
  if (model.mesh.triangles.empty()) {
    pipeline.set_model(index, model.rest);
  } else {
    pipeline.set_model(index, model.mesh, model.rest);
  }
}

void AppState::remember_scene(bool models_change) {
  if (!m_previous) m_previous = Scene{m_settings, std::nullopt, m_models};
  if (models_change && !m_previous->loaded) {
    m_previous->loaded = m_loaded;
    m_previous->models = m_models;
  }
}

void AppState::set_algorithm(TableKind kind) {
  m_dirty |= attempt("cannot switch algorithm", [&] {
    if (kind != m_settings.algorithm) remember_scene(false);
    m_pipeline->set_algorithm(kind);
    m_settings.algorithm = kind;
  });
}

void AppState::set_resolution(int resolution) {
  m_dirty |= attempt("cannot change the grid", [&] {
    SceneSettings changed = m_settings;
    changed.resolution    = resolution;
    check_memory(changed, point_counts());
    remember_scene(false);
    m_pipeline->set_grid(config(changed).grid);
    m_settings = changed;
  });
}

void AppState::set_animation(const AnimationParams& animation) {
  m_dirty |= attempt("cannot change the animation", [&] {
    m_pipeline->set_animation(animation);
    m_settings.animation = animation;
  });
}

void AppState::set_table_options(double cuckoo_space, double load) {
  m_dirty |= attempt("cannot change the table options", [&] {
    SceneSettings changed = m_settings;
    changed.cuckoo_space  = cuckoo_space;
    changed.load          = load;
    check_memory(changed, point_counts());
    auto pipeline = make_pipeline(changed);
    remember_scene(false);
    m_pipeline = std::move(pipeline);
    m_settings = changed;
  });
}

bool AppState::set_points_per_model(std::size_t points) {
  SceneSettings changed    = m_settings;
  changed.points_per_model = points;
  std::array<LoadedModel, 2> loaded;
  std::array<ModelInfo, 2> info;
  if (!attempt("cannot re-sample the models",
               [&] {
                 check_memory(changed, {points, points});
               }) ||
      !read_model(0, m_models[0].path, points, loaded[0], info[0]) ||
      !read_model(1, m_models[1].path, points, loaded[1], info[1]) ||
      !attempt("cannot re-sample the models", [&] {
        check_memory(changed, {loaded[0].rest.size(), loaded[1].rest.size()});
      })) {
    return false;
  }
  remember_scene(true);
  try {
    for (int i = 0; i < 2; ++i)
      set_pipeline_model(*m_pipeline, i, loaded[i]);
  } catch (const std::exception& e) {
    recover(std::string("cannot set the models: ") + e.what());
    return false;
  }
  m_loaded   = std::move(loaded);
  m_models   = std::move(info);
  m_settings = changed;
  report("re-sampled both models with " + std::to_string(points) + " points", false);
  m_dirty = true;
  return true;
}

bool AppState::load_model(int index, const std::string& path) {
  LoadedModel loaded;
  ModelInfo info;
  std::array<std::size_t, 2> points = point_counts();
  if (!read_model(index, path, m_settings.points_per_model, loaded, info) ||
      !attempt("cannot load model", [&] {
        points[index] = loaded.rest.size();
        check_memory(m_settings, points);
      })) {
    return false;
  }
  remember_scene(true);
  try {
    set_pipeline_model(*m_pipeline, index, loaded);
  } catch (const std::exception& e) {
    recover("cannot set model " + std::string(kModelNames[index]) + ": " + e.what());
    return false;
  }
  m_loaded[index]             = std::move(loaded);
  m_models[index]             = std::move(info);
  const std::size_t triangles = m_models[index].triangles;
  report("model " + std::string(kModelNames[index]) + ": loaded " + path + " (" +
             std::to_string(m_models[index].points) + " points" +
             (triangles ? ", a mesh of " + std::to_string(triangles) + " triangles" : "") + ")",
         false);
  m_dirty = true;
  return true;
}

void AppState::reset() {
  m_time  = 0;
  m_dirty = true;
}

void AppState::recover(const std::string& error) {
  m_dirty = true;
  if (!m_previous) {
    report(error + " (paused)", true);
    m_paused = true;
    return;
  }
  Scene previous = std::move(*m_previous);
  m_previous.reset();
  if (previous.loaded) {
    m_loaded = std::move(*previous.loaded);
    m_models = previous.models;
  }
  m_settings = previous.settings;
  m_pipeline.reset();  // the failed scene's memory first
  try {
    m_pipeline = make_pipeline(m_settings);
    report(error + "; back to the previous scene (" + std::to_string(m_settings.points_per_model) +
               " points per model, grid " + std::to_string(m_settings.resolution) + ", " +
               std::string(to_string(m_settings.algorithm)) + ")",
           true);
  } catch (const std::exception& e) {
    // Not even that fits: no models, so that every part of the state agrees (the panel can load
    // or re-sample smaller ones).
    m_loaded = {};
    for (ModelInfo& model : m_models)
      model = {model.path, 0, 0, 0};
    m_pipeline = std::make_unique<Pipeline>(m_backend, config(m_settings));
    report(error + "; the previous scene does not fit either (" + e.what() +
               "): models unloaded (paused)",
           true);
    m_paused = true;
  }
}

void AppState::update_grid_warnings() {
  for (int i = 0; i < 2; ++i) {
    const ModelFrameStats& s = m_stats.model[i];
    const double fraction    = outside_grid_fraction(s);
    m_grid_warnings[i].clear();
    if (fraction <= kOutsideGridWarning) continue;
    char text[64];
    std::snprintf(text, sizeof text, "%.1f %% of its %zu points", fraction * 100, s.points);
    m_grid_warnings[i] = "model " + std::string(kModelNames[i]) + " (" + m_models[i].path +
                         "): " + text + " are outside the grid";
  }
}

bool AppState::update(BufferBridge& bridge, double dt) {
  if (!m_paused) m_time += dt;
  if (m_step) m_time += kStep;
  const bool run = !m_paused || m_step || m_dirty;
  m_step         = false;
  m_dirty        = false;
  if (!run) return false;
  try {
    bridge.reserve(point_counts());
    m_stats = bridge.run_frame(*m_pipeline, m_time);
  } catch (const std::exception& e) {
    recover(std::string("frame failed: ") + e.what());
    return false;
  }
  m_previous.reset();
  m_history.push(m_stats);
  update_grid_warnings();
  return true;
}

}  // namespace voxhash::viewer
