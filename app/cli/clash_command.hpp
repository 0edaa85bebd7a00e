// `voxhash clash`: one frame of a scene, headless on the chosen backend, and its clash report
// (compute_clash_report): the intersection's clash regions (voxels, volume, bounding box and
// centroid in scene units, the pairs of parts involved), per-model totals and names, as text, and
// through app/clash's writers as JSON, CSV and a PLY of the clash band's voxels.
#pragma once

#include <voxhash/backend.hpp>
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
  std::string command_line;                   // the invocation, for the report
  // The part pairs' join: bytes for its build table (0: no budget); the scene's gpu_budget (after
  // --gpu-budget), which also caps the frame's tables.
  std::size_t gpu_budget = 0;
};

/// Runs the frame and writes the report. Returns the exit code (0 with or without clashes);
/// throws voxhash::Error on failure.
int run_clash(const ClashCommand& command);

}  // namespace voxhash::cli
