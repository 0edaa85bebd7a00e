// Placeholder until the viewer lands (being written now).
#include "viewer/viewer.hpp"

#include <voxhash/error.hpp>

namespace voxhash::viewer {
int run(int, char**) { throw Error("viewer: not built yet"); }
}  // namespace voxhash::viewer
