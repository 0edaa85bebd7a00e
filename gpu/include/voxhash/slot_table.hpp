// BasicSlotTable<K, Ref>: what the two slot tables (CuckooTable: one slot per hash function;
// BucketedCuckooTable: a bucket of slots per hash function) offer beyond HashTable, declared once:
// the ref kernels probe through, the multivalue ref, and changes after a build (insert-or-assign,
// erase, update), as the paged table has them.
#pragma once

#include <voxhash/cuckoo_ref.hpp>
#include <voxhash/hash_table.hpp>

#include <cstddef>

namespace voxhash {

template <class K, class Ref>
class BasicSlotTable : public BasicHashTable<K> {
 public:
  /// The table as device code (or CPU loops) see it. Valid until the next build or change.
  [[nodiscard]] virtual Ref ref() const = 0;

  /// The table with every value of every key; throws InvalidInput unless the last build had
  /// BuildOptions::multivalue. Valid until the next build.
  [[nodiscard]] virtual MultiRef<Ref> multi_ref() const = 0;

  // Changes after a build. Each synchronizes `stream` and throws InvalidInput, leaving the table
  // as it was, on a table built with BuildOptions::multivalue, on sentinel keys and (insert,
  // update) on values equal to kDeletedValue. A change ends the dense ids and multiplicities of
  // the last build: unique_count() is 0 afterwards and find_id / count throw as after a build
  // without unique ids. Erased keys keep their slots until the table is rebuilt.

  /// Adds pairs (values may be null: each key's value is then its input index); a key already
  /// present (or erased) takes the new value. A table with too little room for n more keys at
  /// BuildOptions::cuckoo_space, or one where an eviction chain failed, is rebuilt from its live
  /// entries with fresh constants (sized for them and the new keys); BuildFailed from that rebuild
  /// leaves the table empty, as a failed build does.
  virtual void insert(const K* keys,
                      const Value* values,
                      std::size_t n,
                      Stream stream = nullptr) = 0;
  /// Erases the keys (absent ones are ignored): their entries are marked with kDeletedValue, and
  /// lookups miss them.
  virtual void erase(const K* keys, std::size_t n, Stream stream = nullptr) = 0;
  /// Gives present keys new values (absent and erased keys are ignored).
  virtual void update(const K* keys,
                      const Value* values,
                      std::size_t n,
                      Stream stream = nullptr) = 0;
};

}  // namespace voxhash
