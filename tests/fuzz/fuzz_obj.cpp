// libFuzzer target for the OBJ reader (io::parse_obj, behind load_obj_mesh and load_point_cloud)
// and the surface sampler it feeds: triangles must use finite, in-range vertices, the counts must
// match, and samples must be finite.
#include "fuzz_checks.hpp"
#include "io/io_common.hpp"

#include <voxhash/io.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace voxhash;
  using fuzz::require;
  constexpr std::string_view kPath = "fuzz.obj";
  try {
    const Mesh mesh        = io::parse_obj(kPath, fuzz::as_text(data, size));
    std::size_t non_finite = 0;
    for (const Float3& v : mesh.vertices)
      non_finite += fuzz::is_finite(v) ? 0 : 1;
    require(non_finite == mesh.non_finite_vertices, "non_finite_vertices is miscounted");
    require(mesh.triangles.size() % 3 == 0, "triangle indices are not a multiple of 3");
    for (const std::uint32_t index : mesh.triangles) {
      require(index < mesh.vertices.size(), "a triangle index is out of range");
      require(fuzz::is_finite(mesh.vertices[index]), "a kept triangle has a non-finite vertex");
    }
    if (mesh.triangles.empty()) return 0;
    try {
      for (const Float3& p : sample_surface(mesh, 16, 1))
        require(fuzz::is_finite(p), "a sample is not finite");
    } catch (const InvalidInput&) {
      // Zero or overflowing area: a clean rejection.
    }
  } catch (const InvalidInput& error) {
    fuzz::require_names_file(error, kPath);
  }
  return 0;
}
