// AppState: settings to pipeline (meshes with their triangles, clouds as points), model loading
// with errors kept as messages, and the frame clock.
#include "viewer/app_state.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <exception>
#include <utility>

namespace voxhash::viewer {

AppState::AppState(Backend backend,
                   const SceneSettings& settings,
                   const std::array<std::string, 2>& paths)
    : m_backend(backend), m_settings(settings) {
  m_pipeline = std::make_unique<Pipeline>(m_backend, config(m_settings));
  for (int i = 0; i < 2; ++i) {
    if (!read_model(i, paths[i], m_loaded[i], m_models[i])) throw InvalidInput(m_message);
    set_pipeline_model(*m_pipeline, i, m_loaded[i]);
  }
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

bool AppState::read_model(int index, const std::string& path, LoadedModel& model, ModelInfo& info) {
  return attempt("cannot load model", [&] {
    PointCloud cloud =
        load_point_cloud(path, m_settings.points_per_model, static_cast<std::uint64_t>(index) + 1);
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

void AppState::set_algorithm(TableKind kind) {
  m_dirty |= attempt("cannot switch algorithm", [&] {
    m_pipeline->set_algorithm(kind);
    m_settings.algorithm = kind;
  });
}

void AppState::set_resolution(int resolution) {
  m_dirty |= attempt("cannot change the grid", [&] {
    SceneSettings changed = m_settings;
    changed.resolution    = resolution;
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
    auto pipeline         = std::make_unique<Pipeline>(m_backend, config(changed));
    for (int i = 0; i < 2; ++i)
      set_pipeline_model(*pipeline, i, m_loaded[i]);
    m_pipeline = std::move(pipeline);
    m_settings = changed;
  });
}

bool AppState::set_points_per_model(std::size_t points) {
  const std::size_t previous  = m_settings.points_per_model;
  m_settings.points_per_model = points;
  std::array<LoadedModel, 2> loaded;
  std::array<ModelInfo, 2> info;
  const bool ok = read_model(0, m_models[0].path, loaded[0], info[0]) &&
                  read_model(1, m_models[1].path, loaded[1], info[1]) &&
                  attempt("cannot set the models", [&] {
                    for (int i = 0; i < 2; ++i)
                      set_pipeline_model(*m_pipeline, i, loaded[i]);
                  });
  if (!ok) {
    m_settings.points_per_model = previous;
    return false;
  }
  m_loaded = std::move(loaded);
  m_models = std::move(info);
  report("re-sampled both models with " + std::to_string(points) + " points", false);
  m_dirty = true;
  return true;
}

bool AppState::load_model(int index, const std::string& path) {
  LoadedModel loaded;
  ModelInfo info;
  if (!read_model(index, path, loaded, info) ||
      !attempt("cannot set the model", [&] { set_pipeline_model(*m_pipeline, index, loaded); })) {
    return false;
  }
  m_loaded[index]             = std::move(loaded);
  m_models[index]             = std::move(info);
  const std::size_t triangles = m_models[index].triangles;
  report("model " + std::string(index == 0 ? "A" : "B") + ": loaded " + path + " (" +
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
    report(std::string("frame failed (paused): ") + e.what(), true);
    m_paused = true;
    return false;
  }
  m_history.push(m_stats);
  return true;
}

}  // namespace voxhash::viewer
