// AppState: the scene and settings to a pipeline (meshes with their triangles, clouds as points),
// memory checked before changes that need it, model loading with errors kept as messages, the way
// back to the last good scene, the frame clock (keyframed scenes are posed at the clock's time
// before each frame), placements from rest copies, the clash report and saving the scene.
#include "viewer/app_state.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <utility>

namespace voxhash::viewer {
namespace {

constexpr const char* kModelNames[2] = {"A", "B"};

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

/// The settings' algorithm and table options.
SceneTables tables_of(const SceneSettings& settings) {
  return {.algorithms   = {settings.algorithm},
          .cuckoo_space = settings.cuckoo_space,
          .load         = settings.load};
}

}  // namespace

AppState::AppState(Backend backend, const SceneSettings& settings, const Scene& scene)
    : m_backend(backend), m_settings(settings) {
  LoadedScene loaded;
  try {
    loaded = read_scene(scene, m_settings);
  } catch (const InvalidInput& e) {
    throw InvalidInput(std::string("cannot load the scene: ") + e.what());
  }
  m_settings.animation = loaded.config.animation;
  m_loaded             = std::move(loaded);
  m_time               = m_loaded.scene.time;
  update_model_info();
  m_pipeline = make_pipeline(config(m_settings));
  std::string warnings;  // every one of them: two models may each have dropped points
  for (const std::string& warning : m_loaded.warnings)
    warnings += (warnings.empty() ? "" : "\n") + warning;
  if (!warnings.empty()) report(warnings, false);
}

AppState::AppState(Backend backend,
                   const SceneSettings& settings,
                   const std::array<std::string, 2>& paths)
    : AppState(backend, settings, demo_scene(settings, paths)) {}

PipelineConfig AppState::config(const SceneSettings& settings) const {
  PipelineConfig config = scene_configs(m_loaded.config, tables_of(settings)).front();
  config.animation      = settings.animation;
  return config;
}

std::unique_ptr<Pipeline> AppState::make_pipeline(const PipelineConfig& config) const {
  return make_scene_pipeline(m_backend, config, m_loaded, m_time);
}

LoadedScene AppState::read_scene(const Scene& scene, const SceneSettings& settings) const {
  return open_scene(scene,
                    {.backend  = m_backend,
                     .defaults = {settings.points_per_model, settings.resolution},
                     .tables   = tables_of(settings)})
      .loaded;
}

void AppState::update_model_info() {
  m_rest = {};
  for (int i = 0; i < 2; ++i) {
    const PlacedModel& model = m_loaded.models[i];
    m_models[i]              = {model.name,
                                model_files(m_loaded.scene.models[i]),
                                model.cloud.points.size(),
                                model.cloud.dropped_non_finite,
                                model.cloud.mesh.triangles.size() / 3};
  }
}

std::array<std::size_t, 2> AppState::point_counts() const {
  return m_loaded.point_counts();
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

void AppState::remember_scene(bool models_change) {
  if (!m_previous) {
    m_previous = Snapshot{m_settings, m_loaded.scene, m_loaded.config, std::nullopt, m_models};
  }
  if (models_change && !m_previous->models) m_previous->models = m_loaded.models;
}

bool AppState::use_scene(LoadedScene loaded,
                         const SceneSettings& settings,
                         const std::string& what) {
  remember_scene(true);
  m_settings           = settings;
  m_loaded.scene       = std::move(loaded.scene);
  m_loaded.models      = std::move(loaded.models);
  m_loaded.config.grid = loaded.config.grid;
  m_loaded.warnings    = std::move(loaded.warnings);
  update_model_info();
  m_dirty = true;
  try {
    m_pipeline->set_grid(m_loaded.config.grid);
    set_scene_models(*m_pipeline, m_loaded, m_time);
  } catch (const std::exception& e) {
    recover(what + ": " + e.what());
    return false;
  }
  return true;
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
    Scene changed           = m_loaded.scene;
    changed.grid.resolution = resolution;
    changed.grid.voxel_size = 0;
    PipelineConfig config   = this->config(m_settings);
    config.grid             = fit_grid(changed, m_loaded.models, resolution);
    check_frame_memory(m_backend, config, point_counts());
    remember_scene(false);
    m_pipeline->set_grid(config.grid);
    m_loaded.scene        = std::move(changed);
    m_loaded.config.grid  = config.grid;
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
    check_frame_memory(m_backend, config(changed), point_counts());
    auto pipeline = make_pipeline(config(changed));
    remember_scene(false);
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
  LoadedScene loaded;
  const std::string what = "cannot re-sample the models";
  if (!attempt(what, [&] { loaded = read_scene(scene, changed); })) return false;
  if (!use_scene(std::move(loaded), changed, what)) return false;
  report("re-sampled both models with " + std::to_string(points) + " points", false);
  return true;
}

bool AppState::load_model(int index, const std::string& path) {
  Scene scene = m_loaded.scene;
  set_model_file(scene, index, path);
  LoadedScene loaded;
  if (!attempt("cannot load model", [&] { loaded = read_scene(scene, m_settings); }) ||
      !use_scene(
          std::move(loaded), m_settings, "cannot set model " + std::string(kModelNames[index]))) {
    m_model_errors[index] = m_message;
    return false;
  }
  m_model_errors[index].clear();
  const std::size_t triangles = m_models[index].triangles;
  report("model " + std::string(kModelNames[index]) + ": loaded " + path + " (" +
             std::to_string(m_models[index].points) + " points" +
             (triangles ? ", a mesh of " + std::to_string(triangles) + " triangles" : "") + ")",
         false);
  return true;
}

void AppState::reset() {
  set_time(m_loaded.scene.time);
}

void AppState::set_time(double time) {
  m_time  = time;
  m_dirty = true;
}

ModelPlacement AppState::placement(int index) const {
  return placement_of(m_loaded.scene.models[index]);
}

bool AppState::set_placement(int index, const ModelPlacement& placement, bool fit_grid) {
  const std::string what = "cannot place model " + std::string(kModelNames[index]);
  if (!placeable()) {
    report(what + ": the scene's keyframes place it", true);
    return false;
  }
  return attempt(what, [&] {
    if (!(placement.scale > 0)) throw InvalidInput("the scale must be > 0");
    SceneModel& model = m_loaded.scene.models[index];
    const UpAxis up   = scene_up(m_loaded.scene);
    if (!m_rest[index]) m_rest[index] = rest_of(m_loaded.models[index], model, up);
    viewer::set_placement(model, placement);
    place_model(*m_rest[index], model, up, m_loaded.models[index]);
    if (fit_grid) {
      m_loaded.config.grid =
          voxhash::fit_grid(m_loaded.scene, m_loaded.models, m_settings.resolution);
      m_pipeline->set_grid(m_loaded.config.grid);
    }
    set_scene_models(*m_pipeline, m_loaded, m_time);
    m_dirty = true;
  });
}

Bounds AppState::view_bounds() const {
  Bounds box{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
  if (m_loaded.scene.motion.kind != MotionKind::Keyframes) {
    for (const PlacedModel& model : m_loaded.models) {
      if (!(model.bounds.min.x <= model.bounds.max.x)) continue;  // no finite point
      box.min = {std::min(box.min.x, model.bounds.min.x),
                 std::min(box.min.y, model.bounds.min.y),
                 std::min(box.min.z, model.bounds.min.z)};
      box.max = {std::max(box.max.x, model.bounds.max.x),
                 std::max(box.max.y, model.bounds.max.y),
                 std::max(box.max.z, model.bounds.max.z)};
    }
  }
  return box.min.x <= box.max.x ? box : m_pipeline->config().grid.bounds;
}

bool AppState::save_scene(const std::string& path) {
  Scene scene     = m_loaded.scene;
  scene.algorithm = m_settings.algorithm;
  scene.time      = m_time;
  if (scene.points == 0) scene.points = m_settings.points_per_model;
  if (scene.grid.voxel_size <= 0 && scene.grid.resolution <= 0) {
    scene.grid.resolution = m_settings.resolution;
  }
  if (scene.motion.kind == MotionKind::Swing) {
    const AnimationParams& a = m_settings.animation;
    scene.motion.speed       = a.speed;
    scene.motion.separation  = a.separation;
    scene.motion.deformation = a.deformation;
    scene.motion.amount      = a.amount;
  }
  if (!attempt("cannot save the scene", [&] { voxhash::save_scene(scene, path); })) return false;
  report("saved the scene to " + path, false);
  return true;
}

bool AppState::compute_clash() {
  if (m_dirty || !m_has_frame) {
    m_clash_requested = true;
    return true;
  }
  return run_clash();
}

bool AppState::run_clash() {
  m_clash_requested = false;
  m_frames_to_clash = m_clash_interval;
  return attempt("cannot compute the clash report", [&] {
    ClashOptions options;
    options.max_regions = kClashRegions;
    options.tolerance   = m_loaded.scene.tolerance;
    options.clearance   = m_loaded.scene.clearance;
    for (int i = 0; i < 2; ++i) {
      options.model_names[i] = m_loaded.models[i].name;
      options.part_names[i]  = m_loaded.models[i].cloud.part_names;
    }
    m_clash      = compute_clash_report(*m_pipeline, options);
    m_clash_time = m_time;
    merge_clash_status();
  });
}

void AppState::merge_clash_status() {
  if (!m_status || !m_clash) return;
  clash::ClashNames names;
  clash::ClashRun run;
  for (int i = 0; i < 2; ++i) {
    names.models[i] = m_loaded.models[i].name;
    names.parts[i]  = m_loaded.models[i].cloud.part_names;
  }
  run.scene_file  = m_loaded.scene.file;
  run.time        = m_clash_time;
  m_status->shown = m_status->saved;
  (void)m_status->shown.update(*m_clash, names, run);
  m_status->unsaved = true;
}

bool AppState::open_clash_status(const std::string& path) {
  StatusFile file;
  if (!attempt("cannot open the status file",
               [&] { file.saved = clash::ClashStatus::read(path); })) {
    return false;
  }
  file.shown    = file.saved;
  m_status      = std::move(file);
  m_status_path = path;
  merge_clash_status();
  report("clash status: " + path + " (" + std::to_string(m_status->saved.runs()) + " run(s))",
         false);
  return true;
}

bool AppState::edit_clash_status(const std::string& id,
                                 const std::string& status,
                                 const std::string& assignee,
                                 const std::string& comment) {
  if (!m_status) {
    report("cannot edit the clash status: no status file open", true);
    return false;
  }
  clash::ClashStatus edited = m_status->shown;
  if (!attempt("cannot edit the clash status", [&] {
        edited.edit(id, status, assignee, comment);
        edited.write(m_status_path);
      })) {
    return false;
  }
  m_status->saved   = edited;
  m_status->shown   = std::move(edited);
  m_status->unsaved = false;
  report("clash " + id + ": " + status + ", saved to " + m_status_path, false);
  return true;
}

bool AppState::save_clash_status() {
  if (!m_status) {
    report("cannot save the clash status: no status file open", true);
    return false;
  }
  if (!attempt("cannot save the clash status", [&] { m_status->shown.write(m_status_path); })) {
    return false;
  }
  m_status->saved   = m_status->shown;
  m_status->unsaved = false;
  report("saved the clash status to " + m_status_path + " (run " +
             std::to_string(m_status->saved.runs()) + ")",
         false);
  return true;
}

std::string AppState::part_name(int index, std::uint32_t part) const {
  const std::vector<std::string>& names = m_loaded.models[index].cloud.part_names;
  if (part < names.size() && !names[part].empty()) return names[part];
  return "part " + std::to_string(part);
}

void AppState::recover(const std::string& error) {
  m_dirty     = true;
  m_has_frame = false;
  m_rest      = {};
  if (!m_previous) {
    report(error + " (paused)", true);
    m_paused = true;
    return;
  }
  Snapshot previous = std::move(*m_previous);
  m_previous.reset();
  if (previous.models) {
    m_loaded.models = std::move(*previous.models);
  } else {
    // The models stay as they are placed now.
    for (int i = 0; i < 2; ++i) {
      previous.scene.models[i].pose  = m_loaded.scene.models[i].pose;
      previous.scene.models[i].scale = m_loaded.scene.models[i].scale;
    }
  }
  m_loaded.scene  = std::move(previous.scene);
  m_loaded.config = previous.config;
  m_models        = previous.info;
  m_settings      = previous.settings;
  m_pipeline.reset();  // the failed scene's memory first
  try {
    m_pipeline = make_pipeline(config(m_settings));
    report(error + "; back to the previous scene (" + std::to_string(m_settings.points_per_model) +
               " points per model, grid " + std::to_string(m_settings.resolution) + ", " +
               std::string(to_string(m_settings.algorithm)) + ")",
           true);
  } catch (const std::exception& e) {
    // Not even that fits: no models, so that every part of the state agrees (the panel can load
    // or re-sample smaller ones).
    m_loaded.models = {};
    for (ModelInfo& model : m_models)
      model = {model.name, model.path, 0, 0, 0};
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
    pose_scene(*m_pipeline, m_loaded.scene, m_time);
    bridge.reserve(point_counts());
    m_stats = bridge.run_frame(*m_pipeline, m_time);
  } catch (const std::exception& e) {
    recover(std::string("frame failed: ") + e.what());
    return false;
  }
  m_has_frame = true;
  m_previous.reset();
  m_history.push(m_stats);
  update_grid_warnings();
  if (m_clash_requested || (m_clash_interval > 0 && --m_frames_to_clash <= 0)) run_clash();
  return true;
}

}  // namespace voxhash::viewer
