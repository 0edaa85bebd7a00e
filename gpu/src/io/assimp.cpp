// Meshes in the formats the Open Asset Import Library reads (everything but OBJ, XYZ and
// vertex-only PLY): the scene's node tree is walked with each node's accumulated transform, so
// every node's meshes land in model space as the node's part. Only aiProcess_ValidateDataStructure
// runs; polygons are fan-triangulated and positions welded here, because Debian's assimp 5.2.5 has
// its assertions on and aiProcess_Triangulate aborts the process on a 300-byte PLY, and
// aiProcess_JoinIdenticalVertices merges a NaN vertex into a finite one (docs/RELIABILITY.md).
#include "io/io_common.hpp"

#include <voxhash/io.hpp>

#include <algorithm>
#include <array>
#include <assimp/BaseImporter.h>
#include <assimp/DefaultIOSystem.h>
#include <assimp/Importer.hpp>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace voxhash::io {
namespace {

constexpr unsigned kImportSteps = aiProcess_ValidateDataStructure;

/// The files a model may refer to (a glTF's buffers, ...), opened for reading only and only when
/// they are regular files inside the model's folder (symbolic links resolved): a reference to a
/// FIFO, a device or a directory cannot block or flood the reader, and `../` or a link cannot
/// reach a file outside the folder (unless `anywhere`). What it refused is kept, to name it if the
/// read fails.
class ModelFolderFiles : public Assimp::DefaultIOSystem {
 public:
  /// The folders of `model` as given and, when it is a link, of the file it names.
  explicit ModelFolderFiles(const std::filesystem::path& model, bool anywhere)
      : m_anywhere(anywhere) {
    std::error_code error;
    const std::filesystem::path given = std::filesystem::absolute(model, error);
    m_folders[0] = std::filesystem::weakly_canonical(given.parent_path(), error);
    m_folders[1] = std::filesystem::weakly_canonical(given, error).parent_path();
  }
  bool Exists(const char* file) const override {
    if (file == nullptr || !inside_folder(file)) return false;
    std::error_code error;  // DefaultIOSystem::Exists would fopen it, which blocks on a FIFO
    return std::filesystem::is_regular_file(file, error);
  }
  Assimp::IOStream* Open(const char* file, const char* mode) override {
    const bool read_only =
        mode != nullptr && std::string_view(mode).find_first_of("wa+") == std::string_view::npos;
    return read_only && Exists(file) ? DefaultIOSystem::Open(file, mode) : nullptr;
  }
  /// The first file asked for outside the model's folder (empty: none).
  [[nodiscard]] const std::string& refused() const { return m_refused; }

 private:
  bool inside_folder(const char* file) const {
    if (m_anywhere) return true;
    std::error_code error;
    const std::filesystem::path real =
        std::filesystem::weakly_canonical(std::filesystem::absolute(file, error), error);
    bool inside = false;
    for (const std::filesystem::path& folder : m_folders) {
      const std::filesystem::path relative = real.lexically_relative(folder);
      inside = inside || (!error && !relative.empty() && *relative.begin() != "..");
    }
    if (!inside && m_refused.empty()) m_refused = file;
    return inside;
  }

