// What reading a STEP file does in a build without OpenCASCADE (VOXHASH_STEP=OFF, or OCCT not
// found at configure time): say so in one line naming the file. Compiled instead of step.cpp.
#include "io/io_common.hpp"

namespace voxhash::io {

StepMesh load_step_mesh(const std::filesystem::path& path, const LoadOptions&) {
  (void)open_input(path);  // a missing file is reported as every loader reports it
  fail(path, VOXHASH_NO_STEP_REASON);
}

}  // namespace voxhash::io
