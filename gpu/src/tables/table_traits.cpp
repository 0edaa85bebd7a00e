// The table list's run-time side (table_traits.hpp): a kind's name and parsing, estimate_bytes
// through each table's formula, the paged table's page sizes, and the sorted array's memory.
#include <voxhash/error.hpp>
#include <voxhash/sorted_array.hpp>
#include <voxhash/table_traits.hpp>
#include <voxhash/types.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace voxhash {

namespace detail {

void unknown_table_kind(TableKind kind) {
  throw InvalidInput("unknown table kind " + std::to_string(static_cast<int>(kind)));
}

std::string table_names(std::span<const TableKind> kinds) {
  std::string text;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    text += i == 0 ? "" : i + 1 == kinds.size() ? " or " : ", ";
    text += to_string(kinds[i]);
  }
  return text;
}

}  // namespace detail

std::string_view to_string(TableKind kind) {
  return visit_table(kind, [](auto traits) { return traits.name; });
}

TableKind parse_table_kind(std::string_view name) {
  std::optional<TableKind> named;
  std::vector<TableKind> kinds;
  for_each_table([&](auto traits) {
    kinds.push_back(traits.kind);
    const auto& aliases = traits.aliases;
    if (name == traits.name || std::ranges::find(aliases, name) != aliases.end())
      named = traits.kind;
  });
  if (named) return *named;
  throw InvalidInput("unknown algorithm '" + std::string(name) + "' (expected " +
                     detail::table_names(kinds) + ")");
}

std::size_t estimate_bytes(TableKind kind, std::size_t n, const BuildOptions& options) {
  return estimate_bytes(kind, n, options, static_cast<int>(sizeof(Key)));
}

std::size_t estimate_bytes(TableKind kind,
                           std::size_t n,
                           const BuildOptions& options,
                           int key_bytes) {
  if (key_bytes != 4 && key_bytes != 8) throw InvalidInput("tables take 4- or 8-byte keys");
  return visit_table(kind,
                     [&](auto traits) { return traits.estimate_bytes(n, options, key_bytes); });
}

std::size_t paged_page_bytes(const BuildOptions& options, int key_bytes) {
  if (key_bytes != 4 && key_bytes != 8) throw InvalidInput("tables take 4- or 8-byte keys");
  const auto slots = static_cast<std::size_t>(
      std::ceil(options.cuckoo_space * static_cast<double>(options.page_capacity)));
  return 2 * static_cast<std::size_t>(key_bytes) * (slots + options.stash_slots);
}

std::size_t paged_page_count(const BuildOptions& options, std::size_t keys) {
  return static_cast<std::size_t>(
      std::max(1.0,
               std::ceil(static_cast<double>(keys) /
                         (options.page_fill * static_cast<double>(options.page_capacity)))));
}

std::size_t estimate_sorted_array_bytes(std::size_t n) {
  return 24 * n;
}

}  // namespace voxhash
