// `voxhash clash`: loads and places the scene's models (memory checked first), runs one frame at
// the scene's time with no instances, groups the intersection into clash regions on the backend
// (compute_clash_report, with each model's part ids) and writes the report: a summary on stdout,
// and JSON, CSV and the clash band's PLY through the writers in app/clash.
#include "clash/clash_bcf.hpp"
#include "clash/clash_html.hpp"
#include "clash/clash_report.hpp"
#include "clash/clash_status.hpp"
#include "cli/clash_command.hpp"

#include <voxhash/clash.hpp>
#include <voxhash/error.hpp>
#include <voxhash/io.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

namespace voxhash::cli {
namespace {

/// "(x, y, z)" to a tenth of a voxel of `voxel` (what the grid resolves), in fixed notation: a
/// georeferenced 4512003.5 stays that (not %g's 4.512e+06), and a centroid on a symmetry plane
/// reads 0.000, not -3.9115548e-08.
std::string position(Float3 p, double voxel) {
  const int decimals =
      voxel > 0 ? std::clamp(static_cast<int>(std::ceil(-std::log10(voxel / 10))), 0, 9) : 6;
  const double step  = std::pow(10.0, -decimals);
  const float xyz[3] = {p.x, p.y, p.z};
  std::string out    = "(";
  for (int a = 0; a < 3; ++a) {
    // Rounded first, and +0.0 so that a value rounding to zero prints without a minus sign.
    const double v = std::round(static_cast<double>(xyz[a]) / step) * step + 0.0;
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", decimals, v);
    out.append(text).append(a < 2 ? ", " : ")");
  }
  return out;
}

void print_summary(const LoadedScene& loaded,
                   const Pipeline& pipeline,
                   const FrameStats& stats,
                   const ClashReport& report,
                   const clash::ClashNames& names,
                   double time) {
  const Scene& scene     = loaded.scene;
  const std::string unit = std::string(to_string(scene.unit));
  const Grid& grid       = pipeline.grid();
  const double voxel     = grid.voxel_size.x;
  std::printf("scene %s (%s), unit %s, time %g s, %s backend, %s\n",
              scene.name.c_str(),
              scene.file.c_str(),
              unit.c_str(),
              time,
              std::string(to_string(pipeline.backend())).c_str(),
              std::string(to_string(pipeline.config().algorithm)).c_str());
  std::printf("grid %d x %d x %d, voxel %g %s\n",
              grid.resolution.x,
              grid.resolution.y,
              grid.resolution.z,
              grid.voxel_size.x,
              unit.c_str());
  for (int i = 0; i < 2; ++i) {
    const ModelFrameStats& m = stats.model[i];
    std::printf(
        "model %c %s: %zu points (%zu outside the grid), %zu voxels, %zu intersecting, "
        "%zu inside %c\n",
        'A' + i,
        loaded.models[i].name.c_str(),
        m.points,
        m.outside_grid,
        m.voxels,
        m.intersection,
        m.inside,
        'B' - i);
  }
  std::printf("%zu clashes: %zu hard, %zu touching, %zu clearance%s\n",
              report.clashes.size(),
              report.kind_counts[0],
              report.kind_counts[1],
              report.kind_counts[2],
              report.solids ? "" : " (surfaces only: a model is not a mesh)");
  for (const Clash& c : report.clashes) {
    std::printf("  %016llx  %-9s %s x %s",
                static_cast<unsigned long long>(c.id),
                std::string(to_string(c.kind)).c_str(),
                names.part(0, c.part_a).c_str(),
                names.part(1, c.part_b).c_str());
    if (c.kind == ClashKind::Clearance) {
      std::printf("  distance %g %s", c.distance, unit.c_str());
    } else if (report.solids) {
      std::printf("  volume %g %s^3  depth %g %s", c.volume, unit.c_str(), c.depth, unit.c_str());
    } else {
      std::printf("  %zu contact voxels", c.contact_voxels);
    }
    std::printf("  at %s\n", position(c.centroid, voxel).c_str());
  }
  std::printf("%zu clash regions, %zu voxels, %g %s^3\n",
              report.total_regions,
              report.voxels,
              report.volume,
              unit.c_str());
  for (std::size_t r = 0; r < report.regions.size(); ++r) {
    const ClashRegion& g = report.regions[r];
    std::printf("  #%zu  %zu voxels  %g %s^3  centroid %s  box %s-%s\n",
                r + 1,
                g.voxels,
                g.volume,
                unit.c_str(),
                position(g.centroid, voxel).c_str(),
                position(g.bounds.min, voxel).c_str(),
                position(g.bounds.max, voxel).c_str());
    for (const PartPair& p : g.parts) {
      std::printf("      %s x %s: %zu voxels\n",
                  names.part(0, p.part_a).c_str(),
                  names.part(1, p.part_b).c_str(),
                  p.voxels);
    }
  }
}

}  // namespace

int run_clash(const ClashCommand& command) {
  const Scene& scene = command.scene;
  const OpenScene open =
      open_scene(scene, {.backend = command.backend, .defaults = command.defaults});
  const LoadedScene& loaded = open.loaded;
  const double time         = command.time.value_or(scene.time);
  const std::unique_ptr<Pipeline> owned =
      make_scene_pipeline(command.backend, open.configs.front(), loaded, time);
  Pipeline& pipeline     = *owned;
  const FrameStats stats = pipeline.run_frame(time, {.write_instances = false});

  clash::ClashNames names;
  ClashOptions options;
  options.voxels     = !command.ply_path.empty();
  options.gpu_budget = command.gpu_budget;
  options.tolerance  = scene.tolerance;
  options.clearance  = scene.clearance;
  options.touching   = !command.no_touching;
  for (int i = 0; i < 2; ++i) {
    names.models[i]        = loaded.models[i].name;
    names.parts[i]         = loaded.models[i].cloud.part_names;
    options.model_names[i] = names.model(i);
    options.part_names[i]  = names.parts[i];
  }
  ClashReport report = compute_clash_report(pipeline, options);
  to_scene_axes(report, scene_up(scene));  // every location in the scene's (the files') axes

  clash::ClashRun run;
  run.command_line = command.command_line;
  run.scene_file   = scene.file;
  run.scene_name   = scene.name;
  run.unit         = std::string(to_string(scene.unit));
  run.up           = std::string(to_string(scene_up(scene)));
  run.backend      = std::string(to_string(pipeline.backend()));
  run.algorithm    = std::string(to_string(pipeline.config().algorithm));
  run.time         = time;
  run.tolerance    = options.tolerance;
  run.clearance    = options.clearance;
  run.touching     = options.touching;
  run.warnings     = loaded.warnings;
  for (const std::string& line : frame_warnings(stats, names.models))
    run.warnings.push_back(line);
  for (const std::string& line : clash::solid_warnings(report, names))
    run.warnings.push_back(line);
  for (int i = 0; i < 2; ++i) {
    run.paths[i]  = model_files(scene.models[i]);
    run.models[i] = stats.model[i];
  }
  for (const std::string& warning : run.warnings)
    std::cerr << "voxhash: warning: " << warning << std::endl;
  for (const std::string& note : loaded.notes)
    std::cout << note << "\n";
  print_summary(loaded, pipeline, stats, report, names, time);
  if (!command.json_path.empty()) clash::write_clash_json(report, command.json_path, names, &run);
  if (!command.csv_path.empty()) clash::write_clash_csv(report, command.csv_path, names);
  if (!command.regions_csv_path.empty()) {
    clash::write_clash_regions_csv(report, command.regions_csv_path, names);
  }
  if (!command.ply_path.empty()) clash::write_clash_ply(report, command.ply_path);
  if (!command.bcf_path.empty()) clash::write_clash_bcf(report, command.bcf_path, names, &run);
  if (!command.html_path.empty()) clash::write_clash_html(report, command.html_path, names, &run);
  if (!command.status_path.empty()) {
    const clash::StatusCounts s =
        clash::update_clash_status(report, command.status_path, names, run);
    std::cout << "status: " << s.fresh << " new, " << s.active << " active, " << s.resolved
              << " resolved (run " << s.run << " of " << command.status_path << ")\n";
  }
  return command.exit_code && !report.clashes.empty() ? kClashesFound : 0;
}

}  // namespace voxhash::cli