  std::array<std::filesystem::path, 2> m_folders;
  bool m_anywhere = false;
  mutable std::string m_refused;
};

/// A GLB's header and chunk lengths against its size (`read(offset, n, out)` reads n bytes at
/// offset; `size` bytes in all), before assimp allocates what they claim: a 444-byte GLB whose JSON
/// chunk claimed 0xFFFFFFF0 bytes took 4.2 GB.
template <class Read>
void check_glb_chunks(const std::filesystem::path& path, std::uint64_t size, Read read) {
  unsigned char header[12];
  if (size < 12 || !read(0, 12, header)) return;  // too short for a GLB: assimp says so
  const auto word = [](const unsigned char* p) {
    return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
           std::uint32_t{p[3]} << 24;
  };
  if (std::string_view(reinterpret_cast<const char*>(header), 4) != "glTF") return;
  if (word(header + 8) > size) {
    fail(path,
         "its GLB header gives a length of " + std::to_string(word(header + 8)) +
             " bytes, but the file holds " + std::to_string(size));
  }
  std::uint64_t offset = 12;
  for (int chunk = 0; offset + 8 <= size; ++chunk) {
    unsigned char chunk_header[8];
    if (!read(offset, 8, chunk_header)) return;
    const std::uint64_t length = word(chunk_header);
    if (length > size - offset - 8) {
      fail(path,
           "GLB chunk " + std::to_string(chunk) + " claims " + std::to_string(length) +
               " bytes, but only " + std::to_string(size - offset - 8) + " follow it");
    }
    offset += 8 + length;
  }
}

/// An ASCII OFF's counts against its size and its face indices against its vertex count, before
/// assimp reads it: its OFF reader reserves what the counts say and clamps an index past the
/// vertices to the last one, so a broken file became a wrong mesh.
void check_off_indices(const std::filesystem::path& path, std::string_view text) {
  LineReader lines(text);
  // The lines that hold data: comments ('#' to the end of a line) and blank lines skipped.
  const auto next = [&]() -> std::optional<std::vector<std::string_view>> {
    while (const std::optional<std::string_view> line = lines.next()) {
      std::vector<std::string_view> fields = split_whitespace(line->substr(0, line->find('#')));
      if (!fields.empty()) return fields;
    }
    return std::nullopt;
  };
  // The header as assimp reads it, token by token across lines: a keyword ([ST][C][N][4][n]OFF),
  // with 'n' a dimension after it, then the vertex and face counts; without the keyword (the
  // format allows that) the counts come first.
  std::vector<std::string_view> tokens;
  const auto token = [&](std::size_t i) -> std::optional<std::string_view> {
    while (tokens.size() <= i) {
      const std::optional<std::vector<std::string_view>> fields = next();
      if (!fields) return std::nullopt;
      tokens.insert(tokens.end(), fields->begin(), fields->end());
    }
    return tokens[i];
  };
  const std::optional<std::string_view> first = token(0);
  if (!first) return;  // assimp's to judge
  std::string_view keyword = *first;
  for (const std::string_view prefix : {"ST", "C", "N", "4"}) {
    if (keyword.starts_with(prefix)) keyword.remove_prefix(prefix.size());
  }
  const bool dimension = keyword.starts_with("n");
  if (dimension) keyword.remove_prefix(1);
  std::size_t at = 0;
  if (keyword.starts_with("OFF")) {
    at = dimension ? 2 : 1;
  } else if (first->empty() || first->front() < '0' || first->front() > '9') {
    return;  // not an OFF header: assimp says so
  }
  // A count must be a number as a whole: assimp reads its leading digits and wraps them (found by
  // fuzz_mesh: a face count of 26 digits and a word asked for 64 GB; a count across a line break
  // in a file without the keyword, 8.4 GB).
  const auto count = [&](std::size_t field, const std::string& what) {
    const std::optional<std::string_view> text_of = token(field);
    if (!text_of) fail(path, "the header ends before its " + what + " count");
    const std::optional<std::uint64_t> value = parse_count(*text_of);
    if (!value) {
      fail(path,
           "line " + std::to_string(lines.line_number()) + ": the " + what + " count '" +
               std::string(*text_of) + "' is not a count");
    }
    return *value;
  };
  const std::uint64_t vertices = count(at, "vertex");
  const std::uint64_t faces    = count(at + 1, "face");
  // The counts against the bytes after them, before assimp reserves for them: a vertex or a face
  // takes at least 2 (a number and a line end; a vertex of nOFF may have one coordinate). A 53-byte
  // file claiming 4294967295 vertices asked for 51 GB.
  const std::uint64_t left = text.size() - std::min(text.size(), lines.offset());
  if (vertices > left / 2 || faces > left / 2 - vertices) {
    fail(path,
         "line " + std::to_string(lines.line_number()) + ": the header promises " +
             std::to_string(vertices) + " vertices and " + std::to_string(faces) +
             " faces, but only " + std::to_string(left) +
             " bytes follow it (a vertex or a face takes at least 2)");
  }
  for (std::uint64_t v = 0; v < vertices; ++v) {
    if (!next()) return;  // truncated: assimp says so
  }
  for (std::uint64_t f = 0; f < faces; ++f) {
    const std::optional<std::vector<std::string_view>> face = next();
    if (!face) return;
    const std::optional<std::uint64_t> corners = parse_count((*face)[0]);
    if (!corners) continue;
    for (std::uint64_t c = 1; c <= *corners && c < face->size(); ++c) {
      const std::optional<std::uint64_t> index = parse_count((*face)[c]);
      if (!index || *index >= vertices) {
        fail(path,
             "line " + std::to_string(lines.line_number()) + ": face refers to vertex " +
                 std::string((*face)[c]) + ", but the file has " + std::to_string(vertices) +
                 " vertices");
      }
    }
  }
}

/// A glTF's JSON (a .gltf's text, a .glb's first chunk) checked before assimp reads it, which
/// answers "No suitable reader found" for broken JSON, a truncated GLB or a file of another kind.
void check_gltf_json(const std::filesystem::path& path, std::string_view json_text) {
  if (nlohmann::json::accept(json_text)) return;
  std::string why = "it does not parse";
  try {
    const nlohmann::json parsed = nlohmann::json::parse(json_text);
    (void)parsed;
  } catch (const nlohmann::json::exception& e) {
    why                       = e.what();
    const std::size_t bracket = why.find("] ");
    if (bracket != std::string::npos) why = why.substr(bracket + 2);
  }
  fail(path, "not a valid glTF: its JSON is broken (" + why + ")");
}

/// A GLB's JSON chunk, checked (check_glb_chunks has bounded its lengths by the file's).
void check_glb_json(const std::filesystem::path& path, std::string_view bytes) {
  if (bytes.size() < 20 || bytes.substr(0, 4) != "glTF") {
    fail(path, "not a GLB: it does not start with a 20-byte header and 'glTF'");
  }
  const auto word = [&](std::size_t at) {
    std::uint32_t w = 0;
    for (int b = 3; b >= 0; --b)
      w = (w << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(b)]);
    return w;
  };
  if (word(16) != 0x4E4F534Au) fail(path, "not a valid GLB: its first chunk is not JSON");
  check_gltf_json(path, bytes.substr(20, std::min<std::size_t>(word(12), bytes.size() - 20)));
}

