// `voxhash [options]`: parses the command line and starts the window or the offscreen front end.
// Usage errors exit with 2; everything else that fails reaches main() as one line and exit 1.
#include "viewer/front_ends.hpp"
#include "viewer/options.hpp"
#include "viewer/viewer.hpp"

#include <voxhash/backend.hpp>

#include <cstdio>
#include <span>

namespace voxhash::viewer {

int run(int argc, char** argv) {
  ViewerOptions options;
  try {
    options = parse_options(std::span<char* const>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "voxhash: %s (see voxhash --help)\n", e.what());
    return 2;
  }
  if (options.help) {
    std::fputs(usage_text().c_str(), stdout);
    return 0;
  }
  const Backend backend = parse_backend(options.backend);
  return options.offscreen ? run_offscreen(options, backend) : run_windowed(options, backend);
}

}  // namespace voxhash::viewer
