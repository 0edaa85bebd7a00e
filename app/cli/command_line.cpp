// The CLI11 definition of `voxhash`: every subcommand and its flags, the checks the subcommands
// share (counts with K/M/G suffixes or 2^k, ranges, names, input and output paths), the defaults
// that depend on the backend, and CLI11's errors turned into one line naming the flag.
#include "cli/command_line.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/scene.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

namespace voxhash::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxPoints = std::size_t{1} << 30;
constexpr int kMaxFrames         = 1 << 30;
constexpr int kMinResolution = 2, kMaxResolution = kMaxGridResolution;
constexpr double kMaxSoakMinutes = 7 * 24 * 60;

const std::vector<std::string> kBackendNames{"cpu", "cuda", "auto"};

std::vector<std::string> algorithm_names() {
  std::vector<std::string> names;
  for (const TableKind kind : kTableKinds)
    names.emplace_back(to_string(kind));
  return names;
}

std::vector<std::string> sweep_names() {
  std::vector<std::string> names;
  for (const bench::Sweep sweep : bench::kSweeps)
    names.emplace_back(to_string(sweep));
  return names;
}

/// Counts: an integer with an optional K, M or G suffix (10^3, 10^6, 10^9, either case), or 2^k.
CLI::Validator count() {
  const CLI::AsNumberWithUnit suffixes(
      std::map<std::string, std::uint64_t>{{"k", 1'000}, {"m", 1'000'000}, {"g", 1'000'000'000}},
      static_cast<CLI::AsNumberWithUnit::Options>(CLI::AsNumberWithUnit::CASE_INSENSITIVE |
                                                  CLI::AsNumberWithUnit::UNIT_OPTIONAL));
  return CLI::Validator(
      [suffixes](std::string& text) -> std::string {
        if (!text.starts_with("2^")) return suffixes(text);
        unsigned exponent = 0;
        if (!CLI::detail::lexical_cast(text.substr(2), exponent) || exponent > 62) {
          return "'" + text + "' is not 2^k with k an integer up to 62";
        }
        text = std::to_string(std::uint64_t{1} << exponent);
        return {};
      },
      "",
      "COUNT");
}

/// "X,Y,Z" as three finite numbers, else nothing.
std::optional<Float3> parse_translation(const std::string& text) {
  std::array<float, 3> v{};
  std::istringstream in(text);
  for (int i = 0; i < 3; ++i) {
    char comma = ',';
    if ((i > 0 && !(in >> comma)) || comma != ',' || !(in >> v[i]) || !std::isfinite(v[i])) {
      return std::nullopt;
    }
  }
  in >> std::ws;
  if (!in.eof()) return std::nullopt;
  return Float3{v[0], v[1], v[2]};
}

/// Byte sizes (parse_bytes): an integer with an optional unit, K/KiB, M/MiB, G/GiB, T/TiB (binary)
/// or KB, MB, GB, TB (decimal), e.g. 2GiB; more than 0.
CLI::Validator byte_size() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::optional<std::size_t> bytes = parse_bytes(text);
        if (!bytes) return "'" + text + "' is not a byte size such as 512MiB or 2GiB";
        if (*bytes == 0) return "'" + text + "' is no memory: give more than 0 bytes";
        text = std::to_string(*bytes);
        return {};
      },
      "",
      "SIZE");
}

/// A model to read: any non-empty path (a missing file is reported, naming it, when it is read).
/// A length with an optional unit (parse_length: "25mm", "1in"; no unit: the scene's).
CLI::Validator length() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        if (parse_length(text, LengthUnit::Meter)) return {};
        return "'" + text + "' is not a length of 0 or more such as 25mm, 1in or 0.05";
      },
      "",
      "LENGTH");
}

/// A finite number from `min` to `max` (CLI::Range lets NaN through: it fails no comparison).
CLI::Validator number_in(double min, double max) {
  return CLI::Validator(
      [=](const std::string& text) -> std::string {
        char* end      = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !(v >= min && v <= max)) {
          std::ostringstream range;
          range << min << " to " << max;
          return "'" + text + "' is not a number from " + range.str();
        }
        return {};
      },
      "",
      "NUMBER");
}

/// The most poses `voxhash clash --times` checks in one run.
constexpr std::size_t kMaxTimes = 100'000;

/// A finite number filling all of `text`, else nothing.
std::optional<double> parse_number(std::string_view text) {
  const std::string s(text);
  char* end      = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

/// --times: "T0:T1:STEP" (T0, T0 + STEP, ... up to T1, T1 itself when STEP divides the range) or a
/// list "0,0.5,1" of increasing times; at most kMaxTimes. What is wrong, or the times.
std::variant<std::string, std::vector<double>> parse_times(const std::string& text) {
  std::vector<std::string_view> fields;
  const char separator = text.find(':') != std::string::npos ? ':' : ',';
  for (std::size_t at = 0;;) {
    const std::size_t next = text.find(separator, at);
    fields.emplace_back(std::string_view(text).substr(at, next - at));
    if (next == std::string::npos) break;
    at = next + 1;
  }
  std::vector<double> values;
  for (const std::string_view field : fields) {
    const std::optional<double> v = parse_number(field);
    if (!v)
      return "'" + std::string(field) + "' in '" + text + "' is not a finite number of seconds";
    values.push_back(*v);
  }
  if (separator == ',') {
    if (values.size() > kMaxTimes) {
      return "'" + text + "' lists " + std::to_string(values.size()) + " times (at most " +
             std::to_string(kMaxTimes) + ")";
    }
    for (std::size_t i = 1; i < values.size(); ++i) {
      if (!(values[i] > values[i - 1])) {
        return "'" + text + "': the times must increase (" + std::string(fields[i]) + " follows " +
               std::string(fields[i - 1]) + ")";
      }
    }
    return values;
  }
  if (values.size() != 3) return "'" + text + "' is not T0:T1:STEP (three numbers)";
  const double from = values[0], to = values[1], step = values[2];
  if (!(step > 0)) return "'" + text + "': STEP must be more than 0";
  if (to < from) return "'" + text + "': T1 is before T0";
  // The last time within a millionth of a step of T1 counts as T1 (0:1:0.1 ends at 1).
  const double steps = std::floor((to - from) / step + 1e-6);
  if (!(steps + 1 <= static_cast<double>(kMaxTimes))) {
    char count[32];
    std::snprintf(count, sizeof count, "%.15g", steps + 1);
    return "'" + text + "' is " + count + " times (at most " + std::to_string(kMaxTimes) +
           "): give a larger STEP";
  }
  // Each time as its 12 significant digits read back: 0 + 46 * 0.1 is 4.6, not 4.6000000000000005.
  for (std::size_t i = 0; i <= static_cast<std::size_t>(steps); ++i) {
    char time[32];
    std::snprintf(time, sizeof time, "%.12g", from + static_cast<double>(i) * step);
    values.push_back(std::strtod(time, nullptr));
    if (values.size() > 4 && !(values.back() > values[values.size() - 2])) {
      return "'" + text + "': STEP is too small to tell times of this size apart (12 digits)";
    }
  }
  values.erase(values.begin(), values.begin() + 3);
  return values;
}

CLI::Validator times() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        const auto parsed = parse_times(text);
        return std::holds_alternative<std::string>(parsed) ? std::get<std::string>(parsed) : "";
      },
      "",
      "TIMES");
}

