// Joins over pages on the CPU backend (label cpu): a GPU budget that splits the build side's table
// into 8 or more pages gives the rows of the join in one piece (the unordered_multimap reference)
// for every join kind and table kind, either side built, duplicates on both sides; rows grouped
// by page; keys that all land in one page split by another partition; a key repeated beyond the
// budget, a budget below the smallest page and a host-memory shortfall refused with clear errors
// and the inputs untouched; a failed page rebuilt alone; the output limit over pages; the pinned
// host pages kept in a PinnedPool from join to join (a second join pins nothing).
#include "common/join_checks.hpp"
#include "exec/cpu_exec.hpp"
#include "join/join_impl.hpp"

#include <voxhash/error.hpp>
#include <voxhash/paged_table.hpp>
#include <voxhash/pinned_pool.hpp>

#include <array>
#include <cstdlib>
#include <set>
#include <string>

namespace voxhash::test {
namespace {

constexpr Backend kCpu = Backend::Cpu;

constexpr std::array kKinds{TableKind::Cuckoo,
                            TableKind::HashGraphV1,
                            TableKind::HashGraphV2,
                            TableKind::BucketedCuckoo,
                            TableKind::PagedCuckoo};

/// A budget that makes the table of `rows` build rows about `pages` pages (two page tables of
/// rows / pages rows each), from the public estimate.
std::size_t budget_for(TableKind kind, std::size_t rows, std::size_t pages) {
  const TableKind table = join_table_for(kind);
  BuildOptions o;
  o.multivalue = table == TableKind::Cuckoo || table == TableKind::BucketedCuckoo;
  return 2 * estimate_bytes(table, rows / pages, o);
}

/// A join of `kind` on table `table` under `budget` (the paged kind takes it as its table's).
JoinOptions paged_options(TableKind table, JoinKind kind, std::size_t budget) {
  JoinOptions o;
  o.kind  = kind;
  o.table = table;
  if (table == TableKind::PagedCuckoo) {
    o.table_options.page_budget = budget;
  } else {
    o.gpu_budget = budget;
  }
  return o;
}

std::string kind_name(TableKind kind) {
  std::string s(to_string(kind));
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

/// Sets VOXHASH_ALLOC_BUDGET for one scope (docs/RELIABILITY.md's fault injection).
class EnvironmentBudget {
 public:
  explicit EnvironmentBudget(std::size_t bytes) {
    setenv("VOXHASH_ALLOC_BUDGET", std::to_string(bytes).c_str(), 1);
  }
  ~EnvironmentBudget() { unsetenv("VOXHASH_ALLOC_BUDGET"); }
  EnvironmentBudget(const EnvironmentBudget&)            = delete;
  EnvironmentBudget& operator=(const EnvironmentBudget&) = delete;
};

/// The join of `c` on the CPU backend, expecting `E`; returns its message and checks that the
/// inputs are untouched.
template <class E>
std::string join_error(const JoinCase& c, const JoinOptions& o) {
  auto lk = Buffer<Key>::from_host(kCpu, c.left);
  auto rk = Buffer<Key>::from_host(kCpu, c.right);
  std::string what;
  try {
    (void)join(kCpu, {lk.data(), nullptr, c.left.size()}, {rk.data(), nullptr, c.right.size()}, o);
    ADD_FAILURE() << "the join did not throw";
  } catch (const E& e) {
    what = e.what();
  }
  EXPECT_EQ(lk.to_host(), c.left) << "the join must not modify its input";
  EXPECT_EQ(rk.to_host(), c.right) << "the join must not modify its input";
  return what;
}

class JoinOverPages : public ::testing::TestWithParam<TableKind> {};
INSTANTIATE_TEST_SUITE_P(Tables, JoinOverPages, ::testing::ValuesIn(kKinds), [](const auto& info) {
  return kind_name(info.param);
});

TEST_P(JoinOverPages, EqualsTheJoinInOnePiece) {
  // 18,000 left rows (each key 3 times) and 12,000 right rows (each key twice), half the keys
  // shared; the budget splits whichever side is built into about 10 pages.
  JoinCase c = make_join_case(6000, 3, 2, 41);
  for (const bool values : {false, true}) {
    if (values) {
      for (std::size_t i = 0; i < c.left.size(); ++i)
        c.left_values.push_back(static_cast<Value>(1'000'000 + 7 * i));
      for (std::size_t i = 0; i < c.right.size(); ++i)
        c.right_values.push_back(static_cast<Value>(5'000'000 + 3 * i));
    }
    for (const JoinKind kind : kAllJoinKinds) {
      for (const JoinSide side : {JoinSide::Left, JoinSide::Right}) {
        const std::size_t rows = side == JoinSide::Left ? c.left.size() : c.right.size();
        JoinOptions o          = paged_options(GetParam(), kind, budget_for(GetParam(), rows, 10));
        o.build                = side;
        const JoinOutput paged = check_join(kCpu, c, o);
        EXPECT_GE(paged.paged.pages, 8u) << describe(o);
        EXPECT_EQ(paged.paged.partitions, 1u) << describe(o);
        EXPECT_GT(paged.paged.bytes_to_host, 0u) << describe(o);
        EXPECT_LT(paged.paged.bytes_to_host, 8 * rows) << describe(o) << ": pages 0 and 1 stay";
        EXPECT_GT(paged.paged.bytes_to_device, 0u) << describe(o);
        EXPECT_LE(paged.paged.bytes_to_device, paged.paged.bytes_to_host) << describe(o);
        JoinOptions flat = o;
        flat.gpu_budget  = 0;
        flat.table       = join_table_for(GetParam());
        auto one_piece   = run_join(kCpu, c, flat);
        EXPECT_EQ(one_piece.paged.pages, 0u);
        auto rows_paged = paged.rows;
        std::sort(rows_paged.begin(), rows_paged.end());
        std::sort(one_piece.rows.begin(), one_piece.rows.end());
        EXPECT_TRUE(rows_paged == one_piece.rows) << describe(o) << ": over pages != in one piece";
      }
    }
  }
}

TEST_P(JoinOverPages, RowsComeGroupedByPage) {
  const JoinCase c = make_join_case(6000, 2, 2, 42);
  for (const JoinKind kind : kAllJoinKinds) {
    JoinOptions o = paged_options(GetParam(), kind, budget_for(GetParam(), c.right.size(), 10));
    o.build       = JoinSide::Right;
    const JoinOutput out = run_join(kCpu, c, o);
    ASSERT_GE(out.paged.pages, 8u);
    const auto pages         = static_cast<std::uint32_t>(out.paged.pages);
    const std::uint32_t seed = joins::join_page_seed(o, static_cast<int>(out.paged.partitions) - 1);
    std::uint32_t last_page  = 0;
    Value last_row           = 0;
    for (std::size_t i = 0; i < out.rows.size(); ++i) {
      const Value row          = out.rows[i].first;
      const std::uint32_t page = detail::page_of(c.left[row], seed, pages);
      ASSERT_TRUE(i == 0 || page > last_page || (page == last_page && row >= last_row))
          << describe(o) << ": row " << i << " (left row " << row << ", page " << page
          << ") after left row " << last_row << " of page " << last_page;
      last_page = page;
      last_row  = row;
    }
  }
}

TEST_P(JoinOverPages, KeysThatAllLandInOnePageAreSplitByAnotherPartition) {
  // 12,000 distinct right keys that the first partition's page hash puts all in page 0: that
  // page is over the budget, so the sides are partitioned again with a fresh seed.
  const std::size_t n = 12000;
  JoinOptions o       = paged_options(GetParam(), JoinKind::Inner, budget_for(GetParam(), n, 10));
  const std::uint32_t pages = joins::join_page_count(o, n);
  const std::uint32_t seed  = joins::join_page_seed(o, 0);
  ASSERT_GE(pages, 8u);
  JoinCase c;
  std::set<Key> seen;
  std::mt19937 rng(43);
  while (c.right.size() < n) {
    const Key k = rng();
    if (k != kEmptyKey && detail::page_of(k, seed, pages) == 0 && seen.insert(k).second) {
      c.right.push_back(k);
    }
  }
  for (std::size_t i = 0; i < 2 * n; ++i)
    c.left.push_back(i % 2 ? c.right[(7 * i) % n] : static_cast<Key>(rng() | 1u) & ~0x80000000u);
  for (const JoinKind kind : kAllJoinKinds) {
    o.kind               = kind;
    const JoinOutput out = check_join(kCpu, c, o);
    EXPECT_EQ(out.paged.partitions, 2u) << describe(o);
    EXPECT_GT(out.paged.pages, pages) << describe(o);
  }
}

TEST_P(JoinOverPages, RepeatedKeyBeyondTheBudgetIsAClearError) {
  // One key on 12,000 build rows: no page hash splits it.
  JoinCase c;
  c.right.assign(12000, 4242u);
  c.left                   = {1, 4242, 3};
  const std::size_t budget = budget_for(GetParam(), c.right.size(), 10);
  JoinOptions o            = paged_options(GetParam(), JoinKind::Inner, budget);
  o.build                  = JoinSide::Right;
  const std::string what   = join_error<OutOfMemory>(c, o);
  EXPECT_NE(what.find("holds 12000 rows after 4 partitions"), std::string::npos) << what;
  EXPECT_NE(what.find("GPU budget of " + std::to_string(budget) + " bytes"), std::string::npos)
      << what;
  EXPECT_NE(what.find("raise the budget"), std::string::npos) << what;
}

TEST_P(JoinOverPages, BudgetBelowTheSmallestPageIsInvalid) {
  const JoinCase c       = make_join_case(3000, 1, 1, 44);
  const JoinOptions o    = paged_options(GetParam(), JoinKind::Inner, 4096);
  const std::string what = join_error<InvalidInput>(c, o);
  EXPECT_NE(what.find("GPU budget 4096 bytes"), std::string::npos) << what;
  EXPECT_NE(what.find("1024 build rows"), std::string::npos) << what;
}

TEST_P(JoinOverPages, HostMemoryShortfallIsAClearErrorAndChangesNothing) {
  // Budgets from what the inputs hold up to what the join needs: each run either joins exactly or
  // fails with OutOfMemory, the inputs untouched; the pinned host pages are one of the failures.
  const JoinCase c = make_join_case(6000, 2, 2, 45);
  JoinOptions o    = paged_options(GetParam(), JoinKind::Inner, budget_for(GetParam(), 12000, 10));
  const auto expected = reference_join(c, JoinKind::Inner);
  auto lk             = Buffer<Key>::from_host(kCpu, c.left);
  auto rk             = Buffer<Key>::from_host(kCpu, c.right);
  const JoinInput left{lk.data(), nullptr, c.left.size()};
  const JoinInput right{rk.data(), nullptr, c.right.size()};
  // An earlier join in this process may have left its pages in the default pool, which would then
  // be lent again without pinning: start with none kept, so one budget stops at the pinning.
  default_pinned_pool().release();
  const std::size_t held = allocation_stats(kCpu).in_use;
  bool pinned_failed = false, joined = false;
  for (std::size_t extra = 0; !joined; extra += 16 << 10) {
    SCOPED_TRACE("allocation budget: " + std::to_string(extra) + " bytes over the inputs");
    ASSERT_LT(extra, std::size_t{64} << 20) << "the join never fit";
    try {
      const EnvironmentBudget budget(held + extra);
      const JoinResult r = join(kCpu, left, right, o);
      joined             = true;
      EXPECT_EQ(r.rows, expected.size());
    } catch (const OutOfMemory& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("allocation budget"), std::string::npos) << what;
      if (what.find("join: pinned host memory for the build side's pages") != std::string::npos) {
        pinned_failed = true;
        EXPECT_NE(what.find("GPU budget of"), std::string::npos) << what;
      }
    }
    ASSERT_EQ(lk.to_host(), c.left);
    ASSERT_EQ(rk.to_host(), c.right);
  }
  EXPECT_TRUE(pinned_failed) << "no budget stopped the join at its pinned host pages";
}

TEST_P(JoinOverPages, FailedPageIsRebuiltAlone) {
  const JoinCase c = make_join_case(6000, 2, 2, 46);
  JoinOptions o    = paged_options(GetParam(), JoinKind::Left, budget_for(GetParam(), 12000, 10));
  const auto expected = reference_join(c, JoinKind::Left);
  auto lk             = Buffer<Key>::from_host(kCpu, c.left);
  auto rk             = Buffer<Key>::from_host(kCpu, c.right);
  const JoinInput left{lk.data(), nullptr, c.left.size()};
  const JoinInput right{rk.data(), nullptr, c.right.size()};
  joins::JoinRun<CpuExec> run(o, nullptr);
  run.force_page_failures(3, 2);
  const JoinResult r = run.run(left, right);
  EXPECT_EQ(r.paged.page_rebuilds, 2u);
  std::vector<JoinRow> rows;
  const auto lcol = r.left.to_host(), rcol = r.right.to_host();
  for (std::size_t i = 0; i < r.rows; ++i)
    rows.emplace_back(lcol[i], rcol[i]);
  std::sort(rows.begin(), rows.end());
  EXPECT_TRUE(rows == expected) << "rows differ after page 3 was rebuilt";

  joins::JoinRun<CpuExec> failing(o, nullptr);
  failing.force_page_failures(5, joins::kPageBuilds);
  try {
    (void)failing.run(left, right);
    FAIL() << "the join did not throw";
  } catch (const BuildFailed& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the table of page 5 of"), std::string::npos) << what;
    EXPECT_NE(what.find("failed 4 builds"), std::string::npos) << what;
  }
}

TEST_P(JoinOverPages, OutputLimitCountsEveryPageSoFar) {
  JoinCase c;
  for (std::size_t i = 0; i < 12000; ++i) {
    c.right.push_back(static_cast<Key>(i));
    c.right.push_back(static_cast<Key>(i));
  }
  c.left        = c.right;  // each key 2 x 2: 48,000 pairs, 384,000 bytes
  JoinOptions o = paged_options(GetParam(), JoinKind::Inner, budget_for(GetParam(), 24000, 10));
  o.max_output_bytes     = 100'000;
  const std::string what = join_error<OutOfMemory>(c, o);
  EXPECT_NE(what.find("join: the output would have at least"), std::string::npos) << what;
  EXPECT_NE(what.find("caller's limit of 100000 bytes"), std::string::npos) << what;
  o.max_output_bytes = 384'000;
  EXPECT_EQ(check_join(kCpu, c, o).count, 48'000u);
}

TEST_P(JoinOverPages, EmptySidesAndSmallTablesRunInOnePiece) {
  const JoinCase c = make_join_case(2000, 2, 2, 47);
  for (const JoinKind kind : kAllJoinKinds) {
    JoinCase no_left = c;
    no_left.left.clear();
    const JoinOptions tight = paged_options(GetParam(), kind, budget_for(GetParam(), 4000, 2));
    EXPECT_EQ(check_join(kCpu, no_left, tight).paged.pages, 0u);
    // A budget the table fits: in one piece, except on the paged table (always over pages).
    const JoinOptions roomy = paged_options(GetParam(), kind, std::size_t{1} << 30);
    EXPECT_EQ(check_join(kCpu, c, roomy).paged.pages,
              GetParam() == TableKind::PagedCuckoo ? 1u : 0u);
  }
}

TEST_P(JoinOverPages, SecondJoinPinsNothing) {
  // The pool keeps the first join's pinned host pages: a second join of the same size, and a
  // smaller one, reuse them (no pinned allocation in the accounting) and give the same rows.
  PinnedPool pool;
  const JoinCase c      = make_join_case(6000, 2, 2, 49);
  const JoinCase little = make_join_case(3000, 2, 2, 50);
  JoinOptions o    = paged_options(GetParam(), JoinKind::Inner, budget_for(GetParam(), 12000, 10));
  o.pinned_pool    = &pool;
  const auto first = check_join(kCpu, c, o);
  ASSERT_GE(first.paged.pages, 8u);
  EXPECT_EQ(first.paged.bytes_pinned, first.paged.bytes_to_host);
  EXPECT_EQ(pool.stats().held, first.paged.bytes_pinned);
  const AllocationStats before = allocation_stats(kCpu);
  for (const JoinCase* again : {&c, &little}) {
    const auto next = check_join(kCpu, *again, o);
    EXPECT_GE(next.paged.pages, 3u);
    EXPECT_EQ(next.paged.bytes_pinned, 0u);
    EXPECT_EQ(allocation_stats(kCpu).pinned_allocations, before.pinned_allocations);
    EXPECT_EQ(allocation_stats(kCpu).pinned_in_use, before.pinned_in_use);
  }
  EXPECT_EQ(pool.stats().reuses, 2u);
  pool.release();
  EXPECT_EQ(allocation_stats(kCpu).pinned_in_use, before.pinned_in_use - first.paged.bytes_pinned);
}

TEST_P(JoinOverPages, PoolWithoutRoomPinsOnEveryCall) {
  PinnedPool none(0);
  const JoinCase c = make_join_case(6000, 2, 2, 51);
  JoinOptions o    = paged_options(GetParam(), JoinKind::Left, budget_for(GetParam(), 12000, 10));
  o.pinned_pool    = &none;
  const std::size_t pinned = allocation_stats(kCpu).pinned_in_use;
  for (int call = 0; call < 2; ++call) {
    const std::size_t allocations = allocation_stats(kCpu).pinned_allocations;
    const auto out                = check_join(kCpu, c, o);
    EXPECT_GT(out.paged.bytes_pinned, 0u);
    EXPECT_EQ(allocation_stats(kCpu).pinned_allocations, allocations + 1);
    EXPECT_EQ(allocation_stats(kCpu).pinned_in_use, pinned) << "the host pages are freed";
  }
  EXPECT_EQ(none.stats().held, 0u);
}

TEST(JoinOverPagesPool, DefaultPoolKeepsThePagesUntilReleased) {
  default_pinned_pool().release();
  const std::size_t pinned = allocation_stats(kCpu).pinned_in_use;
  const JoinCase c         = make_join_case(6000, 2, 2, 52);
  const JoinOptions o =
      paged_options(TableKind::Cuckoo, JoinKind::Inner, budget_for(TableKind::Cuckoo, 12000, 10));
  const auto first = check_join(kCpu, c, o);
  EXPECT_GT(first.paged.bytes_pinned, 0u);
  EXPECT_EQ(default_pinned_pool().stats().held, first.paged.bytes_pinned);
  EXPECT_EQ(allocation_stats(kCpu).pinned_in_use, pinned + first.paged.bytes_pinned);
  EXPECT_EQ(check_join(kCpu, c, o).paged.bytes_pinned, 0u);
  default_pinned_pool().release();
  EXPECT_EQ(default_pinned_pool().stats().held, 0u);
  EXPECT_EQ(allocation_stats(kCpu).pinned_in_use, pinned);
}

TEST(JoinOverPagesPool, LeasesGrowTheKeptBlockWithinTheLimit) {
  const std::size_t pinned = allocation_stats(kCpu).pinned_in_use;
  PinnedPool pool(1 << 20);
  {
    const PinnedPool::Lease a = pool.lend(1000);
    EXPECT_EQ(a.pinned_bytes(), 1000u);
    EXPECT_EQ(a.bytes(), 1000u);
    ASSERT_NE(a.data(), nullptr);
  }
  const void* kept = nullptr;
  {
    const PinnedPool::Lease b = pool.lend(800);  // the kept block, no pinning
    EXPECT_EQ(b.pinned_bytes(), 0u);
    kept                      = b.data();
    const PinnedPool::Lease c = pool.lend(100);  // the kept block is lent: a one-off block
    EXPECT_EQ(c.pinned_bytes(), 100u);
    EXPECT_NE(c.data(), kept);
    EXPECT_EQ(allocation_stats(kCpu).pinned_in_use, pinned + 1100);
  }
  EXPECT_EQ(allocation_stats(kCpu).pinned_in_use, pinned + 1000) << "the one-off block is freed";
  {
    const PinnedPool::Lease d = pool.lend(3000);  // grows: the old block freed first
    EXPECT_EQ(d.pinned_bytes(), 3000u);
    EXPECT_EQ(allocation_stats(kCpu).pinned_in_use, pinned + 3000);
    const PinnedPool::Lease e = pool.lend(2 << 20);  // beyond the limit: one-off
    EXPECT_EQ(e.pinned_bytes(), std::size_t{2} << 20);
  }
  EXPECT_EQ(allocation_stats(kCpu).pinned_in_use, pinned + 3000);
  const PinnedPoolStats st = pool.stats();
  EXPECT_EQ(st.held, 3000u);
  EXPECT_EQ(st.limit, std::size_t{1} << 20);
  EXPECT_EQ(st.leases, 5u);
  EXPECT_EQ(st.reuses, 1u);
  EXPECT_EQ(st.allocations, 4u);
  EXPECT_EQ(pool.lend(0).data(), nullptr);
  {
    const PinnedPool::Lease f = pool.lend(10);
    pool.release();  // while lent: freed when the lease ends
    EXPECT_EQ(allocation_stats(kCpu).pinned_in_use, pinned + 3000);
  }
  EXPECT_EQ(allocation_stats(kCpu).pinned_in_use, pinned);
  { const PinnedPool::Lease g = pool.lend(500); }
  pool.set_limit(400);  // below the kept block: released
  EXPECT_EQ(allocation_stats(kCpu).pinned_in_use, pinned);
  EXPECT_EQ(pool.stats().limit, 400u);
}

TEST(JoinOverPagesPool, ShortfallKeepsNothing) {
  PinnedPool pool;
  const std::size_t pinned = allocation_stats(kCpu).pinned_in_use;
  { const PinnedPool::Lease a = pool.lend(1000); }
  {
    const EnvironmentBudget budget(allocation_stats(kCpu).in_use + 1000);
    EXPECT_THROW((void)pool.lend(5000), OutOfMemory);  // the old block freed, the new refused
  }
  EXPECT_EQ(pool.stats().held, 0u);
  EXPECT_EQ(allocation_stats(kCpu).pinned_in_use, pinned);
  const PinnedPool::Lease b = pool.lend(5000);
  EXPECT_EQ(b.pinned_bytes(), 5000u);
}

TEST(JoinOverPagesSortMerge, IgnoresTheBudget) {
  const JoinCase c = make_join_case(6000, 1, 1, 48);
  JoinOptions o;
  o.algorithm  = JoinAlgorithm::SortMerge;
  o.gpu_budget = 100'000;
  EXPECT_EQ(check_join(kCpu, c, o).paged.pages, 0u);
}

}  // namespace
}  // namespace voxhash::test
