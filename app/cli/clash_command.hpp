// `voxhash clash`: one frame of a scene, headless on the chosen backend, and its clash report
// (compute_clash_report): one clash per pair of parts (kind, volume, depth or gap, location, id),
// the intersection's clash regions, per-model totals, names and warnings, as text, and through
// app/clash's writers as JSON, CSV and a PLY of the clash band's voxels.
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/gpu_budget.hpp>
#include <voxhash/scene.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace voxhash::cli {

/// A run of `voxhash clash`, every default resolved by the command line.
struct ClashCommand {
  Scene scene;  // command-line overrides applied
  Backend backend = Backend::Cpu;
  SceneDefaults defaults;                     // points and resolution where the scene gives none
  std::optional<double> time;                 // the pose to check; default: the scene's time
  std::string json_path, csv_path, ply_path;  // empty: not written
  std::string regions_csv_path;               // the regions' CSV; empty: not written
  std::string bcf_path;                       // the clashes as BCF 2.1; empty: not written
  std::string html_path;                      // the report as an HTML page; empty: not written
  std::string status_path;                    // the status file kept across runs; empty: none
  bool no_touching = false;                   // leave touching clashes out
  bool exit_code   = false;                   // return kClashesFound when clashes are listed
  std::string command_line;                   // the invocation, for the report
  // The part pairs' join (ClashOptions::gpu_budget): the scene's gpu_budget (after --gpu-budget),
  // which also caps the frame's tables; none by default.
  GpuBudget gpu_budget{};
};

/// The exit code of `voxhash clash --exit-code` when the report lists a clash (1 and 2 stay
/// failure and usage).
inline constexpr int kClashesFound = 3;

/// Runs the frame and writes the report. Returns the exit code: 0, or with `exit_code`
/// kClashesFound when the report lists a clash; throws voxhash::Error on failure.
int run_clash(const ClashCommand& command);

}  // namespace voxhash::cli
