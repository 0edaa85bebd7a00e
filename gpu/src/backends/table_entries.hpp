// TableEntries<Exec> defined (see entry_points.hpp): every table kind of the list, on 32- and
// 64-bit keys, the sorted array and key generation. Included only by cpu_tables.cpp and
// cuda_tables.cu.
#pragma once

#include "backends/entry_points.hpp"
#include "core/keys.hpp"
#include "tables/sorted_array_impl.hpp"
#include "tables/table_impls.hpp"

namespace voxhash::backends {

/// A new, empty table of `kind` over Exec for keys K (the list's visit_table: tables of every
/// kind, table_impls.hpp).
template <class Exec, class K>
std::unique_ptr<BasicHashTable<K>> make_table_as(TableKind kind, const BuildOptions& options) {
  return visit_table(kind, [&](auto traits) -> std::unique_ptr<BasicHashTable<K>> {
    return tables::make_table_impl<decltype(traits), Exec, K>(options);
  });
}

template <class Exec>
std::unique_ptr<HashTable> TableEntries<Exec>::make_table(TableKind kind,
                                                          const BuildOptions& options) {
  return make_table_as<Exec, Key>(kind, options);
}

template <class Exec>
std::unique_ptr<HashTable64> TableEntries<Exec>::make_table64(TableKind kind,
                                                              const BuildOptions& options) {
  return make_table_as<Exec, Key64>(kind, options);
}

template <class Exec>
std::unique_ptr<SortedArray> TableEntries<Exec>::make_sorted_array() {
  return std::make_unique<tables::SortedArrayImpl<Exec>>();
}

template <class Exec>
void TableEntries<Exec>::generate_keys(Key* out,
                                       std::size_t n,
                                       const KeySpec& spec,
                                       Stream stream) {
  Exec exec(stream);
  core::generate_keys_with(exec, out, n, spec);
}

}  // namespace voxhash::backends
