// `voxhash clash`: frames of one or more scenes, headless on the chosen backend, and their clash
// reports (compute_clash_report): one clash per pair of parts (kind, volume, depth or gap,
// location, id), the intersection's clash regions, per-model totals, names and warnings, as text,
// and through app/clash's writers as JSON, CSV, PLY, BCF, HTML and the status file; or over a
// motion's times, the sweep: when each pair of parts starts and stops clashing.
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/gpu_budget.hpp>
#include <voxhash/scene.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace voxhash::cli {

/// A run of `voxhash clash`, every default resolved by the command line.
struct ClashCommand {
  std::vector<Scene> scenes;  // one or more, command-line overrides applied to each
  Backend backend = Backend::Cpu;
  SceneDefaults defaults;      // points and resolution where the scene gives none
  std::optional<double> time;  // the pose to check; default: the scene's time
  /// --times: the poses to check, increasing, each scene's models loaded once; empty: one pose.
  std::vector<double> times;
  bool sweep = false;  // fold the times' reports into per-pair intervals (ClashSweep)
  std::string json_path, csv_path, ply_path;  // empty: not written
  std::string regions_csv_path;               // the regions' CSV; empty: not written
  std::string bcf_path;                       // the clashes as BCF 2.1; empty: not written
  std::string html_path;                      // the report as an HTML page; empty: not written
  std::string status_path;                    // the status file kept across runs; empty: none
  bool no_touching = false;                   // leave touching clashes out
  bool exit_code   = false;                   // return kClashesFound when clashes are listed
  std::string command_line;                   // the invocation, for the report
};

/// Where output `path` goes for the run named `label` of a batch: the label inserted before the
/// file's extension ("out.json", "a" -> "out.a.json"; "out", "a" -> "out.a"); `path` itself for
/// an empty label (a run of one scene at one time).
[[nodiscard]] std::string run_output_path(const std::string& path, const std::string& label);

/// The label of a batch's run of scene `scene` (its file's stem, empty when the batch has one
/// scene) at `time` ("t" and the time to 9 digits, e.g. "t0.05"; nothing without --times):
/// "a", "t0.5", "a.t0.5" or "".
[[nodiscard]] std::string run_label(const ClashCommand& command,
                                    std::size_t scene,
                                    std::optional<double> time);

/// The exit code of `voxhash clash --exit-code` when the report lists a clash (1 and 2 stay
/// failure and usage).
inline constexpr int kClashesFound = 3;

/// Runs each scene's frames (at each of `times`, the models loaded once per scene) and writes the
/// reports, or per scene the sweep. Returns the exit code: 0, or with `exit_code` kClashesFound
/// when any report lists a clash; throws voxhash::Error on failure.
int run_clash(const ClashCommand& command);

}  // namespace voxhash::cli
