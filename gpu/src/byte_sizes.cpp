// Byte counts as people write and read them: format_bytes ("1.50 GiB") and parse_bytes ("64M",
// "2GiB", "500MB"), backend-neutral (voxhash_base: the loaders, scenes and command line use them
// without the backends).
#include <voxhash/backend.hpp>

#include <cctype>
#include <charconv>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

namespace voxhash {

std::string format_bytes(std::size_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value                          = static_cast<double>(bytes) / 1024.0;
  int unit                              = 0;
  while (value >= 1024.0 && unit < 5) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text,
                sizeof text,
                value >= 100  ? "%.0f %s"
                : value >= 10 ? "%.1f %s"
                              : "%.2f %s",
                value,
                kUnits[unit]);
  return text;
}

std::optional<std::size_t> parse_bytes(std::string_view text) {
  std::size_t bytes       = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), bytes);
  if (error != std::errc{} || end == text.data()) return std::nullopt;
  std::string unit(end, text.data() + text.size());
  for (char& c : unit)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // B; K, KiB: 2^10 (binary); KB: 10^3 (decimal, SI); and so on up to T.
  static constexpr std::string_view kUnits = "KMGT";
  const std::size_t power                  = unit.empty() ? 0 : kUnits.find(unit[0]);
  const bool decimal                       = unit.size() == 2 && unit[1] == 'B';
  const bool prefixed                      = power != std::string_view::npos &&
                        (unit.size() == 1 || decimal || (unit.size() == 3 && unit.ends_with("IB")));
  std::size_t multiplier = unit.empty() || unit == "B" ? 1 : 0;
  if (prefixed) {
    multiplier = 1;
    for (std::size_t p = 0; p <= power; ++p)
      multiplier *= decimal ? 1000 : 1024;
  }
  if (multiplier == 0 || bytes > std::numeric_limits<std::size_t>::max() / multiplier) {
    return std::nullopt;
  }
  return bytes * multiplier;
}

}  // namespace voxhash
