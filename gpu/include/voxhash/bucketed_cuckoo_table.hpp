// BucketedCuckooTable: bucketed cuckoo hashing (BCHT: Awad et al., "Better GPU Hash Tables", and
// BGHT's bcht) behind the HashTable interface: buckets of 8 key-value slots, three hash functions,
// one cooperative tile per key on the GPU. Like CuckooTable it has the set/compacting variant:
// every unique key gets a dense id 0..u-1 and the unique keys are listed. ref() is what kernels
// probe through; multi_ref() also reaches every value of a key (the multivalue variant, built
// only when asked, as the cuckoo table's); insert / erase / update change it after a build
// (slot_table.hpp). Sized by BuildOptions::cuckoo_space (slots per key;
// 1.25 = load 0.8), and builds at load 0.95 (space 1.05) succeed. BucketedCuckooTable holds
// 32-bit keys (64-byte buckets), BucketedCuckooTable64 64-bit keys (16-byte slots, 128-byte
// buckets).
#pragma once

#include <voxhash/bucketed_cuckoo_ref.hpp>
#include <voxhash/slot_table.hpp>

namespace voxhash {

template <class K>
class BasicBucketedCuckooTable : public BasicSlotTable<K, BasicBucketedCuckooRef<K>> {
 public:
  [[nodiscard]] TableKind kind() const final { return TableKind::BucketedCuckoo; }
};

using BucketedCuckooTable   = BasicBucketedCuckooTable<Key>;
using BucketedCuckooTable64 = BasicBucketedCuckooTable<Key64>;

}  // namespace voxhash
