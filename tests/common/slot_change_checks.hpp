// Checks of the slot tables (cuckoo, bucketed cuckoo) shared by the CPU and GPU tests: changes
// after a build (erase, insert-or-assign, update) against a std::unordered_map, and the flat
// cuckoo table's stash saving a build that would otherwise restart. Each runs on a given backend
// and key width and returns what it saw, so the GPU tests can hold CUDA's answers against the
// CPU's.
#pragma once

#include "common/table_checks.hpp"

#include <voxhash/bucketed_cuckoo_table.hpp>
#include <voxhash/cuckoo_table.hpp>
#include <voxhash/error.hpp>

#include <string>
#include <unordered_map>
#include <vector>

namespace voxhash::test {

/// f(table) with `table` as its slot-table interface (insert / erase / update / ref).
template <class K, class F>
void with_slot_table(BasicHashTable<K>& table, F f) {
  if (auto* t = dynamic_cast<BasicCuckooTable<K>*>(&table)) {
    f(*t);
  } else {
    f(dynamic_cast<BasicBucketedCuckooTable<K>&>(table));
  }
}

/// What a table answers for `queries`: find's values and contains' flags.
struct SlotAnswers {
  std::vector<Value> found;
  std::vector<std::uint8_t> has;
  friend bool operator==(const SlotAnswers&, const SlotAnswers&) = default;
};

/// Looks every query up and checks the answers against `want` (absent: kNotFound, contains 0).
template <class K>
SlotAnswers expect_answers(Backend backend,
                           const BasicHashTable<K>& table,
                           const std::vector<K>& queries,
                           const std::unordered_map<K, Value>& want,
                           const std::string& step) {
  SCOPED_TRACE(step);
  SlotAnswers a;
  a.found = run_query<Value, K>(
      backend, queries, 0xDEADBEEFu, [&](auto q, auto n, auto o) { table.find_async(q, n, o); });
  a.has = run_query<std::uint8_t, K>(
      backend, queries, 7, [&](auto q, auto n, auto o) { table.contains_async(q, n, o); });
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const auto it        = want.find(queries[i]);
    const Value expected = it == want.end() ? kNotFound : it->second;
    wrong += a.found[i] != expected || a.has[i] != (it != want.end() ? 1 : 0);
  }
  EXPECT_EQ(wrong, 0u) << "of " << queries.size() << " queries";
  return a;
}

/// Builds a slot table of `kind` from 20000 distinct keys (caller values), then: erases a third
/// of them and some absent keys; inserts-or-assigns erased, present and 15000 new keys (more than
/// the table has room for: it is rebuilt larger); updates present, erased and absent keys; and
/// checks find / contains of every key after each step. Bad input throws with the table unchanged,
/// and the dense ids end with the first change. Returns the answers of every step.
template <class K>
std::vector<SlotAnswers> check_slot_changes(Backend backend, TableKind kind) {
  SCOPED_TRACE(std::string(to_string(kind)) + " on " + std::string(to_string(backend)) + ", " +
               std::to_string(8 * sizeof(K)) + "-bit keys");
  constexpr std::size_t kBuilt = 20000, kNew = 15000;
  const std::vector<K> pool = random_keys<K>(kBuilt + kNew, kBuilt + kNew, 61);
  const std::vector<K> built(pool.begin(), pool.begin() + kBuilt);
  const std::vector<K> fresh(pool.begin() + kBuilt, pool.end());
  const std::vector<K> absent = absent_keys(pool, 500, 62);
  std::vector<K> queries      = pool;
  queries.insert(queries.end(), absent.begin(), absent.end());

  std::unordered_map<K, Value> want;
  std::vector<Value> values(kBuilt);
  for (std::size_t i = 0; i < kBuilt; ++i)
    want[built[i]] = values[i] = static_cast<Value>(3 * i + 1);
  auto table = make_table<K>(kind, backend);
  auto d     = Buffer<K>::from_host(backend, built);
  auto dv    = Buffer<Value>::from_host(backend, values);
  table->build(d.data(), dv.data(), kBuilt);
  EXPECT_EQ(table->unique_count(), kBuilt);
  std::vector<SlotAnswers> seen;
  seen.push_back(expect_answers(backend, *table, queries, want, "built"));

  with_slot_table(*table, [&](auto& t) {
    // Erase: the first third and absent keys (ignored).
    std::vector<K> gone(built.begin(), built.begin() + kBuilt / 3);
    gone.insert(gone.end(), absent.begin(), absent.begin() + 100);
    for (const K k : gone)
      want.erase(k);
    auto d_gone = Buffer<K>::from_host(backend, gone);
    t.erase(d_gone.data(), gone.size());
    seen.push_back(expect_answers(backend, t, queries, want, "erased"));
    EXPECT_EQ(t.unique_count(), 0u) << "a change ends the dense ids";
    std::uint32_t id = 0;
    EXPECT_THROW(t.find_id_async(d.data(), 1, &id), InvalidInput);

    // Insert-or-assign: half the erased keys back, a sixth of the present ones overwritten, and
    // the new keys.
    std::vector<K> add(built.begin(), built.begin() + kBuilt / 6);
    add.insert(add.end(), built.begin() + kBuilt / 3, built.begin() + kBuilt / 2);
    add.insert(add.end(), fresh.begin(), fresh.end());
    std::vector<Value> add_values(add.size());
    for (std::size_t i = 0; i < add.size(); ++i)
      want[add[i]] = add_values[i] = static_cast<Value>(7 * i + 5);
    auto d_add                     = Buffer<K>::from_host(backend, add);
    auto d_av                      = Buffer<Value>::from_host(backend, add_values);
    const std::size_t slots_before = t.stats().slots;
    t.insert(d_add.data(), d_av.data(), add.size());
    EXPECT_GT(t.stats().slots, slots_before) << "more keys than room: rebuilt larger";
    seen.push_back(expect_answers(backend, t, queries, want, "inserted"));

    // Update: present keys take new values; erased and absent ones stay absent.
    std::vector<K> change(built.begin() + kBuilt / 2, built.begin() + kBuilt / 2 + 1000);
    change.insert(change.end(), built.begin() + kBuilt / 6, built.begin() + kBuilt / 6 + 100);
    change.insert(change.end(), absent.begin() + 200, absent.begin() + 300);
    std::vector<Value> change_values(change.size());
    for (std::size_t i = 0; i < change.size(); ++i) {
      change_values[i] = static_cast<Value>(11 * i + 2);
      if (want.count(change[i])) want[change[i]] = change_values[i];
    }
    auto d_change = Buffer<K>::from_host(backend, change);
    auto d_cv     = Buffer<Value>::from_host(backend, change_values);
    t.update(d_change.data(), d_cv.data(), change.size());
    seen.push_back(expect_answers(backend, t, queries, want, "updated"));

    // Bad input: nothing changes.
    std::vector<K> bad{fresh[0], kEmptyKeyOf<K>};
    auto d_bad = Buffer<K>::from_host(backend, bad);
    EXPECT_THROW(t.insert(d_bad.data(), nullptr, bad.size()), InvalidInput);
    EXPECT_THROW(t.erase(d_bad.data(), bad.size()), InvalidInput);
    const std::vector<Value> deleted{kDeletedValue, 1};
    auto d_deleted = Buffer<Value>::from_host(backend, deleted);
    EXPECT_THROW(t.insert(d_add.data(), d_deleted.data(), 2), InvalidInput);
    EXPECT_THROW(t.update(d_add.data(), d_deleted.data(), 2), InvalidInput);
    seen.push_back(expect_answers(backend, t, queries, want, "after bad input"));
  });

  // A multivalue table takes no changes.
  BuildOptions multi;
  multi.multivalue = true;
  auto mv          = make_table<K>(kind, backend, multi);
  mv->build(d.data(), nullptr, kBuilt);
  with_slot_table(*mv, [&](auto& t) { EXPECT_THROW(t.erase(d.data(), 1), InvalidInput); });
  return seen;
}

