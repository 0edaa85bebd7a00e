// The paged cuckoo table (Starfish) on the CPU backend (label cpu), with an emulated budget: the
// same code path as on CUDA, "device" page slots and host pages being two sets of host buffers.
// Every case on both key widths (32-bit keys, 8-byte slots; 64-bit keys, 16-byte slots): resident
// and streamed tables against the reference and the flat table; deletes, updates, inserts; a
// forced page failure rebuilt alone; the errors (budget below one page, host memory short, a page
// overfilled, sentinel keys) leave a clear message and the table as it was. 64-bit keys above 2^32,
// equal in their low 32 bits, and congruent voxel keys.
#include "common/paged_checks.hpp"

#include <voxhash/backend.hpp>

#include <optional>
#include <string>
#include <type_traits>

namespace voxhash::test {
namespace {

constexpr Backend kCpu               = Backend::Cpu;
constexpr std::size_t kResidentSlots = 64;  // every table below fits
constexpr std::size_t kStreamSlots   = 3;   // a table many times its budget

template <class K>
class PagedTable : public ::testing::Test {};
using KeyWidths = ::testing::Types<Key, Key64>;
struct KeyWidthName {
  template <class K>
  static std::string GetName(int) {
    return std::is_same_v<K, Key> ? "Key32" : "Key64";
  }
};
TYPED_TEST_SUITE(PagedTable, KeyWidths, KeyWidthName);

TYPED_TEST(PagedTable, ResidentEqualsFlat) {
  check_paged_like_flat(kCpu, random_keys<TypeParam>(20000, 20000, 1), kResidentSlots, true);
}

TYPED_TEST(PagedTable, StreamedEqualsFlat) {
  check_paged_like_flat(kCpu, random_keys<TypeParam>(20000, 20000, 2), kStreamSlots, false);
}

TYPED_TEST(PagedTable, DuplicatesEqualFlat) {
  using K = TypeParam;
  check_paged_like_flat(kCpu, random_keys<K>(30000, 4000, 3), kResidentSlots, true);
  check_paged_like_flat(kCpu, random_keys<K>(30000, 4000, 4), kStreamSlots, false);
  check_paged_like_flat(kCpu, std::vector<K>(3000, K{99}), kStreamSlots, true);
}

TYPED_TEST(PagedTable, ChangesResident) {
  check_paged_changes<TypeParam>(kCpu, kResidentSlots);
}

TYPED_TEST(PagedTable, ChangesStreamed) {
  check_paged_changes<TypeParam>(kCpu, kStreamSlots);
}

TYPED_TEST(PagedTable, ForcedPageFailureRebuiltAlone) {
  check_forced_page_failure<TypeParam>(kCpu, kResidentSlots);
  check_forced_page_failure<TypeParam>(kCpu, kStreamSlots);
}

TYPED_TEST(PagedTable, ShortChainsFillStashesAndOverflowedPagesAreRebuilt) {
  // Chains of 10 exchanges at load 0.8, stashes of 4: many items go to the stashes, some pages
  // overflow theirs and are rebuilt; every answer stays right, streamed or resident.
  using K = TypeParam;
  for (const std::size_t slots : {kStreamSlots, kResidentSlots}) {
    BuildOptions o  = paged_options<K>(slots);
    o.max_chain     = 10;
    o.stash_slots   = 4;
    const auto keys = random_keys<K>(20000, 20000, 14);
    auto paged      = make_paged<K>(kCpu, o);
    paged->build(keys.data(), nullptr, keys.size());
    EXPECT_GT(paged->paged_stats().page_rebuilds, 0u);
    std::vector<K> queries = keys;
    const auto misses      = absent_keys(keys, 5000, 15);
    queries.insert(queries.end(), misses.begin(), misses.end());
    expect_answers(ask(kCpu, *paged, queries), queries, expected_from(keys));
    std::vector<K> gone(keys.begin(), keys.begin() + 5000);
    paged->erase(gone.data(), gone.size());
    Expected<K> want = expected_from(keys);
    for (const K k : gone)
      want.erase(k);
    expect_answers(ask(kCpu, *paged, queries), queries, want);
  }
}

TYPED_TEST(PagedTable, PageFailingInAnInsertIsRebuiltAlone) {
  using K = TypeParam;
  for (const std::size_t slots : {kStreamSlots, kResidentSlots}) {
    SCOPED_TRACE("page slots " + std::to_string(slots));
    BuildOptions o  = paged_options<K>(slots);
    o.page_fill     = 0.7;
    const auto keys = random_keys<K>(10000, 10000, 16);
    auto paged      = make_paged<K>(kCpu, o);
    paged->build(keys.data(), nullptr, keys.size());
    const auto more = absent_keys(keys, 2000, 17);
    std::vector<Value> values(more.size(), 5);
    paged->force_page_failures(2, 1);
    paged->insert(more.data(), values.data(), more.size());
    EXPECT_EQ(paged->page_attempts(2), 2);
    EXPECT_EQ(paged->paged_stats().page_rebuilds, 1u);
    Expected<K> want = expected_from(keys);
    for (const K k : more)
      want[k] = {5};
    std::vector<K> queries = keys;
    queries.insert(queries.end(), more.begin(), more.end());
    const auto misses = absent_keys(queries, 1000, 18);
    queries.insert(queries.end(), misses.begin(), misses.end());
    expect_answers(ask(kCpu, *paged, queries), queries, want);
  }
}

TYPED_TEST(PagedTable, StreamedLookupsMoveOnlyPages) {
  using K         = TypeParam;
  const auto keys = random_keys<K>(20000, 20000, 5);
  auto paged      = make_paged<K>(kCpu, paged_options<K>(kStreamSlots));
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

TYPED_TEST(PagedTable, RefsOfResidentPages) {
  using K         = TypeParam;
  const auto keys = random_keys<K>(5000, 5000, 6);
  auto paged      = make_paged<K>(kCpu, paged_options<K>(kResidentSlots));
  paged->build(keys.data(), nullptr, keys.size());
  const BasicPagedRef<K> all = paged->ref();
  ASSERT_EQ(all.count, paged->paged_stats().pages);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(all.find(keys[i]), i);
    ASSERT_EQ(paged->page_ref(all.page(keys[i])).find(keys[i]), i);
  }
  for (const K k : absent_keys(keys, 1000, 7))
    ASSERT_FALSE(all.contains(k));

  auto streamed = make_paged<K>(kCpu, paged_options<K>(kStreamSlots));
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

TYPED_TEST(PagedTable, BudgetBelowOnePageIsAClearError) {
  using K = TypeParam;
  BuildOptions o;
  o.page_budget = std::size_t{1} << 20;  // a default page (1M pairs) is 10 MiB (20 MiB: 64-bit)
  try {
    (void)make_table<K>(TableKind::PagedCuckoo, kCpu, o);
    FAIL() << "no error";
  } catch (const InvalidInput& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("budget 1.00 MiB"), std::string::npos) << what;
    const std::string page = std::is_same_v<K, Key> ? "10.0 MiB" : "20.0 MiB";
    EXPECT_NE(what.find("1048576 pairs is " + page), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(2 * sizeof(K)) + " bytes each"), std::string::npos) << what;
  }
  o.page_capacity = 1024;
  EXPECT_NO_THROW((void)make_table<K>(TableKind::PagedCuckoo, kCpu, o));
}

TYPED_TEST(PagedTable, HostMemoryShortfallLeavesTheTableUnchanged) {
  using K         = TypeParam;
  const auto keys = random_keys<K>(8000, 8000, 8);
  auto paged      = make_paged<K>(kCpu, paged_options<K>(kStreamSlots));
  paged->build(keys.data(), nullptr, keys.size());
  ASSERT_FALSE(paged->paged_stats().all_resident);
  const auto more = random_keys<K>(200000, 200000, 9);  // many more pages: more host memory
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
  std::vector<K> queries = keys;
  const auto misses      = absent_keys(keys, 2000, 10);
  queries.insert(queries.end(), misses.begin(), misses.end());
  expect_answers(ask(kCpu, *paged, queries), queries, expected_from(keys));
}

TYPED_TEST(PagedTable, OverfullInsertIsRefusedAndNothingChanges) {
  using K         = TypeParam;
  const auto keys = random_keys<K>(4000, 4000, 11);
  auto paged      = make_paged<K>(kCpu, paged_options<K>(kResidentSlots));
  paged->build(keys.data(), nullptr, keys.size());
  const auto more = absent_keys(keys, 20000, 12);  // five times what the pages were made for
  EXPECT_THROW(paged->insert(more.data(), nullptr, more.size()), InvalidInput);
  std::vector<K> queries = keys;
  queries.insert(queries.end(), more.begin(), more.end());
  expect_answers(ask(kCpu, *paged, queries), queries, expected_from(keys));
}

TYPED_TEST(PagedTable, SentinelKeysAndDeletedValuesAreRejected) {
  using K    = TypeParam;
  auto keys  = random_keys<K>(5000, 5000, 13);
  auto paged = make_paged<K>(kCpu, paged_options<K>(kStreamSlots));
  paged->build(keys.data(), nullptr, keys.size());
  std::vector<K> bad{1, kEmptyKeyOf<K>, 3};
  EXPECT_THROW(paged->insert(bad.data(), nullptr, bad.size()), InvalidInput);
  const std::vector<K> fine{1, 2, 3};
  const std::vector<Value> deleted{0, kDeletedValue, 0};
  EXPECT_THROW(paged->update(fine.data(), deleted.data(), fine.size()), InvalidInput);
  expect_answers(ask(kCpu, *paged, keys), keys, expected_from(keys));
  keys[10] = kEmptyKeyOf<K>;
  try {
    paged->build(keys.data(), nullptr, keys.size());
    ADD_FAILURE() << "no error";
  } catch (const InvalidInput& e) {
    const std::string sentinel =
        std::is_same_v<K, Key> ? "key 0xFFFFFFFF," : "key 0xFFFFFFFFFFFFFFFF,";
    EXPECT_NE(std::string(e.what()).find(sentinel), std::string::npos) << e.what();
  }
  EXPECT_EQ(paged->paged_stats().pages, 0u);
}

TYPED_TEST(PagedTable, NoDenseIds) {
  using K    = TypeParam;
  auto paged = make_paged<K>(kCpu, paged_options<K>(kStreamSlots));
  const std::vector<K> keys{1, 2};
  paged->build(keys.data(), nullptr, keys.size());
  std::vector<std::uint32_t> out(2);
  EXPECT_THROW(paged->count_async(keys.data(), 2, out.data()), InvalidInput);
  EXPECT_THROW(paged->find_id_async(keys.data(), 2, out.data()), InvalidInput);
  EXPECT_THROW((void)paged->unique_keys(), InvalidInput);
}

TYPED_TEST(PagedTable, EmptyTable) {
  using K    = TypeParam;
  auto paged = make_paged<K>(kCpu, paged_options<K>(kStreamSlots));
  EXPECT_EQ(paged->build(nullptr, nullptr, 0).keys, 0u);
  const std::vector<K> q{1, 2, 3};
  std::vector<Value> out(3, 0);
  paged->find_async(q.data(), q.size(), out.data());
  EXPECT_EQ(out, std::vector<Value>(3, kNotFound));
  paged->insert(q.data(), nullptr, q.size());  // inserting into an empty table builds it
  paged->find_async(q.data(), q.size(), out.data());
  EXPECT_EQ(out, (std::vector<Value>{0, 1, 2}));
}

TEST(PagedTable64, KeysBeyond32BitsEqualFlat) {
  // Keys above 2^32, voxel keys of a 2^21 grid congruent modulo 2^32 - 5, keys equal in their low
  // 32 bits, 0xFFFFFFFF (an ordinary 64-bit key) and the key next to the sentinel: the page hash
  // and the cuckoo functions see all 64 bits.
  std::vector<Key64> edge{0, 0xFFFFFFFFull, 0x1FFFFFFFFull, kEmptyKeyOf<Key64> - 1};
  for (Key64 i = 1; i <= 6000; ++i)
    edge.push_back((i << 32) | 0x1234u);
  for (const std::size_t slots : {kResidentSlots, kStreamSlots}) {
    check_paged_like_flat(kCpu, structured_keys64(20000, 21), slots, slots == kResidentSlots);
    check_paged_like_flat(kCpu, edge, slots, slots == kResidentSlots);
  }
}

TEST(PagedTable64, EstimateCountsSixteenByteSlots) {
  const BuildOptions o = paged_options<Key64>(4);
  EXPECT_EQ(paged_page_bytes(o, 8), 2 * paged_page_bytes(o, 4));
  EXPECT_EQ(estimate_bytes(TableKind::PagedCuckoo, 1000, o, 4),
            estimate_bytes(TableKind::PagedCuckoo, 1000, o));
  EXPECT_GT(estimate_bytes(TableKind::PagedCuckoo, 100000, o, 8),
            estimate_bytes(TableKind::PagedCuckoo, 100000, o, 4));
  EXPECT_THROW((void)paged_page_bytes(o, 2), InvalidInput);
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
