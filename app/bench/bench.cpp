// Placeholder until the benchmark lands (being written now).
#include "bench/bench.hpp"

#include <voxhash/error.hpp>

namespace voxhash::bench {
int run(int, char**) { throw Error("bench: not built yet"); }
}  // namespace voxhash::bench
