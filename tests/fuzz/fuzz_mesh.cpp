// libFuzzer target for the meshes read through the Open Asset Import Library: the first byte picks
// the format (STL, PLY, glTF, GLB, OFF), the rest is the file. A PLY takes the loader's own path
// (io::parse_ply, voxhash's reader: fuzz_ply cuts it in pieces too); the others go to assimp from
// memory, where they can open no other file. The result must be a sound mesh (fuzz_checks.hpp).
#include "fuzz_checks.hpp"
#include "io/io_common.hpp"

#include <voxhash/io.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace voxhash;
  constexpr std::array<const char*, 5> kFormats{"stl", "ply", "gltf", "glb", "off"};
  if (size == 0) return 0;
  const std::string format    = kFormats[data[0] % kFormats.size()];
  const std::string path      = "fuzz." + format;
  const std::string_view file = fuzz::as_text(data + 1, size - 1);
  try {
    if (format == "ply") {
      const io::PlyModel model = io::parse_ply(path, file);
      if (model.is_mesh) fuzz::require_sound_mesh(model.mesh);
    } else {
      fuzz::require_sound_mesh(io::parse_assimp_mesh(path, file, format));
    }
  } catch (const InvalidInput& error) {
    fuzz::require_names_file(error, path);
  }
  return 0;
}
