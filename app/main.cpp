// voxhash's single executable: the command line (cli/) picks the viewer or the benchmarks and
// turns usage errors and failures into one line and an exit code.
#include "bench/bench.hpp"
#include "cli/command_line.hpp"
#include "viewer/viewer.hpp"

int main(int argc, char** argv) {
  return voxhash::cli::run(argc,
                           argv,
                           {.view  = voxhash::viewer::run,
                            .bench = voxhash::bench::run,
                            .clash = voxhash::cli::run_clash});
}
