// PLY point clouds and meshes, read a piece at a time, never whole: the header (unknown lines
// skipped, as assimp skips them) and its counts checked against the bytes after it and the host's
// memory first, then one pass over the ASCII or binary data in the file's element order; polygons
// fan-triangulated, strips unrolled, identical positions welded.
#include "io/io_common.hpp"

#include <voxhash/io.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace voxhash::io {
namespace {

/// The longest header or ASCII data line (a longer one is not a PLY line).
constexpr std::size_t kMaxPlyLine = std::size_t{1} << 20;

enum class PlyFormat { Ascii, BinaryLittleEndian, BinaryBigEndian };

enum class PlyType { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };

constexpr std::array<std::pair<std::string_view, PlyType>, 16> kTypeNames{{
    {"char", PlyType::Int8},
    {"int8", PlyType::Int8},
    {"uchar", PlyType::UInt8},
    {"uint8", PlyType::UInt8},
    {"short", PlyType::Int16},
    {"int16", PlyType::Int16},
    {"ushort", PlyType::UInt16},
    {"uint16", PlyType::UInt16},
    {"int", PlyType::Int32},
    {"int32", PlyType::Int32},
    {"uint", PlyType::UInt32},
    {"uint32", PlyType::UInt32},
    {"float", PlyType::Float32},
    {"float32", PlyType::Float32},
    {"double", PlyType::Float64},
    {"float64", PlyType::Float64},
}};

struct PlyProperty {
  std::string name;
  PlyType type;                            // the value's type, or a list's item type
  std::optional<PlyType> list_count_type;  // set for list properties
};

/// What an element's data is to the reader.
enum class Role { Skipped, Vertices, Faces, Strips };

struct PlyElement {
  std::string name;
  std::uint64_t count = 0;
  std::vector<PlyProperty> properties;
  Role role = Role::Skipped;
  std::vector<std::size_t> axis;  // Vertices: per property 0, 1, 2 for x, y, z, else kNoAxis
  std::size_t indices = 0;        // Faces, Strips: the property holding the vertex indices
};

struct PlyHeader {
  PlyFormat format = PlyFormat::Ascii;
  std::vector<PlyElement> elements;
  std::size_t vertex_element = 0;  // index into elements
  std::size_t last_read      = 0;  // the last element with a role: the elements after it are unread
  bool is_mesh               = false;
};

constexpr std::size_t kNoAxis = 3;

bool is_faces(const PlyElement& element) {
  return element.role == Role::Faces || element.role == Role::Strips;
}

std::size_t type_size(PlyType type) {
  switch (type) {
    case PlyType::Int8:
    case PlyType::UInt8:
      return 1;
    case PlyType::Int16:
    case PlyType::UInt16:
      return 2;
    case PlyType::Int32:
    case PlyType::UInt32:
    case PlyType::Float32:
      return 4;
    case PlyType::Float64:
      return 8;
  }
  return 0;
}

bool is_integer(PlyType type) {
  return type != PlyType::Float32 && type != PlyType::Float64;
}

template <std::size_t Bytes>
struct UnsignedOfSize;
template <>
struct UnsignedOfSize<1> {
  using Type = std::uint8_t;
};
template <>
struct UnsignedOfSize<2> {
  using Type = std::uint16_t;
};
template <>
struct UnsignedOfSize<4> {
  using Type = std::uint32_t;
};
template <>
struct UnsignedOfSize<8> {
  using Type = std::uint64_t;
};

/// A T stored at p in the file's byte order (`big_endian` or little), whatever the host's.
template <typename T>
T load_ordered(const char* p, bool big_endian) {
  using Bits = typename UnsignedOfSize<sizeof(T)>::Type;
  Bits bits  = 0;
  for (std::size_t b = 0; b < sizeof(T); ++b) {
    const std::size_t shift = 8 * (big_endian ? sizeof(T) - 1 - b : b);
    bits |= static_cast<Bits>(static_cast<Bits>(static_cast<unsigned char>(p[b])) << shift);
  }
  return std::bit_cast<T>(bits);
}

double load_value(const char* p, PlyType type, bool big_endian) {
  switch (type) {
    case PlyType::Int8:
      return load_ordered<std::int8_t>(p, big_endian);
    case PlyType::UInt8:
      return load_ordered<std::uint8_t>(p, big_endian);
    case PlyType::Int16:
      return load_ordered<std::int16_t>(p, big_endian);
    case PlyType::UInt16:
      return load_ordered<std::uint16_t>(p, big_endian);
    case PlyType::Int32:
      return load_ordered<std::int32_t>(p, big_endian);
    case PlyType::UInt32:
      return load_ordered<std::uint32_t>(p, big_endian);
    case PlyType::Float32:
      return load_ordered<float>(p, big_endian);
    case PlyType::Float64:
      return load_ordered<double>(p, big_endian);
  }
  return 0;
}

std::string at_line(std::size_t line) {
  return "line " + std::to_string(line) + ": ";
}

/// The file's bytes through a buffer that `source` refills a piece at a time: lines for the header
/// and ASCII data, values and skips for binary data. Tracks the bytes consumed, so the bytes left
/// in the file are known before anything sized by the file is read.
class PieceReader {
 public:
  PieceReader(const std::filesystem::path& path, ByteSource& source, std::size_t piece)
      : m_path(path), m_source(source), m_piece(std::max<std::size_t>(piece, 1)) {}

