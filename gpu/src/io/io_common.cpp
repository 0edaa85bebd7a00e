// File access, line walking and number parsing for the model loaders, and the one checked file
// writer (write_file) every output goes through. Every failure names the file first, so a front
// end can print the exception's message as it is.
#include "host_memory.hpp"
#include "io/io_common.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/error.hpp>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <locale>
#include <sstream>
#include <system_error>
#include <unistd.h>

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

std::string printable_name(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) c = '?';
  }
  return out;
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

void require_host_memory(const std::filesystem::path& path,
                         std::uint64_t bytes,
                         const std::string& what) {
  const std::size_t free = detail::host_free_memory();
  if (bytes <= free) return;
  throw OutOfMemory(path.string() + ": " + what + " need " +
                    format_bytes(static_cast<std::size_t>(bytes)) + " of host memory; " +
                    format_bytes(free) + " is available");
}

}  // namespace voxhash::io

namespace voxhash {

void write_file(const std::filesystem::path& path, std::string_view bytes) {
  namespace fs         = std::filesystem;
  const auto fail_with = [&](const std::string& why) {
    throw InvalidInput(path.string() + ": cannot write it: " + why);
  };
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  const bool special           = fs::exists(status) && !fs::is_regular_file(status);
  if (fs::is_directory(status)) fail_with("it is a folder");
  // A temporary name beside the file, so the rename stays on one file system.
  const fs::path target =
      special ? path
              : fs::path(path.string() + ".part-" + std::to_string(static_cast<long>(::getpid())));
  std::FILE* file = std::fopen(target.c_str(), special ? "wb" : "wbx");
  if (file == nullptr) fail_with(std::strerror(errno));
  const bool written    = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  const int write_errno = errno;
  const bool closed     = std::fclose(file) == 0;
  if (!written || !closed) {
    const std::string why = std::strerror(written ? errno : write_errno);
    if (!special) fs::remove(target, error);
    fail_with(why);
  }
  if (special) return;
  fs::rename(target, path, error);
  if (error) {
    fs::remove(target, error);
    fail_with(error.message());
  }
}

}  // namespace voxhash
