// libFuzzer target for the text cloud reader (io::parse_xyz_points: XYZ, PTS, TXT, CSV): every
// point it keeps must be finite, and a rejection must name the file.
#include "fuzz_checks.hpp"
#include "io/io_common.hpp"

#include <voxhash/io.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace voxhash;
  constexpr std::string_view kPath = "fuzz.xyz";
  try {
    PointCloud cloud;
    io::parse_xyz_points(kPath, fuzz::as_text(data, size), cloud);
    for (const Float3& p : cloud.points)
      fuzz::require(fuzz::is_finite(p), "a point is not finite");
  } catch (const InvalidInput& error) {
    fuzz::require_names_file(error, kPath);
  }
  return 0;
}
