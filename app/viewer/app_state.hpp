// The viewer's scene state, free of GL and UI: the scene and its two placed models, the pipeline,
// the settings the panel edits, animation time (pause, single step, reset, a chosen time), each
// model's placement, the last frame's statistics and their history, the clash report (on demand
// or every N frames) and the clashes' status file (clash::ClashStatus: shown, edited, saved),
// saving the scene, and the messages shown to the user (per model for loads). Changes that need
// memory are checked against free memory first; a frame that fails after a change goes back to the
// scene before it. Tests drive it headlessly through a BufferBridge.
#pragma once

#include "clash/clash_status.hpp"
#include "viewer/placement.hpp"
#include "viewer/render_buffer.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/clash.hpp>
#include <voxhash/geometry.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/pipeline.hpp>
#include <voxhash/scene.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace voxhash::viewer {

/// Fixed-size scrolling histories of the per-frame rates and times for the panel's plots
/// (ImGui::PlotLines with a ring offset); pushing never allocates.
class StatsHistory {
 public:
  static constexpr int kSize = 240;

  void push(const FrameStats& stats) {
    m_build[m_next]    = static_cast<float>(stats.build_keys_per_s * 1e-9);
    m_probe[m_next]    = static_cast<float>(stats.probe_keys_per_s * 1e-9);
    m_total_ms[m_next] = static_cast<float>(stats.ms.total);
    m_next             = (m_next + 1) % kSize;
  }

  /// G keys/s per frame, oldest first from offset().
  [[nodiscard]] const float* build_rate() const { return m_build.data(); }
  [[nodiscard]] const float* probe_rate() const { return m_probe.data(); }
  [[nodiscard]] const float* total_ms() const { return m_total_ms.data(); }
  [[nodiscard]] int offset() const { return m_next; }

 private:
  std::array<float, kSize> m_build{};
  std::array<float, kSize> m_probe{};
  std::array<float, kSize> m_total_ms{};
  int m_next = 0;
};

/// What the panel can change; every change takes effect on the next frame.
struct SceneSettings {
  std::size_t points_per_model = 200000;  // where the scene gives no count
  int resolution               = 256;     // voxels along the grid's longest axis
  TableKind algorithm          = TableKind::Cuckoo;
  double cuckoo_space          = kFrameCuckooSpace;
  double load                  = BuildOptions{}.load;
  AnimationParams animation;
};

struct ModelInfo {
  std::string name;  // the scene's name for it, else the file's stem
  std::string path;
  std::size_t points    = 0;
  std::size_t dropped   = 0;  // non-finite points the loader skipped
  std::size_t triangles = 0;  // a mesh: voxelized from its triangles; 0: a point cloud
};

class AppState {
 public:
  /// One step: what request_step() advances, and the fixed step of --frames runs.
  static constexpr double kStep = 1.0 / 60.0;

  /// Loads and places both models of `scene` (throws voxhash::InvalidInput naming the file and the
  /// field if one cannot be loaded, and voxhash::OutOfMemory, before loading, if the scene cannot
  /// fit in free memory); the settings' points and resolution apply where the scene gives none, its
  /// algorithm and table options always. Keyframed scenes are posed every frame.
  AppState(Backend backend, const SceneSettings& settings, const Scene& scene);
  /// The demo's set-up for two model files: the settings' animation, the default grid bounds.
  AppState(Backend backend, const SceneSettings& settings, const std::array<std::string, 2>& paths);

  [[nodiscard]] Backend backend() const { return m_backend; }
  [[nodiscard]] const SceneSettings& settings() const { return m_settings; }

  void set_algorithm(TableKind kind);
  void set_resolution(int resolution);
  void set_animation(const AnimationParams& animation);
  /// Cuckoo space and HashGraph load: the pipeline is recreated with the new BuildOptions.
  void set_table_options(double cuckoo_space, double load);
  /// Re-samples both models; on failure (the scene would not fit in free memory, which is checked
  /// first; a file error) keeps them, sets the message and returns false.
  bool set_points_per_model(std::size_t points);
  /// Loads model `index` from `path` with the scene's placement (the grid is fitted again where
  /// the scene fits it); on failure (as above) keeps the current one, sets the message and returns
  /// false.
  bool load_model(int index, const std::string& path);
  [[nodiscard]] const Scene& scene() const { return m_loaded.scene; }
  /// Why the last load into model `index` failed; empty after a good one.
  [[nodiscard]] const std::string& model_error(int index) const { return m_model_errors[index]; }

