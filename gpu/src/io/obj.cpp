// OBJ meshes through tinyobjloader's callback API, behind a guard pass over the same text. The
// guard recognizes statements exactly as tinyobjloader does and only rejects what would reach
// undefined behaviour or a silent zero inside it (indices beyond int, exponents beyond int,
// malformed coordinates) and records NaN / Inf vertices, which it reads as 0. Faces are
// fan-triangulated as (0, k, k + 1); `o` / `g` names become part names. docs/RELIABILITY.md has the
// details.
#include "io/io_common.hpp"

#include <voxhash/io.hpp>

#include <tiny_obj_loader.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

namespace voxhash {
namespace io {
namespace {

constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();

std::string at_line(std::size_t line) {
  return "line " + std::to_string(line) + ": ";
}

bool is_blank(char c) {
  return c == ' ' || c == '\t';  // tinyobjloader's IS_SPACE
}

/// Splits on spaces and tabs only, as tinyobjloader's token functions do.
std::vector<std::string_view> split_blanks(std::string_view text) {
  std::vector<std::string_view> fields;
  std::size_t begin = text.find_first_not_of(" \t");
  while (begin != std::string_view::npos) {
    const std::size_t end = text.find_first_of(" \t", begin);
    fields.push_back(text.substr(begin, end == std::string_view::npos ? end : end - begin));
    begin = end == std::string_view::npos ? end : text.find_first_not_of(" \t", end);
  }
  return fields;
}

/// The value of a run of decimal digits, saturated just above int's range.
std::int64_t digits_value(std::string_view digits) {
  std::int64_t value = 0;
  for (const char c : digits) {
    value = std::min(value * 10 + (c - '0'), kIntMax + 1);
  }
  return value;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

/// Whether tinyobjloader's number parser would overflow int on this token's exponent (or give up
/// on it): the digits after the first 'e' / 'E' and an optional sign exceed int.
bool exponent_beyond_int(std::string_view token) {
  const std::size_t e = token.find_first_of("eE");
  if (e == std::string_view::npos) return false;
  std::size_t begin = e + 1;
  if (begin < token.size() && (token[begin] == '+' || token[begin] == '-')) ++begin;
  std::size_t end = begin;
  while (end < token.size() && is_digit(token[end]))
    ++end;
  return digits_value(token.substr(begin, end - begin)) > kIntMax;
}

/// The first run of digits in `text` whose value exceeds int, as [begin, end), or nothing.
std::optional<std::pair<std::size_t, std::size_t>> digit_run_beyond_int(std::string_view text) {
  for (std::size_t begin = 0; begin < text.size(); ++begin) {
    if (!is_digit(text[begin])) continue;
    std::size_t end = begin;
    while (end < text.size() && is_digit(text[end]))
      ++end;
    if (digits_value(text.substr(begin, end - begin)) > kIntMax) return std::pair{begin, end};
    begin = end;
  }
  return std::nullopt;
}

/// A whole token of the form [+-]digits.
bool is_integer(std::string_view token) {
  if (!token.empty() && (token[0] == '+' || token[0] == '-')) token.remove_prefix(1);
  return !token.empty() && std::all_of(token.begin(), token.end(), is_digit);
}

/// What the guard pass learned, for checking tinyobjloader's output against it.
struct GuardReport {
  std::size_t vertex_count = 0;
  std::vector<std::pair<std::size_t, Float3>> non_finite;  // vertex number, coordinates as written
  std::vector<std::size_t> face_lines;                     // line of each `f` statement
};

/// Walks lines the way tinyobjloader's safeGetline does: "\n", "\r\n" or a lone "\r" ends a line,
/// and (as it reads lines through c_str) a NUL byte ends the line's content.
class ObjLines {
 public:
  explicit ObjLines(std::string_view text) : m_text(text) {}

  std::optional<std::string_view> next() {
    if (m_offset >= m_text.size()) return std::nullopt;
    const std::size_t end = std::min(m_text.find_first_of("\r\n", m_offset), m_text.size());
    std::string_view line = m_text.substr(m_offset, end - m_offset);
    line                  = line.substr(0, line.find('\0'));
    m_offset              = end + 1;
    if (end < m_text.size() && m_text[end] == '\r' && m_offset < m_text.size() &&
        m_text[m_offset] == '\n') {
      ++m_offset;
    }
    ++m_line_number;
    return line;
  }
  [[nodiscard]] std::size_t line_number() const { return m_line_number; }

 private:
  std::string_view m_text;
  std::size_t m_offset      = 0;
  std::size_t m_line_number = 0;
};

/// Checks a `v` statement's operands (after "v "); returns the coordinates when one is not finite.
std::optional<Float3> guard_vertex(const std::filesystem::path& path,
                                   std::size_t line,
                                   std::string_view operands) {
  const std::vector<std::string_view> tokens = split_blanks(operands);
  if (tokens.size() < 3) {
    fail(path,
         at_line(line) + "a vertex needs 3 coordinates, found " + std::to_string(tokens.size()));
  }
  for (const std::string_view token : tokens) {
    if (exponent_beyond_int(token)) {
      fail(path, at_line(line) + "the exponent of '" + std::string(token) + "' is out of range");
    }
  }
  std::array<float, 3> xyz{};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const std::optional<double> value = parse_double(tokens[axis]);
    if (!value) {
      fail(path, at_line(line) + "cannot parse '" + std::string(tokens[axis]) + "' as a number");
    }
    xyz[axis] = static_cast<float>(*value);
  }
  if (std::all_of(xyz.begin(), xyz.end(), [](float c) { return std::isfinite(c); })) {
    return std::nullopt;
  }
  return Float3{xyz[0], xyz[1], xyz[2]};
}

/// An index written in the file that the guard rejects as beyond any vertex count.
struct OversizeIndex {
  std::string written;
  std::size_t line = 0;
};

/// Checks an `f` statement's corners (after "f "): at least 3, each starting with a vertex index,
/// at most v/vt/vn, and every number within int (tinyobjloader reads them with atoi). A positive
/// vertex index beyond int is kept in `oversize` and reported once the vertex count is known.
void guard_face(const std::filesystem::path& path,
                std::size_t line,
                std::string_view operands,
                std::size_t vertices_before,
                std::optional<OversizeIndex>& oversize) {
  const std::vector<std::string_view> corners = split_blanks(operands);
  if (corners.size() < 3) {
    fail(
        path,
        at_line(line) + "a face needs at least 3 corners, found " + std::to_string(corners.size()));
  }
  for (const std::string_view corner : corners) {
    const std::string quoted = "face corner '" + std::string(corner) + "'";
    if (std::count(corner.begin(), corner.end(), '/') > 2) {
      fail(path, at_line(line) + quoted + " has more than 3 parts (v, v/vt, v//vn or v/vt/vn)");
    }
    const std::string_view vertex = corner.substr(0, corner.find('/'));
    if (!is_integer(vertex))
      fail(path, at_line(line) + quoted + " does not start with a vertex index");
    const auto beyond = digit_run_beyond_int(corner);
    if (!beyond) continue;
    if (beyond->second <= vertex.size()) {
      if (vertex[0] == '-') {
        fail(path,
             at_line(line) + "face refers to vertex " + std::string(vertex) + ", but only " +
                 std::to_string(vertices_before) + " vertices precede it");
      }
      if (!oversize) oversize = OversizeIndex{std::string(vertex), line};
      continue;
    }
    fail(path,
         at_line(line) + quoted + ": index " +
             std::string(corner.substr(beyond->first, beyond->second - beyond->first)) +
             " is out of range");
  }
}

/// The guard pass: statements are recognized as tinyobjloader recognizes them (leading spaces and
/// tabs skipped, the keyword followed by a space or a tab); only `v`, `vn`, `vt` and `f` reach
/// code in its callback API that parses numbers, so only they are checked.
GuardReport guard_obj_text(const std::filesystem::path& path, std::string_view text) {
  GuardReport report;
  std::optional<OversizeIndex> oversize;
  ObjLines lines(text);
  while (std::optional<std::string_view> line = lines.next()) {
    line->remove_prefix(std::min(line->find_first_not_of(" \t"), line->size()));
    const std::size_t number = lines.line_number();
    const auto keyword       = [&](std::string_view word) {
      return line->size() > word.size() && line->starts_with(word) &&
             is_blank((*line)[word.size()]);
    };
    if (keyword("v")) {
      if (const std::optional<Float3> bad = guard_vertex(path, number, line->substr(2))) {
        report.non_finite.emplace_back(report.vertex_count, *bad);
      }
      ++report.vertex_count;
    } else if (keyword("vn") || keyword("vt")) {
      for (const std::string_view token : split_blanks(line->substr(3))) {
        if (exponent_beyond_int(token)) {
          fail(path,
               at_line(number) + "the exponent of '" + std::string(token) + "' is out of range");
        }
      }
    } else if (keyword("f")) {
      guard_face(path, number, line->substr(2), report.vertex_count, oversize);
      report.face_lines.push_back(number);
    }
  }
  if (oversize) {
    fail(path,
         at_line(oversize->line) + "face refers to vertex " + oversize->written +
             ", but the file has " + std::to_string(report.vertex_count) + " vertices");
  }
  return report;
}

/// A read-only stream buffer over the text, so tinyobjloader reads it without a copy.
class ViewBuffer : public std::streambuf {
 public:
  explicit ViewBuffer(std::string_view text) {
    char* begin = const_cast<char*>(text.data());  // get area only: never written through
    setg(begin, begin, begin + text.size());
  }
};

/// The largest positive index a face used, kept to check forward references once the file ends.
struct LargestIndex {
  std::int64_t value = 0;
  std::size_t line   = 0;
};

/// What tinyobjloader's callbacks build: vertices as it reads them, fan-triangulated faces (indices
/// resolved and checked here) with the part of the `o` / `g` statement in force.
struct ObjBuilder {
  ObjBuilder(const std::filesystem::path& file, const GuardReport& report)
      : path(file), guard(report) {}

