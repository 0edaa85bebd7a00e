// Checks of the paged cuckoo table shared by the CPU and GPU tests: a table whose pages all fit its
// budget (resident) and one four times its budget (streamed) with small pages, answers compared
// with the reference multimap and with the flat cuckoo table; deletes, updates, inserts, forced
// page failures and the errors, each run on a given backend and key width K (Key or Key64).
#pragma once

#include "common/table_checks.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>
#include <voxhash/paged_table.hpp>

#include <memory>
#include <string>
#include <vector>

namespace voxhash::test {

/// Small pages so a few thousand keys make many of them.
inline constexpr std::size_t kTestPageCapacity = 1024;

/// A budget that holds `slots` pages of kTestPageCapacity pairs of keys K (each with its overflow
/// list of 1024 entries), and the rebuild scratch.
template <class K = Key>
std::size_t budget_for_pages(std::size_t slots) {
  BuildOptions o;
  o.page_capacity            = kTestPageCapacity;
  const std::size_t page     = paged_page_bytes(o, sizeof(K));
  const std::size_t overflow = 2 * sizeof(K) * 1024;
  return slots * (page + overflow + 256) + page + overflow;
}

template <class K = Key>
BuildOptions paged_options(std::size_t page_slots) {
  BuildOptions o;
  o.page_capacity = kTestPageCapacity;
  o.page_budget   = budget_for_pages<K>(page_slots);
  return o;
}

template <class K = Key>
std::unique_ptr<BasicPagedCuckooTable<K>> make_paged(Backend backend, const BuildOptions& options) {
  auto table = make_table<K>(TableKind::PagedCuckoo, backend, options);
  return std::unique_ptr<BasicPagedCuckooTable<K>>(
      dynamic_cast<BasicPagedCuckooTable<K>*>(table.release()));
}

/// find and contains of `queries` on `table`.
struct Answers {
  std::vector<Value> found;
  std::vector<std::uint8_t> has;
};

template <class K>
Answers ask(Backend backend, const BasicHashTable<K>& table, const std::vector<K>& queries) {
  Answers a;
  a.found = run_query<Value, K>(
      backend, queries, 0xDEADBEEFu, [&](auto q, auto n, auto o) { table.find_async(q, n, o); });
  a.has = run_query<std::uint8_t, K>(
      backend, queries, 7, [&](auto q, auto n, auto o) { table.contains_async(q, n, o); });
  synchronize(backend);
  return a;
}

/// What the table should hold: key -> the values any of which find may return.
template <class K = Key>
using Expected = std::unordered_map<K, std::vector<Value>>;

template <class K>
Expected<K> expected_from(const std::vector<K>& keys) {
  return BasicReference<K>(keys).indices;
}

/// Every query answered as `expected` says (a hit's value one of its values, a miss kNotFound).
template <class K>
void expect_answers(const Answers& a, const std::vector<K>& queries, const Expected<K>& want) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const auto it = want.find(queries[i]);
    const bool ok = it == want.end() ? a.found[i] == kNotFound && a.has[i] == 0
                                     : a.has[i] == 1 && std::find(it->second.begin(),
                                                                  it->second.end(),
                                                                  a.found[i]) != it->second.end();
    if (!ok && ++wrong <= 5) {
      ADD_FAILURE() << "query " << queries[i] << ": find " << a.found[i] << ", contains "
                    << int(a.has[i]) << (it == want.end() ? " (absent)" : " (present)");
    }
  }
  EXPECT_EQ(wrong, 0u);
}

/// Builds a paged table with `page_slots` slots from `keys` and checks it against the reference
/// and the flat cuckoo table: every key, and as many absent keys.
template <class K>
void check_paged_like_flat(Backend backend,
                           const std::vector<K>& keys,
                           std::size_t page_slots,
                           bool expect_resident) {
  SCOPED_TRACE("paged on " + std::string(to_string(backend)) + ", " +
               std::to_string(8 * sizeof(K)) + "-bit keys, n=" + std::to_string(keys.size()) +
               ", page slots " + std::to_string(page_slots));
  auto paged   = make_paged<K>(backend, paged_options<K>(page_slots));
  auto flat    = make_table<K>(TableKind::Cuckoo, backend);
  auto d_keys  = Buffer<K>::from_host(backend, keys);
  const auto s = paged->build(d_keys.data(), nullptr, keys.size());
  flat->build(d_keys.data(), nullptr, keys.size());
  EXPECT_EQ(s.keys, keys.size());
  EXPECT_EQ(d_keys.to_host(), keys) << "the build must not modify its input";
  const PagedStats& ps = paged->paged_stats();
  EXPECT_EQ(ps.all_resident, expect_resident);
  EXPECT_GE(ps.pages, (keys.size() + kTestPageCapacity - 1) / kTestPageCapacity);
  if (!expect_resident) {
    EXPECT_EQ(ps.pages_streamed, ps.pages);
    EXPECT_EQ(ps.bytes_to_host, ps.pages * ps.page_bytes);
    EXPECT_EQ(ps.host_bytes, ps.pages * ps.page_bytes);
  }
  EXPECT_EQ(ps.page_bytes, paged_page_bytes(paged_options<K>(page_slots), sizeof(K)));
  EXPECT_LE(ps.backend_bytes, budget_for_pages<K>(page_slots));

  std::vector<K> queries = keys;
  const auto misses      = absent_keys(keys, keys.size(), 77);
  queries.insert(queries.end(), misses.begin(), misses.end());
  std::shuffle(queries.begin(), queries.end(), std::mt19937(5));
  const Answers p = ask(backend, *paged, queries);
  const Answers f = ask(backend, *flat, queries);
  expect_answers(p, queries, expected_from(keys));
  EXPECT_EQ(p.has, f.has);
}

