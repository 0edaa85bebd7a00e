// Text point clouds (XYZ, PTS, TXT, CSV): one point per line, its first three values x y z, further
// columns (normals, colours, intensities) ignored. Values are separated by whitespace or, on a line
// that has commas, by commas (CSV, fields trimmed and unquoted), or on a line that has semicolons
// by semicolons, its commas then decimal marks (a spreadsheet's CSV in many locales: "1,5;2;3");
// '#' starts a comment that runs to the end of the line and a line starting with "//" is a comment.
// Before the first point, a few lines that do not start with a number are a header (column names)
// and are skipped. A line holding a single count announces a block of that many points (Leica PTS,
// one block per scan) and is checked against the points that follow it.
#include "io/io_common.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <algorithm>
#include <fstream>
#include <new>
#include <string>

namespace voxhash::io {
namespace {

/// Header lines allowed before the first point; past them a file that never starts with numbers
/// is an error on its line, not a silent "no points".
constexpr std::size_t kMaxHeaderLines = 8;

std::string_view trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  const std::size_t first           = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

/// A line's values: comma-separated (each trimmed, one pair of double quotes removed) when the
/// line has a comma, else whitespace-separated.
std::vector<std::string_view> split_values(std::string_view line) {
  if (line.find(',') == std::string_view::npos) return split_whitespace(line);
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const std::size_t comma = line.find(',', start);
    std::string_view field  = trim(line.substr(start, comma - start));
    if (field.size() >= 2 && field.front() == '"' && field.back() == '"') {
      field = field.substr(1, field.size() - 2);
    }
    fields.push_back(field);
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

/// `line` for a message: quoted, and cut after 60 characters.
std::string quoted(std::string_view line) {
  constexpr std::size_t kShown = 60;
  std::string out(1, '\'');
  out.append(line.substr(0, kShown)).append(line.size() > kShown ? "...'" : "'");
  return out;
}

/// The block a count line opened: its line and how many points it announced and has had.
struct Block {
  std::size_t line        = 0;
  std::uint64_t announced = 0;
  std::uint64_t points    = 0;
  [[nodiscard]] bool open() const { return line != 0; }
};

void check_block(const std::filesystem::path& path, const Block& block) {
  if (block.open() && block.points != block.announced) {
    fail(path,
         "line " + std::to_string(block.line) + ": the count line announces " +
             std::to_string(block.announced) + " points, but " + std::to_string(block.points) +
             " follow it");
  }
}

/// The reader's state from one line to the next, so a file can be fed in pieces.
class XyzParser {
 public:
  XyzParser(const std::filesystem::path& path, PointCloud& cloud) : m_path(path), m_cloud(cloud) {}

  /// Line `number` of the file, without its ending.
  void line(std::string_view text, std::size_t number) {
    const auto where = [&] { return "line " + std::to_string(number) + ": "; };
    if (text.find('\0') != std::string_view::npos) {
      fail(m_path, where() + "binary data (a NUL byte), not a text point cloud");
    }
    std::string_view content = trim(text.substr(0, text.find('#')));
    if (content.empty() || content.starts_with("//")) return;
    // Semicolons between values (a spreadsheet's CSV where the decimal mark is a comma): decimal
    // commas become points, then the semicolons separate as commas do.
    std::string semicolons;
    if (content.find(';') != std::string_view::npos) {
      semicolons.assign(content);
      for (char& c : semicolons)
        c = c == ',' ? '.' : c == ';' ? ',' : c;
      content = semicolons;
    }
    const std::vector<std::string_view> fields = split_values(content);
    if (fields.size() == 1) {
      if (const std::optional<std::uint64_t> count = parse_count(fields[0])) {
        check_block(m_path, m_block);
        m_block = {number, *count, 0};
        return;
      }
    }
    std::optional<double> x, y, z;
    if (fields.size() >= 3) {
      x = parse_double(fields[0]);
      y = parse_double(fields[1]);
      z = parse_double(fields[2]);
    }
    if (!m_any_point && !m_block.open() && !parse_double(fields[0]) &&
        ++m_header_lines <= kMaxHeaderLines) {
      return;  // column names before the data
    }
    if (!x || !y || !z) {
      bool spaced = false;  // "1,5 2,5 3,5": decimal commas between spaces
      if (content.find(',') != std::string_view::npos) {
        for (std::size_t f = 0; f < fields.size() && f < 3; ++f)
          spaced = spaced || fields[f].find_first_of(" \t") != std::string_view::npos;
      }
      fail(m_path,
           where() + "expected 3 numbers (x y z), found " + quoted(content) +
               (spaced ? " (commas and spaces both separate values here: decimal commas are not "
                         "read, write decimals with '.')"
                       : ""));
    }
    add_point(m_cloud, *x, *y, *z);
    m_any_point = true;
    ++m_block.points;
  }

  /// After the last line.
  void finish() const { check_block(m_path, m_block); }

 private:
  const std::filesystem::path& m_path;
  PointCloud& m_cloud;
  std::size_t m_header_lines = 0;
  bool m_any_point           = false;
  Block m_block;
};

/// load_xyz_points' reading, without its translation of std::bad_alloc.
void read_xyz_pieces(const std::filesystem::path& path, PointCloud& cloud, std::size_t chunk) {
  std::ifstream stream = open_input(path);
  XyzParser parser(path, cloud);
  std::string buffer;  // the unfinished line, then the next chunk after it
  std::size_t number        = 0;
  const std::size_t longest = std::max(chunk, kMaxXyzLine);
  for (;;) {
    const std::size_t kept = buffer.size();
    buffer.resize(kept + chunk);
    stream.read(buffer.data() + kept, static_cast<std::streamsize>(chunk));
    if (stream.bad()) fail(path, "read error");
    buffer.resize(kept + static_cast<std::size_t>(stream.gcount()));
    const bool end = stream.gcount() == 0;
    // Every whole line of the buffer; at the end of the file the last one too.
    std::size_t start = 0;
    for (std::size_t stop; (stop = buffer.find('\n', start)) != std::string::npos || end;) {
      if (stop == std::string::npos) stop = buffer.size();
      if (start == stop && end) break;
      std::string_view line(buffer.data() + start, stop - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      parser.line(line, ++number);
      start = stop + 1;
      if (start > buffer.size()) break;
    }
    if (end) break;
    buffer.erase(0, std::min(start, buffer.size()));
    if (buffer.size() > longest) {
      fail(path,
           "line " + std::to_string(number + 1) + ": longer than " + std::to_string(longest >> 20) +
               " MiB: not a text point cloud");
    }
  }
  parser.finish();
}

}  // namespace

void parse_xyz_points(const std::filesystem::path& path, std::string_view text, PointCloud& cloud) {
  XyzParser parser(path, cloud);
  LineReader lines(text);
  while (const std::optional<std::string_view> line = lines.next())
    parser.line(*line, lines.line_number());
  parser.finish();
}

void load_xyz_points(const std::filesystem::path& path, PointCloud& cloud, std::size_t chunk) {
  // The count is not known before the end, so memory cannot be checked up front: running out
  // says so, naming the file and how far it got (it was a bare std::bad_alloc).
  try {
    read_xyz_pieces(path, cloud, chunk);
  } catch (const std::bad_alloc&) {
    throw OutOfMemory(path.string() + ": out of host memory after " +
                      std::to_string(cloud.points.size()) +
                      " points: the cloud needs more memory than the process may take");
  }
}

}  // namespace voxhash::io
