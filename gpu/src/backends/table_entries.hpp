// TableEntries<Exec> defined (see entry_points.hpp): every table kind, on 32- and 64-bit keys, the
// sorted array and key generation. Included only by cpu_tables.cpp and cuda_tables.cu.
#pragma once

#include "backends/entry_points.hpp"
#include "core/keys.hpp"
#include "tables/hash_graph_impl.hpp"
#include "tables/paged_table_impl.hpp"
#include "tables/slot_table_impl.hpp"
#include "tables/sorted_array_impl.hpp"

namespace voxhash::backends {

template <class Exec>
std::unique_ptr<HashTable> TableEntries<Exec>::make_table(TableKind kind,
                                                          const BuildOptions& options) {
  if (kind == TableKind::Cuckoo) return std::make_unique<tables::CuckooTableImpl<Exec>>(options);
  if (kind == TableKind::BucketedCuckoo) {
    return std::make_unique<tables::BucketedCuckooTableImpl<Exec>>(options);
  }
  if (kind == TableKind::PagedCuckoo) {
    return std::make_unique<tables::PagedCuckooTableImpl<Exec>>(options);
  }
  return std::make_unique<tables::HashGraphImpl<Exec>>(kind, options);
}

template <class Exec>
std::unique_ptr<HashTable64> TableEntries<Exec>::make_table64(TableKind kind,
                                                              const BuildOptions& options) {
  if (kind == TableKind::Cuckoo) {
    return std::make_unique<tables::CuckooTableImpl<Exec, Key64>>(options);
  }
  if (kind == TableKind::BucketedCuckoo) {
    return std::make_unique<tables::BucketedCuckooTableImpl<Exec, Key64>>(options);
  }
  if (kind == TableKind::PagedCuckoo) {
    return std::make_unique<tables::PagedCuckooTableImpl<Exec, Key64>>(options);
  }
  return std::make_unique<tables::HashGraphImpl<Exec, Key64>>(kind, options);
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