/// Whether `name` is the name assimp's glTF reader gives a node the file left unnamed
/// ("nodes[12]"): the node's mesh's name says more.
bool is_placeholder_node_name(std::string_view name) {
  if (!name.starts_with("nodes[") || !name.ends_with("]") || name.size() < 8) return false;
  const std::string_view digits = name.substr(6, name.size() - 7);
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// For a model read from memory: no file at all beside it.
class NoFiles : public Assimp::DefaultIOSystem {
 public:
  bool Exists(const char*) const override { return false; }
  Assimp::IOStream* Open(const char*, const char*) override { return nullptr; }
};

/// Whether an importer's space-separated extension list names `extension` (lower case, no dot).
bool lists_extension(const char* extensions, std::string_view extension) {
  std::string_view rest = extensions == nullptr ? "" : extensions;
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find(' '), rest.size());
    if (rest.substr(0, end) == extension) return true;
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  return false;
}

/// An importer that reads through `files` (it takes ownership) with only the readers of
/// `extension` (lower case, no dot) registered: assimp otherwise sniffs a file its extension's
/// reader rejects, and its PLY reader crashed on a 171-byte .gltf holding a broken binary PLY.
/// No skeleton stand-ins: bones are not geometry (FBX, COLLADA, ...).
std::unique_ptr<Assimp::Importer> make_importer(Assimp::IOSystem* files,
                                                std::string_view extension) {
  auto importer = std::make_unique<Assimp::Importer>();
  importer->SetIOHandler(files);
  importer->SetPropertyBool(AI_CONFIG_IMPORT_NO_SKELETON_MESHES, true);
  for (std::size_t i = importer->GetImporterCount(); i > 0; --i) {
    const aiImporterDesc* info = importer->GetImporterInfo(i - 1);
    if (info != nullptr && lists_extension(info->mFileExtensions, extension)) continue;
    // UnregisterLoader hands the reader back without deleting it.
    std::unique_ptr<Assimp::BaseImporter> reader(importer->GetImporter(i - 1));
    if (importer->UnregisterLoader(reader.get()) != AI_SUCCESS) (void)reader.release();
  }
  return importer;
}

/// The extension of `path` in lower case, without its dot.
std::string lower_extension(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  if (!extension.empty()) extension.erase(0, 1);
  std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) {
    return static_cast<char>(std::tolower(c));
  });
  return extension;
}

/// A position's bit pattern, with -0 as +0, for welding identical positions.
struct PositionKey {
  std::uint32_t x, y, z;
  bool operator==(const PositionKey&) const = default;
};

