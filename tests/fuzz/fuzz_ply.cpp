// libFuzzer target for the PLY readers behind load_point_cloud: io::parse_ply_points (every point
// it keeps must be finite) and io::ply_mesh_for_assimp (the header rewritten and the elements'
// data moved for assimp; assimp itself is fuzz_mesh's); a rejection must name the file.
#include "fuzz_checks.hpp"
#include "io/io_common.hpp"

#include <voxhash/io.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace voxhash;
  constexpr std::string_view kPath = "fuzz.ply";
  try {
    PointCloud cloud;
    io::parse_ply_points(kPath, fuzz::as_text(data, size), cloud);
    for (const Float3& p : cloud.points)
      fuzz::require(fuzz::is_finite(p), "a point is not finite");
  } catch (const InvalidInput& error) {
    fuzz::require_names_file(error, kPath);
  }
  try {
    const std::optional<std::string> mesh =
        io::ply_mesh_for_assimp(kPath, fuzz::as_text(data, size));
    if (mesh) fuzz::require(mesh->starts_with("ply\nformat "), "the rewritten header is not PLY");
  } catch (const InvalidInput& error) {
    fuzz::require_names_file(error, kPath);
  }
  return 0;
}
