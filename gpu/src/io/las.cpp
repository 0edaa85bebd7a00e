// LAS point clouds (ASPRS LAS 1.0 to 1.4, uncompressed, point data record formats 0 to 10): the
// public header block's version, point format, record length, point count (1.4's 64-bit count
// where the legacy one is 0), scale factors and offsets, checked against the file's size before
// anything is allocated; each record's X, Y and Z integers scaled and offset in double precision.
// Each point's ASPRS classification is its part, named by the standard's classes ("Ground",
// "Building", ...). LAZ (compressed LAS) is refused in one line. Read a block of records at a time.
#include "io/io_common.hpp"

#include <voxhash/io.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>

namespace voxhash::io {
namespace {

constexpr std::size_t kHeaderBytes = 227;  // the public header block up to LAS 1.2's last field

/// A format's smallest record (LAS 1.4 R15, table of point data record formats).
constexpr std::array<std::uint16_t, 11> kRecordBytes{20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67};

/// The ASPRS standard classes' names (LAS 1.4 R15, tables 9 and 17); others are "class N".
std::string class_name(std::uint32_t code) {
  static constexpr std::array<const char*, 19> kNames{"Never classified",
                                                      "Unclassified",
                                                      "Ground",
                                                      "Low vegetation",
                                                      "Medium vegetation",
                                                      "High vegetation",
                                                      "Building",
                                                      "Low point (noise)",
                                                      "Model key-point",
                                                      "Water",
                                                      "Rail",
                                                      "Road surface",
                                                      "Overlap",
                                                      "Wire - guard",
                                                      "Wire - conductor",
                                                      "Transmission tower",
                                                      "Wire-structure connector",
                                                      "Bridge deck",
                                                      "High noise"};
  return code < kNames.size() ? kNames[code] : "class " + std::to_string(code);
}

template <class T>
T little(const unsigned char* p) {
  T value;
  std::memcpy(&value, p, sizeof value);  // LAS is little-endian, as every host voxhash runs on
  return value;
}

/// Where the bytes come from: `read(offset, n, out)` copies n bytes at offset, or returns false.
template <class Read>
void read_las(const std::filesystem::path& path, std::uint64_t size, Read read, PointCloud& cloud) {
  unsigned char h[375] = {};
  if (size < kHeaderBytes || !read(0, kHeaderBytes, h)) {
    fail(path, "too short for a LAS header (" + std::to_string(size) + " bytes)");
  }
  if (std::memcmp(h, "LASF", 4) != 0) fail(path, "not a LAS file (no \"LASF\" signature)");
  const int major = h[24], minor = h[25];
  if (major != 1 || minor > 4) {
    fail(path,
         "LAS version " + std::to_string(major) + "." + std::to_string(minor) +
             " (voxhash reads 1.0 to 1.4)");
  }
  const auto header_size = little<std::uint16_t>(h + 94);
  const auto data_offset = little<std::uint32_t>(h + 96);
  const int format_byte  = h[104];
  const auto record      = little<std::uint16_t>(h + 105);
  std::uint64_t count    = little<std::uint32_t>(h + 107);
  if (format_byte & 0xC0) {
    fail(path,
         "compressed LAS (LAZ) is not supported: decompress it first (laszip -i in.laz -o "
         "out.las)");
  }
  const int format = format_byte & 0x3F;
  if (format >= static_cast<int>(kRecordBytes.size())) {
    fail(path, "point data record format " + std::to_string(format) + " (LAS has 0 to 10)");
  }
  if (record < kRecordBytes[format]) {
    fail(path,
         "point data record length " + std::to_string(record) + " is shorter than format " +
             std::to_string(format) + "'s " + std::to_string(kRecordBytes[format]) + " bytes");
  }
  if (header_size < kHeaderBytes || data_offset < header_size) {
    fail(path,
         "header size " + std::to_string(header_size) + " and point data offset " +
             std::to_string(data_offset) + " are not a LAS header's");
  }
  if (minor >= 4 && header_size >= 375) {  // 1.4: the 64-bit count, the legacy one may be 0
    if (!read(kHeaderBytes, 375 - kHeaderBytes, h + kHeaderBytes)) fail(path, "read error");
    const auto wide = little<std::uint64_t>(h + 247);
    if (count == 0 || wide != 0) count = wide;
  }
  double scale[3], offset[3];
  for (int a = 0; a < 3; ++a) {
    scale[a]  = little<double>(h + 131 + 8 * a);
    offset[a] = little<double>(h + 155 + 8 * a);
    if (!std::isfinite(scale[a]) || scale[a] == 0 || !std::isfinite(offset[a])) {
      fail(path,
           std::string("the ") + "XYZ"[a] + " scale factor and offset (" +
               std::to_string(scale[a]) + ", " + std::to_string(offset[a]) +
               ") are not finite with a non-zero scale");
    }
  }
  if (data_offset > size || count > (size - data_offset) / record) {
    fail(path,
         "the header gives " + std::to_string(count) + " points of " + std::to_string(record) +
             " bytes from byte " + std::to_string(data_offset) + ", but the file holds " +
             std::to_string(size) + " bytes");
  }
  // The points and their part ids against the host memory the process may take (records are at
  // least 20 bytes, so a file that fits its count can still be beyond it).
  require_host_memory(path,
                      count * (sizeof(Float3) + sizeof(std::uint32_t)),
                      "its " + std::to_string(count) + " points");
  const bool wide_class = format >= 6;  // formats 6 to 10: a byte of classes; else 5 bits
  std::array<std::uint32_t, 256> part_of{};
  part_of.fill(~0u);
  std::vector<std::uint32_t> parts;
  parts.reserve(static_cast<std::size_t>(count));
  cloud.points.reserve(cloud.points.size() + static_cast<std::size_t>(count));
  constexpr std::uint64_t kBlock = 1 << 16;
  std::vector<unsigned char> block;
  for (std::uint64_t first = 0; first < count; first += kBlock) {
    const std::uint64_t n = std::min(kBlock, count - first);
    block.resize(static_cast<std::size_t>(n * record));
    if (!read(data_offset + first * record, block.size(), block.data())) fail(path, "read error");
    for (std::uint64_t i = 0; i < n; ++i) {
      const unsigned char* p   = block.data() + i * record;
      const std::size_t before = cloud.points.size();
      add_point(cloud,
                little<std::int32_t>(p) * scale[0] + offset[0],
                little<std::int32_t>(p + 4) * scale[1] + offset[1],
                little<std::int32_t>(p + 8) * scale[2] + offset[2]);
      if (cloud.points.size() == before) continue;  // not finite in float: dropped and counted
      const std::uint32_t code = wide_class ? p[16] : p[15] & 0x1Fu;
      if (part_of[code] == ~0u) {
        part_of[code] = static_cast<std::uint32_t>(cloud.part_names.size());
        cloud.part_names.push_back(class_name(code));
      }
      parts.push_back(part_of[code]);
    }
  }
  // One class: one part, as a cloud without parts.
  if (cloud.part_names.size() > 1) cloud.point_parts = std::move(parts);
}

}  // namespace

void parse_las_points(const std::filesystem::path& path,
                      std::string_view bytes,
                      PointCloud& cloud) {
  read_las(
      path,
      bytes.size(),
      [&](std::uint64_t at, std::size_t n, unsigned char* out) {
        if (at > bytes.size() || n > bytes.size() - at) return false;
        std::memcpy(out, bytes.data() + at, n);
        return true;
      },
      cloud);
}

void load_las_points(const std::filesystem::path& path, PointCloud& cloud) {
  std::ifstream stream = open_input(path);
  std::error_code error;
  const std::uint64_t size = std::filesystem::file_size(path, error);
  if (error) fail(path, "cannot read its size: " + error.message());
  read_las(
      path,
      size,
      [&](std::uint64_t at, std::size_t n, unsigned char* out) {
        stream.seekg(static_cast<std::streamoff>(at));
        stream.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(n));
        return stream.good() || static_cast<std::size_t>(stream.gcount()) == n;
      },
      cloud);
}

}  // namespace voxhash::io
