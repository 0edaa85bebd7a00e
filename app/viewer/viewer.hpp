// The desktop viewer (GLFW window or offscreen EGL context, OpenGL 4.5, ImGui panel): the options
// the command line (cli/command_line.cpp) fills for it, and the entry point.
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/scene.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace voxhash::viewer {

/// A run of the viewer, every default already resolved by the command line.
struct ViewerOptions {
  Scene scene;                   // the scene, command-line overrides applied
  std::size_t points  = 200000;  // per model, where the scene gives no count
  int resolution      = 256;     // voxels along the grid's longest axis, where the scene gives none
  TableKind algorithm = TableKind::Cuckoo;
  Backend backend     = Backend::Cpu;
  std::optional<int> frames;   // render this many frames (fixed 1/60 s steps), then exit
  std::string screenshot;      // PNG written after the last frame
  std::string export_path;     // PLY of the last frame's labelled voxels, written after it
  bool offscreen  = false;     // EGL device platform, no window
  bool timing     = false;     // per-frame transfer timings on stdout
  bool no_interop = false;     // force the host-upload path
  bool no_panel   = false;     // hide the ImGui panel
  std::string tab = "scene";   // the panel's tab open at first (kPanelTabNames)
  int clash_every = 0;         // compute the clash report every N frames; 0: on demand
  std::string status_path;     // the clashes' status file the clash tab shows and edits
  int selected_model = 0;      // what the placement tools edit at first (0: A, 1: B)
  bool cuda_draw     = false;  // draw points and voxels with CUDA (needs CUDA-GL interop)
  bool xray          = false;  // outside voxels shown, translucent
  int clip_axis      = -1;     // a clipping plane across x (0), y (1) or z (2); -1: none
  float clip_offset  = 0;      // where it cuts that axis (world units); beyond it is cut away
  int width          = 1280;
  int height         = 800;
};

/// Opens the window (or the offscreen context) and runs the frame loop. Returns the process exit
/// code; throws voxhash::Error when the context or the scene cannot be set up.
int run(const ViewerOptions& options);

}  // namespace voxhash::viewer
