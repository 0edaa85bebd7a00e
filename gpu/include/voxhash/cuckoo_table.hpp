// CuckooTable: Alcantara et al.'s GPU cuckoo hash table (GPU Computing Gems, ch. 4) behind the
// HashTable interface, with the set/compacting variant for duplicate keys: every unique key gets a
// dense id 0..u-1 and the unique keys are listed. ref() is what kernels probe through.
#pragma once

#include <voxhash/cuckoo_ref.hpp>
#include <voxhash/hash_table.hpp>

namespace voxhash {

class CuckooTable : public HashTable {
 public:
  [[nodiscard]] TableKind kind() const final { return TableKind::Cuckoo; }

  /// The table as device code (or CPU loops) see it. Valid until the next build.
  [[nodiscard]] virtual CuckooRef ref() const = 0;
};

}  // namespace voxhash
