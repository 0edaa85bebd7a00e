// CuckooTable: Alcantara et al.'s GPU cuckoo hash table (GPU Computing Gems, ch. 4) behind the
// HashTable interface, with the set/compacting variant for duplicate keys: every unique key gets a
// dense id 0..u-1 and the unique keys are listed. ref() is what kernels probe through; multi_ref()
// also reaches every value of a key (the multivalue variant, built only when asked). CuckooTable
// holds 32-bit keys in 8-byte slots, CuckooTable64 64-bit keys in 16-byte slots.
#pragma once

#include <voxhash/cuckoo_ref.hpp>
#include <voxhash/hash_table.hpp>

namespace voxhash {

template <class K>
class BasicCuckooTable : public BasicHashTable<K> {
 public:
  [[nodiscard]] TableKind kind() const final { return TableKind::Cuckoo; }

  /// The table as device code (or CPU loops) see it. Valid until the next build.
  [[nodiscard]] virtual BasicCuckooRef<K> ref() const = 0;

  /// The table with every value of every key; throws InvalidInput unless the last build had
  /// BuildOptions::multivalue. Valid until the next build.
  [[nodiscard]] virtual MultiRef<BasicCuckooRef<K>> multi_ref() const = 0;
};

using CuckooTable   = BasicCuckooTable<Key>;
using CuckooTable64 = BasicCuckooTable<Key64>;

}  // namespace voxhash
