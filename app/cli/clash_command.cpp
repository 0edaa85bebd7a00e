// `voxhash clash`: per scene, loads and places the models once (memory checked first), runs a
// frame at each time asked for (posed by pose_scene, no instances), computes the clash report on
// the backend (compute_clash_report, with each model's part ids) and writes it: a summary on
// stdout and the files through app/clash's writers, named per run in a batch; or folds the
// times' reports into a sweep and writes that.
#include "clash/clash_bcf.hpp"
#include "clash/clash_html.hpp"
#include "clash/clash_report.hpp"
#include "clash/clash_status.hpp"
#include "clash/clash_sweep.hpp"
#include "cli/clash_command.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/clash.hpp>
#include <voxhash/error.hpp>
#include <voxhash/io.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace voxhash::cli {
namespace {

/// A time or a length to 9 significant digits, as the outputs' labels and the text write them:
/// 0.05 * 3 reads 0.15, not 0.15000000000000002.
std::string figure(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value + 0.0);
  return text;
}

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

/// The run's first lines: the scene, when (`when`: "time 1.5 s" or the sweep's times), the
/// backend and algorithm, and the grid.
void print_scene(const LoadedScene& loaded, const Pipeline& pipeline, const std::string& when) {
  const Scene& scene     = loaded.scene;
  const std::string unit = std::string(to_string(scene.unit));
  const Grid& grid       = pipeline.grid();
  std::printf("scene %s (%s), unit %s, %s, %s backend, %s\n",
              scene.name.c_str(),
              scene.file.c_str(),
              unit.c_str(),
              when.c_str(),
              std::string(to_string(pipeline.backend())).c_str(),
              std::string(to_string(pipeline.config().algorithm)).c_str());
  std::printf("grid %d x %d x %d, voxel %g %s\n",
              grid.resolution.x,
              grid.resolution.y,
              grid.resolution.z,
              grid.voxel_size.x,
              unit.c_str());
}

