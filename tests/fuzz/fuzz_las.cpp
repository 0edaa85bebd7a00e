// libFuzzer target for the LAS reader (io::parse_las_points): every point it keeps must be finite,
// every part id must name a part, and a rejection must name the file.
#include "fuzz_checks.hpp"
#include "io/io_common.hpp"

#include <voxhash/io.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace voxhash;
  constexpr std::string_view kPath = "fuzz.las";
  try {
    PointCloud cloud;
    io::parse_las_points(kPath, fuzz::as_text(data, size), cloud);
    for (const Float3& p : cloud.points)
      fuzz::require(fuzz::is_finite(p), "a point is not finite");
    fuzz::require(cloud.point_parts.empty() || cloud.point_parts.size() == cloud.points.size(),
                  "one part id a point, or none");
    for (const std::uint32_t part : cloud.point_parts)
      fuzz::require(part < cloud.part_names.size(), "a part id names no part");
  } catch (const InvalidInput& error) {
    fuzz::require_names_file(error, kPath);
  }
  return 0;
}