  const std::filesystem::path& path;
  const GuardReport& guard;
  Mesh mesh;
  std::vector<std::uint32_t> triangles;       // before non-finite vertices are dropped
  std::vector<std::uint32_t> triangle_parts;  // one per triangle above
  std::size_t faces = 0;
  std::string part_name;
  std::optional<std::uint32_t> part;  // the id of part_name, made at its first face
  std::map<std::string, std::uint32_t, std::less<>> part_ids;
  LargestIndex largest;
  std::vector<std::uint32_t> corners;

  void start_part(std::string name) {
    const std::size_t begin = name.find_first_not_of(" \t");
    const std::size_t end   = name.find_last_not_of(" \t");
    part_name               = begin == std::string::npos ? "" : name.substr(begin, end - begin + 1);
    part.reset();
  }

  std::uint32_t current_part() {
    if (!part) {
      const auto [found, added] =
          part_ids.try_emplace(part_name, static_cast<std::uint32_t>(mesh.part_names.size()));
      if (added) mesh.part_names.push_back(printable_name(part_name));
      part = found->second;
    }
    return *part;
  }

  void add_vertex(float x, float y, float z) {
    if (mesh.vertices.size() == std::numeric_limits<std::uint32_t>::max()) {
      fail(path, "more than 2^32 - 1 vertices");
    }
    mesh.vertices.push_back({x, y, z});
  }