void print_summary(const LoadedScene& loaded,
                   const Pipeline& pipeline,
                   const FrameStats& stats,
                   const ClashReport& report,
                   const clash::ClashNames& names,
                   double time) {
  const std::string unit = std::string(to_string(loaded.scene.unit));
  const double voxel     = pipeline.grid().voxel_size.x;
  print_scene(loaded, pipeline, "time " + figure(time) + " s");
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

/// The sweep: per pair of parts, each interval it clashes over and its worst figures.
void print_sweep(const clash::ClashSweep& sweep, const clash::ClashNames& names, LengthUnit unit) {
  const std::vector<double>& times       = sweep.times();
  const std::vector<clash::SweepPair> ps = sweep.pairs();
  const std::string u                    = std::string(to_string(unit));
  std::printf("sweep: %zu times from %s to %s s; %zu pair(s) of parts clash\n",
              times.size(),
              figure(times.front()).c_str(),
              figure(times.back()).c_str(),
              ps.size());
  for (const clash::SweepPair& p : ps) {
    std::printf("  %s x %s: first contact at %s s, %zu interval(s), %s s in all\n",
                names.part(0, p.part_a).c_str(),
                names.part(1, p.part_b).c_str(),
                figure(p.intervals.front().start).c_str(),
                p.intervals.size(),
                figure(p.clashing_time()).c_str());
    for (const clash::SweepInterval& i : p.intervals) {
      std::string line = "    from " + figure(i.start) + " s " +
                         (i.end ? "to " + figure(*i.end) + " s (" + figure(i.duration()) + " s)"
                                : "on, still clashing at " + figure(i.last) + " s (the last time)");
      line += ": " + std::string(to_string(i.kind));
      if (!std::isnan(i.max_depth)) {
        line += ", depth " + figure(i.max_depth) + " " + u + " at " + figure(i.max_depth_time) +
                " s, volume " + figure(i.max_volume) + " " + u + "^3 at " +
                figure(i.max_volume_time) + " s";
      }
      if (!std::isnan(i.min_distance)) {
        line += ", gap " + figure(i.min_distance) + " " + u + " at " + figure(i.min_distance_time) +
                " s";
      }
      std::printf("%s\n", line.c_str());
    }
  }
}

/// What the report was run on, for its files.
clash::ClashRun describe_run(const ClashCommand& command,
                             const LoadedScene& loaded,
                             const Pipeline& pipeline,
                             const FrameStats& stats,
                             const ClashReport& report,
                             const ClashOptions& options,
                             const clash::ClashNames& names,
                             double time) {
  const Scene& scene = loaded.scene;
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
  run.memory = memory_peaks(pipeline.backend());
  return run;
}

/// The run's memory peaks, one line.
void print_memory(const MemoryPeaks& memory) {
  std::printf("memory: peak device %s, pinned host %s, host %s (voxhash's buffers)\n",
              format_bytes(memory.device).c_str(),
              format_bytes(memory.pinned).c_str(),
              format_bytes(memory.host).c_str());
}

/// One report's files, each at its path for the run named `label`.
void write_report(const ClashCommand& command,
                  const std::string& label,
                  const ClashReport& report,
                  const clash::ClashNames& names,
                  const clash::ClashRun& run) {
  const auto path = [&](const std::string& p) { return run_output_path(p, label); };
  if (!command.json_path.empty())
    clash::write_clash_json(report, path(command.json_path), names, &run);
  if (!command.csv_path.empty()) clash::write_clash_csv(report, path(command.csv_path), names);
  if (!command.regions_csv_path.empty()) {
    clash::write_clash_regions_csv(report, path(command.regions_csv_path), names);
  }
  if (!command.ply_path.empty()) clash::write_clash_ply(report, path(command.ply_path));
  if (!command.bcf_path.empty())
    clash::write_clash_bcf(report, path(command.bcf_path), names, &run);
  if (!command.html_path.empty()) {
    clash::write_clash_html(report, path(command.html_path), names, &run);
  }
  if (!command.status_path.empty()) {
    const std::string status    = path(command.status_path);
    const clash::StatusCounts s = clash::update_clash_status(report, status, names, run);
    std::cout << "status: " << s.fresh << " new, " << s.active << " active, " << s.resolved
              << " resolved (run " << s.run << " of " << status << ")\n";
  }
}

/// Scene `index` of the batch: its models loaded once, a frame and a report at each time, each
/// report written (or, for a sweep, folded and the sweep written). Returns whether any report
/// listed a clash.
bool run_scene(const ClashCommand& command, std::size_t index) {
  const Scene& scene = command.scenes[index];
  reset_memory_peaks(command.backend);  // the scene's run: its models, frames and reports
  const OpenScene open =
      open_scene(scene, {.backend = command.backend, .defaults = command.defaults});
  const LoadedScene& loaded = open.loaded;
  const std::vector<double> times =
      command.times.empty() ? std::vector{command.time.value_or(scene.time)} : command.times;
  const std::unique_ptr<Pipeline> owned =
      make_scene_pipeline(command.backend, open.configs.front(), loaded, times.front());
  Pipeline& pipeline = *owned;

  clash::ClashNames names;
  ClashOptions options;
  options.voxels     = !command.ply_path.empty();
  options.gpu_budget = scene.gpu_budget.value_or(GpuBudget{});
  options.tolerance  = scene.tolerance;
  options.clearance  = scene.clearance;
  options.touching   = !command.no_touching;
  for (int i = 0; i < 2; ++i) {
    names.models[i]        = loaded.models[i].name;
    names.parts[i]         = loaded.models[i].cloud.part_names;
    options.model_names[i] = names.model(i);
    options.part_names[i]  = names.parts[i];
  }

  for (const std::string& note : loaded.notes)
    std::cout << note << "\n";

  clash::ClashSweep sweep;
  clash::ClashRun sweep_run;
  std::set<std::string> warned;  // each warning once per scene, however many times repeat it
  bool clashes = false;
  for (std::size_t t = 0; t < times.size(); ++t) {
    const double time = times[t];
    pose_scene(pipeline, loaded.scene, time);
    const FrameStats stats = pipeline.run_frame(time, {.write_instances = false});
    ClashReport report     = compute_clash_report(pipeline, options);
    to_scene_axes(report, scene_up(scene));  // every location in the scene's (the files') axes
    clashes = clashes || !report.clashes.empty();
    clash::ClashRun run =
        describe_run(command, loaded, pipeline, stats, report, options, names, time);
    for (const std::string& warning : run.warnings) {
      if (!warned.insert(warning).second) continue;
      std::cerr << "voxhash: warning: " << warning << std::endl;
      if (command.sweep) sweep_run.warnings.push_back(warning);
    }
    if (command.sweep) {
      sweep.add(time, report);
      if (t == 0) {
        std::vector<std::string> warnings = std::move(sweep_run.warnings);
        sweep_run                         = run;
        sweep_run.warnings                = std::move(warnings);
      }
      continue;
    }
    if (t > 0) std::printf("\n");
    print_summary(loaded, pipeline, stats, report, names, time);
    print_memory(run.memory);
    write_report(command,
                 run_label(command, index, times.size() > 1 ? std::optional(time) : std::nullopt),
                 report,
                 names,
                 run);
  }
  if (command.sweep) {
    print_scene(
        loaded, pipeline, "times " + figure(times.front()) + " to " + figure(times.back()) + " s");
    print_sweep(sweep, names, scene.unit);
    sweep_run.memory = memory_peaks(command.backend);
    print_memory(sweep_run.memory);
    const std::string label = run_label(command, index, std::nullopt);
    if (!command.json_path.empty()) {
      clash::write_sweep_json(sweep, run_output_path(command.json_path, label), names, &sweep_run);
    }
    if (!command.csv_path.empty()) {
      clash::write_sweep_csv(sweep, run_output_path(command.csv_path, label), names);
    }
  }
  return clashes;
}

}  // namespace

std::string run_output_path(const std::string& path, const std::string& label) {
  if (label.empty()) return path;
  const std::filesystem::path p(path);
  return (p.parent_path() / (p.stem().string() + "." + label + p.extension().string())).string();
}

std::string run_label(const ClashCommand& command, std::size_t scene, std::optional<double> time) {
  std::string label;
  if (command.scenes.size() > 1) {
    label = std::filesystem::path(command.scenes[scene].file).stem().string();
  }
  if (time) label += (label.empty() ? "t" : ".t") + figure(*time);
  return label;
}

int run_clash(const ClashCommand& command) {
  bool clashes = false;
  for (std::size_t s = 0; s < command.scenes.size(); ++s) {
    if (s > 0) std::printf("\n");
    clashes = run_scene(command, s) || clashes;
  }
  return command.exit_code && clashes ? kClashesFound : 0;
}

}  // namespace voxhash::cli