struct PositionKeyHash {
  std::size_t operator()(const PositionKey& key) const {
    std::uint64_t h = key.x;
    h               = h * 0x9E3779B97F4A7C15ull ^ key.y;
    h               = h * 0x9E3779B97F4A7C15ull ^ key.z;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

std::uint32_t bits(float value) {
  return std::bit_cast<std::uint32_t>(value == 0.0f ? 0.0f : value);
}

bool is_finite(Float3 p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
}

class SceneBuilder {
 public:
  SceneBuilder(const std::filesystem::path& path, const aiScene& scene)
      : m_path(path), m_scene(scene) {}

  /// Walks the node tree depth-first (iteratively: a file decides how deep it is); a node that
  /// appears twice is visited once.
  void add_nodes() {
    std::vector<std::pair<const aiNode*, aiMatrix4x4>> pending{{m_scene.mRootNode, aiMatrix4x4()}};
    std::unordered_set<const aiNode*> visited;
    while (!pending.empty()) {
      const auto [node, parent] = pending.back();
      pending.pop_back();
      if (node == nullptr || !visited.insert(node).second) continue;
      const aiMatrix4x4 transform = parent * node->mTransformation;
      for (unsigned m = 0; m < node->mNumMeshes; ++m) {
        if (node->mMeshes[m] >= m_scene.mNumMeshes) continue;  // ValidateDataStructure forbids it
        add_mesh(*m_scene.mMeshes[node->mMeshes[m]], transform, node->mName.C_Str());
      }
      for (unsigned c = node->mNumChildren; c > 0; --c)
        pending.emplace_back(node->mChildren[c - 1], transform);
    }
  }

  /// The mesh, with triangles that use a non-finite vertex dropped and counted.
  Mesh finish() {
    std::vector<bool> finite(m_mesh.vertices.size());
    for (std::size_t v = 0; v < m_mesh.vertices.size(); ++v) {
      finite[v] = is_finite(m_mesh.vertices[v]);
      if (!finite[v]) ++m_mesh.non_finite_vertices;
    }
    const bool several_parts = m_mesh.part_names.size() > 1;
    for (std::size_t t = 0; t < m_triangle_parts.size(); ++t) {
      const std::uint32_t* corner = &m_triangles[3 * t];
      if (finite[corner[0]] && finite[corner[1]] && finite[corner[2]]) {
        m_mesh.triangles.insert(m_mesh.triangles.end(), corner, corner + 3);
        if (several_parts) m_mesh.triangle_parts.push_back(m_triangle_parts[t]);
      } else {
        ++m_mesh.dropped_triangles;
      }
    }
    return std::move(m_mesh);
  }

 private:
  void add_mesh(const aiMesh& mesh, const aiMatrix4x4& transform, std::string part_name) {
    if (mesh.mVertices == nullptr) return;
    if (part_name.empty() || is_placeholder_node_name(part_name)) {
      if (mesh.mName.length > 0) part_name = mesh.mName.C_Str();
    }
    m_local.resize(mesh.mNumVertices);
    for (unsigned v = 0; v < mesh.mNumVertices; ++v)
      m_local[v] = add_vertex(transform * mesh.mVertices[v]);
    std::optional<std::uint32_t> part;
    for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
      const aiFace& face = mesh.mFaces[f];
      if (face.mNumIndices < 3 || face.mIndices == nullptr) continue;  // points and lines
      const unsigned* index = face.mIndices;
      const auto outside    = [&](unsigned i) { return i >= mesh.mNumVertices; };
      if (std::any_of(index, index + face.mNumIndices, outside)) continue;  // ValidateDS forbids it
      if (!part) part = part_id(part_name);
      for (unsigned k = 1; k + 1 < face.mNumIndices; ++k) {
        m_triangles.insert(m_triangles.end(),
                           {m_local[index[0]], m_local[index[k]], m_local[index[k + 1]]});
        m_triangle_parts.push_back(*part);
      }
    }
  }

  std::uint32_t add_vertex(const aiVector3D& position) {
    const Float3 p{position.x, position.y, position.z};
    const auto next = static_cast<std::uint32_t>(m_mesh.vertices.size());
    if (m_mesh.vertices.size() == std::numeric_limits<std::uint32_t>::max()) {
      fail(m_path, "more than 2^32 - 1 vertices");
    }
    if (is_finite(p)) {
      const auto [found, added] =
          m_welded.try_emplace(PositionKey{bits(p.x), bits(p.y), bits(p.z)}, next);
      if (!added) return found->second;
    }
    m_mesh.vertices.push_back(p);
    return next;
  }

  std::uint32_t part_id(const std::string& name) {
    const auto [found, added] =
        m_part_ids.try_emplace(name, static_cast<std::uint32_t>(m_mesh.part_names.size()));
    if (added) m_mesh.part_names.push_back(printable_name(name));
    return found->second;
  }

  const std::filesystem::path& m_path;
  const aiScene& m_scene;
  Mesh m_mesh;
  std::vector<std::uint32_t> m_triangles;       // before non-finite vertices are dropped
  std::vector<std::uint32_t> m_triangle_parts;  // one per triangle above
  std::vector<std::uint32_t> m_local;           // the current aiMesh's vertices in m_mesh
  std::unordered_map<PositionKey, std::uint32_t, PositionKeyHash> m_welded;
  std::map<std::string, std::uint32_t, std::less<>> m_part_ids;
};

Mesh mesh_from_scene(const std::filesystem::path& path,
                     const aiScene* scene,
                     const Assimp::Importer& importer) {
  if (scene == nullptr) {
    fail(path,
         std::string("the Open Asset Import Library cannot read it: ") + importer.GetErrorString());
  }
  if (scene->mRootNode == nullptr || scene->mNumMeshes == 0) fail(path, "the file holds no meshes");
  SceneBuilder builder(path, *scene);
  builder.add_nodes();
  return builder.finish();
}

}  // namespace