  void add_face(const tinyobj::index_t* indices, int count) {
    if (faces >= guard.face_lines.size() || count < 3) {
      throw std::logic_error("tinyobjloader and the OBJ guard disagree on the faces of " +
                             path.string());
    }
    const std::size_t line = guard.face_lines[faces++];
    const auto defined     = static_cast<std::int64_t>(mesh.vertices.size());
    const auto fail_index  = [&](std::int64_t value, const std::string& why) {
      fail(path, at_line(line) + "face refers to vertex " + std::to_string(value) + why);
    };
    corners.clear();
    for (int c = 0; c < count; ++c) {
      const std::int64_t value = indices[c].vertex_index;
      if (value == 0) fail_index(value, " (indices start at 1)");
      if (value < 0) {
        // Relative: -1 is the last vertex defined so far.
        if (value < -defined) {
          fail_index(value, ", but only " + std::to_string(defined) + " vertices precede it");
        }
        corners.push_back(static_cast<std::uint32_t>(defined + value));
        continue;
      }
      if (value > largest.value) largest = {value, line};
      corners.push_back(static_cast<std::uint32_t>(value - 1));
    }
    const std::uint32_t face_part = current_part();
    for (std::size_t k = 1; k + 1 < corners.size(); ++k) {
      triangles.insert(triangles.end(), {corners[0], corners[k], corners[k + 1]});
      triangle_parts.push_back(face_part);
    }
  }
};

ObjBuilder& builder(void* user_data) {
  return *static_cast<ObjBuilder*>(user_data);
}

}  // namespace

Mesh parse_obj(const std::filesystem::path& path, std::string_view text) {
  const GuardReport guard = guard_obj_text(path, text);

  ObjBuilder obj(path, guard);
  tinyobj::callback_t callbacks;
  callbacks.vertex_cb =
      [](void* user, tinyobj::real_t x, tinyobj::real_t y, tinyobj::real_t z, tinyobj::real_t) {
        builder(user).add_vertex(x, y, z);
      };
  callbacks.index_cb = [](void* user, tinyobj::index_t* indices, int count) {
    builder(user).add_face(indices, count);
  };
  callbacks.group_cb = [](void* user, const char** names, int count) {
    std::string joined;  // `g a b`: tinyobjloader's LoadObj joins several names with a space
    for (int n = 0; n < count; ++n) {
      if (n > 0) joined += ' ';
      joined += names[n];
    }
    builder(user).start_part(std::move(joined));
  };
  callbacks.object_cb = [](void* user, const char* name) { builder(user).start_part(name); };
  ViewBuffer buffer(text);
  std::istream stream(&buffer);
  tinyobj::LoadObjWithCallback(stream, callbacks, &obj);  // materials are never read

  Mesh& mesh = obj.mesh;
  if (mesh.vertices.size() != guard.vertex_count || obj.faces != guard.face_lines.size()) {
    throw std::logic_error("tinyobjloader and the OBJ guard disagree on the statements of " +
                           path.string());
  }
  if (obj.largest.value > static_cast<std::int64_t>(mesh.vertices.size())) {
    fail(path,
         at_line(obj.largest.line) + "face refers to vertex " + std::to_string(obj.largest.value) +
             ", but the file has " + std::to_string(mesh.vertices.size()) + " vertices");
  }
  // tinyobjloader reads "nan" and "inf" as 0: put back what the file says.
  for (const auto& [vertex, written] : guard.non_finite)
    mesh.vertices[vertex] = written;

  std::vector<bool> finite(mesh.vertices.size());
  for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
    const Float3 p = mesh.vertices[v];
    finite[v]      = std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
    if (!finite[v]) ++mesh.non_finite_vertices;
  }
  const bool several_parts = mesh.part_names.size() > 1;
  mesh.triangles.reserve(obj.triangles.size());
  for (std::size_t t = 0; t < obj.triangle_parts.size(); ++t) {
    const std::uint32_t* corner = &obj.triangles[3 * t];
    if (finite[corner[0]] && finite[corner[1]] && finite[corner[2]]) {
      mesh.triangles.insert(mesh.triangles.end(), corner, corner + 3);
      if (several_parts) mesh.triangle_parts.push_back(obj.triangle_parts[t]);
    } else {
      ++mesh.dropped_triangles;
    }
  }
  return std::move(mesh);
}

}  // namespace io

Mesh load_obj_mesh(const std::filesystem::path& path) {
  return io::parse_obj(path, io::read_file(path));
}

}  // namespace voxhash