  /// The next line without its ending ('\n' or "\r\n"), or nothing at the end of the file.
  std::optional<std::string_view> line() {
    std::size_t scanned = 0;  // bytes after m_begin known to hold no '\n'
    for (;;) {
      const std::size_t have = m_end - m_begin;
      const char* start      = m_buffer.data() + m_begin;
      const auto* found =
          static_cast<const char*>(std::memchr(start + scanned, '\n', have - scanned));
      if (found != nullptr) return cut(static_cast<std::size_t>(found - start), 1);
      scanned = have;
      if (scanned > kMaxPlyLine) {
        fail(m_path, at_line(m_line + 1) + "longer than 1 MiB: not a PLY header or ASCII data");
      }
      if (!more()) {
        if (m_begin == m_end) return std::nullopt;
        return cut(m_end - m_begin, 0);  // the last line, without its line end
      }
    }
  }

  /// The next `n` (at most 8) bytes, or nullptr when the file ends first.
  const char* take(std::size_t n) {
    while (m_end - m_begin < n) {
      if (!more()) return nullptr;
    }
    const char* start = m_buffer.data() + m_begin;
    m_begin += n;
    return start;
  }

  /// Skips `n` bytes; false when the file ends first.
  bool skip(std::uint64_t n) {
    while (n > 0) {
      if (m_begin == m_end && !more()) return false;
      const std::size_t step =
          static_cast<std::size_t>(std::min<std::uint64_t>(n, m_end - m_begin));
      m_begin += step;
      n -= step;
    }
    return true;
  }

  /// The first bytes of the file (up to `n`), without consuming them.
  std::string_view peek(std::size_t n) {
    while (m_end - m_begin < n && more()) {
    }
    return {m_buffer.data() + m_begin, std::min(n, m_end - m_begin)};
  }

  [[nodiscard]] std::uint64_t consumed() const { return m_read - (m_end - m_begin); }
  [[nodiscard]] std::size_t line_number() const { return m_line; }

 private:
  /// The `size` bytes at m_begin as a line (a '\r' before its end removed), then `ending` more.
  std::string_view cut(std::size_t size, std::size_t ending) {
    std::string_view text(m_buffer.data() + m_begin, size);
    m_begin += size + ending;
    ++m_line;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    return text;
  }

