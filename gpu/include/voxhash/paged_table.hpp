// PagedCuckooTable: the paged GPU hash table of Starfish (Xiong et al., 2022). The keys are split
// by a hash of the key over fixed-size pages ("ChildTables"), each a cuckoo table with a stash;
// at most BuildOptions::page_budget bytes of the backend's memory hold pages, the others live in
// pinned host memory and are streamed through the resident page slots (copies overlapping kernels
// on CUDA streams). make_table(TableKind::PagedCuckoo, ...) creates one (make_table64: 64-bit
// keys, 16-byte slots); PageRef / PagedRef are what kernels probe through while pages are resident.
// Its size (paged_page_bytes, paged_page_count) is with its traits in table_traits.hpp.
#pragma once

#include <voxhash/cuckoo_ref.hpp>
#include <voxhash/hash_table.hpp>

#include <cstddef>
#include <cstdint>

namespace voxhash {

namespace detail {
/// Entries that are not deleted (8-byte and 16-byte slots).
struct LiveEntry {
  template <class Entry>
  VOXHASH_HD bool operator()(const Entry& e) const {
    return entry_value(e) != kDeletedValue;
  }
};
/// The page of `key` among `pages`: a murmur3 hash (of the key folded to 32 bits for 64-bit
/// keys), independent of the pages' cuckoo functions.
template <class KeyT>
VOXHASH_HD std::uint32_t page_of(KeyT key, std::uint32_t seed, std::uint32_t pages) {
  return fast_range(murmur_mix(key, seed), pages);
}
}  // namespace detail

/// One resident page as kernels see it: a cuckoo table with a stash whose deleted entries are
/// skipped. Valid until the table's next operation.
template <class KeyT>
struct BasicPageRef {
  BasicCuckooRef<KeyT> table;

  /// The slot of the first live copy of `key`, or kNotFound.
  VOXHASH_HD std::uint32_t find_slot(KeyT key) const {
    return table.find_slot(key, detail::LiveEntry{});
  }
  VOXHASH_HD Value find(KeyT key) const {
    const std::uint32_t s = find_slot(key);
    return s == kNotFound ? kNotFound : detail::entry_value(table.slots[s]);
  }
  VOXHASH_HD bool contains(KeyT key) const { return find_slot(key) != kNotFound; }
};

/// The whole table as kernels see it while every page is resident (a table within its budget):
/// a key's page, then that page's lookup.
template <class KeyT>
struct BasicPagedRef {
  const BasicPageRef<KeyT>* pages = nullptr;  // in the backend's memory, one per page
  std::uint32_t count             = 0;
  std::uint32_t seed              = 0;  // of page_of

  VOXHASH_HD std::uint32_t page(KeyT key) const { return detail::page_of(key, seed, count); }
  VOXHASH_HD Value find(KeyT key) const {
    return count == 0 ? kNotFound : pages[page(key)].find(key);
  }
  VOXHASH_HD bool contains(KeyT key) const { return count != 0 && pages[page(key)].contains(key); }
};

/// A page of a 32-bit-key paged table (8-byte slots): the fast path.
using PageRef = BasicPageRef<Key>;
/// A page of a 64-bit-key paged table (16-byte slots).
using PageRef64  = BasicPageRef<Key64>;
using PagedRef   = BasicPagedRef<Key>;
using PagedRef64 = BasicPagedRef<Key64>;

/// What the last operation did and what the table holds.
struct PagedStats {
  std::size_t pages          = 0;  // pages of the table
  std::size_t page_slots     = 0;  // pages the budget keeps in the backend's memory at once
  std::size_t resident_pages = 0;  // pages in those slots now
  std::size_t page_capacity  = 0;  // pairs a page is sized for
  std::size_t page_bytes     = 0;  // one page: its slots and stash, 8 (16: 64-bit keys) bytes each
  std::size_t max_page_keys  = 0;  // entries a page may hold before it needs more pages
  std::size_t backend_bytes  = 0;  // the table's memory on the backend: page slots and scratch
  std::size_t host_bytes     = 0;  // pinned host memory of the pages (0 while all are resident)
  std::size_t scratch_bytes  = 0;  // backend memory beyond the budget: a streamed operation's
                                   // partition of its input (24 bytes a pair, 40 for 64-bit
                                   // keys), kept for the next
  std::size_t entries = 0;         // occupied slots over all pages (deleted entries included)
  bool all_resident   = false;     // every page in backend memory: no transfers

