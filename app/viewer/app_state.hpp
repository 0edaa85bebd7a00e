// The viewer's scene state, free of GL and UI: the pipeline, the two models, the settings the
// panel edits, animation time (pause, single step, reset), the last frame's statistics and their
// history, and the message shown to the user. Tests drive it headlessly through a BufferBridge.
#pragma once

#include "viewer/buffer_bridge.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/geometry.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/pipeline.hpp>

#include <array>
#include <cstddef>
#include <memory>
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
  std::size_t points_per_model = 200000;
  int resolution               = 256;
  TableKind algorithm          = TableKind::Cuckoo;
  double cuckoo_space          = BuildOptions{}.cuckoo_space;
  double load                  = BuildOptions{}.load;
  AnimationParams animation;
};

struct ModelInfo {
  std::string path;
  std::size_t points    = 0;
  std::size_t dropped   = 0;  // non-finite points the loader skipped
  std::size_t triangles = 0;  // a mesh: voxelized from its triangles; 0: a point cloud
};

class AppState {
 public:
  /// One step: what request_step() advances, and the fixed step of --frames runs.
  static constexpr double kStep = 1.0 / 60.0;

  /// Loads both models (throws voxhash::InvalidInput naming the file if one cannot be loaded).
  AppState(Backend backend, const SceneSettings& settings, const std::array<std::string, 2>& paths);

  [[nodiscard]] Backend backend() const { return m_backend; }
  [[nodiscard]] const SceneSettings& settings() const { return m_settings; }

  void set_algorithm(TableKind kind);
  void set_resolution(int resolution);
  void set_animation(const AnimationParams& animation);
  /// Cuckoo space and HashGraph load: the pipeline is recreated with the new BuildOptions.
  void set_table_options(double cuckoo_space, double load);
  /// Re-samples both models; on failure keeps them, sets the message and returns false.
  bool set_points_per_model(std::size_t points);
  /// Loads model `index` from `path`; on failure keeps the current one, sets the message and
  /// returns false.
  bool load_model(int index, const std::string& path);

  void toggle_pause() { m_paused = !m_paused; }
  [[nodiscard]] bool paused() const { return m_paused; }
  /// Advances one 1/60 s step on the next update, even while paused.
  void request_step() { m_step = true; }
  /// Back to time 0.
  void reset();

  /// Advances the animation time by `dt` seconds unless paused, and runs a frame through `bridge`
  /// when the time or a setting changed. A frame that throws (voxhash::OutOfMemory, ...) sets the
  /// message and pauses. Returns true when a frame ran and succeeded.
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

 private:
  [[nodiscard]] static PipelineConfig config(const SceneSettings& settings);
  /// A model as loaded: its sampled points, and its triangles when it is a mesh.
  struct LoadedModel {
    std::vector<Float3> rest;
    Mesh mesh;
  };
  /// Loads `path` with the current points per model into `model`; on failure sets the message.
  bool read_model(int index, const std::string& path, LoadedModel& model, ModelInfo& info);
  /// Hands model `index` to `pipeline`: a mesh with its triangles, else its points.
  static void set_pipeline_model(Pipeline& pipeline, int index, const LoadedModel& model);
  /// Runs f(); an exception becomes the error message "what: ..." and false.
  template <class F>
  bool attempt(const std::string& what, F&& f);
  void report(std::string message, bool is_error);

  Backend m_backend;
  SceneSettings m_settings;
  std::unique_ptr<Pipeline> m_pipeline;
  std::array<LoadedModel, 2> m_loaded;
  std::array<ModelInfo, 2> m_models;

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