/// A length above 0 with an optional unit (a voxel's size).
CLI::Validator positive_length() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        const std::optional<double> v = parse_length(text, LengthUnit::Meter);
        if (v && *v > 0) return {};
        return "'" + text + "' is not a length above 0 such as 2cm, 1in or 0.05";
      },
      "",
      "LENGTH");
}

CLI::Validator input_file() {
  return CLI::Validator(
      [](const std::string& path) -> std::string { return path.empty() ? "empty path" : ""; },
      "",
      "INPUT");
}

/// A file to write: non-empty, not a folder, in a folder that exists, so that a run never does
/// all its work and then fails to save it.
CLI::Validator output_file() {
  return CLI::Validator(
      [](const std::string& path) -> std::string {
        if (path.empty()) return "empty path";
        std::error_code ec;
        if (fs::is_directory(path, ec)) return "'" + path + "' is a folder";
        const fs::path folder = fs::path(path).parent_path();
        if (!folder.empty() && !fs::is_directory(folder, ec)) {
          return "folder '" + folder.string() + "' of '" + path + "' does not exist";
        }
        return {};
      },
      "",
      "OUTPUT");
}

template <class T>
CLI::Option* add_count(CLI::App& app,
                       const std::string& flag,
                       T& target,
                       T min,
                       T max,
                       const std::string& description) {
  return app.add_option(flag, target, description)
      ->transform(count())
      ->check(CLI::Range(min, max).description(""))
      ->option_text("N");
}

CLI::Option* add_choice(CLI::App& app,
                        const std::string& flag,
                        std::string& target,
                        const std::vector<std::string>& names,
                        const std::string& description) {
  return app.add_option(flag, target, description)
      ->check(CLI::IsMember(names).description(""))
      ->option_text("NAME");
}

CLI::Option* add_output(CLI::App& app,
                        const std::string& flag,
                        std::string& target,
                        const std::string& description) {
  return app.add_option(flag, target, description)->check(output_file())->option_text("FILE");
}

/// A clipping plane "AXIS:OFFSET" (x, y or z, and a number), or nothing.
std::optional<std::pair<int, float>> parse_clip(const std::string& text) {
  if (text.size() < 3 || text[1] != ':' || (text[0] < 'x' || text[0] > 'z')) return std::nullopt;
  try {
    std::size_t used  = 0;
    const float value = std::stof(text.substr(2), &used);
    if (used != text.size() - 2 || !std::isfinite(value)) return std::nullopt;
    return std::pair{text[0] - 'x', value};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The flags more than one subcommand takes, each defined once.

/// A translation "X,Y,Z" in scene units.
CLI::Validator translation() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        return parse_translation(text) ? "" : "'" + text + "' is not X,Y,Z (three numbers)";
      },
      "",
      "X,Y,Z");
}

/// The flags that choose and change a scene, as given (empty / 0: not given).
struct SceneFlags {
  std::string scene, model_a, model_b, translate_a, translate_b;
  std::vector<std::string> scenes;  // `voxhash clash`'s positional scenes (scene: each in turn)
  std::string voxel_size;           // a length ("2cm", "0.05": the scene's unit)
  std::size_t gpu_budget_bytes = 0;
  bool files_outside_folder    = false;
};

/// --gpu-budget SIZE: the scene's GPU budget (PipelineConfig::gpu_budget); `also` (a line of its
/// own, ending in "\n") says what else it caps.
void add_gpu_budget(CLI::App& app, SceneFlags& flags, const std::string& also = "") {
  app.add_option("--gpu-budget",
                 flags.gpu_budget_bytes,
                 "the two models' tables may take SIZE of device memory; beyond it they\n"
                 "are paged (Starfish tables, pages beyond the budget in pinned host\n"
                 "memory), e.g. 512MiB, 1GiB, 2GB (= 2 * 10^9);\n" +
                     also + "default: the scene's gpu_budget, else none")
      ->transform(byte_size())
      ->option_text("SIZE");
}