  /// Model `index`'s placement as the scene gives it.
  [[nodiscard]] ModelPlacement placement(int index) const;
  /// Places model `index` again (from its rest copy, on the host; the pipeline gets it on the next
  /// frame) and keeps it in the scene. `fit_grid`: the grid is fitted again to the placed models
  /// (the end of a drag or an edit); without it the grid stays while the model moves. Keyframed
  /// scenes place their models by keyframe: refused with a message, false.
  bool set_placement(int index, const ModelPlacement& placement, bool fit_grid);
  /// What the home view and "fit view" frame: both models where they are placed (for the swing,
  /// at rest, centred), or for keyframed scenes the grid, which holds their whole motion.
  [[nodiscard]] Bounds view_bounds() const;
  /// False for keyframed scenes (their models follow the keyframes).
  [[nodiscard]] bool placeable() const {
    return m_loaded.scene.motion.kind != MotionKind::Keyframes;
  }
  /// The scene as it runs now (placements, grid, motion, algorithm, points, time) as a scene file
  /// that load_scene reads back; the message says what was written or why not.
  bool save_scene(const std::string& path);

  /// The clash report of the current scene (regions ranked by size, at most kClashRegions listed):
  /// now from the last frame if nothing changed since, else after the next frame. A failure is the
  /// message and false.
  bool compute_clash();
  /// Compute the clash report after every `frames` good frames; 0: only on demand.
  void set_clash_interval(int frames) {
    m_clash_interval  = std::max(frames, 0);
    m_frames_to_clash = m_clash_interval;
  }
  [[nodiscard]] int clash_interval() const { return m_clash_interval; }
  [[nodiscard]] const std::optional<ClashReport>& clash() const { return m_clash; }
  /// The animation time the clash report was computed at.
  [[nodiscard]] double clash_time() const { return m_clash_time; }
  /// The name of part `part` of model `index` ("part N" when it has none).
  [[nodiscard]] std::string part_name(int index, std::uint32_t part) const;
  static constexpr std::size_t kClashRegions = 100;

  /// Keeps the clashes' status in the file at `path` (the format `voxhash clash --status` reads
  /// and writes, clash::ClashStatus): read now when it exists, else started empty. Each clash
  /// report is then merged into it as the next run (new / active / resolved; what a person wrote
  /// kept), shown by clash_status() and written on save_clash_status() and on every edit. A file
  /// that is not a status file is the message and false, and the status kept before stays.
  bool open_clash_status(const std::string& path);
  [[nodiscard]] const std::string& clash_status_path() const { return m_status_path; }
  /// The status file with the current report merged in (what saving writes); null without one.
  [[nodiscard]] const clash::ClashStatus* clash_status() const {
    return m_status ? &m_status->shown : nullptr;
  }
  /// Whether the shown status holds a report that is not written yet.
  [[nodiscard]] bool clash_status_unsaved() const { return m_status && m_status->unsaved; }
  /// A person's edit of clash `id` (status, assignee, comment), written to the file at once
  /// (atomically, through write_file) with the report merged in. A bad status, an id the file
  /// does not list or a failed write is the message and false; nothing changes then.
  bool edit_clash_status(const std::string& id,
                         const std::string& status,
                         const std::string& assignee,
                         const std::string& comment);
  /// Writes the shown status (the current report as a run) to the file.
  bool save_clash_status();

  void toggle_pause() { m_paused = !m_paused; }
  [[nodiscard]] bool paused() const { return m_paused; }
  /// Advances one 1/60 s step on the next update, even while paused.
  void request_step() { m_step = true; }
  /// Back to the scene's own time (its "time": the pose `voxhash clash` checks).
  void reset();
  /// Poses the scene at `time` seconds (next frame runs there, paused or not).
  void set_time(double time);

  /// Advances the animation time by `dt` seconds unless paused, and runs a frame through `bridge`
  /// when the time or a setting changed. A frame that throws (voxhash::OutOfMemory, ...) sets the
  /// error message; if settings or models changed since the last good frame, the scene goes back
  /// to what it was then and keeps running (the next update runs it), else it pauses. Returns true
  /// when a frame ran and succeeded.
  bool update(BufferBridge& bridge, double dt);

