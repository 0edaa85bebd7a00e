// XYZ point clouds: one point per line as whitespace-separated "x y z", further columns (normals,
// colours, intensities) ignored, '#' starting a comment that runs to the end of the line.
#include "io/io_common.hpp"

#include <voxhash/io.hpp>

#include <string>

namespace voxhash::io {

void parse_xyz_points(const std::filesystem::path& path, std::string_view text, PointCloud& cloud) {
  LineReader lines(text);
  while (const std::optional<std::string_view> line = lines.next()) {
    const std::string_view content             = line->substr(0, line->find('#'));
    const std::vector<std::string_view> fields = split_whitespace(content);
    if (fields.empty()) continue;
    std::optional<double> x, y, z;
    if (fields.size() >= 3) {
      x = parse_double(fields[0]);
      y = parse_double(fields[1]);
      z = parse_double(fields[2]);
    }
    if (!x || !y || !z) {
      fail(path,
           "line " + std::to_string(lines.line_number()) + ": expected 3 numbers (x y z), found '" +
               std::string(content) + "'");
    }
    add_point(cloud, *x, *y, *z);
  }
}

}  // namespace voxhash::io