  /// Reads one more piece after the buffered bytes; false at the end of the file.
  bool more() {
    if (m_eof) return false;
    if (m_begin > 0) {
      std::memmove(m_buffer.data(), m_buffer.data() + m_begin, m_end - m_begin);
      m_end -= m_begin;
      m_begin = 0;
    }
    if (m_buffer.size() < m_end + m_piece) m_buffer.resize(m_end + m_piece);
    const std::size_t got = m_source.read(m_buffer.data() + m_end, m_buffer.size() - m_end);
    m_end += got;
    m_read += got;
    m_eof = got == 0;
    return got > 0;
  }

  const std::filesystem::path& m_path;
  ByteSource& m_source;
  std::size_t m_piece;
  std::string m_buffer;
  std::size_t m_begin = 0, m_end = 0;  // the unread bytes in m_buffer
  std::uint64_t m_read = 0;            // bytes read from the source
  std::size_t m_line   = 0;
  bool m_eof           = false;
};

PlyType parse_type(const std::filesystem::path& path, std::size_t line, std::string_view name) {
  const auto* found = std::find_if(
      kTypeNames.begin(), kTypeNames.end(), [&](const auto& entry) { return entry.first == name; });
  if (found == kTypeNames.end()) {
    fail(path, at_line(line) + "unknown PLY property type '" + std::string(name) + "'");
  }
  return found->second;
}

/// Each element's role: the first 'vertex' element's x/y/z (scalars, all three required), and
/// every 'face' or 'tristrips' element with data, whose 'vertex_indices' (or 'vertex_index') list
/// holds the corners.
void assign_roles(const std::filesystem::path& path, PlyHeader& header) {
  const auto vertex =
      std::find_if(header.elements.begin(), header.elements.end(), [](const PlyElement& element) {
        return element.name == "vertex";
      });
  if (vertex == header.elements.end()) fail(path, "PLY header declares no 'vertex' element");
  header.vertex_element = static_cast<std::size_t>(vertex - header.elements.begin());
  header.last_read      = header.vertex_element;
  vertex->role          = Role::Vertices;
  constexpr std::array<std::string_view, 3> kAxes{"x", "y", "z"};
  vertex->axis.assign(vertex->properties.size(), kNoAxis);
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const auto property = std::find_if(
        vertex->properties.begin(), vertex->properties.end(), [&](const PlyProperty& candidate) {
          return candidate.name == kAxes[axis];
        });
    if (property == vertex->properties.end()) {
      fail(path, "PLY vertex element has no '" + std::string(kAxes[axis]) + "' property");
    }
    if (property->list_count_type) {
      fail(path, "PLY vertex property '" + std::string(kAxes[axis]) + "' is a list");
    }
    vertex->axis[static_cast<std::size_t>(property - vertex->properties.begin())] = axis;
  }
  for (PlyElement& element : header.elements) {
    const bool strips = element.name == "tristrips";
    if ((element.name != "face" && !strips) || element.count == 0 || element.properties.empty()) {
      continue;
    }
    const auto list = std::find_if(
        element.properties.begin(), element.properties.end(), [](const PlyProperty& property) {
          return property.list_count_type &&
                 (property.name == "vertex_indices" || property.name == "vertex_index");
        });
    if (list == element.properties.end()) {
      fail(path,
           "PLY '" + element.name +
               "' element has no 'vertex_indices' list (property list <type> " +
               "<type> vertex_indices)");
    }
    element.role = strips ? Role::Strips : Role::Faces;
    header.last_read =
        std::max(header.last_read, static_cast<std::size_t>(&element - header.elements.data()));
    element.indices = static_cast<std::size_t>(list - element.properties.begin());
    header.is_mesh  = true;
  }
}