bool assimp_reads_extension(const std::string& extension) {
  return Assimp::Importer().IsExtensionSupported(extension);
}

Mesh load_assimp_mesh(const std::filesystem::path& path, bool files_outside_folder) {
  (void)open_input(path);  // the same messages as every loader for missing or unreadable files
  const std::string extension = lower_extension(path);
  if (extension == "glb") {
    std::ifstream in(path, std::ios::binary);
    std::error_code error;
    const std::uint64_t size = std::filesystem::file_size(path, error);
    const auto read          = [&](std::uint64_t at, std::size_t n, unsigned char* out) {
      in.clear();
      in.seekg(static_cast<std::streamoff>(at));
      return static_cast<bool>(
          in.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(n)));
    };
    check_glb_chunks(path, error ? 0 : size, read);
    // The header and the JSON chunk only (the binary chunk may be large).
    unsigned char header[20] = {};
    const std::size_t json_bytes =
        size >= 20 && read(0, 20, header)
            ? std::uint32_t{header[12]} | std::uint32_t{header[13]} << 8 |
                  std::uint32_t{header[14]} << 16 | std::uint32_t{header[15]} << 24
            : 0;
    std::string prefix(static_cast<std::size_t>(std::min<std::uint64_t>(size, 20 + json_bytes)),
                       '\0');
    if (!read(0, prefix.size(), reinterpret_cast<unsigned char*>(prefix.data()))) prefix.clear();
    check_glb_json(path, prefix);
  }
  if (extension == "off") check_off_indices(path, read_file(path));
  if (extension == "gltf") check_gltf_json(path, read_file(path));
  auto* files         = new ModelFolderFiles(path, files_outside_folder);  // the importer owns it
  const auto importer = make_importer(files, lower_extension(path));
  // From the path, not from memory: a glTF's buffers and images may be files beside it.
  const aiScene* scene = importer->ReadFile(path.string(), kImportSteps);
  if (scene == nullptr && !files->refused().empty()) {
    fail(path,
         "it refers to '" + files->refused() +
             "', which is outside the model's folder: voxhash reads only files in the folder of "
             "the model (allow others with --files-outside-folder, or the scene model's "
             "\"files_outside_folder\": true)");
  }
  return mesh_from_scene(path, scene, *importer);
}

Mesh parse_assimp_mesh(const std::filesystem::path& path,
                       std::string_view bytes,
                       const std::string& format_hint) {
  if (bytes.empty()) fail(path, "the file is empty");
  if (format_hint == "off") check_off_indices(path, bytes);
  if (format_hint == "gltf") check_gltf_json(path, bytes);
  if (format_hint == "glb") {
    check_glb_chunks(path, bytes.size(), [&](std::uint64_t at, std::size_t n, unsigned char* out) {
      std::memcpy(out, bytes.data() + at, n);
      return true;
    });
    check_glb_json(path, bytes);
  }
  const auto importer = make_importer(new NoFiles, format_hint);
  return mesh_from_scene(
      path,
      importer->ReadFileFromMemory(bytes.data(), bytes.size(), kImportSteps, format_hint.c_str()),
      *importer);
}

}  // namespace voxhash::io
