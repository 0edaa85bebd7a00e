// libFuzzer target for the OBJ reader (io::parse_obj: the guard pass, then tinyobjloader, compiled
// from source so that it is instrumented too) and the surface sampler it feeds: triangles must use
// finite, in-range vertices, counts and part ids must be right, and samples must be finite.
#include "fuzz_checks.hpp"
#include "io/io_common.hpp"

#include <voxhash/io.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace voxhash;
  constexpr std::string_view kPath = "fuzz.obj";
  try {
    fuzz::require_sound_mesh(io::parse_obj(kPath, fuzz::as_text(data, size)));
  } catch (const InvalidInput& error) {
    fuzz::require_names_file(error, kPath);
  }
  return 0;
}