/// Reads the header up to and including end_header. Lines with a keyword it does not know (an
/// exporter's "Created by ..." without "comment") are skipped, as assimp's PLY reader skips them.
PlyHeader parse_header(const std::filesystem::path& path, PieceReader& reader) {
  const std::string_view start = reader.peek(4);
  const std::optional<std::string_view> magic =
      start.starts_with("ply") &&
              (start.size() == 3 || std::isspace(static_cast<unsigned char>(start[3])))
          ? reader.line()
          : std::nullopt;
  if (!magic || split_whitespace(*magic) != std::vector<std::string_view>{"ply"}) {
    fail(path, "not a PLY file (the first line must be 'ply')");
  }
  PlyHeader header;
  bool has_format = false;
  for (;;) {
    const std::optional<std::string_view> line = reader.line();
    if (!line) fail(path, "malformed PLY header: no end_header line");
    const std::size_t number                   = reader.line_number();
    const std::vector<std::string_view> fields = split_whitespace(*line);
    if (fields.empty()) continue;
    const std::string_view keyword = fields[0];
    if (keyword == "end_header") break;
    if (keyword == "format") {
      if (fields.size() != 3) fail(path, at_line(number) + "expected 'format <type> <version>'");
      if (fields[1] == "ascii") {
        header.format = PlyFormat::Ascii;
      } else if (fields[1] == "binary_little_endian") {
        header.format = PlyFormat::BinaryLittleEndian;
      } else if (fields[1] == "binary_big_endian") {
        header.format = PlyFormat::BinaryBigEndian;
      } else {
        fail(path, at_line(number) + "unknown PLY format '" + std::string(fields[1]) + "'");
      }
      has_format = true;
    } else if (keyword == "element") {
      if (fields.size() != 3) fail(path, at_line(number) + "expected 'element <name> <count>'");
      const std::optional<std::uint64_t> count = parse_count(fields[2]);
      if (!count) {
        fail(path,
             at_line(number) + "element count '" + std::string(fields[2]) +
                 "' is not a non-negative integer");
      }
      PlyElement element;
      element.name  = std::string(fields[1]);
      element.count = *count;
      header.elements.push_back(std::move(element));
    } else if (keyword == "property") {
      if (header.elements.empty()) fail(path, at_line(number) + "property before any element");
      PlyProperty property;
      if (fields.size() == 5 && fields[1] == "list") {
        property.list_count_type = parse_type(path, number, fields[2]);
        if (!is_integer(*property.list_count_type)) {
          fail(path, at_line(number) + "a list's length type must be an integer type");
        }
        property.type = parse_type(path, number, fields[3]);
        property.name = std::string(fields[4]);
      } else if (fields.size() == 3 && fields[1] != "list") {
        property.type = parse_type(path, number, fields[1]);
        property.name = std::string(fields[2]);
      } else {
        fail(path,
             at_line(number) +
                 "expected 'property <type> <name>' or 'property list <type> <type> <name>'");
      }
      header.elements.back().properties.push_back(std::move(property));
    }
  }
  if (!has_format) fail(path, "malformed PLY header: no format line");
  assign_roles(path, header);
  return header;
}

/// The fewest bytes one element can take: binary, the scalars and list lengths; ASCII, one
/// character and one separator (or the line end) per scalar or list length.
std::uint64_t min_element_bytes(const PlyElement& element, PlyFormat format) {
  std::uint64_t bytes = 0;
  for (const PlyProperty& property : element.properties) {
    bytes += format == PlyFormat::Ascii
                 ? 2
                 : type_size(property.list_count_type.value_or(property.type));
  }
  return bytes;
}

/// Up front, before anything is allocated or read: the elements up to the last one read must fit
/// in the `data_size` bytes after the header, so a count that promises more data than the file
/// holds is an error here, not a long loop or a huge reservation.
void check_counts_fit(const std::filesystem::path& path,
                      const PlyHeader& header,
                      std::uint64_t data_size) {
  // ASCII: the last line may lack its line end.
  std::uint64_t remaining = data_size + (header.format == PlyFormat::Ascii ? 1 : 0);
  for (std::size_t e = 0; e <= header.last_read; ++e) {
    const PlyElement& element = header.elements[e];
    const std::uint64_t bytes = min_element_bytes(element, header.format);
    if (bytes == 0) continue;
    if (element.count > remaining / bytes) {
      fail(path,
           "the header promises " + std::to_string(element.count) + " '" + element.name +
               "' elements of at least " + std::to_string(bytes) + " bytes each, but only " +
               std::to_string(data_size) + " bytes of data follow the header" +
               (e > 0 ? " (after the elements before it)" : ""));
    }
    remaining -= element.count * bytes;
  }
}

