// What every fuzz target asserts besides "no crash, no hang, no leak": a rejected input throws
// InvalidInput naming the file first, and an accepted one holds only finite points and in-range
// indices. A broken invariant aborts, which libFuzzer reports with the input that caused it.
#pragma once

#include <voxhash/error.hpp>
#include <voxhash/geometry.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace voxhash::fuzz {

inline void require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
  }
}

inline bool is_finite(Float3 p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A loader's error must start with the path it was given.
inline void require_names_file(const InvalidInput& error, std::string_view path) {
  const std::string_view message = error.what();
  require(message.size() > path.size() + 2 && message.starts_with(path) &&
              message.substr(path.size(), 2) == ": ",
          "an InvalidInput message does not start with the file's path");
}

}  // namespace voxhash::fuzz
