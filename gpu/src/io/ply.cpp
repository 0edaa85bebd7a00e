// PLY point clouds: the header is parsed in full (elements, scalar and list properties of every
// standard type) and its counts checked against the file's size; the vertex element's x/y/z are
// read from ASCII or binary (little- or big-endian) data, and whatever precedes it is skipped.
// Elements after the vertex element are not read. A header that declares faces sends the file to
// the mesh reader (ply_mesh_for_assimp).
#include "io/io_common.hpp"

#include <voxhash/io.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <optional>
#include <string>
#include <utility>

namespace voxhash::io {
namespace {

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

struct PlyElement {
  std::string name;
  std::uint64_t count = 0;
  std::vector<PlyProperty> properties;
};

struct PlyHeader {
  PlyFormat format = PlyFormat::Ascii;
  std::vector<PlyElement> elements;
  std::size_t vertex_element = 0;        // index into elements
  std::vector<std::size_t> vertex_axis;  // per vertex property: 0, 1, 2 for x, y, z, else kNoAxis
};

constexpr std::size_t kNoAxis = 3;

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

PlyType parse_type(const std::filesystem::path& path, std::size_t line, std::string_view name) {
  const auto* found = std::find_if(
      kTypeNames.begin(), kTypeNames.end(), [&](const auto& entry) { return entry.first == name; });
  if (found == kTypeNames.end()) {
    fail(path, at_line(line) + "unknown PLY property type '" + std::string(name) + "'");
  }
  return found->second;
}

/// Reads the header up to and including end_header; `lines` is left at the first data line.
PlyHeader parse_header(const std::filesystem::path& path, LineReader& lines) {
  const std::optional<std::string_view> magic = lines.next();
  if (!magic || split_whitespace(*magic) != std::vector<std::string_view>{"ply"}) {
    fail(path, "not a PLY file (the first line must be 'ply')");
  }
  PlyHeader header;
  bool has_format = false;
  for (;;) {
    const std::optional<std::string_view> line = lines.next();
    if (!line) fail(path, "malformed PLY header: no end_header line");
    const std::size_t number                   = lines.line_number();
    const std::vector<std::string_view> fields = split_whitespace(*line);
    if (fields.empty() || fields[0] == "comment" || fields[0] == "obj_info") continue;
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
      header.elements.push_back({std::string(fields[1]), *count, {}});
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
    } else {
      fail(path, at_line(number) + "unknown PLY header keyword '" + std::string(keyword) + "'");
    }
  }
  if (!has_format) fail(path, "malformed PLY header: no format line");

