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

/// Appends the vertices of an ASCII or binary (little- or big-endian) PLY file.
void parse_ply_points(const std::filesystem::path& path, std::string_view bytes, PointCloud& cloud);

/// A PLY is read as a mesh by the Open Asset Import Library when its header declares faces (a
/// face or tristrips element with items); then this returns the bytes to give assimp: the header
/// rewritten in the element order assimp 5.2 reads right (vertices, faces, the rest: an element
/// with data before the vertices would give its values as vertices, one between the vertices and
/// the faces face indices out of range) and without the comment, obj_info and blank lines it
/// misreads, and the data moved to match (unchanged when the order already was). Otherwise it
/// returns nothing: the file is a point cloud for parse_ply_points. The header's faults are
/// reported as parse_ply_points reports them, every element's count is checked against the file's
/// size first, and data ending inside an element that must move is an error naming it.
[[nodiscard]] std::optional<std::string> ply_mesh_for_assimp(const std::filesystem::path& path,
                                                             std::string_view bytes);

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
