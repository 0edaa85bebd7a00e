// The restart loop of the cuckoo builds, written once for the single-slot and the bucketed table:
// draw fresh hash constants, empty the slots and the build status, insert every key, read the
// status; again while an eviction chain reached its limit, sized for all keys from the third
// attempt when a unique-key hint was too small. queue_one_attempt is one such attempt without the
// read, and queue_set_build the frame's build around it (SlotTableImpl's builds, both layouts).
// The paged table draws its pages' constants here.
#pragma once

#include "tables/build_status.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/cuckoo_ref.hpp>
#include <voxhash/error.hpp>
#include <voxhash/hash_table.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>

namespace voxhash::tables {

/// Draws fresh constants for every hash function of a cuckoo table: a in [1, p), b in [0, p).
template <std::size_t N>
void draw_cuckoo_constants(std::mt19937_64& rng, detail::CuckooHashConstants (&hash)[N]) {
  std::uniform_int_distribution<std::uint32_t> a(1, detail::kCuckooPrime - 1);
  std::uniform_int_distribution<std::uint32_t> b(0, detail::kCuckooPrime - 1);
  for (auto& c : hash)
    c = {a(rng), b(rng)};
}

/// What a cuckoo build asks of the retry loop.
struct CuckooRetryInput {
  const char* table;           // the table's name, for messages
  std::uint32_t n;             // keys to insert
  std::size_t expected;        // unique keys expected (0: n); the first two attempts use them
  std::size_t slots_per_unit;  // slots in one unit of the Ref's size (1, or a bucket's slots)
  std::uint32_t stash;         // stash slots after the table's (0: none)
};

/// The attempt that placed every key: its view (constants and size set; the stash as the
/// insertions saw it) and its status word.
template <class Ref>
struct CuckooRetryResult {
  Ref view;
  BuildStatus status;
};

/// Queues one attempt: `units` units of slots and `stash` stash slots after them emptied, fresh
/// constants, the status cleared and every key inserted (insert_all as below); returns its view
/// (with the stash when the Ref has one). Nothing waits.
template <class Ref, class Exec, class InsertAll>
Ref queue_one_attempt(Exec& exec,
                      Buffer<typename Ref::Entry>& slots,
                      Buffer<BuildStatus>& status,
                      std::mt19937_64& rng,
                      std::uint32_t units,
                      std::size_t slots_per_unit,
                      std::uint32_t stash,
                      std::uint32_t max_chain,
                      InsertAll insert_all) {
  using K                 = typename Ref::key_type;
  const std::size_t count = std::size_t{units} * slots_per_unit + stash;
  status.resize(1);
  slots.resize(count);
  Ref view{slots.data(), units};
  if constexpr (requires { view.stash_size; }) view.stash_size = stash;
  draw_cuckoo_constants(rng, view.hash);
  exec.fill(slots.data(), count, detail::empty_entry<K>());
  exec.fill(status.data(), 1, BuildStatus{});
  insert_all(view, max_chain);
  return view;
}

/// The frame's build of `n` keys (distinct, none the sentinel): one attempt queued into `units`
/// units of slots without a stash (insert_all as above), its status word left in `status` for a
/// later read. The options must ask for no ids and no value lists (InvalidInput naming `table`).
/// Fills stats' keys, attempts, chain_limit and slots; returns the attempt's view (an empty one for
/// no keys).
template <class Ref, class Exec, class InsertAll>
Ref queue_set_build(Exec& exec,
                    Buffer<typename Ref::Entry>& slots,
                    Buffer<BuildStatus>& status,
                    std::mt19937_64& rng,
                    const BuildOptions& options,
                    const char* table,
                    std::uint32_t n,
                    std::uint32_t units,
                    std::size_t slots_per_unit,
                    BuildStats& stats,
                    InsertAll insert_all) {
  if (options.unique_ids || options.multivalue) {
    throw InvalidInput(std::string(table) + ": a queued build keeps no ids or value lists");
  }
  stats.keys = n;
  if (n == 0) {
    status.resize(1);
    exec.fill(status.data(), 1, BuildStatus{});
    return Ref{};
  }
  const std::uint32_t max_chain = chain_limit(options.max_chain, n);
  const Ref view                = queue_one_attempt<Ref>(
      exec, slots, status, rng, units, slots_per_unit, 0, max_chain, insert_all);
  stats.attempts    = 1;
  stats.chain_limit = max_chain;
  stats.slots       = std::size_t{units} * slots_per_unit;
  return view;
}

/// Inserts `in.n` keys into `slots` (and `in.stash` stash slots) with fresh constants from `rng`
/// until every key is placed, at most options.max_attempts times. units_for(keys) gives the Ref's
/// size (slots or buckets) for a key count; insert_all(view, max_chain) runs one attempt's
/// insertions into view.slots, recording into status.data(). Fills stats' attempts, chain_limit,
/// longest_chain and slots. Reads the status once per attempt (synchronizes exec's stream). A
/// sentinel key in the input throws InvalidInput and max_attempts failed attempts throw
/// BuildFailed, each after on_throw() (the caller clears its table there).
template <class Ref, class Exec, class UnitsFor, class InsertAll, class OnThrow>
CuckooRetryResult<Ref> insert_with_retries(Exec& exec,
                                           Buffer<typename Ref::Entry>& slots,
                                           Buffer<BuildStatus>& status,
                                           std::mt19937_64& rng,
                                           const BuildOptions& options,
                                           const CuckooRetryInput& in,
                                           BuildStats& stats,
                                           UnitsFor units_for,
                                           InsertAll insert_all,
                                           OnThrow on_throw) {
  using K                       = typename Ref::key_type;
  const std::uint32_t max_chain = chain_limit(options.max_chain, in.n);
  const std::size_t hinted      = in.expected ? std::min<std::size_t>(in.expected, in.n) : in.n;
  std::uint32_t units           = units_for(hinted);
  stats.chain_limit             = max_chain;

  std::size_t count = 0;
  for (int attempt = 1; attempt <= options.max_attempts; ++attempt) {
    if (attempt == 3 && hinted < in.n) units = units_for(in.n);  // the hint was too small
    count          = std::size_t{units} * in.slots_per_unit;
    const Ref view = queue_one_attempt<Ref>(
        exec, slots, status, rng, units, in.slots_per_unit, in.stash, max_chain, insert_all);
    const BuildStatus s = exec.read(status.data());
    stats.attempts      = attempt;
    if (s.sentinel_key) {
      on_throw();
      throw_sentinel_key<K>(in.table);
    }
    if (!s.failed) {
      stats.longest_chain = s.longest_chain;
      stats.slots         = count;
      return {view, s};
    }
  }
  on_throw();
  std::ostringstream msg;
  msg << in.table << ": build of " << in.n << " keys into " << count << " slots failed "
      << options.max_attempts << " times (an eviction chain exceeded " << max_chain
      << " exchanges each time); give the table more space or a longer chain limit";
  throw BuildFailed(msg.str());
}

}  // namespace voxhash::tables