/// A cuckoo build whose eviction chains of one exchange leave items in hand (64 keys, space 4):
/// without a stash it fails; with one the first attempt places every key, some in the stash,
/// lookups search it, and every key is found. Returns the build's statistics.
template <class K>
BuildStats check_stash_saves_build(Backend backend) {
  SCOPED_TRACE(std::string(to_string(backend)) + ", " + std::to_string(8 * sizeof(K)) +
               "-bit keys");
  const std::vector<K> keys = random_keys<K>(64, 64, 71);
  auto d                    = Buffer<K>::from_host(backend, keys);
  BuildOptions options;
  options.cuckoo_space = 4.0;
  options.max_chain    = 1;
  options.max_attempts = 1;
  options.stash_slots  = 0;
  auto plain           = make_table<K>(TableKind::Cuckoo, backend, options);
  EXPECT_THROW(plain->build(d.data(), nullptr, keys.size()), BuildFailed)
      << "without a stash this build restarts";

  options.stash_slots = BuildOptions{}.stash_slots;
  auto table          = make_table<K>(TableKind::Cuckoo, backend, options);
  const BuildStats s  = table->build(d.data(), nullptr, keys.size());
  EXPECT_EQ(s.attempts, 1);
  EXPECT_GT(s.stash_entries, 0u);
  EXPECT_EQ(dynamic_cast<BasicCuckooTable<K>&>(*table).ref().stash_size, options.stash_slots);
  const auto found = run_query<Value, K>(
      backend, keys, 0xDEADBEEFu, [&](auto q, auto n, auto o) { table->find_async(q, n, o); });
  const auto ids = run_query<std::uint32_t, K>(
      backend, keys, 0xDEADBEEFu, [&](auto q, auto n, auto o) { table->find_id_async(q, n, o); });
  std::vector<std::uint8_t> id_seen(keys.size(), 0);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(found[i], static_cast<Value>(i)) << "key " << i;
    EXPECT_LT(ids[i], keys.size());
    if (ids[i] < keys.size()) id_seen[ids[i]] = 1;
  }
  EXPECT_EQ(std::count(id_seen.begin(), id_seen.end(), 1), static_cast<long>(keys.size()))
      << "stashed keys get dense ids too";

  // A build no chain failed in leaves the stash out of lookups.
  auto roomy = make_table<K>(TableKind::Cuckoo, backend);
  EXPECT_EQ(roomy->build(d.data(), nullptr, keys.size()).stash_entries, 0u);
  EXPECT_EQ(dynamic_cast<BasicCuckooTable<K>&>(*roomy).ref().stash_size, 0u);
  return s;
}

}  // namespace voxhash::test
