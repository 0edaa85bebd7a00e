// Helpers shared by the model loaders: opening files with path-first error messages, walking text
// line by line with line numbers, strict number parsing, and the format readers that
// load_point_cloud dispatches to.
#pragma once

#include <voxhash/io.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace voxhash::io {

/// Throws InvalidInput reading "<path>: <message>".
[[noreturn]] void fail(const std::filesystem::path& path, const std::string& message);

/// Opens a regular file for binary reading; throws (path first) when it is missing, not a regular
/// file (a directory, FIFO or device), a broken symlink or a symlink loop, or unreadable.
[[nodiscard]] std::ifstream open_input(const std::filesystem::path& path);

/// The whole file's bytes; throws like open_input, or when reading fails part way.
[[nodiscard]] std::string read_file(const std::filesystem::path& path);

/// Walks text one line at a time ('\n' or "\r\n" endings), counting lines from 1.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : m_text(text) {}

  /// The next line without its ending, or nothing at the end of the text.
  [[nodiscard]] std::optional<std::string_view> next();
  /// Number of the line that next() returned last (0 before the first call).
  [[nodiscard]] std::size_t line_number() const { return m_line_number; }
  /// Byte offset just past the last line returned.
  [[nodiscard]] std::size_t offset() const { return m_offset; }

 private:
  std::string_view m_text;
  std::size_t m_offset      = 0;
  std::size_t m_line_number = 0;
};

/// Splits on spaces, tabs and other ASCII whitespace; empty fields are skipped.
[[nodiscard]] std::vector<std::string_view> split_whitespace(std::string_view text);

/// A name a file gives (a part, a node) as voxhash shows it: each control character (a line
/// break, an escape that would drive a terminal) as '?', everything else as the file has it.
[[nodiscard]] std::string printable_name(std::string_view name);

/// A whole token as a double ("nan" and "inf" included, leading '+' allowed), or nothing.
[[nodiscard]] std::optional<double> parse_double(std::string_view token);

/// A whole token as an unsigned count, or nothing.
[[nodiscard]] std::optional<std::uint64_t> parse_count(std::string_view token);

/// Appends (x, y, z) as floats, or counts it in dropped_non_finite when any is NaN / Inf.
void add_point(PointCloud& cloud, double x, double y, double z);

// The format parsers work on the file's bytes (the fuzz targets call them directly); `path` only
// names the file in messages.

/// An OBJ's vertices, triangles and parts (load_obj_mesh).
[[nodiscard]] Mesh parse_obj(const std::filesystem::path& path, std::string_view text);

/// A mesh read by the Open Asset Import Library from memory; `format_hint` is the format's file
/// extension in lower case without the dot ("stl", "ply", "glb", ...), and only that format's
/// readers may read it. Node names are the parts.
[[nodiscard]] Mesh parse_assimp_mesh(const std::filesystem::path& path,
                                     std::string_view bytes,
                                     const std::string& format_hint);

/// The same, reading the file itself (and the files it refers to, such as a glTF's buffers) with
/// the readers of its extension only.
[[nodiscard]] Mesh load_assimp_mesh(const std::filesystem::path& path,
                                    bool files_outside_folder = false);

/// Whether the Open Asset Import Library has a reader for this extension (".stl", any case).
[[nodiscard]] bool assimp_reads_extension(const std::string& extension);

/// A STEP model's triangles and what the file says about them.
struct StepMesh {
  Mesh mesh;                          // one part per leaf shape instance of the assembly tree
  double meters_per_unit = 0.001;     // the unit of the coordinates: the file's length unit
  std::vector<std::string> warnings;  // faces that could not be tessellated, naming their parts
};

/// Reads a STEP file (AP203, AP214, AP242) through OpenCASCADE into an XCAF document and
/// tessellates each distinct shape once at the deflection `options` give; every leaf shape
/// instance of the assembly tree is a part, placed by its instances' locations and named by its
/// instance (else its product), with its assembly path where names repeat. Throws InvalidInput
/// naming the file when the file is not valid STEP, holds no shapes or no face could be
/// tessellated, refers to a file outside its folder, or when STEP support is not built.
[[nodiscard]] StepMesh load_step_mesh(const std::filesystem::path& path,
                                      const LoadOptions& options);

/// A file's bytes, handed out a piece at a time.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Copies up to `max` of the next bytes to `out` and says how many (0: the end of the file).
  virtual std::size_t read(char* out, std::size_t max) = 0;
};

/// What a PLY file holds: a mesh when its header declares faces (a face or tristrips element with
/// items), else its vertices as points.
struct PlyModel {
  bool is_mesh = false;
  Mesh mesh;         // is_mesh: vertices welded, triangles, the non-finite counts
  PointCloud cloud;  // otherwise: the points and dropped_non_finite
};

/// Reads an ASCII or binary (little- or big-endian) PLY of `size` bytes from `source`, `piece`
/// bytes at a time, never whole: the header's counts are checked against the bytes after it and
/// its model against the host's memory (require_host_memory) before anything is allocated, and
/// every list's length against the bytes left before it is read. Throws InvalidInput naming the
/// file (and the line, for ASCII data) on any fault.
[[nodiscard]] PlyModel read_ply(const std::filesystem::path& path,
                                ByteSource& source,
                                std::uint64_t size,
                                std::size_t piece);

/// The same from the file at `path`.
[[nodiscard]] PlyModel load_ply(const std::filesystem::path& path,
                                std::size_t piece = std::size_t{1} << 20);

/// The same from bytes in memory, handed to the reader in pieces of the sizes `pieces` lists in
/// turn (round and round; empty: as much as it asks for), so tests and fuzzers can cut it anywhere.
[[nodiscard]] PlyModel parse_ply(const std::filesystem::path& path,
                                 std::string_view bytes,
                                 std::span<const std::size_t> pieces = {});

/// Throws OutOfMemory ("<path>: <what> need 3.35 GiB of host memory; 512 MiB is available") when
/// `bytes` exceed the host memory the process can still take: the tightest of MemAvailable, the
/// process's limits (ulimit -v, -d) and its cgroup's.
void require_host_memory(const std::filesystem::path& path,
                         std::uint64_t bytes,
                         const std::string& what);

/// Appends the points of a text point cloud (XYZ, PTS, TXT, CSV): "x y z [more columns]" per line,
/// separated by whitespace or commas, '#' and "//" comments, a short header of column names before
/// the data, and count lines (PTS blocks) checked against the points after them.
void parse_xyz_points(const std::filesystem::path& path, std::string_view text, PointCloud& cloud);

/// Appends the points of a LAS 1.0-1.4 file (uncompressed; point formats 0 to 10), its ASPRS
/// classes as parts; the header's counts are checked against the file's size first.
void parse_las_points(const std::filesystem::path& path, std::string_view bytes, PointCloud& cloud);
/// The same from the file, a block of records at a time.
void load_las_points(const std::filesystem::path& path, PointCloud& cloud);

/// The longest line a text point cloud may have (a file without line breaks is not one).
inline constexpr std::size_t kMaxXyzLine = std::size_t{1} << 20;

/// The same from the file at `path`, read `chunk` bytes at a time (never whole: a cloud of
/// gigabytes takes its points' memory, not its text's).
void load_xyz_points(const std::filesystem::path& path,
                     PointCloud& cloud,
                     std::size_t chunk = std::size_t{1} << 20);

}  // namespace voxhash::io