  const auto vertex =
      std::find_if(header.elements.begin(), header.elements.end(), [](const PlyElement& element) {
        return element.name == "vertex";
      });
  if (vertex == header.elements.end()) fail(path, "PLY header declares no 'vertex' element");
  header.vertex_element = static_cast<std::size_t>(vertex - header.elements.begin());
  constexpr std::array<std::string_view, 3> kAxes{"x", "y", "z"};
  header.vertex_axis.assign(vertex->properties.size(), kNoAxis);
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
    header.vertex_axis[static_cast<std::size_t>(property - vertex->properties.begin())] = axis;
  }
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

/// Up front, before anything is allocated or read: elements 0 to `last` must fit in the
/// `data_size` bytes after the header, so a count that promises more data than the file holds is
/// an error here, not a long loop or a huge reservation.
void check_counts_fit(const std::filesystem::path& path,
                      const PlyHeader& header,
                      std::uint64_t data_size,
                      std::size_t last) {
  // ASCII: the last line may lack its line end.
  std::uint64_t remaining = data_size + (header.format == PlyFormat::Ascii ? 1 : 0);
  for (std::size_t e = 0; e <= last; ++e) {
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

void read_ascii(const std::filesystem::path& path,
                const PlyHeader& header,
                LineReader& lines,
                PointCloud& cloud) {
  for (std::size_t e = 0; e <= header.vertex_element; ++e) {
    const PlyElement& element = header.elements[e];
    const bool is_vertex      = e == header.vertex_element;
    if (element.properties.empty()) continue;  // holds no values (check_counts_fit bounded it)
    if (is_vertex) cloud.points.reserve(static_cast<std::size_t>(element.count));
    for (std::uint64_t i = 0; i < element.count; ++i) {
      std::optional<std::string_view> line = lines.next();
      while (line && split_whitespace(*line).empty())
        line = lines.next();
      if (!line) {
        fail(path,
             "truncated data: the file ends after " + std::to_string(i) + " of " +
                 std::to_string(element.count) + " '" + element.name + "' elements");
      }
      if (!is_vertex) continue;

      const std::vector<std::string_view> fields = split_whitespace(*line);
      const std::string where                    = at_line(lines.line_number());
      std::array<double, 3> xyz{};
      std::size_t field = 0;
      for (std::size_t p = 0; p < element.properties.size(); ++p) {
        if (field >= fields.size()) {
          fail(path,
               where + "too few values for a vertex (the header declares " +
                   std::to_string(element.properties.size()) + " properties)");
        }
        if (element.properties[p].list_count_type) {
          const std::optional<std::uint64_t> length = parse_count(fields[field]);
          if (!length) {
            fail(path, where + "list length '" + std::string(fields[field]) + "' is not a count");
          }
          field += 1 + static_cast<std::size_t>(std::min<std::uint64_t>(*length, fields.size()));
          continue;
        }
        if (const std::size_t axis = header.vertex_axis[p]; axis != kNoAxis) {
          const std::optional<double> value = parse_double(fields[field]);
          if (!value) {
            fail(path, where + "cannot parse '" + std::string(fields[field]) + "' as a number");
          }
          xyz[axis] = *value;
        }
        ++field;
      }
      if (field != fields.size()) {
        fail(path,
             where + "expected " + std::to_string(field) + " values for a vertex, found " +
                 std::to_string(fields.size()));
      }
      add_point(cloud, xyz[0], xyz[1], xyz[2]);
    }
  }
}

void read_binary(const std::filesystem::path& path,
                 const PlyHeader& header,
                 std::string_view data,
                 PointCloud& cloud) {
  const bool big_endian = header.format == PlyFormat::BinaryBigEndian;
  std::size_t offset    = 0;
  for (std::size_t e = 0; e <= header.vertex_element; ++e) {
    const PlyElement& element = header.elements[e];
    const bool is_vertex      = e == header.vertex_element;
    if (element.properties.empty()) continue;  // zero bytes each: nothing to read
    if (is_vertex) cloud.points.reserve(static_cast<std::size_t>(element.count));
    for (std::uint64_t i = 0; i < element.count; ++i) {
      const auto take = [&](std::uint64_t bytes) {
        if (data.size() - offset < bytes) {
          fail(path,
               "truncated binary data: '" + element.name + "' element " + std::to_string(i + 1) +
                   " of " + std::to_string(element.count) + " runs past the end of the file");
        }
        const char* start = data.data() + offset;
        offset += static_cast<std::size_t>(bytes);
        return start;
      };
      std::array<double, 3> xyz{};
      for (std::size_t p = 0; p < element.properties.size(); ++p) {
        const PlyProperty& property = element.properties[p];
        if (property.list_count_type) {
          const double length = load_value(
              take(type_size(*property.list_count_type)), *property.list_count_type, big_endian);
          if (length < 0) {
            fail(path,
                 "negative list length in '" + element.name + "' element " + std::to_string(i + 1));
          }
          take(static_cast<std::uint64_t>(length) * type_size(property.type));
          continue;
        }
        const char* value = take(type_size(property.type));
        if (is_vertex && header.vertex_axis[p] != kNoAxis) {
          xyz[header.vertex_axis[p]] = load_value(value, property.type, big_endian);
        }
      }
      if (is_vertex) add_point(cloud, xyz[0], xyz[1], xyz[2]);
    }
  }
}

std::string_view type_name(PlyType type) {
  return std::find_if(kTypeNames.begin(),
                      kTypeNames.end(),
                      [&](const auto& entry) { return entry.second == type; })
      ->first;
}

/// Where each element's data lies in `data` (the bytes after the header): [begin, end) offsets,
/// found by walking every item (ASCII: one non-blank line each; binary: scalars and lists by their
/// sizes). Throws on data that ends inside an element.
std::vector<std::pair<std::size_t, std::size_t>> element_extents(const std::filesystem::path& path,
                                                                 const PlyHeader& header,
                                                                 std::string_view data) {
  std::vector<std::pair<std::size_t, std::size_t>> extents;
  const bool big_endian = header.format == PlyFormat::BinaryBigEndian;
  LineReader lines(data);
  std::size_t offset = 0;
  for (const PlyElement& element : header.elements) {
    const std::size_t begin = offset;
    for (std::uint64_t i = 0; i < element.count && !element.properties.empty(); ++i) {
      const auto truncated = [&] {
        fail(path,
             "truncated data: the file ends inside '" + element.name + "' element " +
                 std::to_string(i + 1) + " of " + std::to_string(element.count));
      };
      if (header.format == PlyFormat::Ascii) {
        std::optional<std::string_view> line = lines.next();
        while (line && split_whitespace(*line).empty())
          line = lines.next();
        if (!line) truncated();
        offset = lines.offset();
        // A list's length against the values its line holds (assimp reserves what it says).
        const std::vector<std::string_view> fields = split_whitespace(*line);
        std::size_t field                          = 0;
        for (const PlyProperty& property : element.properties) {
          if (field >= fields.size()) break;
          if (!property.list_count_type) {
            ++field;
            continue;
          }
          const std::optional<double> length = parse_double(fields[field++]);
          if (!length || !(*length >= 0) || *length > static_cast<double>(fields.size() - field)) {
            fail(path,
                 "'" + element.name + "' element " + std::to_string(i + 1) + ": its list of " +
                     std::string(fields[field - 1]) + " values holds only " +
                     std::to_string(fields.size() - field) + " on its line");
          }
          field += static_cast<std::size_t>(*length);
        }
        continue;
      }
      for (const PlyProperty& property : element.properties) {
        std::uint64_t bytes = type_size(property.list_count_type.value_or(property.type));
        if (data.size() - offset < bytes) truncated();
        if (property.list_count_type) {
          const double length =
              load_value(data.data() + offset, *property.list_count_type, big_endian);
          offset += static_cast<std::size_t>(bytes);
          if (length < 0) fail(path, "negative list length in '" + element.name + "'");
          bytes = static_cast<std::uint64_t>(length) * type_size(property.type);
          if (data.size() - offset < bytes) truncated();
        }
        offset += static_cast<std::size_t>(bytes);
      }
    }
    extents.emplace_back(begin, offset);
  }
  return extents;
}

}  // namespace

void parse_ply_points(const std::filesystem::path& path,
                      std::string_view bytes,
                      PointCloud& cloud) {
  LineReader lines(bytes);
  const PlyHeader header      = parse_header(path, lines);
  const std::string_view data = bytes.substr(lines.offset());
  check_counts_fit(path, header, data.size(), header.vertex_element);
  if (header.format == PlyFormat::Ascii) {
    read_ascii(path, header, lines, cloud);
  } else {
    read_binary(path, header, data, cloud);
  }
}

std::optional<std::string> ply_mesh_for_assimp(const std::filesystem::path& path,
                                               std::string_view bytes) {
  LineReader lines(bytes);
  const PlyHeader header = parse_header(path, lines);
  const auto has_data    = [](const PlyElement& element) {
    return element.count > 0 && !element.properties.empty();
  };
  const auto faces =
      std::find_if(header.elements.begin(), header.elements.end(), [&](const PlyElement& element) {
        return (element.name == "face" || element.name == "tristrips") && has_data(element);
      });
  if (faces == header.elements.end()) return std::nullopt;
  // Every count against the file's size: assimp reserves what the header promises (a 400-byte
  // file declaring 64294967295 faces asked for 66 GB).
  const std::string_view data = bytes.substr(lines.offset());
  check_counts_fit(path, header, data.size(), header.elements.size() - 1);

  // The header again from what was parsed, in the order assimp 5.2 reads right — the vertices,
  // then the faces, then the rest (an element with data before the vertices gives its values as
  // vertices; one between the vertices and the faces, face indices out of range) — and without
  // the comment, obj_info and blank lines it misreads (one after an element line loses the
  // element's properties, one between properties turns the values into zeros).
  const auto is_faces = [&](std::size_t e) { return header.elements.begin() + e == faces; };
  std::vector<std::size_t> order{header.vertex_element,
                                 static_cast<std::size_t>(faces - header.elements.begin())};
  for (std::size_t e = 0; e < header.elements.size(); ++e) {
    if (e != header.vertex_element && !is_faces(e)) order.push_back(e);
  }
  std::string out = "ply\nformat ";
  out += header.format == PlyFormat::Ascii                ? "ascii"
         : header.format == PlyFormat::BinaryLittleEndian ? "binary_little_endian"
                                                          : "binary_big_endian";
  out += " 1.0\n";
  for (const std::size_t e : order) {
    const PlyElement& element = header.elements[e];
    out += "element " + element.name + " " + std::to_string(element.count) + "\n";
    for (const PlyProperty& property : element.properties) {
      out += "property ";
      if (property.list_count_type) {
        out.append("list ").append(type_name(*property.list_count_type)).append(" ");
      }
      out.append(type_name(property.type)).append(" ").append(property.name).append("\n");
    }
  }
  out += "end_header\n";
  // The data as it is when the elements that hold data keep their order; else moved to match.
  std::vector<std::size_t> with_data, original;
  for (std::size_t e = 0; e < header.elements.size(); ++e) {
    if (has_data(header.elements[order[e]])) with_data.push_back(order[e]);
    if (has_data(header.elements[e])) original.push_back(e);
  }
  // Every list's length against the data left (binary) or its line (ASCII), before assimp
  // reserves it: a 220-byte file whose face claimed 2^30 indices took 8.4 GB.
  const std::vector<std::pair<std::size_t, std::size_t>> extents =
      element_extents(path, header, data);
  if (with_data == original) return out.append(data);
  for (const std::size_t e : order) {
    out.append(data.substr(extents[e].first, extents[e].second - extents[e].first));
    // An ASCII element's last line may lack its line end.
    if (header.format == PlyFormat::Ascii && !out.empty() && out.back() != '\n') out += '\n';
  }
  return out;
}

}  // namespace voxhash::io
