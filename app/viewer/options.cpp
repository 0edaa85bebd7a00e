// Command-line parsing for the viewer: `--flag value` or `--flag=value`, strict (an unknown flag
// or a bad value is a UsageError, which the front end turns into exit code 2).
#include "viewer/options.hpp"

#include <voxhash/error.hpp>

#include <charconv>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace voxhash::viewer {
namespace {

template <class T>
T parse_number(std::string_view flag, std::string_view text, T min, T max) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    throw UsageError(std::string(flag) + " expects an integer in [" + std::to_string(min) + ", " +
                     std::to_string(max) + "], got '" + std::string(text) + "'");
  }
  return value;
}

}  // namespace

std::string usage_text() {
  return R"(usage: voxhash [options]        the desktop viewer (or: voxhash bench --help)

Two animated models pass through each other; every frame both are voxelized, hashed (cuckoo or
HashGraph), probed for intersecting voxels and flood-filled into inside / outside labels.

options:
  --model-a PATH      first model: OBJ mesh (sampled), OBJ/PLY/XYZ point cloud
                      (default assets/sphere.obj)
  --model-b PATH      second model (default assets/torus.obj)
  --points N          points per model (default 1000000 on CUDA, 200000 on CPU)
  --res N             grid resolution per axis (default 512 on CUDA, 256 on CPU)
  --algo NAME         cuckoo, hashgraph-v1 or hashgraph-v2 (default cuckoo)
  --backend NAME      cpu, cuda or auto (default auto: CUDA when a device exists)
  --frames N          render N frames with fixed 1/60 s steps, then exit
  --screenshot FILE   save a PNG after the last frame (with --frames)
  --export FILE       save the last frame's labelled voxels as a PLY point cloud of voxel
                      centres coloured by label (with --frames)
  --offscreen         render without a window, on an EGL device (GPU servers)
  --timing            print per-frame transfer timings (interop map/unmap vs plain device buffers)
  --no-interop        upload from host memory even where CUDA-GL interop works
  --no-panel          hide the ImGui panel
  --width N, --height N   window or image size (default 1280 x 800)
  --help              this text

keys: left drag orbit, right/middle drag pan, scroll zoom, Space pause, N single step,
      R reset, V vsync, H panel, F12 screenshot, F11 export voxels (voxhash-voxels-NNN.ply),
      1/2/3 algorithm, Esc quit
)";
}

ViewerOptions parse_options(std::span<char* const> args) {
  ViewerOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    std::string_view inline_value;
    bool has_inline_value = false;
    if (const auto eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      inline_value     = arg.substr(eq + 1);
      arg              = arg.substr(0, eq);
      has_inline_value = true;
    }
    auto value = [&]() -> std::string_view {
      if (has_inline_value) return inline_value;
      if (i + 1 >= args.size()) throw UsageError(std::string(arg) + " needs a value");
      return args[++i];
    };
    auto flag = [&](bool& target) {
      if (has_inline_value) throw UsageError(std::string(arg) + " takes no value");
      target = true;
    };

    if (arg == "--help" || arg == "-h") {
      flag(options.help);
    } else if (arg == "--model-a") {
      options.model_a = value();
    } else if (arg == "--model-b") {
      options.model_b = value();
    } else if (arg == "--points") {
      options.points = parse_number<std::size_t>(arg, value(), 1, std::size_t{1} << 28);
    } else if (arg == "--res") {
      options.resolution = parse_number(arg, value(), 2, 1024);
    } else if (arg == "--algo") {
      try {
        options.algorithm = parse_table_kind(value());
      } catch (const InvalidInput& e) {
        throw UsageError(e.what());
      }
    } else if (arg == "--backend") {
      options.backend = value();
      if (options.backend != "cpu" && options.backend != "cuda" && options.backend != "auto") {
        throw UsageError("--backend expects cpu, cuda or auto, got '" + options.backend + "'");
      }
    } else if (arg == "--frames") {
      options.frames = parse_number(arg, value(), 1, 1 << 30);
    } else if (arg == "--screenshot") {
      options.screenshot = value();
    } else if (arg == "--export") {
      options.export_path = value();
    } else if (arg == "--offscreen") {
      flag(options.offscreen);
    } else if (arg == "--timing") {
      flag(options.timing);
    } else if (arg == "--no-interop") {
      flag(options.no_interop);
    } else if (arg == "--no-panel") {
      flag(options.no_panel);
    } else if (arg == "--width") {
      options.width = parse_number(arg, value(), 64, 16384);
    } else if (arg == "--height") {
      options.height = parse_number(arg, value(), 64, 16384);
    } else {
      throw UsageError("unknown option '" + std::string(args[i]) + "'");
    }
  }
  if (!options.screenshot.empty() && !options.frames) {
    throw UsageError("--screenshot needs --frames N (the shot is taken after the last frame)");
  }
  if (!options.export_path.empty() && !options.frames) {
    throw UsageError("--export needs --frames N (the voxels are written after the last frame)");
  }
  if (options.offscreen && !options.frames) {
    throw UsageError("--offscreen needs --frames N");
  }
  if (options.model_a.empty()) options.model_a = default_model_path("assets/sphere.obj");
  if (options.model_b.empty()) options.model_b = default_model_path("assets/torus.obj");
  return options;
}

std::size_t points_or_default(const ViewerOptions& options, Backend backend) {
  return options.points.value_or(backend == Backend::Cuda ? 1000000 : 200000);
}

int resolution_or_default(const ViewerOptions& options, Backend backend) {
  return options.resolution.value_or(backend == Backend::Cuda ? 512 : 256);
}

std::string default_model_path(const std::string& relative) {
  const std::filesystem::path in_source = std::filesystem::path(VOXHASH_SOURCE_DIR) / relative;
  std::error_code ec;
  return std::filesystem::exists(in_source, ec) ? in_source.string() : relative;
}

}  // namespace voxhash::viewer
