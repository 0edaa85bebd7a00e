// libFuzzer target for the scene parser (parse_scene, behind load_scene): a rejection must be
// an InvalidInput naming the file; an accepted scene written back by scene_to_json must parse
// again to a scene that writes the same text (the viewer's "save scene" round trip).
#include "fuzz_checks.hpp"

#include <voxhash/scene.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace voxhash;
  constexpr std::string_view kPath = "fuzz.json";
  Scene scene;
  try {
    scene = parse_scene(fuzz::as_text(data, size), std::string(kPath));
  } catch (const InvalidInput& error) {
    fuzz::require_names_file(error, kPath);
    return 0;
  }
  const std::string text = scene_to_json(scene, ".");
  try {
    const Scene again = parse_scene(text, std::string(kPath));
    fuzz::require(scene_to_json(again, ".") == text, "a written scene reads back differently");
  } catch (const InvalidInput&) {
    fuzz::require(false, "a written scene does not parse");
  }
  return 0;
}