void add_scene_flags(CLI::App& app, SceneFlags& flags, bool positional) {
  const std::string scene_help =
      "scene file (JSON, docs/SCENES.md); default: the bundled demo\n"
      "(assets/demo.json), or the models given by --model-a/-b";
  if (positional) {
    app.add_option("scene",
                   flags.scenes,
                   scene_help + ";\nseveral: each in turn, its files named after it (out.a.json)")
        ->check(input_file())
        ->option_text("SCENE...");
  } else {
    app.add_option("--scene", flags.scene, scene_help)->check(input_file())->option_text("FILE");
  }
  app.add_option("--model-a",
                 flags.model_a,
                 "first model, replacing the scene's: a mesh sampled by area (OBJ, PLY, STL,\n"
                 "glTF/GLB or another format assimp reads), or a point cloud: OBJ/PLY without\n"
                 "faces, LAS, or text (XYZ, PTS, TXT, CSV);\n"
                 "without a scene: in place, fitted grid, no motion")
      ->check(input_file())
      ->option_text("PATH");
  app.add_option("--model-b", flags.model_b, "second model, as --model-a")
      ->check(input_file())
      ->option_text("PATH");
  app.add_option("--voxel-size",
                 flags.voxel_size,
                 "cubic voxels of this size (2cm, 1in; no unit: the scene's; replaces the\n"
                 "scene's grid.voxel_size / resolution; the grid's bounds still fit the models)")
      ->check(positive_length())
      ->option_text("LENGTH");
  app.add_option("--translate-a",
                 flags.translate_a,
                 "place the first model at X,Y,Z in scene units (replaces its translate)")
      ->check(translation());
  app.add_option("--translate-b", flags.translate_b, "place the second model at X,Y,Z")
      ->check(translation());
  app.add_flag("--files-outside-folder",
               flags.files_outside_folder,
               "let the model files refer to files outside their own folders (a glTF's\n"
               "buffers by ../ or a link); without it such a reference is refused");
}

void add_points(CLI::App& app, std::size_t& points, const char* defaults) {
  add_count<std::size_t>(
      app,
      "--points",
      points,
      1,
      kMaxPoints,
      std::string("points per model, 1 to 2^30, K/M/G suffixes or 2^k\n") + defaults);
}

void add_resolution(CLI::App& app, int& resolution, const char* defaults) {
  add_count(app,
            "--res",
            resolution,
            kMinResolution,
            kMaxResolution,
            std::string("grid resolution per axis, 2 to 2097152 (2^21; beyond 1024\n"
                        "(31 key bits) the frame runs on 64-bit keys) ") +
                defaults);
}

void add_algorithm(CLI::App& app, std::string& algorithm) {
  add_choice(app,
             "--algo",
             algorithm,
             algorithm_names(),
             "hash table: cuckoo, hashgraph-v1, hashgraph-v2 or bcht (bucketed cuckoo;\n"
             "default cuckoo)");
}

void add_backend(CLI::App& app, std::string& backend) {
  add_choice(app,
             "--backend",
             backend,
             kBackendNames,
             "cpu, cuda or auto (default auto: cuda when a device exists)");
}

CLI::Option* add_frames(CLI::App& app, int& frames, const std::string& description) {
  return add_count(app, "--frames", frames, 1, kMaxFrames, description);
}

/// `relative` (e.g. "assets/sphere.obj") under the source tree the binary was built from when it
/// exists there, else as given (relative to the working directory).
std::string default_model_path(const std::string& relative) {
  const fs::path in_source = fs::path(VOXHASH_SOURCE_DIR) / relative;
  std::error_code ec;
  return fs::exists(in_source, ec) ? in_source.string() : relative;
}

struct Help {
  std::string text;
};
using Invocation = std::variant<Help, viewer::ViewerOptions, bench::Options, ClashCommand>;

/// The whole command tree; parse() once per instance.
class CommandLine {
 public:
  CommandLine() {
    m_app.require_subcommand(1);
    m_app.get_formatter()->column_width(26);
    define_view();
    m_bench = m_app.add_subcommand(
        "bench", "The headless benchmarks: device limits, hash tables, joins, the frame pipeline.");
    m_bench->require_subcommand(1);
    define_limits();
    define_tables();
    define_join();
    define_frame();
    define_clash();
  }
  CommandLine(const CommandLine&)            = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  /// `args` is argv[1..); without a subcommand the arguments are the viewer's. Throws UsageError,
  /// or InvalidInput when the backend asked for is not available.
  Invocation parse(const std::vector<std::string>& args) {
    m_view_implied = args.empty() || args.front().starts_with("-");
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    if (m_view_implied) reversed.emplace_back("view");
    try {
      m_app.parse(reversed);
    } catch (const CLI::CallForHelp&) {
      return Help{m_app.help()};
    } catch (const CLI::ParseError& e) {
      throw usage_error(e);
    }
    std::string command_line = "voxhash";
    for (const std::string& arg : args)
      command_line += " " + arg;
    if (m_view->parsed()) return view_options();
    if (m_clash->parsed()) return clash_command(std::move(command_line));
    return bench_options(std::move(command_line));
  }

