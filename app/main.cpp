// voxhash's single executable: `voxhash bench ...` runs the headless benchmarks, anything else
// opens the viewer. Errors from either end here as one line on stderr and a non-zero exit.
#include "bench/bench.hpp"
#include "viewer/viewer.hpp"

#include <voxhash/error.hpp>

#include <cstdio>
#include <exception>
#include <string_view>

int main(int argc, char** argv) {
  try {
    if (argc > 1 && std::string_view(argv[1]) == "bench") {
      return voxhash::bench::run(argc - 1, argv + 1);
    }
    return voxhash::viewer::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "voxhash: error: %s\n", e.what());
    return 1;
  }
}
