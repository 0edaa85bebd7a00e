// The viewer's command line: what `voxhash [options]` accepts, with defaults that depend on the
// backend (points and grid resolution) resolved once the backend is known.
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/hash_table.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

namespace voxhash::viewer {

struct ViewerOptions {
  std::string model_a;                // default: assets/sphere.obj (see default_model_path)
  std::string model_b;                // default: assets/torus.obj
  std::optional<std::size_t> points;  // per model; default 1000000 on CUDA, 200000 on CPU
  std::optional<int> resolution;      // voxels per axis; default 512 on CUDA, 256 on CPU
  TableKind algorithm = TableKind::Cuckoo;
  std::string backend = "auto";  // cpu, cuda or auto
  std::optional<int> frames;     // render this many frames (fixed 1/60 s steps), then exit
  std::string screenshot;        // PNG written after the last frame
  std::string export_path;       // PLY of the last frame's labelled voxels, written after it
  bool offscreen  = false;       // EGL device platform, no window
  bool timing     = false;       // per-frame transfer timings on stdout
  bool no_interop = false;       // force the host-upload path
  bool no_panel   = false;       // hide the ImGui panel
  int width       = 1280;
  int height      = 800;
  bool help       = false;
};

/// A malformed command line; what() is one line for the user.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parses argv[1..]. Throws UsageError on unknown flags, missing or malformed values.
[[nodiscard]] ViewerOptions parse_options(std::span<char* const> args);

/// The --help text.
[[nodiscard]] std::string usage_text();

[[nodiscard]] std::size_t points_or_default(const ViewerOptions& options, Backend backend);
[[nodiscard]] int resolution_or_default(const ViewerOptions& options, Backend backend);

/// `relative` (e.g. "assets/sphere.obj") under the source tree the binary was built from when it
/// exists there, else as given (relative to the working directory).
[[nodiscard]] std::string default_model_path(const std::string& relative);

}  // namespace voxhash::viewer