 private:
  void define_view() {
    m_view = m_app.add_subcommand(
        "view",
        "The desktop viewer (the default: `voxhash [options]` is `voxhash view [options]`).\n"
        "A scene's two models (the bundled demo: two animated models passing through each\n"
        "other); every frame both are voxelized, hashed (cuckoo or HashGraph), probed for\n"
        "intersecting voxels and flood-filled into inside / outside labels.");
    viewer::ViewerOptions& o = m_view_options;
    add_scene_flags(*m_view, m_view_scene, false);
    add_points(*m_view, o.points, "(default 1M on CUDA, 200k on CPU)");
    add_resolution(*m_view, o.resolution, "(default 512 on CUDA, 256 on CPU)");
    add_algorithm(*m_view, m_view_algorithm);
    add_backend(*m_view, m_view_backend);
    CLI::Option* frames =
        add_frames(*m_view, m_view_frames, "render N frames with fixed 1/60 s steps, then exit");
    add_output(*m_view, "--screenshot", o.screenshot, "save a PNG after the last frame")
        ->needs(frames);
    add_output(*m_view,
               "--export",
               o.export_path,
               "save the last frame's labelled voxels as a PLY point cloud of voxel\n"
               "centres coloured by label")
        ->needs(frames);
    add_gpu_budget(*m_view, m_view_scene);
    m_view->add_flag("--offscreen", o.offscreen, "render without a window, on an EGL device")
        ->needs(frames);
    m_view->add_flag("--timing",
                     o.timing,
                     "print per-frame transfer timings (CUDA-GL interop map / unmap,\n"
                     "pipeline, instances, draw) and their medians; on CUDA then the same\n"
                     "frames into plain device buffers");
    m_view->add_flag(
        "--no-interop", o.no_interop, "upload from host memory even where CUDA-GL interop works");
    m_view->add_flag("--no-panel", o.no_panel, "hide the ImGui panel");
    add_choice(*m_view,
               "--tab",
               o.tab,
               {"scene", "clash", "view", "stats", "setup"},
               "the panel's tab open at first (default scene)");
    add_choice(*m_view,
               "--select",
               m_view_selected,
               {"a", "b"},
               "the model the placement tools edit at first (default a)");
    m_view->add_flag("--cuda-draw",
                     o.cuda_draw,
                     "draw points and voxels with CUDA into a GL texture, in the frame's\n"
                     "CUDA-GL interop map (GL draws where interop is unavailable, and X-ray)");
    m_view->add_flag("--xray", o.xray, "show the outside voxels translucent (X-ray)");
    m_view
        ->add_option("--clip",
                     m_view_clip,
                     "cut the view with a plane across an axis at OFFSET (world units);\n"
                     "what lies beyond it is cut away, e.g. x:0.25")
        ->check(CLI::Validator(
            [](const std::string& text) -> std::string {
              return parse_clip(text) ? "" : "'" + text + "' is not AXIS:OFFSET (x, y or z)";
            },
            "",
            "AXIS:OFFSET"));
    add_count(*m_view,
              "--clash-every",
              o.clash_every,
              0,
              1 << 30,
              "compute the clash report (the panel's clash list) every N frames\n"
              "(default 0: only when asked)");
    add_output(*m_view,
               "--status",
               o.status_path,
               "the clashes' status file (as `voxhash clash --status` keeps it): the clash\n"
               "tab shows each clash's status, assignee and comment, edits and saves them");
    add_count(*m_view, "--width", o.width, 64, 16384, "window or image width (default 1280)");
    add_count(*m_view, "--height", o.height, 64, 16384, "window or image height (default 800)");
    m_view->footer(
        "Keys: left drag orbit, right/middle drag pan, scroll zoom, Space pause, N single step,\n"
        "R reset, F fit view, M mouse mode (orbit / move / turn the selected model), Tab\n"
        "selected model, V vsync, H panel, O overlay, F12 screenshot, F11 export voxels\n"
        "(voxhash-voxels-NNN.ply), 1/2/3/4 algorithm, Esc quit. Drop model files on the window\n"
        "to load them.\n"
        "Other commands: voxhash clash SCENE (the clash report: which parts clash, how much,\n"
        "how deep, how close; voxhash clash --help) and voxhash bench (headless benchmarks;\n"
        "voxhash bench --help).");
  }

  /// The flags every bench command takes.
  CLI::App* add_bench_command(bench::Command command, const std::string& description) {
    CLI::App* app = m_bench->add_subcommand(to_string(command), description);
    m_bench_commands[static_cast<std::size_t>(command)] = app;
    bench::Options& o                                   = m_bench_options;
    add_backend(*app, m_bench_backend);
    add_output(*app,
               "--json",
               o.json_path,
               "write the results as JSON (schema voxhash-bench/1, docs/BENCH_SCHEMA.md)");
    add_output(*app, "--csv", o.csv_path, "write the results as CSV, one row per result");
    CLI::Option* quick =
        app->add_flag("--quick", o.quick, "small sizes (the default on the cpu backend)");
    app->add_flag("--full", m_full, "full sizes on the cpu backend too")->excludes(quick);
    app->footer(
        "Tables go to stdout, progress to stderr. Sizes that do not fit in free memory are "
        "skipped\nwith a message.");
    return app;
  }

  void define_limits() {
    add_bench_command(bench::Command::Limits,
                      "Measure the device's ceilings: random reads and 64-bit exchanges (DRAM- "
                      "and L2-sized\ntables), device copy, radix sort of pairs.");
  }

  void define_tables() {
    CLI::App* app = add_bench_command(
        bench::Command::Tables,
        "Hash-table micro-benchmarks: cuckoo, HashGraph V1/V2 and a sorted-array baseline.\n"
        "Without --sweep the default set (cuckoo 50M keys at 1.25N; HashGraph 2^25 and 2^28 "
        "keys,\nunique and multiplicity 32), each rate also given as a fraction of its bound from "
        "the\nlimits measured in the same run.");
    add_count(*app,
              "--runs",
              m_bench_options.runs,
              3,
              1000,
              "timed runs per figure, median reported (at least 3; default 5, quick 3)");
    app->add_option("--sweep",
                    m_sweeps,
                    "load, multiplicity, size or misses: instead of the default set, sweep\n"
                    "cuckoo space 1.05-2.0 and HashGraph load 0.25-2 (32M keys),\n"
                    "multiplicity 1-32, size 1M-256M, or the fraction of missing queries\n"
                    "0-1; may be repeated")
        ->check(CLI::IsMember(sweep_names()).description(""))
        ->option_text("NAME");
    CLI::Option* paged = app->add_flag(
        "--paged",
        m_bench_options.paged,
        "instead, the paged cuckoo table (Starfish): a table 4x the GPU budget (insert and\n"
        "find against the pinned-copy bound, copy rate / 8 B) and one within it (against the\n"
        "flat cuckoo table), with the GPU memory each uses");
    app->add_option("--gpu-budget",
                    m_bench_gpu_budget,
                    "paged: device memory for pages, e.g. 512MiB, 2GiB (default 2GiB; quick 2MiB)")
        ->transform(byte_size())
        ->needs(paged);
    add_count<std::size_t>(*app,
                           "--page-capacity",
                           m_bench_options.page_capacity,
                           1,
                           std::size_t{1} << 29,
                           "paged: pairs per page (default 2^20, the paper's; quick 2^12)")
        ->needs(paged);
    app->add_option("--page-space",
                    m_bench_options.page_space,
                    "paged: cuckoo slots per pair in a page, 1.05 to 2 (default 1.25); the flat\n"
                    "table it is compared with uses the same")
        ->check(number_in(1.05, 2.0))
        ->needs(paged);
    paged->excludes(app->get_option("--sweep"));
    add_gpus(*app, "build and find rates of 2^29 and 2^30 keys")->excludes(paged);
  }