/// The host memory the model takes at its peak (its vertices as read, their weld order and
/// mapping, a triangle per face), against what the host has (MemAvailable, the process's limits)
/// before any of it is allocated.
void check_memory(const std::filesystem::path& path, const PlyHeader& header) {
  const std::uint64_t vertices = header.elements[header.vertex_element].count;
  std::uint64_t faces          = 0;
  for (const PlyElement& element : header.elements) {
    if (is_faces(element)) faces += element.count;
  }
  // check_counts_fit bounded the counts by the file's size, so these products do not overflow.
  const std::uint64_t bytes = header.is_mesh
                                  ? vertices * (sizeof(Float3) + 2 * sizeof(std::uint32_t)) +
                                        faces * 3 * sizeof(std::uint32_t)
                                  : vertices * sizeof(Float3);
  require_host_memory(path,
                      bytes,
                      "its " + std::to_string(vertices) + " vertices" +
                          (header.is_mesh ? " and " + std::to_string(faces) + " faces" : ""));
}

/// What the pass over the data builds: a point cloud's points, or a mesh's vertices as read and
/// its triangles by their indices in the file.
struct PlyData {
  bool is_mesh = false;
  PointCloud cloud;
  std::vector<Float3> vertices;  // as read (non-finite ones too, so indices hold)
  std::vector<std::uint32_t> triangles;

  void add_vertex(const std::array<double, 3>& xyz) {
    if (is_mesh) {
      vertices.push_back(
          {static_cast<float>(xyz[0]), static_cast<float>(xyz[1]), static_cast<float>(xyz[2])});
    } else {
      add_point(cloud, xyz[0], xyz[1], xyz[2]);
    }
  }
};

/// Turns one element's list of vertex indices into triangles: a polygon fan-triangulated, a strip
/// unrolled (alternate triangles turned to keep the winding, -1 ending a strip, triangles with a
/// repeated corner left out). Each index is checked against the vertex count as it arrives.
class CornerSink {
 public:
  CornerSink(const std::filesystem::path& path,
             const PlyElement& element,
             std::uint64_t vertices,
             std::vector<std::uint32_t>& triangles)
      : m_path(path), m_element(element), m_vertices(vertices), m_triangles(triangles) {}

  void start(std::uint64_t item) {
    m_item  = item;
    m_count = 0;
  }

  void corner(double value) {
    if (m_element.role == Role::Strips && value == -1) {
      m_count = 0;
      return;
    }
    if (!(value >= 0) || value != std::floor(value) || value >= static_cast<double>(m_vertices)) {
      fail(m_path,
           "'" + m_element.name + "' element " + std::to_string(m_item + 1) + " refers to vertex " +
               number(value) + ", but the file has " + std::to_string(m_vertices) +
               " vertices (indices start at 0)");
    }
    const auto index = static_cast<std::uint32_t>(value);
    if (m_element.role == Role::Faces) {
      if (m_count == 0) m_first = index;
      if (m_count >= 2) m_triangles.insert(m_triangles.end(), {m_first, m_previous, index});
    } else if (m_count >= 2 && m_first != m_previous && m_previous != index && m_first != index) {
      // m_first, m_previous: the strip's last two corners.
      if (m_count % 2 == 0) {
        m_triangles.insert(m_triangles.end(), {m_first, m_previous, index});
      } else {
        m_triangles.insert(m_triangles.end(), {m_previous, m_first, index});
      }
    }
    if (m_element.role == Role::Strips && m_count >= 1) m_first = m_previous;
    m_previous = index;
    ++m_count;
  }

