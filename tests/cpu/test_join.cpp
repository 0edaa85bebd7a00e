// Joins on the CPU backend (label cpu) against a std::unordered_multimap reference: every kind on
// every table and the sort-merge baseline, multiplicity 1/4/32 on each side, either side built,
// caller values, empty sides, left-join nulls, semi/anti as complements, an exploding all-equal
// join refused before allocating, sentinel keys rejected; the cuckoo and bucketed cuckoo tables'
// multivalue lists (built by sorting and run-length encoding), their distinct-keys checks and the
// run-length executor step.
#include "common/join_checks.hpp"
#include "common/table_checks.hpp"
#include "exec/cpu_exec.hpp"
#include "tables/slot_table_impl.hpp"

#include <voxhash/bucketed_cuckoo_table.hpp>
#include <voxhash/cuckoo_table.hpp>
#include <voxhash/error.hpp>

#include <array>
#include <type_traits>

namespace voxhash::test {
namespace {

constexpr Backend kCpu = Backend::Cpu;

/// A hash join on each table kind, then the sort-merge join.
struct Method {
  JoinAlgorithm algorithm;
  TableKind table;
};
constexpr std::array kMethods{Method{JoinAlgorithm::Hash, TableKind::Cuckoo},
                              Method{JoinAlgorithm::Hash, TableKind::HashGraphV1},
                              Method{JoinAlgorithm::Hash, TableKind::HashGraphV2},
                              Method{JoinAlgorithm::Hash, TableKind::BucketedCuckoo},
                              Method{JoinAlgorithm::SortMerge, TableKind::Cuckoo}};

std::string method_name(const Method& m) {
  std::string s =
      m.algorithm == JoinAlgorithm::SortMerge ? "sort_merge" : std::string(to_string(m.table));
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

JoinOptions options_for(const Method& m, JoinKind kind) {
  JoinOptions o;
  o.kind      = kind;
  o.algorithm = m.algorithm;
  o.table     = m.table;
  return o;
}

class Join : public ::testing::TestWithParam<Method> {};
INSTANTIATE_TEST_SUITE_P(Methods, Join, ::testing::ValuesIn(kMethods), [](const auto& info) {
  return method_name(info.param);
});

TEST_P(Join, MultiplicitiesOnEachSide) {
  for (const std::size_t ml : {1, 4, 32}) {
    for (const std::size_t mr : {1, 4, 32}) {
      const JoinCase c = make_join_case(ml * mr > 100 ? 100 : 600, ml, mr, 10 * ml + mr);
      for (const JoinKind kind : kAllJoinKinds)
        check_join(kCpu, c, options_for(GetParam(), kind));
    }
  }
}

TEST_P(Join, EitherSideBuilt) {
  const JoinCase c = make_join_case(500, 4, 2, 7);
  for (const JoinKind kind : kAllJoinKinds) {
    for (const JoinSide side : {JoinSide::Left, JoinSide::Right}) {
      JoinOptions o = options_for(GetParam(), kind);
      o.build       = side;
      check_join(kCpu, c, o);
    }
  }
}

TEST_P(Join, SmallerSideBuiltByDefault) {
  const JoinCase small_left  = make_join_case(300, 1, 8, 8);
  const JoinCase small_right = make_join_case(300, 8, 1, 9);
  for (const JoinKind kind : kAllJoinKinds) {
    check_join(kCpu, small_left, options_for(GetParam(), kind));   // builds the left side
    check_join(kCpu, small_right, options_for(GetParam(), kind));  // builds the right side
  }
}

TEST_P(Join, CallerValues) {
  JoinCase c = make_join_case(400, 3, 5, 11);
  for (std::size_t i = 0; i < c.left.size(); ++i)
    c.left_values.push_back(static_cast<Value>(1'000'000 + 7 * i));
  for (std::size_t i = 0; i < c.right.size(); ++i)
    c.right_values.push_back(static_cast<Value>(5'000'000 + 3 * i));
  for (const JoinKind kind : kAllJoinKinds) {
    for (const JoinSide side : {JoinSide::Left, JoinSide::Right}) {
      JoinOptions o = options_for(GetParam(), kind);
      o.build       = side;
      check_join(kCpu, c, o);
    }
  }
}

TEST_P(Join, EmptySides) {
  const JoinCase full = make_join_case(200, 2, 3, 12);
  JoinCase no_left    = full;
  no_left.left.clear();
  JoinCase no_right = full;
  no_right.right.clear();
  for (const JoinKind kind : kAllJoinKinds) {
    for (const JoinCase* c : {&no_left, &no_right}) {
      check_join(kCpu, *c, options_for(GetParam(), kind));
      JoinOptions o = options_for(GetParam(), kind);
      o.build       = JoinSide::Left;
      check_join(kCpu, *c, o);
    }
    check_join(kCpu, JoinCase{}, options_for(GetParam(), kind));
  }
}

TEST_P(Join, LeftJoinNullsAndComplements) {
  const JoinCase c = make_join_case(1000, 2, 3, 13);
  for (const JoinSide side : {JoinSide::Left, JoinSide::Right}) {
    auto with = [&](JoinKind kind) {
      JoinOptions o = options_for(GetParam(), kind);
      o.build       = side;
      auto rows     = run_join(kCpu, c, o).rows;
      std::sort(rows.begin(), rows.end());
      return rows;
    };
    const auto left = with(JoinKind::Left), inner = with(JoinKind::Inner);
    const auto semi = with(JoinKind::Semi), anti = with(JoinKind::Anti);
    // Half the left keys are missing on the right: 1000 left rows get a null each.
    const auto nulls = std::count_if(
        left.begin(), left.end(), [](const JoinRow& r) { return r.second == kNotFound; });
    EXPECT_EQ(nulls, 1000);
    EXPECT_EQ(left.size(), inner.size() + 1000);
    // Semi and anti partition the left rows.
    EXPECT_EQ(semi.size() + anti.size(), c.left.size());
    std::vector<JoinRow> both = semi;
    both.insert(both.end(), anti.begin(), anti.end());
    std::sort(both.begin(), both.end());
    EXPECT_TRUE(std::adjacent_find(both.begin(), both.end()) == both.end());
    // Anti rows are exactly the left join's null rows.
    std::vector<JoinRow> null_rows;
    std::copy_if(left.begin(), left.end(), std::back_inserter(null_rows), [](const JoinRow& r) {
      return r.second == kNotFound;
    });
    EXPECT_EQ(null_rows, anti);
  }
}

TEST(JoinSize, ExplodingJoinRefusedBeforeAllocating) {
  // 2^18 x 2^18 equal keys: 2^36 rows, 512 GiB; the count is exact in 64 bits. (A HashGraph
  // counts by walking the one bucket, quadratic here: CallerLimit covers it.)
  const std::size_t n = std::size_t{1} << 18;
  JoinCase c;
  c.left.assign(n, 4242u);
  c.right.assign(n, 4242u);
  for (const Method& m : {kMethods[0], kMethods[3], kMethods[4]}) {
    SCOPED_TRACE(method_name(m));
    try {
      (void)run_join(kCpu, c, options_for(m, JoinKind::Inner));
      ADD_FAILURE() << "the join did not throw";
    } catch (const OutOfMemory& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("68719476736 rows"), std::string::npos) << what;
      EXPECT_NE(what.find("549755813888 bytes"), std::string::npos) << what;
    }
  }
}

TEST_P(Join, CallerLimit) {
  JoinCase c;
  c.left.assign(3000, 99u);
  c.right.assign(2000, 99u);
  JoinOptions o      = options_for(GetParam(), JoinKind::Inner);
  o.max_output_bytes = std::size_t{1} << 20;
  try {
    (void)run_join(kCpu, c, o);
    FAIL() << "the join did not throw";
  } catch (const OutOfMemory& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("6000000 rows, 48000000 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("caller's limit of 1048576 bytes"), std::string::npos) << what;
  }
  o.max_output_bytes = 48'000'000;
  EXPECT_EQ(run_join(kCpu, c, o).count, 6'000'000u);
}

TEST_P(Join, SentinelKeysRejected) {
  JoinCase c = make_join_case(300, 2, 2, 14);
  for (const bool on_left : {true, false}) {
    JoinCase bad                          = c;
    (on_left ? bad.left : bad.right)[123] = kEmptyKey;
    for (const JoinKind kind : kAllJoinKinds) {
      for (const JoinSide side : {JoinSide::Left, JoinSide::Right}) {
        JoinOptions o = options_for(GetParam(), kind);
        o.build       = side;
        EXPECT_THROW((void)run_join(kCpu, bad, o), InvalidInput)
            << describe(o) << (on_left ? ", sentinel on the left" : ", sentinel on the right");
      }
    }
  }
}

TEST(JoinKinds, Names) {
  for (const JoinKind kind : kAllJoinKinds)
    EXPECT_EQ(parse_join_kind(to_string(kind)), kind);
  EXPECT_THROW((void)parse_join_kind("outer"), InvalidInput);
}

/// The two slot tables with multivalue lists, for the tests below.
template <class Table, class Impl>
struct SlotTable {
  using Interface = Table;
  using CpuImpl   = Impl;
  static constexpr TableKind kKind =
      std::is_same_v<Table, CuckooTable> ? TableKind::Cuckoo : TableKind::BucketedCuckoo;
};
using SlotTables =
    ::testing::Types<SlotTable<CuckooTable, tables::CuckooTableImpl<CpuExec>>,
                     SlotTable<BucketedCuckooTable, tables::BucketedCuckooTableImpl<CpuExec>>>;

struct SlotTableNames {
  template <class T>
  static std::string GetName(int) {
    return std::string(to_string(T::kKind));
  }
};

template <class T>
class Multivalue : public ::testing::Test {};
TYPED_TEST_SUITE(Multivalue, SlotTables, SlotTableNames);

TYPED_TEST(Multivalue, EveryValueOfEveryKey) {
  const auto keys = random_keys(50000, 3000, 15);
  std::vector<Value> values(keys.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<Value>(3 * i + 1);
  BuildOptions o;
  o.multivalue = true;
  o.unique_ids = false;  // implied by multivalue
  auto table   = make_table(TypeParam::kKind, kCpu, o);
  auto d_keys  = Buffer<Key>::from_host(kCpu, keys);
  auto d_vals  = Buffer<Value>::from_host(kCpu, values);
  table->build(d_keys.data(), d_vals.data(), keys.size());
  const auto multi = dynamic_cast<typename TypeParam::Interface&>(*table).multi_ref();
  std::unordered_map<Key, std::vector<Value>> expected;
  for (std::size_t i = 0; i < keys.size(); ++i)
    expected[keys[i]].push_back(values[i]);
  std::vector<Value> got(keys.size());
  for (const auto& [key, vals] : expected) {
    const std::uint32_t n = multi.find_all(key, got.data());
    ASSERT_EQ(std::vector<Value>(got.begin(), got.begin() + n), vals) << "key " << key;
    ASSERT_EQ(multi.find(key), vals.front()) << "key " << key;
  }
  for (const Key miss : absent_keys(keys, 1000, 16)) {
    EXPECT_EQ(multi.count(miss), 0u);
    EXPECT_EQ(multi.find(miss), kNotFound);
  }
  EXPECT_EQ(table->unique_count(), expected.size());
}

TYPED_TEST(Multivalue, AnswersLikeTheCompactingTable) {
  BuildOptions o;
  o.multivalue          = true;
  constexpr TableKind k = TypeParam::kKind;
  check_table(kCpu, k, random_keys(200000, 200000, 21), o);
  check_table(kCpu, k, random_keys(200000, 50000, 22), o);
  check_table(kCpu, k, random_keys(320000, 10000, 23), o);
  check_table(kCpu, k, std::vector<Key>(5000, 123456u), o);
  check_table(kCpu, k, {7, 9}, o);
  check_table(kCpu, k, {7, 7}, o);
}

TYPED_TEST(Multivalue, HoldsNothingPerSlotBeyondTheSlot) {
  // 8 B per slot (the cuckoo table's fixed stash too), then the values (4 B each), the unique
  // keys and their u + 1 offsets.
  BuildOptions o;
  o.multivalue            = true;
  const std::size_t n     = 100000;
  const auto keys         = random_keys(n, n, 25);
  auto table              = make_table(TypeParam::kKind, kCpu, o);
  auto d_keys             = Buffer<Key>::from_host(kCpu, keys);
  const BuildStats st     = table->build(d_keys.data(), nullptr, n);
  const std::size_t u     = st.unique_keys;
  const std::size_t stash = TypeParam::kKind == TableKind::Cuckoo ? o.stash_slots : 0;
  EXPECT_EQ(st.bytes, 8 * (st.slots + stash) + 4 * n + 4 * u + 4 * (u + 1));
}

TYPED_TEST(Multivalue, FindGivesTheFirstValueAndSentinelIsRejected) {
  BuildOptions o;
  o.multivalue = true;
  typename TypeParam::CpuImpl table(o);
  const std::vector<Key> keys{5, 3, 5, 3, 5};
  table.build(keys.data(), nullptr, keys.size(), nullptr);
  EXPECT_EQ(table.multi_ref().find(5), 0u);
  EXPECT_EQ(table.multi_ref().find(3), 1u);
  EXPECT_EQ(table.multi_ref().count(5), 3u);
  EXPECT_EQ(table.ref().find(3), 0u) << "the slot's value is the key's dense id";
  EXPECT_EQ(table.ref().find(5), 1u);
  const std::vector<Key> bad{1, kEmptyKey, 1};
  EXPECT_THROW(table.build(bad.data(), nullptr, bad.size(), nullptr), InvalidInput);
}

TYPED_TEST(Multivalue, DistinctKeysWithoutDenseIds) {
  BuildOptions o;
  o.unique_ids = false;
  typename TypeParam::CpuImpl table(o);
  std::vector<Key> keys = random_keys(100000, 100000, 24);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  table.build(keys.data(), nullptr, keys.size(), nullptr);
  EXPECT_TRUE(table.distinct_keys());
  keys.push_back(keys[keys.size() / 2]);
  table.build(keys.data(), nullptr, keys.size(), nullptr);
  EXPECT_FALSE(table.distinct_keys());
  table.build(keys.data(), nullptr, 0, nullptr);
  EXPECT_TRUE(table.distinct_keys());
}

TYPED_TEST(Multivalue, OnlyWhenAsked) {
  auto table  = make_table(TypeParam::kKind, kCpu);
  auto d_keys = Buffer<Key>::from_host(kCpu, random_keys(1000, 500, 17));
  table->build(d_keys.data(), nullptr, 1000);
  EXPECT_THROW((void)dynamic_cast<typename TypeParam::Interface&>(*table).multi_ref(),
               InvalidInput);
}

TEST(CpuExecutor, RunLengthEncode) {
  CpuExec exec;
  const std::vector<std::uint32_t> in{4, 4, 4, 7, 9, 9, 0xFFFFFFFEu};
  std::vector<std::uint32_t> unique(in.size()), counts(in.size());
  ASSERT_EQ(exec.run_length_encode(in.data(), unique.data(), counts.data(), in.size()), 4u);
  EXPECT_EQ(std::vector<std::uint32_t>(unique.begin(), unique.begin() + 4),
            (std::vector<std::uint32_t>{4, 7, 9, 0xFFFFFFFEu}));
  EXPECT_EQ(std::vector<std::uint32_t>(counts.begin(), counts.begin() + 4),
            (std::vector<std::uint32_t>{3, 1, 2, 1}));
  EXPECT_EQ(exec.run_length_encode(in.data(), unique.data(), counts.data(), 0), 0u);
}

}  // namespace
}  // namespace voxhash::test