  [[nodiscard]] double time() const { return m_time; }
  [[nodiscard]] const FrameStats& stats() const { return m_stats; }
  [[nodiscard]] const StatsHistory& history() const { return m_history; }
  [[nodiscard]] const std::array<ModelInfo, 2>& models() const { return m_models; }
  [[nodiscard]] std::array<std::size_t, 2> point_counts() const;
  [[nodiscard]] const Pipeline& pipeline() const { return *m_pipeline; }

  /// The last message for the user (model loaded, load failed, frame failed); empty at first.
  [[nodiscard]] const std::string& message() const { return m_message; }
  [[nodiscard]] bool message_is_error() const { return m_message_is_error; }
  /// Per model, from the last good frame: "model A (path): 37.5 % of its 200000 points are outside
  /// the grid" when more than kOutsideGridWarning of them were; else empty.
  [[nodiscard]] const std::array<std::string, 2>& grid_warnings() const { return m_grid_warnings; }
  /// What loading the scene warned of (points dropped for NaN / Inf, far coordinates, ...).
  [[nodiscard]] const std::vector<std::string>& scene_warnings() const { return m_loaded.warnings; }

 private:
  /// What a failing frame goes back to: the settings, the scene and its grid, and the placed models
  /// if they changed too.
  struct Snapshot {
    SceneSettings settings;
    Scene scene;
    PipelineConfig config;
    std::optional<std::array<PlacedModel, 2>> models;
    std::array<ModelInfo, 2> info;
  };

  /// The pipeline configuration of `settings` in the loaded scene's grid.
  [[nodiscard]] PipelineConfig config(const SceneSettings& settings) const;
  /// A pipeline for `config` holding the current models, posed at the current time.
  [[nodiscard]] std::unique_ptr<Pipeline> make_pipeline(const PipelineConfig& config) const;
  /// The models of `scene` read and placed for `settings` (open_scene: memory checked before
  /// reading, voxhash::OutOfMemory, and again for the fitted grid and the models' real counts);
  /// throws voxhash::InvalidInput naming the file and the field when a model cannot be read.
  [[nodiscard]] LoadedScene read_scene(const Scene& scene, const SceneSettings& settings) const;
  /// Makes `loaded` the scene with `settings` (the pipeline's grid and models too), remembering the
  /// one before; if the pipeline cannot take it, goes back (recover) and returns false.
  bool use_scene(LoadedScene loaded, const SceneSettings& settings, const std::string& what);
  /// m_models from the loaded scene.
  void update_model_info();
  /// Before a change: keeps the scene as it is (once per good frame), the models too if
  /// `models_change`.
  void remember_scene(bool models_change);
  /// After a frame or a change of models failed with `error`: the remembered scene back, or a
  /// pause if there is none; the message says which.
  void recover(const std::string& error);
  void update_grid_warnings();
  /// Computes the clash report from the pipeline's last frame.
  bool run_clash();
  /// The saved status with the current report merged in as the next run.
  void merge_clash_status();
  /// Runs f(); an exception becomes the error message "what: ..." and false.
  template <class F>
  bool attempt(const std::string& what, F&& f);
  void report(std::string message, bool is_error);

  Backend m_backend;
  SceneSettings m_settings;
  std::unique_ptr<Pipeline> m_pipeline;
  LoadedScene m_loaded;
  std::array<ModelInfo, 2> m_models;
  std::optional<Snapshot>
      m_previous;  // the scene of the last good frame, while changes are untried
  std::array<std::string, 2> m_grid_warnings;
  std::array<std::string, 2> m_model_errors;
  std::array<std::optional<RestModel>, 2> m_rest;  // made on the first placement after a load
  std::optional<ClashReport> m_clash;
  /// The status file: as written, and as shown (with the current report merged in).
  struct StatusFile {
    clash::ClashStatus saved, shown;
    bool unsaved = false;
  };
  std::optional<StatusFile> m_status;
  std::string m_status_path;
  double m_clash_time    = 0;
  int m_clash_interval   = 0;
  int m_frames_to_clash  = 0;
  bool m_clash_requested = false;
  bool m_has_frame       = false;  // the pipeline holds a good frame of the current scene

  double m_time = 0;
  bool m_paused = false;
  bool m_step   = false;
  bool m_dirty  = true;  // a setting changed since the last frame
  FrameStats m_stats;
  StatsHistory m_history;
  std::string m_message;
  bool m_message_is_error = false;
};

}  // namespace voxhash::viewer
