// `voxhash bench`: the headless benchmarks (device limits, table sweeps, the frame pipeline).
#pragma once

namespace voxhash::bench {

/// argv[0] is "bench". Returns the process exit code; throws voxhash::Error on failures.
int run(int argc, char** argv);

}  // namespace voxhash::bench