  /// --gpus G (and the table it partitions, --algo): the suite on 1 GPU and partitioned over G.
  CLI::Option* add_gpus(CLI::App& app, const std::string& what) {
    CLI::Option* gpus = add_count(app,
                                  "--gpus",
                                  m_bench_options.gpus,
                                  1,
                                  1024,
                                  "instead, " + what +
                                      " on one GPU and partitioned over\n"
                                      "G GPUs (NCCL; emulated partitions on the cpu backend)");
    add_algorithm(app, m_bench_algorithm);
    app.get_option("--algo")->needs(gpus);
    return gpus;
  }

  void define_join() {
    CLI::App* app = add_bench_command(
        bench::Command::Join,
        "Joins on every table and a sort-merge baseline: the hash join paper's left join (probe\n"
        "side 8x the unique build side, 2^20..2^28 probe rows, half of them unmatched) and inner\n"
        "joins of 2^26 x 2^26 rows with multiplicity 1, 4, 32 on each side; G probe rows/s and\n"
        "G output pairs/s, each against a bound from the limits measured in the same run.");
    add_count(*app,
              "--runs",
              m_bench_options.runs,
              3,
              1000,
              "timed runs per figure, median reported (at least 3; default 5, quick 3)");
    app->add_option("--gpu-budget",
                    m_bench_gpu_budget,
                    "device memory for the build side's table, e.g. 256MiB, 2GiB: a hash join\n"
                    "whose table exceeds it runs over pages (pages and bytes moved beside the\n"
                    "rates, against the pinned-copy bound); default: no budget")
        ->transform(byte_size());
    add_gpus(*app, "inner joins of 2^29 and 2^30 rows per side");
  }

  void define_frame() {
    CLI::App* app = add_bench_command(
        bench::Command::Frame,
        "The voxel intersection pipeline without a window: per-stage times, build and probe "
        "rates.\nThe viewer's own frame, with GL and CUDA-GL interop, is timed by\n"
        "`voxhash view --offscreen --frames N --timing`.");
    bench::Options& o = m_bench_options;
    add_scene_flags(*app, m_frame_scene, false);
    add_points(*app, o.points, "(default 1M; quick 100k)");
    add_resolution(*app, o.resolution, "(default 512)");
    add_algorithm(*app, m_bench_algorithm);
    add_gpu_budget(*app, m_frame_scene);
    app->add_option("--cuckoo-space",
                    o.cuckoo_space,
                    "slots per key of the cuckoo and bucketed cuckoo tables, 1.05-4\n"
                    "(default 2: load 0.5); less space, longer probes")
        ->check(number_in(1.05, 4.0))
        ->option_text("SPACE");
    app->add_flag("--all-algos",
                  o.all_algorithms,
                  "run every algorithm on the same frames; exit 1 unless every\n"
                  "downloaded output is identical");
    add_frames(*app, o.frames, "timed frames (default 100; quick 10)");
    add_count(
        *app, "--warmup", o.warmup, 0, kMaxFrames, "untimed frames first (default 5; quick 2)");
    add_output(*app,
               "--export",
               o.export_path,
               "write the last frame's labelled voxels as a PLY point cloud (voxel\n"
               "centres: yellow intersection, red inside, grey / blue outside); with\n"
               "--all-algos the first algorithm's");
    CLI::Option* soak =
        app->add_option("--soak",
                        o.soak_minutes,
                        "a soak run: frames for MINUTES (fractions allowed) instead of --frames;\n"
                        "host RSS and backend memory at the start, every minute and at the end\n"
                        "(stages: the last --frames frames)")
            ->check(number_in(1e-3, kMaxSoakMinutes))
            ->option_text("MINUTES");
    app->add_option(
           "--soak-every", o.soak_every_s, "seconds between the soak's memory samples (default 60)")
        ->check(number_in(0.1, 86400.0))
        ->option_text("SECONDS")
        ->needs(soak);
    app->add_flag("--join",
                  o.join,
                  "each frame also joins the two models' point keys (an inner join on the\n"
                  "voxel key, the point indices as values) on the frame's table, timed apart: "
                  "median ms, pairs of the last frame,\n"
                  "G probe rows/s and G pairs/s");
    app->add_flag("--clash",
                  o.clash,
                  "each frame also computes its clash report (compute_clash_report: the\n"
                  "part-pair clashes and the clash regions), timed apart: median ms");
  }

