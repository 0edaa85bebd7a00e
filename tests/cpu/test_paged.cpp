// The paged cuckoo table (Starfish) on the CPU backend (label cpu), with an emulated budget: the
// same code path as on CUDA, "device" page slots and host pages being two sets of host buffers.
// Resident and streamed tables against the reference and the flat table; deletes, updates,
// inserts; a forced page failure rebuilt alone; the errors (budget below one page, host memory
// short, a page overfilled, sentinel keys) leave a clear message and the table as it was.
#include "common/paged_checks.hpp"

#include <voxhash/backend.hpp>

#include <optional>

namespace voxhash::test {
namespace {

constexpr Backend kCpu               = Backend::Cpu;
constexpr std::size_t kResidentSlots = 64;  // every table below fits
constexpr std::size_t kStreamSlots   = 3;   // a table many times its budget

TEST(PagedTable, ResidentEqualsFlat) {
  check_paged_like_flat(kCpu, random_keys(20000, 20000, 1), kResidentSlots, true);
}

TEST(PagedTable, StreamedEqualsFlat) {
  check_paged_like_flat(kCpu, random_keys(20000, 20000, 2), kStreamSlots, false);
}

TEST(PagedTable, DuplicatesEqualFlat) {
  check_paged_like_flat(kCpu, random_keys(30000, 4000, 3), kResidentSlots, true);
  check_paged_like_flat(kCpu, random_keys(30000, 4000, 4), kStreamSlots, false);
  check_paged_like_flat(kCpu, std::vector<Key>(3000, 99u), kStreamSlots, true);
}

TEST(PagedTable, ChangesResident) {
  check_paged_changes(kCpu, kResidentSlots);
}

TEST(PagedTable, ChangesStreamed) {
  check_paged_changes(kCpu, kStreamSlots);
}

TEST(PagedTable, ForcedPageFailureRebuiltAlone) {
  check_forced_page_failure(kCpu, kResidentSlots);
  check_forced_page_failure(kCpu, kStreamSlots);
}

TEST(PagedTable, ShortChainsFillStashesAndOverflowedPagesAreRebuilt) {
  // Chains of 10 exchanges at load 0.8, stashes of 4: many items go to the stashes, some pages
  // overflow theirs and are rebuilt; every answer stays right, streamed or resident.
  for (const std::size_t slots : {kStreamSlots, kResidentSlots}) {
    BuildOptions o  = paged_options(slots);
    o.max_chain     = 10;
    o.stash_slots   = 4;
    const auto keys = random_keys(20000, 20000, 14);
    auto paged      = make_paged(kCpu, o);
    paged->build(keys.data(), nullptr, keys.size());
    EXPECT_GT(paged->paged_stats().page_rebuilds, 0u);
    std::vector<Key> queries = keys;
    const auto misses        = absent_keys(keys, 5000, 15);
    queries.insert(queries.end(), misses.begin(), misses.end());
    expect_answers(ask(kCpu, *paged, queries), queries, expected_from(keys));
    std::vector<Key> gone(keys.begin(), keys.begin() + 5000);
    paged->erase(gone.data(), gone.size());
    Expected want = expected_from(keys);
    for (const Key k : gone)
      want.erase(k);
    expect_answers(ask(kCpu, *paged, queries), queries, want);
  }
}

TEST(PagedTable, PageFailingInAnInsertIsRebuiltAlone) {
  for (const std::size_t slots : {kStreamSlots, kResidentSlots}) {
    SCOPED_TRACE("page slots " + std::to_string(slots));
    BuildOptions o  = paged_options(slots);
    o.page_fill     = 0.7;
    const auto keys = random_keys(10000, 10000, 16);
    auto paged      = make_paged(kCpu, o);
    paged->build(keys.data(), nullptr, keys.size());
    const auto more = absent_keys(keys, 2000, 17);
    std::vector<Value> values(more.size(), 5);
    paged->force_page_failures(2, 1);
    paged->insert(more.data(), values.data(), more.size());
    EXPECT_EQ(paged->page_attempts(2), 2);
    EXPECT_EQ(paged->paged_stats().page_rebuilds, 1u);
    Expected want = expected_from(keys);
    for (const Key k : more)
      want[k] = {5};
    std::vector<Key> queries = keys;
    queries.insert(queries.end(), more.begin(), more.end());
    const auto misses = absent_keys(queries, 1000, 18);
    queries.insert(queries.end(), misses.begin(), misses.end());
    expect_answers(ask(kCpu, *paged, queries), queries, want);
  }
}

TEST(PagedTable, StreamedLookupsMoveOnlyPages) {
  const auto keys = random_keys(20000, 20000, 5);
  auto paged      = make_paged(kCpu, paged_options(kStreamSlots));
  paged->build(keys.data(), nullptr, keys.size());
  const std::size_t pages = paged->paged_stats().pages;
  EXPECT_EQ(paged->paged_stats().resident_pages, kStreamSlots);
  std::vector<Value> out(keys.size());
  paged->find_async(keys.data(), keys.size(), out.data());
  const PagedStats& s = paged->paged_stats();
  EXPECT_EQ(s.bytes_to_host, 0u) << "lookups change no page";
  EXPECT_EQ(s.bytes_to_device, (pages - kStreamSlots) * s.page_bytes)
      << "the resident pages first, then each other page once";
  EXPECT_GT(s.seconds, 0);
}

TEST(PagedTable, RefsOfResidentPages) {
  const auto keys = random_keys(5000, 5000, 6);
  auto paged      = make_paged(kCpu, paged_options(kResidentSlots));
  paged->build(keys.data(), nullptr, keys.size());
  const PagedRef all = paged->ref();
  ASSERT_EQ(all.count, paged->paged_stats().pages);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(all.find(keys[i]), i);
    ASSERT_EQ(paged->page_ref(all.page(keys[i])).find(keys[i]), i);
  }
  for (const Key k : absent_keys(keys, 1000, 7))
    ASSERT_FALSE(all.contains(k));

