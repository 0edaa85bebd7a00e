// File access, line walking and number parsing for the model loaders. Every failure names the file
// first, so a front end can print the exception's message as it is.
#include "io/io_common.hpp"

#include <voxhash/error.hpp>

#include <charconv>
#include <cmath>
#include <iterator>
#include <locale>
#include <sstream>
#include <system_error>

namespace voxhash::io {

void fail(const std::filesystem::path& path, const std::string& message) {
  throw InvalidInput(path.string() + ": " + message);
}

std::ifstream open_input(const std::filesystem::path& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error == std::errc::too_many_symbolic_link_levels) {
    fail(path, "symbolic link loop (too many levels of symbolic links)");
  }
  if (error && error != std::errc::no_such_file_or_directory) {
    fail(path, "cannot access the file: " + error.message());
  }
  if (!std::filesystem::exists(status)) {
    std::error_code link_error;
    if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, link_error))) {
      fail(path,
           "broken symbolic link (to '" + std::filesystem::read_symlink(path, link_error).string() +
               "', which does not exist)");
    }
    fail(path, "file not found");
  }
  if (!std::filesystem::is_regular_file(status)) fail(path, "not a regular file");
  std::ifstream stream(path, std::ios::binary);
  if (!stream) fail(path, "cannot open file for reading");
  return stream;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream stream = open_input(path);
  std::string bytes{std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
  if (stream.bad()) fail(path, "read error");
  return bytes;
}

std::optional<std::string_view> LineReader::next() {
  if (m_offset >= m_text.size()) return std::nullopt;
  const std::size_t end  = m_text.find('\n', m_offset);
  const std::size_t stop = end == std::string_view::npos ? m_text.size() : end;
  std::string_view line  = m_text.substr(m_offset, stop - m_offset);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  m_offset = end == std::string_view::npos ? m_text.size() : end + 1;
  ++m_line_number;
  return line;
}

std::vector<std::string_view> split_whitespace(std::string_view text) {
  constexpr std::string_view kWhitespace = " \t\r\n\v\f";
  std::vector<std::string_view> fields;
  std::size_t begin = text.find_first_not_of(kWhitespace);
  while (begin != std::string_view::npos) {
    const std::size_t end = text.find_first_of(kWhitespace, begin);
    fields.push_back(text.substr(begin, end == std::string_view::npos ? end : end - begin));
    begin = end == std::string_view::npos ? end : text.find_first_not_of(kWhitespace, end);
  }
  return fields;
}

std::optional<double> parse_double(std::string_view token) {
  if (token.size() > 1 && token.front() == '+' && token[1] != '-') token.remove_prefix(1);
  double value         = 0;
  const char* end      = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (ec == std::errc::result_out_of_range && ptr == end) {
    // Valid syntax beyond double's range: from_chars only reports it, a stream in the classic
    // locale saturates an overflow (later dropped as non-finite) and rounds an underflow.
    std::istringstream stream{std::string(token)};
    stream.imbue(std::locale::classic());
    stream >> value;
    return value;
  }
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> parse_count(std::string_view token) {
  std::uint64_t value  = 0;
  const char* end      = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

void add_point(PointCloud& cloud, double x, double y, double z) {
  const Float3 p{static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)};
  if (std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z)) {
    cloud.points.push_back(p);
  } else {
    ++cloud.dropped_non_finite;
  }
}

}  // namespace voxhash::io
