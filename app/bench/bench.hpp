// `voxhash bench`: the headless benchmarks (device limits, table sweeps, joins, the frame
// pipeline), the options the command line (cli/command_line.cpp) fills for them, and the entry
// point.
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/gpu_budget.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/scene.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace voxhash::bench {

enum class Command { Limits, Tables, Join, Frame };
enum class Sweep { Load, Multiplicity, Size, Misses };

inline constexpr Command kCommands[] = {
    Command::Limits, Command::Tables, Command::Join, Command::Frame};
inline constexpr Sweep kSweeps[] = {Sweep::Load, Sweep::Multiplicity, Sweep::Size, Sweep::Misses};

/// A run of `voxhash bench`, every default already resolved by the command line.
struct Options {
  Command command = Command::Limits;
  std::string command_line;  // the invocation, for the report

  // common
  Backend backend = Backend::Cpu;
  std::string json_path, csv_path;  // empty: not written
  bool quick = false;               // small sizes; the CPU backend's default unless --full
  int runs   = 0;                   // timed runs per figure (median taken); 0: 5, or 3 when quick

  // tables
  std::vector<Sweep> sweeps;  // empty: the default set
  bool paged = false;         // the paged table instead (4x its budget, and within it)
  // --gpu-budget: the memory the benchmark's tables may take; paged: the paged table's pages
  // (BuildOptions::page_budget; the command line fills in the default), join: the build side's
  // table (JoinOptions::gpu_budget; none by default).
  GpuBudget gpu_budget{};
  std::size_t page_capacity = 0;     // paged: pairs per page (0: the default)
  double page_space         = 1.25;  // paged: cuckoo slots per pair in a page

  // tables, join
  int gpus = 0;  // > 0: on one GPU and partitioned over this many (multi_suite.cpp)

  // frame
  Scene scene;                      // the scene, command-line overrides applied
  std::size_t points  = 1'000'000;  // per model, where the scene gives no count
  int resolution      = 512;  // voxels along the grid's longest axis, where the scene gives none
  TableKind algorithm = TableKind::Cuckoo;
  bool all_algorithms = false;
  int frames          = 100;    // timed frames
  int warmup          = 5;      // untimed frames first
  std::string export_path;      // PLY of the last frame's voxels; empty: not written
  double soak_minutes = 0;      // > 0: run frames for this long instead of `frames` (a soak run)
  double soak_every_s = 60;     // seconds between the soak's memory samples
  bool join           = false;  // each frame also joins the two models' point keys (join())
  bool clash          = false;  // each frame also computes its clash report, timed apart
  double cuckoo_space = 0;  // slots per key of the cuckoo and bucketed cuckoo tables (0: default)
};

[[nodiscard]] constexpr const char* to_string(Command command) {
  switch (command) {
    case Command::Limits:
      return "limits";
    case Command::Tables:
      return "tables";
    case Command::Join:
      return "join";
    case Command::Frame:
      return "frame";
  }
  return "?";
}

[[nodiscard]] constexpr const char* to_string(Sweep sweep) {
  switch (sweep) {
    case Sweep::Load:
      return "load";
    case Sweep::Multiplicity:
      return "multiplicity";
    case Sweep::Size:
      return "size";
    case Sweep::Misses:
      return "misses";
  }
  return "?";
}

/// Runs the command: prints its tables on stdout (progress on stderr) and writes the JSON and CSV
/// outputs. Returns the process exit code; throws voxhash::Error on failures.
int run(const Options& options);

}  // namespace voxhash::bench