/// Deletes a third of the keys, checks, inserts some of them back with new values and some new
/// keys, updates others (and absent keys, which stay absent), checks after each step.
template <class K = Key>
void check_paged_changes(Backend backend, std::size_t page_slots) {
  SCOPED_TRACE("paged changes on " + std::string(to_string(backend)) + ", " +
               std::to_string(8 * sizeof(K)) + "-bit keys, page slots " +
               std::to_string(page_slots));
  const auto keys      = random_keys<K>(12000, 12000, 31);
  BuildOptions options = paged_options<K>(page_slots);
  options.page_fill    = 0.6;  // room for the inserts below
  auto paged           = make_paged<K>(backend, options);
  std::vector<Value> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    values[i] = static_cast<Value>(i * 3);
  auto d_keys   = Buffer<K>::from_host(backend, keys);
  auto d_values = Buffer<Value>::from_host(backend, values);
  paged->build(d_keys.data(), d_values.data(), keys.size());
  Expected<K> want;
  for (std::size_t i = 0; i < keys.size(); ++i)
    want[keys[i]] = {values[i]};

  const auto absent      = absent_keys(keys, 3000, 32);
  std::vector<K> queries = keys;
  queries.insert(queries.end(), absent.begin(), absent.end());

  // Delete every third key (and some absent ones, ignored).
  std::vector<K> gone;
  for (std::size_t i = 0; i < keys.size(); i += 3)
    gone.push_back(keys[i]);
  gone.insert(gone.end(), absent.begin(), absent.begin() + 100);
  auto d_gone = Buffer<K>::from_host(backend, gone);
  paged->erase(d_gone.data(), gone.size());
  for (std::size_t i = 0; i < keys.size(); i += 3)
    want.erase(keys[i]);
  expect_answers(ask(backend, *paged, queries), queries, want);

  // Update every third key from 1 (present), and absent keys (ignored); deleted ones stay deleted.
  std::vector<K> changed;
  std::vector<Value> changed_values;
  for (std::size_t i = 1; i < keys.size(); i += 3) {
    changed.push_back(keys[i]);
    changed_values.push_back(static_cast<Value>(7 + i));
  }
  for (std::size_t i = 0; i < keys.size(); i += 30) {
    changed.push_back(keys[i]);
    changed_values.push_back(1);
  }
  for (std::size_t j = 200; j < 300; ++j) {
    changed.push_back(absent[j]);
    changed_values.push_back(2);
  }
  auto d_changed = Buffer<K>::from_host(backend, changed);
  auto d_cv      = Buffer<Value>::from_host(backend, changed_values);
  paged->update(d_changed.data(), d_cv.data(), changed.size());
  for (std::size_t i = 1; i < keys.size(); i += 3)
    want[keys[i]] = {static_cast<Value>(7 + i)};
  expect_answers(ask(backend, *paged, queries), queries, want);

  // Insert: half the deleted keys back, new keys, and present keys with new values.
  std::vector<K> added;
  std::vector<Value> added_values;
  for (std::size_t i = 0; i < keys.size(); i += 6) {
    added.push_back(keys[i]);
    added_values.push_back(static_cast<Value>(100000 + i));
  }
  for (std::size_t j = 1000; j < 2500; ++j) {
    added.push_back(absent[j]);
    added_values.push_back(static_cast<Value>(200000 + j));
  }
  for (std::size_t i = 2; i < keys.size(); i += 9) {
    added.push_back(keys[i]);
    added_values.push_back(static_cast<Value>(300000 + i));
  }
  auto d_added = Buffer<K>::from_host(backend, added);
  auto d_av    = Buffer<Value>::from_host(backend, added_values);
  paged->insert(d_added.data(), d_av.data(), added.size());
  for (std::size_t j = 0; j < added.size(); ++j)
    want[added[j]] = {added_values[j]};
  expect_answers(ask(backend, *paged, queries), queries, want);
}

/// Forces one page's first build to fail: that page alone is rebuilt, with new constants.
template <class K = Key>
void check_forced_page_failure(Backend backend, std::size_t page_slots) {
  SCOPED_TRACE("forced page failure on " + std::string(to_string(backend)) + ", " +
               std::to_string(8 * sizeof(K)) + "-bit keys, page slots " +
               std::to_string(page_slots));
  const auto keys                = random_keys<K>(10000, 8000, 41);
  auto paged                     = make_paged<K>(backend, paged_options<K>(page_slots));
  constexpr std::size_t kFailing = 3;
  paged->force_page_failures(kFailing, 1);
  auto d_keys = Buffer<K>::from_host(backend, keys);
  paged->build(d_keys.data(), nullptr, keys.size());
  const PagedStats& s = paged->paged_stats();
  EXPECT_EQ(s.page_rebuilds, 1u);
  for (std::size_t p = 0; p < s.pages; ++p)
    EXPECT_EQ(paged->page_attempts(p), p == kFailing ? 2 : 1) << "page " << p;
  EXPECT_EQ(paged->stats().attempts, 2);
  std::vector<K> queries = keys;
  const auto misses      = absent_keys(keys, 2000, 42);
  queries.insert(queries.end(), misses.begin(), misses.end());
  expect_answers(ask(backend, *paged, queries), queries, expected_from(keys));
}

}  // namespace voxhash::test
