// The one command line of the `voxhash` executable (CLI11): `voxhash [view] [options]` for the
// viewer, `voxhash bench limits|tables|join|frame [options]` for the benchmarks, `voxhash clash
// SCENE` for a clash report; flags shared by the subcommands defined once with the same checks,
// `--help` per subcommand, exit code 2 for usage.
#pragma once

#include "bench/bench.hpp"
#include "cli/clash_command.hpp"
#include "viewer/viewer.hpp"

#include <voxhash/error.hpp>

#include <functional>

namespace voxhash::cli {

/// A malformed command line; what() is one line naming the flag and the --help to read.
class UsageError : public InvalidInput {
 public:
  using InvalidInput::InvalidInput;
};

/// The front ends a command line can start (main() passes the real ones, tests their own).
struct FrontEnds {
  std::function<int(const viewer::ViewerOptions&)> view;
  std::function<int(const bench::Options&)> bench;
  std::function<int(const ClashCommand&)> clash;
};

/// Parses argv[1..argc) and runs the chosen front end with its options. Returns the process exit
/// code: 0 after --help (printed on stdout), 2 after a usage error, 1 when resolving the backend
/// or the front end throws; errors are one line on stderr.
int run(int argc, const char* const* argv, const FrontEnds& front_ends);

}  // namespace voxhash::cli
