// Command line of `voxhash bench`: the command (limits, tables, frame), the common flags and each
// command's own flags. Parsing is strict: an unknown flag, a flag another command owns or a bad
// value is an InvalidInput whose one-line message names it.
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/hash_table.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace voxhash::bench {

enum class Sweep { Load, Multiplicity, Size, Misses };

struct Options {
  std::string command;       // "limits", "tables" or "frame"; empty with --help
  std::string command_line;  // the invocation, for the report
  bool help = false;

  // common
  Backend backend = Backend::Cpu;
  std::string json_path, csv_path;  // empty: not written
  bool quick = false;               // small sizes; the CPU backend's default unless --full
  int runs   = 0;                   // timed runs per figure (median taken); 0: 5, or 3 when quick

  // tables
  std::vector<Sweep> sweeps;  // empty: the default set

  // frame
  std::size_t points  = 0;  // per model; 0: 1M (100k when quick)
  int resolution      = 512;
  TableKind algorithm = TableKind::Cuckoo;
  bool all_algorithms = false;
  int frames          = 0;       // timed frames; 0: 100 (10 when quick)
  int warmup          = -1;      // untimed frames first; -1: 5 (2 when quick)
  std::string model_a, model_b;  // empty: the default assets
  std::string export_path;       // PLY of the last frame's voxels; empty: not written
  bool render = false;           // the viewer offscreen (EGL, CUDA-GL interop) instead
};

/// Parses argv[1..argc) (argv[0] is "bench"). Throws InvalidInput on any usage error.
[[nodiscard]] Options parse_options(int argc, char** argv);

/// The --help text.
[[nodiscard]] std::string usage();

[[nodiscard]] const char* to_string(Sweep sweep);

}  // namespace voxhash::bench