  auto streamed = make_paged(kCpu, paged_options(kStreamSlots));
  streamed->build(keys.data(), nullptr, keys.size());
  EXPECT_THROW((void)streamed->ref(), InvalidInput);
  std::size_t resident = 0;
  for (std::size_t p = 0; p < streamed->paged_stats().pages; ++p) {
    try {
      (void)streamed->page_ref(p);
      ++resident;
    } catch (const InvalidInput&) {
    }
  }
  EXPECT_EQ(resident, kStreamSlots);
}

TEST(PagedTable, BudgetBelowOnePageIsAClearError) {
  BuildOptions o;
  o.gpu_budget = std::size_t{1} << 20;  // a default page (1M pairs) is 10 MiB
  try {
    (void)make_table(TableKind::PagedCuckoo, kCpu, o);
    FAIL() << "no error";
  } catch (const InvalidInput& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("budget 1.00 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("1048576 pairs is 10.0 MiB"), std::string::npos) << what;
  }
  o.page_capacity = 1024;
  EXPECT_NO_THROW((void)make_table(TableKind::PagedCuckoo, kCpu, o));
}

TEST(PagedTable, HostMemoryShortfallLeavesTheTableUnchanged) {
  const auto keys = random_keys(8000, 8000, 8);
  auto paged      = make_paged(kCpu, paged_options(kStreamSlots));
  paged->build(keys.data(), nullptr, keys.size());
  ASSERT_FALSE(paged->paged_stats().all_resident);
  const auto more = random_keys(200000, 200000, 9);  // many more pages: more host memory
  set_allocation_budget(kCpu, allocation_stats(kCpu).in_use + (std::size_t{1} << 20));
  try {
    paged->build(more.data(), nullptr, more.size());
    set_allocation_budget(kCpu, std::nullopt);
    FAIL() << "no error";
  } catch (const OutOfMemory& e) {
    set_allocation_budget(kCpu, std::nullopt);
    const std::string what = e.what();
    EXPECT_NE(what.find("the table is unchanged"), std::string::npos) << what;
  }
  std::vector<Key> queries = keys;
  const auto misses        = absent_keys(keys, 2000, 10);
  queries.insert(queries.end(), misses.begin(), misses.end());
  expect_answers(ask(kCpu, *paged, queries), queries, expected_from(keys));
}

TEST(PagedTable, OverfullInsertIsRefusedAndNothingChanges) {
  const auto keys = random_keys(4000, 4000, 11);
  auto paged      = make_paged(kCpu, paged_options(kResidentSlots));
  paged->build(keys.data(), nullptr, keys.size());
  const auto more = absent_keys(keys, 20000, 12);  // five times what the pages were made for
  EXPECT_THROW(paged->insert(more.data(), nullptr, more.size()), InvalidInput);
  std::vector<Key> queries = keys;
  queries.insert(queries.end(), more.begin(), more.end());
  expect_answers(ask(kCpu, *paged, queries), queries, expected_from(keys));
}

TEST(PagedTable, SentinelKeysAndDeletedValuesAreRejected) {
  auto keys  = random_keys(5000, 5000, 13);
  auto paged = make_paged(kCpu, paged_options(kStreamSlots));
  paged->build(keys.data(), nullptr, keys.size());
  std::vector<Key> bad{1, kEmptyKey, 3};
  EXPECT_THROW(paged->insert(bad.data(), nullptr, bad.size()), InvalidInput);
  const std::vector<Key> fine{1, 2, 3};
  const std::vector<Value> deleted{0, kDeletedValue, 0};
  EXPECT_THROW(paged->update(fine.data(), deleted.data(), fine.size()), InvalidInput);
  expect_answers(ask(kCpu, *paged, keys), keys, expected_from(keys));
  keys[10] = kEmptyKey;
  EXPECT_THROW(paged->build(keys.data(), nullptr, keys.size()), InvalidInput);
  EXPECT_EQ(paged->paged_stats().pages, 0u);
}

TEST(PagedTable, NoDenseIds) {
  auto paged = make_paged(kCpu, paged_options(kStreamSlots));
  const std::vector<Key> keys{1, 2};
  paged->build(keys.data(), nullptr, keys.size());
  std::vector<std::uint32_t> out(2);
  EXPECT_THROW(paged->count_async(keys.data(), 2, out.data()), InvalidInput);
  EXPECT_THROW(paged->find_id_async(keys.data(), 2, out.data()), InvalidInput);
  EXPECT_THROW((void)paged->unique_keys(), InvalidInput);
}

TEST(PagedTable, EmptyTable) {
  auto paged = make_paged(kCpu, paged_options(kStreamSlots));
  EXPECT_EQ(paged->build(nullptr, nullptr, 0).keys, 0u);
  const std::vector<Key> q{1, 2, 3};
  std::vector<Value> out(3, 0);
  paged->find_async(q.data(), q.size(), out.data());
  EXPECT_EQ(out, std::vector<Value>(3, kNotFound));
  paged->insert(q.data(), nullptr, q.size());  // inserting into an empty table builds it
  paged->find_async(q.data(), q.size(), out.data());
  EXPECT_EQ(out, (std::vector<Value>{0, 1, 2}));
}

TEST(PagedTable, ParseBytesAndNames) {
  EXPECT_EQ(parse_bytes("2GiB"), std::size_t{2} << 30);
  EXPECT_EQ(parse_bytes("512MiB"), std::size_t{512} << 20);
  EXPECT_EQ(parse_bytes("64m"), std::size_t{64} << 20);
  EXPECT_EQ(parse_bytes("4096"), 4096u);
  EXPECT_EQ(parse_bytes("1kib"), 1024u);
  EXPECT_FALSE(parse_bytes("2 GiB"));
  EXPECT_FALSE(parse_bytes("GiB"));
  EXPECT_FALSE(parse_bytes("3XB"));
  EXPECT_EQ(parse_table_kind("paged-cuckoo"), TableKind::PagedCuckoo);
  EXPECT_EQ(to_string(TableKind::PagedCuckoo), "paged-cuckoo");
  EXPECT_GT(estimate_bytes(TableKind::PagedCuckoo, 1000, paged_options(4)), 0u);
}

}  // namespace
}  // namespace voxhash::test
