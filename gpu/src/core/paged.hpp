// Per-element logic of the paged cuckoo table (Starfish), shared by both backends: what one input
// pair, query or slot does to its page. The cuckoo work itself is core/cuckoo.hpp's (eviction
// chains, stash, set variant); here are the page's bookkeeping (items no chain or stash could
// place kept in the page's overflow list, so a page can be rebuilt from itself), Starfish's
// deleted entries (reusable by later chains, skipped by lookups) and the partition by page. Over
// the key width, as core/cuckoo.hpp: 8-byte slots for 32-bit keys, 16-byte slots for 64-bit ones.
#pragma once

#include "core/atomics.hpp"
#include "core/cuckoo.hpp"

#include <voxhash/detail/host_device.hpp>
#include <voxhash/paged_table.hpp>
#include <voxhash/types.hpp>

#include <cstdint>

namespace voxhash::core {

/// Items a page keeps when neither a chain nor the stash could place them; any such item marks the
/// page for a rebuild with new constants. More than this many in one operation lose items (the
/// page pre-check keeps pages far below that load).
inline constexpr std::uint32_t kPageOverflow = 1024;

/// What one operation's kernels report once for all pages.
struct PagedOpStatus {
  std::uint32_t sentinel_key  = 0;  // 1 if an input key equals kEmptyKey
  std::uint32_t bad_value     = 0;  // 1 if an input value equals kDeletedValue
  std::uint32_t longest_chain = 0;
};

/// What the kernels report per page.
struct PageStatus {
  std::uint32_t overflow  = 0;  // items in the page's overflow list (beyond kPageOverflow: lost)
  std::uint32_t collected = 0;  // a rebuild's gathered entries
  std::uint32_t entries   = 0;  // occupied slots after the operation (a streamed page's count)
};

/// The tables of K queries of one batch, each in its own page.
template <class KeyT>
struct PagesOf {
  const BasicPageRef<KeyT>* pages;
  const std::uint32_t* page;  // the K queries' pages
  VOXHASH_HD const BasicCuckooRef<KeyT>& operator()(int k) const { return pages[page[k]].table; }
};

/// A chain may drop a deleted entry it evicts: its slot is reused (Starfish's "EMPTY or DELETED").
struct DeletedEntry {
  template <class Entry>
  VOXHASH_HD bool operator()(const Entry& e) const {
    return detail::entry_value(e) == kDeletedValue;
  }
};

/// Inserts one pair into a page; an item left in hand goes to the page's overflow list.
template <class KeyT>
VOXHASH_HD void page_insert(const BasicCuckooRef<KeyT>& page,
                            CuckooEntryOf<KeyT>* slots,
                            CuckooEntryOf<KeyT>* overflow,
                            PageStatus* status,
                            PagedOpStatus* op,
                            KeyT key,
                            Value value,
                            std::uint32_t max_chain) {
  const BasicInsertResult<KeyT> r =
      cuckoo_insert(page, slots, key, value, max_chain, DeletedEntry{});
  if (!r.placed) {
    const std::uint32_t at = atomic_add(&status->overflow, 1u);
    if (at < kPageOverflow) overflow[at] = r.unplaced;
  }
  record_max(&op->longest_chain, r.chain);
}

/// Checks one input pair of a modifying operation; false (flagged in `op`) when it cannot go in.
template <class KeyT>
VOXHASH_HD bool valid_pair(PagedOpStatus* op, KeyT key, Value value, bool check_value) {
  if (key == kEmptyKeyOf<KeyT>) {
    atomic_store(&op->sentinel_key, 1u);
    return false;
  }
  if (check_value && value == kDeletedValue) {
    atomic_store(&op->bad_value, 1u);
    return false;
  }
  return true;
}

/// Entry `j` of a page being rebuilt (its slots and stash, then its overflow list): gathered into
/// `out` when it is live and the first live copy of its key in the page (overflow items always).
template <class KeyT>
VOXHASH_HD void page_collect(const BasicCuckooRef<KeyT>& page,
                             std::uint32_t j,
                             const CuckooEntryOf<KeyT>* overflow,
                             PageStatus* status,
                             CuckooEntryOf<KeyT>* out) {
  const std::uint32_t entries = page.size + page.stash_size;
  CuckooEntryOf<KeyT> e       = empty_entry<KeyT>();
  if (j < entries) {
    if (!is_first_copy(page, j, detail::LiveEntry{})) return;
    e = page.slots[j];
  } else {
    e = overflow[j - entries];
    if (detail::entry_key(e) == kEmptyKeyOf<KeyT> || !detail::LiveEntry{}(e)) return;
  }
  out[claim_slot(&status->collected, 0)] = e;
}

}  // namespace voxhash::core
