// CuckooTable: Alcantara et al.'s GPU cuckoo hash table (GPU Computing Gems, ch. 4) behind the
// HashTable interface, with the set/compacting variant for duplicate keys: every unique key gets a
// dense id 0..u-1 and the unique keys are listed, and a stash (BuildOptions::stash_slots) for the
// keys an eviction chain could not place. ref() is what kernels probe through; multi_ref() also
// reaches every value of a key (the multivalue variant, built only when asked); insert / erase /
// update change it after a build (slot_table.hpp). CuckooTable holds 32-bit keys in 8-byte slots,
// CuckooTable64 64-bit keys in 16-byte slots.
#pragma once

#include <voxhash/cuckoo_ref.hpp>
#include <voxhash/slot_table.hpp>

namespace voxhash {

template <class K>
class BasicCuckooTable : public BasicSlotTable<K, BasicCuckooRef<K>> {
 public:
  [[nodiscard]] TableKind kind() const final { return TableKind::Cuckoo; }
};

using CuckooTable   = BasicCuckooTable<Key>;
using CuckooTable64 = BasicCuckooTable<Key64>;

}  // namespace voxhash