  void define_clash() {
    m_clash = m_app.add_subcommand(
        "clash",
        "One frame of a scene without a window, and its clash report: one clash per pair\n"
        "of parts (a part of model A, a part of model B) whose solids overlap (hard, or\n"
        "touching within --tolerance) or whose surfaces come within --clearance, with the\n"
        "overlap volume, penetration depth or gap, location and a stable id; and the\n"
        "intersection voxels grouped into 26-connected clash regions. Exit code 0, or with\n"
        "--exit-code 3 when clashes were found; 1 on failure, 2 for a bad command line.");
    add_scene_flags(*m_clash, m_clash_scene, true);
    add_points(*m_clash, m_clash_points, "(default 1M on CUDA, 200k on CPU)");
    add_resolution(*m_clash, m_clash_resolution, "(default 512 on CUDA, 256 on CPU)");
    add_algorithm(*m_clash, m_clash_algorithm);
    add_backend(*m_clash, m_clash_backend);
    m_clash
        ->add_option("--time",
                     m_clash_time,
                     "seconds: the pose to check, within +-1e9 as a scene's \"time\" (default:\n"
                     "the scene's, else 0)")
        ->check(number_in(-1e9, 1e9))
        ->option_text("SECONDS");
    m_clash
        ->add_option("--times",
                     m_clash_times,
                     "the poses to check, the models loaded once: T0:T1:STEP (T0, T0 + STEP,\n"
                     "... to T1) or a list 0,0.5,1 of increasing seconds; at most 100000;\n"
                     "a report per time, its files named after it (out.t0.5.json)")
        ->check(times())
        ->excludes("--time");
    m_clash->add_flag("--sweep",
                      m_clash_command.sweep,
                      "with --times: per pair of parts, when it starts and stops clashing\n"
                      "(each interval), for how long, and its worst depth, volume and gap\n"
                      "and when; --json and --csv write the sweep");
    add_output(*m_clash, "--json", m_clash_command.json_path, "write the report as JSON");
    add_output(
        *m_clash, "--csv", m_clash_command.csv_path, "write the clashes as CSV, one row each");
    add_output(*m_clash,
               "--regions-csv",
               m_clash_command.regions_csv_path,
               "write the clash regions as CSV, one row per region and part pair");
    add_output(*m_clash,
               "--bcf",
               m_clash_command.bcf_path,
               "write the clashes as BCF 2.1 (.bcfzip: one topic per clash, a viewpoint\n"
               "framing it, its two parts selected) for Navisworks, Solibri, BIMcollab, ...");
    add_output(*m_clash,
               "--html",
               m_clash_command.html_path,
               "write the report as one self-contained HTML page: counts per kind, warnings,\n"
               "a table of the clashes that sorts by any column");
    add_output(*m_clash,
               "--status",
               m_clash_command.status_path,
               "keep the clashes' status across runs in FILE (new, active, resolved; a\n"
               "person's status, assignee and comment kept): read if it exists, written back");
    m_clash
        ->add_option("--tolerance",
                     m_clash_tolerance,
                     "penetrations up to LENGTH are touching, not hard (25mm, 1in; no unit:\n"
                     "the scene's); default: the scene's \"tolerance\", else 0")
        ->check(length());
    m_clash
        ->add_option("--clearance",
                     m_clash_clearance,
                     "parts closer than LENGTH that do not overlap are clearance clashes; at\n"
                     "least one voxel; default: the scene's \"clearance\", else none")
        ->check(length());
    m_clash->add_flag(
        "--no-touching",
        m_clash_command.no_touching,
        "leave touching clashes (penetration within the tolerance) out of the report");
    m_clash->add_flag("--exit-code",
                      m_clash_command.exit_code,
                      "exit with 3 when the report lists a clash (0 when none)");
    add_output(
        *m_clash, "--export-ply", m_clash_command.ply_path, "write the clash band's voxels as PLY");
    add_gpu_budget(*m_clash,
                   m_clash_scene,
                   "also the part pairs' join table (a larger one is joined over pages);\n");
    m_clash->footer("The report's fields: docs/SCENES.md.");
  }

  /// The scene the flags of `app` ask for, with their overrides applied.
  [[nodiscard]] static Scene resolve_scene(const CLI::App& app,
                                           const SceneFlags& flags,
                                           TableKind algorithm,
                                           std::size_t points,
                                           int resolution) {
    Scene scene;
    const bool model_a = given(app, "--model-a"), model_b = given(app, "--model-b");
    if (!flags.scene.empty()) {
      scene = load_scene(flags.scene);
    } else if (model_a || model_b) {
      scene = scene_of_models(model_a ? flags.model_a : default_model_path("assets/sphere.obj"),
                              model_b ? flags.model_b : default_model_path("assets/torus.obj"));
    } else {
      scene = load_scene(default_model_path("assets/demo.json"));
    }
    for (int i = 0; i < 2; ++i) {
      const std::string& path = i == 0 ? flags.model_a : flags.model_b;
      if (!flags.scene.empty() && given(app, i == 0 ? "--model-a" : "--model-b")) {
        set_model_file(scene, i, path);
      }
      const std::string& translate = i == 0 ? flags.translate_a : flags.translate_b;
      if (!translate.empty()) scene.models[i].pose.translate = *parse_translation(translate);
    }
    if (!flags.voxel_size.empty()) {
      scene.grid.voxel_size = *parse_length(flags.voxel_size, scene.unit);
      scene.grid.resolution = 0;
    }
    if (given(app, "--res")) {
      scene.grid.resolution = resolution;
      scene.grid.voxel_size = 0;
    }
    if (given(app, "--points")) {
      scene.points = points;
      for (SceneModel& model : scene.models)
        model.points = 0;
    }
    if (given(app, "--algo")) scene.algorithm = algorithm;
    if (given(app, "--gpu-budget")) scene.gpu_budget = flags.gpu_budget_bytes;
    if (flags.files_outside_folder) {
      for (SceneModel& model : scene.models) {
        model.files_outside_folder = true;
        for (SceneFile& file : model.files)
          file.files_outside_folder = true;
      }
    }
    return scene;
  }