  // The last operation (build, insert, erase, update, or a find / contains that streamed pages).
  std::uint64_t bytes_to_device = 0;  // pages uploaded
  std::uint64_t bytes_to_host   = 0;  // pages downloaded
  std::size_t pages_streamed    = 0;  // pages that went through a slot
  std::size_t page_rebuilds     = 0;  // pages rebuilt alone with new constants
  double seconds                = 0;  // wall time, transfers overlapped with kernels
  double upload_seconds         = 0;  // time the host-to-device copies took, summed
  double download_seconds       = 0;  // time the device-to-host copies took, summed
  double kernel_seconds         = 0;  // time the page kernels took, summed
};

/// The Starfish table behind the HashTable interface. build() replaces the contents; insert(),
/// erase() and update() change them; find / contains look each query up in its one page. A table
/// whose pages all fit the budget keeps them resident and runs every operation as one pass over
/// its input (no partition, no transfers); a larger one partitions the input by page (CUB radix
/// sort) and streams the pages through the budget's slots: double-buffered uploads on one stream,
/// kernels on a second, downloads on a third, ordered by events. Operations that stream
/// synchronize their stream (the page ranges are read back) and move pages in and out of the
/// slots, so on such a table no two operations may run at once, lookups included; the others
/// behave as HashTable says.
/// count / find_id / unique_keys are not available (no dense ids: they would need an input-sized
/// array in backend memory) and throw InvalidInput. Values equal to kDeletedValue are rejected.
/// K is the key width: PagedCuckooTable (32-bit keys, 8-byte slots, the fast path) and
/// PagedCuckooTable64 (64-bit keys, 16-byte slots exchanged whole, as the flat CuckooTable64's).
template <class K>
class BasicPagedCuckooTable : public BasicHashTable<K> {
 public:
  [[nodiscard]] TableKind kind() const final { return TableKind::PagedCuckoo; }

  /// Adds pairs (values may be null: each key's value is then its input index); a key already
  /// present takes the new value. The page count is fixed by the last build: an insert that would
  /// fill a page beyond max_page_keys throws InvalidInput before anything changes, as do sentinel
  /// keys and deleted-marker values. Synchronizes `stream`.
  virtual void insert(const K* keys,
                      const Value* values,
                      std::size_t n,
                      Stream stream = nullptr) = 0;
  /// Deletes the keys (absent ones are ignored): their entries are marked deleted and their slots
  /// reused by later inserts (Starfish's delete). Synchronizes `stream`.
  virtual void erase(const K* keys, std::size_t n, Stream stream = nullptr) = 0;
  /// Gives present keys new values (absent keys are ignored). Synchronizes `stream`.
  virtual void update(const K* keys,
                      const Value* values,
                      std::size_t n,
                      Stream stream = nullptr) = 0;

  [[nodiscard]] virtual const PagedStats& paged_stats() const = 0;

  /// A resident page's ref (valid until the next operation); throws InvalidInput when `page` is
  /// not resident.
  [[nodiscard]] virtual BasicPageRef<K> page_ref(std::size_t page) const = 0;
  /// The whole table's ref; throws InvalidInput unless every page is resident.
  [[nodiscard]] virtual BasicPagedRef<K> ref() const = 0;
  /// Builds the last operation took on `page` (1: the first; more: rebuilt alone with new
  /// constants); 0 for a page the operation did not touch.
  [[nodiscard]] virtual int page_attempts(std::size_t page) const = 0;

  /// Test hook: the next `times` builds of `page` are treated as failed (as if a chain had
  /// overflowed the stash), so the page is rebuilt alone with new constants.
  virtual void force_page_failures(std::size_t page, int times) = 0;
};

using PagedCuckooTable   = BasicPagedCuckooTable<Key>;
using PagedCuckooTable64 = BasicPagedCuckooTable<Key64>;

}  // namespace voxhash
