// Writing a ClashReport (voxhash/clash.hpp) for people and tools: JSON (schema voxhash-clash/2,
// through nlohmann-json), CSV (one row per clash, and apart one row per region and part pair, for
// spreadsheets) and a PLY of only the clash band's voxels coloured by region; and the warnings a
// report's solids give. What `voxhash clash` calls; the model and part
// names, and what the report was run on (scene, time, per-model counts), come from the caller.
#pragma once

#include <voxhash/buffer.hpp>
#include <voxhash/clash.hpp>
#include <voxhash/pipeline.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace voxhash::clash {

/// Names for a report: each model's, and each model's part names by part id. A part id without a
/// name is written "part N"; an empty model name "model A" / "model B".
struct ClashNames {
  std::array<std::string, 2> models;
  std::array<std::vector<std::string>, 2> parts;

  [[nodiscard]] std::string model(int index) const;
  [[nodiscard]] std::string part(int model, std::uint32_t id) const;
};

/// What a report was run on, for the JSON (`voxhash clash` fills it from its scene and frame).
struct ClashRun {
  std::string command_line;
  std::string scene_file, scene_name, unit;  // the scene and its length unit
  std::string up = "y";                      // the scene's up axis: the report's locations' axes
  std::string backend, algorithm;
  double time      = 0;                     // seconds: the pose checked
  double tolerance = 0, clearance = 0;      // scene units (ClashOptions)
  bool touching = true;                     // touching clashes listed
  std::array<std::string, 2> paths;         // each model's file
  std::array<ModelFrameStats, 2> models{};  // the frame's counts per model
  std::vector<std::string> warnings;        // one line each
  MemoryPeaks memory{};                     // peaks since the scene was opened (memory_peaks)
};

/// What the report's solids warn about, one line each: a model without a solid (not a mesh: its
/// clashes are shared surface voxels, without volume or depth) and each model's open parts.
[[nodiscard]] std::vector<std::string> solid_warnings(const ClashReport& report,
                                                      const ClashNames& names);

/// The clash id as text: 16 hex digits.
[[nodiscard]] std::string id_text(std::uint64_t id);

/// The report as JSON: the clashes (id, kind, parts, volume, depth, distance, resolution,
/// centroid, box, contact voxels; null where a model has no solid) and their counts per kind,
/// models (names, part names), grid, totals (regions, voxels, volume, part
/// pairs over all regions) and the listed regions ranked by size, each with its rank, voxels,
/// volume, world box, centroid, cell box and part pairs (names and ids). With `run`, also the
/// command line, scene, backend, algorithm, time and warnings, and each model's file, points and
/// counts (voxels, intersection, inside, outside, outside the grid, and whether that is over
/// kOutsideGridWarning). World units are the models' (volumes in units cubed). Throws
/// InvalidInput when the file cannot be written.
void write_clash_json(const ClashReport& report,
                      const std::string& path,
                      const ClashNames& names = {},
                      const ClashRun* run     = nullptr);

/// The clashes as CSV: a header, then one row per clash in the report's order: id, kind, the two
/// model names, the two parts (id and name), volume, depth, distance, resolution, the centroid,
/// the world box and the contact voxels (empty fields where a model has no solid). Throws
/// InvalidInput when the file cannot be written.
void write_clash_csv(const ClashReport& report,
                     const std::string& path,
                     const ClashNames& names = {});

/// The clash regions as CSV: a header, then one row per (region, part pair) in rank order: rank,
/// voxels, volume, the world box, the centroid, the two model names, the two parts (id and name)
/// and the pair's voxels. Throws InvalidInput when the file cannot be written.
void write_clash_regions_csv(const ClashReport& report,
                             const std::string& path,
                             const ClashNames& names = {});

/// A binary PLY point cloud of the clash band: every intersection voxel's centre, coloured by its
/// region (a palette cycled by rank; grey beyond the listed regions). Needs a report computed
/// with ClashOptions::voxels; throws InvalidInput without them or when the file cannot be written.
void write_clash_ply(const ClashReport& report, const std::string& path);

}  // namespace voxhash::clash
