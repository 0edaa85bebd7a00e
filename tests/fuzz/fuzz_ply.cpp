// libFuzzer target for the PLY reader behind load_point_cloud (io::parse_ply: point clouds and
// meshes, read a piece at a time). The input is read whole and again in pieces whose sizes a hash
// of it picks (mostly 1 to 64 bytes, now and then up to 4 KiB): both must give the same model, or
// the same error, which must name the file; a model's points must be finite and its mesh sound.
#include "fuzz_checks.hpp"
#include "io/io_common.hpp"

#include <voxhash/io.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

/// A read's outcome, to compare two reads of one input.
struct Outcome {
  bool is_mesh = false;
  std::vector<std::array<std::uint32_t, 3>> points;  // bit patterns: NaN compares too
  std::vector<std::uint32_t> triangles;
  std::size_t non_finite = 0, dropped = 0;
  std::string error;
  bool operator==(const Outcome&) const = default;
};

Outcome read(std::string_view bytes, const std::vector<std::size_t>& pieces) {
  using namespace voxhash;
  constexpr std::string_view kPath = "fuzz.ply";
  Outcome outcome;
  try {
    const io::PlyModel model = io::parse_ply(kPath, bytes, pieces);
    outcome.is_mesh          = model.is_mesh;
    for (const Float3& p : model.is_mesh ? model.mesh.vertices : model.cloud.points)
      outcome.points.push_back(std::bit_cast<std::array<std::uint32_t, 3>>(p));
    outcome.triangles = model.mesh.triangles;
    outcome.non_finite =
        model.is_mesh ? model.mesh.non_finite_vertices : model.cloud.dropped_non_finite;
    outcome.dropped = model.mesh.dropped_triangles;
    if (model.is_mesh) {
      fuzz::require_sound_mesh(model.mesh);
    } else {
      for (const Float3& p : model.cloud.points)
        fuzz::require(fuzz::is_finite(p), "a point is not finite");
    }
  } catch (const InvalidInput& error) {
    fuzz::require_names_file(error, kPath);
    outcome.error = error.what();
  }
  return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = voxhash::fuzz::as_text(data, size);
  std::uint64_t hash           = 14695981039346656037ull;  // FNV-1a
  for (std::size_t i = 0; i < size; ++i)
    hash = (hash ^ data[i]) * 1099511628211ull;
  std::mt19937_64 random(hash);
  std::vector<std::size_t> pieces(1 + random() % 16);
  for (std::size_t& piece : pieces)
    piece = random() % 8 == 0 ? 1 + random() % 4096 : 1 + random() % 64;
  voxhash::fuzz::require(read(bytes, {}) == read(bytes, pieces),
                         "read in pieces, the PLY gives another model or error than read whole");
  return 0;
}