 private:
  static std::string number(double value) {
    if (value == std::floor(value) && std::abs(value) < 1e18) {
      return std::to_string(static_cast<long long>(value));
    }
    return std::to_string(value);
  }

  const std::filesystem::path& m_path;
  const PlyElement& m_element;
  std::uint64_t m_vertices;
  std::vector<std::uint32_t>& m_triangles;
  std::uint64_t m_item  = 0;
  std::uint64_t m_count = 0;
  std::uint32_t m_first = 0, m_previous = 0;
};

void read_ascii(const std::filesystem::path& path,
                const PlyHeader& header,
                PieceReader& reader,
                PlyData& data) {
  const std::uint64_t vertices = header.elements[header.vertex_element].count;
  for (std::size_t e = 0; e <= header.last_read; ++e) {
    const PlyElement& element = header.elements[e];
    if (element.properties.empty()) continue;  // holds no values (check_counts_fit bounded it)
    CornerSink sink(path, element, vertices, data.triangles);
    for (std::uint64_t i = 0; i < element.count; ++i) {
      std::optional<std::string_view> line = reader.line();
      std::vector<std::string_view> fields;
      while (line && (fields = split_whitespace(*line)).empty())
        line = reader.line();
      if (!line) {
        fail(path,
             "truncated data: the file ends after " + std::to_string(i) + " of " +
                 std::to_string(element.count) + " '" + element.name + "' elements");
      }
      if (element.role == Role::Skipped) continue;

      const std::string where = at_line(reader.line_number());
      std::array<double, 3> xyz{};
      std::size_t field = 0;
      sink.start(i);
      for (std::size_t p = 0; p < element.properties.size(); ++p) {
        if (field >= fields.size()) {
          fail(path,
               where + "too few values for a '" + element.name + "' element (the header declares " +
                   std::to_string(element.properties.size()) + " properties)");
        }
        if (element.properties[p].list_count_type) {
          const std::optional<std::uint64_t> length = parse_count(fields[field]);
          if (!length) {
            fail(path, where + "list length '" + std::string(fields[field]) + "' is not a count");
          }
          if (*length > fields.size() - field - 1) {
            fail(path,
                 where + "'" + element.name + "' element " + std::to_string(i + 1) +
                     ": its list of " + std::to_string(*length) + " values holds only " +
                     std::to_string(fields.size() - field - 1) + " on its line");
          }
          ++field;
          const bool corners = is_faces(element) && p == element.indices;
          for (std::uint64_t k = 0; k < *length; ++k, ++field) {
            if (!corners) continue;
            const std::optional<double> value = parse_double(fields[field]);
            if (!value) {
              fail(path, where + "cannot parse '" + std::string(fields[field]) + "' as an index");
            }
            sink.corner(*value);
          }
          continue;
        }
        if (element.role == Role::Vertices && element.axis[p] != kNoAxis) {
          const std::optional<double> value = parse_double(fields[field]);
          if (!value) {
            fail(path, where + "cannot parse '" + std::string(fields[field]) + "' as a number");
          }
          xyz[element.axis[p]] = *value;
        }
        ++field;
      }
      if (field != fields.size()) {
        fail(path,
             where + "expected " + std::to_string(field) + " values for a '" + element.name +
                 "' element, found " + std::to_string(fields.size()));
      }
      if (element.role == Role::Vertices) data.add_vertex(xyz);
    }
  }
}