  [[nodiscard]] ClashCommand clash_command(std::string command_line) const {
    ClashCommand c    = m_clash_command;
    c.command_line    = std::move(command_line);
    c.backend         = parse_backend(m_clash_backend);
    const bool cuda   = c.backend == Backend::Cuda;
    c.defaults.points = given(*m_clash, "--points") ? m_clash_points : cuda ? 1'000'000 : 200'000;
    c.defaults.resolution = given(*m_clash, "--res") ? m_clash_resolution : cuda ? 512 : 256;
    if (given(*m_clash, "--time")) c.time = m_clash_time;
    if (given(*m_clash, "--times"))
      c.times = std::get<std::vector<double>>(parse_times(m_clash_times));
    if (m_clash_scene.scenes.empty() &&
        given(*m_clash, "--model-a") != given(*m_clash, "--model-b")) {
      throw UsageError(
          "voxhash clash: " +
          std::string(given(*m_clash, "--model-a") ? "--model-a" : "--model-b") + " needs " +
          (given(*m_clash, "--model-a") ? "--model-b" : "--model-a") +
          ": a clash check takes two models (or a scene) (see `voxhash clash --help`)");
    }
    if (c.sweep && c.times.empty()) {
      throw UsageError(
          "voxhash clash: --sweep needs --times (the motion's times to sweep) (see "
          "`voxhash clash --help`)");
    }
    if (c.sweep) {
      for (const char* flag : {"--regions-csv", "--export-ply", "--bcf", "--html", "--status"}) {
        if (!given(*m_clash, flag)) continue;
        throw UsageError("voxhash clash: " + std::string(flag) +
                         " does not go with --sweep (a sweep writes its intervals: --json, "
                         "--csv) (see `voxhash clash --help`)");
      }
    }
    const std::vector<std::string> files =
        m_clash_scene.scenes.empty() ? std::vector<std::string>{""} : m_clash_scene.scenes;
    for (const std::string& file : files) {
      SceneFlags flags = m_clash_scene;
      flags.scene      = file;
      Scene scene      = resolve_scene(
          *m_clash, flags, parse_table_kind(m_clash_algorithm), m_clash_points, m_clash_resolution);
      if (given(*m_clash, "--tolerance"))
        scene.tolerance = *parse_length(m_clash_tolerance, scene.unit);
      if (given(*m_clash, "--clearance"))
        scene.clearance = *parse_length(m_clash_clearance, scene.unit);
      if (c.times.size() > 1 && scene.motion.kind == MotionKind::None) {
        const std::string what = m_clash_scene.scenes.empty()
                                     ? std::string("models given without a scene have")
                                     : scene.file + " has";
        throw UsageError("voxhash clash: --times: " + what +
                         " no motion (\"motion\" none: every time is the same pose); give "
                         "--time, or a scene with a swing or keyframes (see `voxhash clash "
                         "--help`)");
      }
      c.scenes.push_back(std::move(scene));
    }
    check_run_outputs(c);
    return c;
  }

  /// Every run of a batch writes files of its own: no two scenes with one stem, no two times with
  /// one label; and each path given is one the runs can write next to.
  void check_run_outputs(const ClashCommand& c) const {
    const std::vector<std::string> outputs = {c.json_path,
                                              c.csv_path,
                                              c.regions_csv_path,
                                              c.ply_path,
                                              c.bcf_path,
                                              c.html_path,
                                              c.status_path};
    const bool writes                      = std::any_of(
        outputs.begin(), outputs.end(), [](const std::string& p) { return !p.empty(); });
    if (!writes) return;
    std::map<std::string, std::string> labels;  // label -> what it names
    const std::size_t per_scene = c.sweep || c.times.size() < 2 ? 1 : c.times.size();
    for (std::size_t s = 0; s < c.scenes.size(); ++s) {
      for (std::size_t t = 0; t < per_scene; ++t) {
        const std::optional<double> time = per_scene > 1 ? std::optional(c.times[t]) : std::nullopt;
        char at_time[48]                 = "";
        if (time) std::snprintf(at_time, sizeof at_time, " at %.17g s", *time);
        const std::string what = c.scenes[s].file + at_time;
        const auto [at, fresh] = labels.emplace(run_label(c, s, time), what);
        if (fresh) continue;
        throw UsageError(
            "voxhash clash: " + what + " and " + at->second + " would write the same files (" +
            run_output_path(*std::find_if(outputs.begin(),
                                          outputs.end(),
                                          [](const std::string& p) { return !p.empty(); }),
                            at->first) +
            "): give the scene files different names, or times further apart (see "
            "`voxhash clash --help`)");
      }
    }
  }

  [[nodiscard]] viewer::ViewerOptions view_options() const {
    viewer::ViewerOptions o = m_view_options;
    if (const auto clip = parse_clip(m_view_clip)) std::tie(o.clip_axis, o.clip_offset) = *clip;
    o.selected_model = m_view_selected == "b" ? 1 : 0;
    o.backend        = parse_backend(m_view_backend);
    o.algorithm      = parse_table_kind(m_view_algorithm);
    const bool cuda  = o.backend == Backend::Cuda;
    if (!given(*m_view, "--points")) o.points = cuda ? 1'000'000 : 200'000;
    if (!given(*m_view, "--res")) o.resolution = cuda ? 512 : 256;
    if (given(*m_view, "--frames")) o.frames = m_view_frames;
    o.scene = resolve_scene(*m_view, m_view_scene, o.algorithm, o.points, o.resolution);
    if (!given(*m_view, "--algo") && o.scene.algorithm) o.algorithm = *o.scene.algorithm;
    return o;
  }

