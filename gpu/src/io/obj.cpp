// OBJ meshes, read by the project's own strict line parser (no other parser sees the text; see
// docs/RELIABILITY.md): `v` positions and `f` faces, polygons fan-triangulated as (0, k, k + 1);
// other statements are ignored. Indices are checked in 64 bits and quoted as written; a NaN / Inf
// vertex is counted and every triangle that uses it is dropped.
#include "io/io_common.hpp"

#include <voxhash/io.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace voxhash {
namespace io {
namespace {

std::string at_line(std::size_t line) {
  return "line " + std::to_string(line) + ": ";
}

/// A face corner's vertex index: a decimal integer with an optional sign. `huge` is set when it is
/// one whose magnitude does not fit 64 bits (out of range for any file).
std::optional<std::int64_t> parse_index(std::string_view token, bool& huge) {
  if (token.size() > 1 && token[0] == '+' && token[1] != '-') token.remove_prefix(1);
  std::int64_t value   = 0;
  const char* end      = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, value);
  huge                 = ec == std::errc::result_out_of_range && ptr == end;
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

bool is_finite(Float3 p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
}

/// The largest positive index a face used, kept to check forward references once the file ends.
struct LargestIndex {
  std::int64_t value = 0;
  std::string_view written;
  std::size_t line = 0;
};

}  // namespace

Mesh parse_obj(const std::filesystem::path& path, std::string_view text) {
  Mesh mesh;
  std::vector<std::uint32_t> triangles;  // before non-finite vertices are known
  std::vector<std::uint32_t> corners;
  LargestIndex largest;
  LineReader lines(text);
  while (const std::optional<std::string_view> line = lines.next()) {
    const std::vector<std::string_view> fields = split_whitespace(line->substr(0, line->find('#')));
    if (fields.empty()) continue;
    const std::size_t number = lines.line_number();
    if (fields[0] == "v") {
      if (fields.size() < 4) {
        fail(path,
             at_line(number) + "a vertex needs 3 coordinates, found " +
                 std::to_string(fields.size() - 1));
      }
      std::array<float, 3> xyz{};
      for (std::size_t axis = 0; axis < 3; ++axis) {
        const std::optional<double> value = parse_double(fields[axis + 1]);
        if (!value) {
          fail(
              path,
              at_line(number) + "cannot parse '" + std::string(fields[axis + 1]) + "' as a number");
        }
        xyz[axis] = static_cast<float>(*value);
      }
      if (mesh.vertices.size() == std::numeric_limits<std::uint32_t>::max()) {
        fail(path, at_line(number) + "more than 2^32 - 1 vertices");
      }
      mesh.vertices.push_back({xyz[0], xyz[1], xyz[2]});
    } else if (fields[0] == "f") {
      if (fields.size() < 4) {
        fail(path,
             at_line(number) + "a face needs at least 3 corners, found " +
                 std::to_string(fields.size() - 1));
      }
      const auto defined = static_cast<std::int64_t>(mesh.vertices.size());
      corners.clear();
      for (std::size_t c = 1; c < fields.size(); ++c) {
        const std::string_view written = fields[c].substr(0, fields[c].find('/'));
        const auto fail_index          = [&](const std::string& why) {
          fail(path, at_line(number) + "face refers to vertex " + std::string(written) + why);
        };
        bool huge                               = false;
        const std::optional<std::int64_t> index = parse_index(written, huge);
        const auto only_defined                 = [&] {
          return ", but only " + std::to_string(defined) + " vertices precede it";
        };
        if (huge && written[0] == '-') fail_index(only_defined());
        if (!index && !huge) {
          fail(path,
               at_line(number) + "face corner '" + std::string(fields[c]) +
                   "' does not start with a vertex index");
        }
        // Beyond 64 bits: out of range for any file, reported with the vertex count at the end.
        const std::int64_t value = index.value_or(std::numeric_limits<std::int64_t>::max());
        if (value == 0) fail_index(" (indices start at 1)");
        if (value < 0) {
          // Relative: -1 is the last vertex defined so far.
          if (value < -defined) fail_index(only_defined());
          corners.push_back(static_cast<std::uint32_t>(defined + value));
          continue;
        }
        if (value > largest.value) largest = {value, written, number};
        // An index beyond 2^32 is out of range however many vertices follow (checked at the end).
        corners.push_back(static_cast<std::uint32_t>(
            std::min<std::int64_t>(value - 1, std::numeric_limits<std::uint32_t>::max())));
      }
      for (std::size_t k = 1; k + 1 < corners.size(); ++k) {
        triangles.insert(triangles.end(), {corners[0], corners[k], corners[k + 1]});
      }
    }
  }
  if (largest.value > static_cast<std::int64_t>(mesh.vertices.size())) {
    fail(path,
         at_line(largest.line) + "face refers to vertex " + std::string(largest.written) +
             ", but the file has " + std::to_string(mesh.vertices.size()) + " vertices");
  }

  std::vector<bool> finite(mesh.vertices.size());
  for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
    finite[v] = is_finite(mesh.vertices[v]);
    if (!finite[v]) ++mesh.non_finite_vertices;
  }
  mesh.triangles.reserve(triangles.size());
  for (std::size_t t = 0; t + 2 < triangles.size(); t += 3) {
    if (finite[triangles[t]] && finite[triangles[t + 1]] && finite[triangles[t + 2]]) {
      mesh.triangles.insert(mesh.triangles.end(),
                            {triangles[t], triangles[t + 1], triangles[t + 2]});
    } else {
      ++mesh.dropped_triangles;
    }
  }
  return mesh;
}

}  // namespace io

Mesh load_obj_mesh(const std::filesystem::path& path) {
  return io::parse_obj(path, io::read_file(path));
}

}  // namespace voxhash