void read_binary(const std::filesystem::path& path,
                 const PlyHeader& header,
                 PieceReader& reader,
                 std::uint64_t size,
                 PlyData& data) {
  const bool big_endian        = header.format == PlyFormat::BinaryBigEndian;
  const std::uint64_t vertices = header.elements[header.vertex_element].count;
  for (std::size_t e = 0; e <= header.last_read; ++e) {
    const PlyElement& element = header.elements[e];
    if (element.properties.empty()) continue;  // zero bytes each: nothing to read
    CornerSink sink(path, element, vertices, data.triangles);
    for (std::uint64_t i = 0; i < element.count; ++i) {
      const auto truncated = [&] {
        fail(path,
             "truncated data: the file ends inside '" + element.name + "' element " +
                 std::to_string(i + 1) + " of " + std::to_string(element.count));
      };
      const auto take = [&](PlyType type) {
        const char* value = reader.take(type_size(type));
        if (value == nullptr) truncated();
        return load_value(value, type, big_endian);
      };
      std::array<double, 3> xyz{};
      sink.start(i);
      for (std::size_t p = 0; p < element.properties.size(); ++p) {
        const PlyProperty& property = element.properties[p];
        if (property.list_count_type) {
          const double length = take(*property.list_count_type);
          if (length < 0) {
            fail(path,
                 "negative list length in '" + element.name + "' element " + std::to_string(i + 1));
          }
          // Against the bytes left before reading it: a 220-byte file may claim 2^30 indices.
          const std::uint64_t items = static_cast<std::uint64_t>(length);
          const std::uint64_t left  = size - std::min(size, reader.consumed());
          if (items > left / type_size(property.type)) truncated();
          if (!is_faces(element) || p != element.indices) {
            if (!reader.skip(items * type_size(property.type))) truncated();
            continue;
          }
          for (std::uint64_t k = 0; k < items; ++k)
            sink.corner(take(property.type));
          continue;
        }
        if (element.role == Role::Vertices && element.axis[p] != kNoAxis) {
          xyz[element.axis[p]] = take(property.type);
        } else if (!reader.skip(type_size(property.type))) {
          truncated();
        }
      }
      if (element.role == Role::Vertices) data.add_vertex(xyz);
    }
  }
}

bool is_finite(Float3 p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
}

/// A position's bit pattern, with -0 as +0, for welding identical positions.
std::array<std::uint32_t, 3> position_bits(Float3 p) {
  const auto bits = [](float value) { return std::bit_cast<std::uint32_t>(value + 0.0f); };
  return {bits(p.x), bits(p.y), bits(p.z)};
}

/// The mesh from what was read: identical finite positions welded into the first of them (in file
/// order, as assimp's path welds), non-finite vertices kept but counted, and the triangles that use
/// them dropped and counted.
Mesh build_mesh(PlyData data) {
  Mesh mesh;
  if (!data.triangles.empty()) mesh.part_names = {""};  // one part, unnamed (as OBJ's and assimp's)
  std::vector<Float3>& vertices = data.vertices;
  const std::size_t count       = vertices.size();
  std::vector<std::uint32_t> order(count);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const bool fa = is_finite(vertices[a]), fb = is_finite(vertices[b]);
    if (fa != fb) return fa;
    if (!fa) return false;  // non-finite vertices are never welded
    return position_bits(vertices[a]) < position_bits(vertices[b]);
  });
  // first[v]: the vertex v is welded into (the first in the file at its position), then v's index
  // in the mesh; a vertex kept moves down to its index (never above where it was).
  std::vector<std::uint32_t> first(count);
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint32_t v = order[k];
    const bool same       = k > 0 && is_finite(vertices[v]) &&
                      position_bits(vertices[v]) == position_bits(vertices[order[k - 1]]);
    first[v] = same ? first[order[k - 1]] : v;
  }
  std::vector<std::uint32_t>().swap(order);
  std::uint32_t kept_vertices = 0;
  for (std::size_t v = 0; v < count; ++v) {
    if (first[v] == v) {
      if (!is_finite(vertices[v])) ++mesh.non_finite_vertices;
      vertices[kept_vertices] = vertices[v];
      first[v]                = kept_vertices++;
    } else {
      first[v] = first[first[v]];
    }
  }
  vertices.resize(kept_vertices);
  std::size_t kept = 0;
  for (std::size_t t = 0; t + 2 < data.triangles.size(); t += 3) {
    const std::uint32_t a = first[data.triangles[t]], b = first[data.triangles[t + 1]],
                        c = first[data.triangles[t + 2]];
    if (is_finite(vertices[a]) && is_finite(vertices[b]) && is_finite(vertices[c])) {
      data.triangles[kept++] = a;
      data.triangles[kept++] = b;
      data.triangles[kept++] = c;
    } else {
      ++mesh.dropped_triangles;
    }
  }
  data.triangles.resize(kept);
  mesh.vertices  = std::move(vertices);
  mesh.triangles = std::move(data.triangles);
  return mesh;
}