  [[nodiscard]] bench::Options bench_options(std::string command_line) const {
    bench::Options o  = m_bench_options;
    o.command_line    = std::move(command_line);
    const auto chosen = std::find_if(m_bench_commands.begin(),
                                     m_bench_commands.end(),
                                     [](const CLI::App* app) { return app->parsed(); });
    o.command         = bench::kCommands[chosen - m_bench_commands.begin()];
    o.backend         = parse_backend(m_bench_backend);
    o.algorithm       = parse_table_kind(m_bench_algorithm);
    if (o.backend == Backend::Cpu && !m_full) o.quick = true;
    const CLI::App& app = **chosen;
    if (!given(app, "--points")) o.points = o.quick ? 100'000 : 1'000'000;
    if (!given(app, "--frames")) o.frames = o.quick ? 10 : 100;
    if (!given(app, "--warmup")) o.warmup = o.quick ? 2 : 5;
    if (o.command == bench::Command::Frame) {
      o.scene = resolve_scene(app, m_frame_scene, o.algorithm, o.points, o.resolution);
      if (!given(app, "--algo") && o.scene.algorithm) o.algorithm = *o.scene.algorithm;
    }
    o.gpu_budget = m_bench_gpu_budget;
    if (o.paged && !o.gpu_budget.limited())
      o.gpu_budget = o.quick ? std::size_t{2} << 20 : std::size_t{2} << 30;
    if (o.paged && o.page_capacity == 0) o.page_capacity = o.quick ? 4096 : std::size_t{1} << 20;
    for (const std::string& name : m_sweeps) {
      o.sweeps.push_back(*std::find_if(std::begin(bench::kSweeps),
                                       std::end(bench::kSweeps),
                                       [&](bench::Sweep s) { return name == to_string(s); }));
    }
    return o;
  }

  /// `flag` was on the command line (subcommands without it have no such option).
  static bool given(const CLI::App& app, const std::string& flag) {
    const CLI::Option* option = app.get_option_no_throw(flag);
    return option != nullptr && option->count() > 0;
  }

  /// One line: the subcommand, what is wrong (naming the flag or argument), where help is.
  [[nodiscard]] UsageError usage_error(const CLI::ParseError& e) const {
    const CLI::App* deepest = &m_app;
    std::string path        = "voxhash";
    while (!deepest->get_subcommands().empty()) {
      deepest = deepest->get_subcommands().front();
      if (!(deepest == m_view && m_view_implied)) path += " " + deepest->get_name();
    }
    std::string commands;
    for (const CLI::App* sub : deepest->get_subcommands([](const CLI::App*) { return true; })) {
      commands += (commands.empty() ? "" : ", ") + sub->get_name();
    }

    const std::vector<std::string> rest = m_app.remaining(true);
    const auto option =
        std::find_if(rest.begin(), rest.end(), [](const std::string& a) { return a[0] == '-'; });
    const bool wants_command = deepest->get_require_subcommand_min() > 0;
    std::string message;
    if (option != rest.end()) {
      message = "unknown option '" + *option + "'";
    } else if (!rest.empty()) {
      message = wants_command ? "unknown command '" + rest.front() + "' (expected " + commands + ")"
                              : "unexpected argument '" + rest.front() + "'";
    } else if (wants_command && dynamic_cast<const CLI::RequiredError*>(&e)) {
      message = "missing command (expected " + commands + ")";
    } else {
      message = e.what();
    }
    std::replace(message.begin(), message.end(), '\n', ' ');
    return UsageError(path + ": " + message + " (see `" + path + " --help`)");
  }

  CLI::App m_app{
      "voxhash: GPU voxel intersection of two models with cuckoo hashing and "
      "HashGraph tables",
      "voxhash"};
  CLI::App* m_view  = nullptr;
  CLI::App* m_bench = nullptr;
  std::array<CLI::App*, std::size(bench::kCommands)> m_bench_commands{};
  bool m_view_implied = false;

  viewer::ViewerOptions m_view_options;
  std::string m_view_clip;
  std::string m_view_selected = "a";
  std::string m_view_backend = "auto", m_view_algorithm = "cuckoo";
  int m_view_frames = 0;
  bench::Options m_bench_options;
  std::string m_bench_backend = "auto", m_bench_algorithm = "cuckoo";
  std::size_t m_bench_gpu_budget = 0;  // --gpu-budget of bench tables --paged and bench join
  std::vector<std::string> m_sweeps;
  bool m_full = false;
  SceneFlags m_view_scene, m_frame_scene, m_clash_scene;

  CLI::App* m_clash = nullptr;
  ClashCommand m_clash_command;
  std::string m_clash_backend = "auto", m_clash_algorithm = "cuckoo";
  std::string m_clash_tolerance, m_clash_clearance, m_clash_times;
  std::size_t m_clash_points = 0;
  int m_clash_resolution     = 0;
  double m_clash_time        = 0;
};

}  // namespace

namespace {

/// Exit code `code`, or 1 when what went to standard output was lost (`> /dev/full`, a closed
/// pipe): the output is the result, and a lost result is a failure.
int checked_output(int code) {
  std::cout.flush();
  errno              = 0;
  const bool flushed = std::fflush(stdout) == 0 && !std::ferror(stdout) && !std::cout.fail();
  if (flushed) return code;
  std::fprintf(stderr,
               "voxhash: error: writing to standard output failed%s%s\n",
               errno ? ": " : "",
               errno ? std::strerror(errno) : "");
  return code == 0 ? 1 : code;
}

int run_unchecked(int argc, const char* const* argv, const FrontEnds& front_ends) {
  try {
    CommandLine command_line;
    const Invocation invocation =
        command_line.parse(std::vector<std::string>(argv + 1, argv + argc));
    if (const auto* help = std::get_if<Help>(&invocation)) {
      std::fputs(help->text.c_str(), stdout);
      return 0;
    }
    if (const auto* view = std::get_if<viewer::ViewerOptions>(&invocation)) {
      return front_ends.view(*view);
    }
    if (const auto* clash = std::get_if<ClashCommand>(&invocation)) return front_ends.clash(*clash);
    return front_ends.bench(std::get<bench::Options>(invocation));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "voxhash: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace

int run(int argc, const char* const* argv, const FrontEnds& front_ends) {
  return checked_output(run_unchecked(argc, argv, front_ends));
}

}  // namespace voxhash::cli