/// A file's bytes in memory, handed out in pieces of the sizes `pieces` lists, in turn.
class MemorySource final : public ByteSource {
 public:
  MemorySource(std::string_view bytes, std::span<const std::size_t> pieces)
      : m_bytes(bytes), m_pieces(pieces) {}
  std::size_t read(char* out, std::size_t max) override {
    std::size_t n = std::min(max, m_bytes.size() - m_offset);
    if (!m_pieces.empty())
      n = std::min(n, std::max<std::size_t>(m_pieces[m_next++ % m_pieces.size()], 1));
    std::memcpy(out, m_bytes.data() + m_offset, n);
    m_offset += n;
    return n;
  }

 private:
  std::string_view m_bytes;
  std::span<const std::size_t> m_pieces;
  std::size_t m_offset = 0;
  std::size_t m_next   = 0;
};

class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::filesystem::path& path)
      : m_path(path), m_stream(open_input(path)) {}
  std::size_t read(char* out, std::size_t max) override {
    m_stream.read(out, static_cast<std::streamsize>(max));
    if (m_stream.bad()) fail(m_path, "read error");
    return static_cast<std::size_t>(m_stream.gcount());
  }

 private:
  const std::filesystem::path& m_path;
  std::ifstream m_stream;
};

}  // namespace

PlyModel read_ply(const std::filesystem::path& path,
                  ByteSource& source,
                  std::uint64_t size,
                  std::size_t piece) {
  PieceReader reader(path, source, piece);
  const PlyHeader header = parse_header(path, reader);
  check_counts_fit(path, header, size - std::min(size, reader.consumed()));
  check_memory(path, header);
  const PlyElement& vertex_element = header.elements[header.vertex_element];
  if (vertex_element.count > std::numeric_limits<std::uint32_t>::max()) {
    fail(path, "more than 2^32 - 1 vertices");
  }
  PlyData data;
  data.is_mesh = header.is_mesh;
  if (data.is_mesh) {
    data.vertices.reserve(static_cast<std::size_t>(vertex_element.count));
  } else {
    data.cloud.points.reserve(static_cast<std::size_t>(vertex_element.count));
  }
  if (header.format == PlyFormat::Ascii) {
    read_ascii(path, header, reader, data);
  } else {
    read_binary(path, header, reader, size, data);
  }
  PlyModel model;
  model.is_mesh = data.is_mesh;
  if (model.is_mesh) {
    model.mesh = build_mesh(std::move(data));
  } else {
    model.cloud = std::move(data.cloud);
  }
  return model;
}

PlyModel load_ply(const std::filesystem::path& path, std::size_t piece) {
  FileSource source(path);
  std::error_code error;
  const std::uint64_t size = std::filesystem::file_size(path, error);
  if (error) fail(path, "cannot access the file: " + error.message());
  return read_ply(path, source, size, piece);
}

PlyModel parse_ply(const std::filesystem::path& path,
                   std::string_view bytes,
                   std::span<const std::size_t> pieces) {
  MemorySource source(bytes, pieces);
  // The buffer no larger than the bytes: the fuzzers read thousands of small files a second.
  return read_ply(
      path, source, bytes.size(), std::clamp<std::size_t>(bytes.size(), 1, std::size_t{1} << 20));
}

}  // namespace voxhash::io
