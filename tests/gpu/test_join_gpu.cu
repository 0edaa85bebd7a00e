// Joins on the CUDA backend (label gpu): every kind on every table and the sort-merge baseline,
// multiplicity 1/4/32 on each side, either side built, against the unordered_multimap reference
// and row for row against the CPU backend (HashGraph V1's bucket order is a race, so its rows are
// compared as a multiset); joins over pages under a GPU budget, likewise; the size error and
// sentinel keys. Skipped, saying why, without a device.
#include "common/join_checks.hpp"
#include "common/require_cuda.hpp"

#include <voxhash/error.hpp>

#include <array>

namespace voxhash::test {
namespace {

constexpr Backend kCuda = Backend::Cuda;

struct Method {
  JoinAlgorithm algorithm;
  TableKind table;
};
constexpr std::array kMethods{Method{JoinAlgorithm::Hash, TableKind::Cuckoo},
                              Method{JoinAlgorithm::Hash, TableKind::HashGraphV1},
                              Method{JoinAlgorithm::Hash, TableKind::HashGraphV2},
                              Method{JoinAlgorithm::Hash, TableKind::BucketedCuckoo},
                              Method{JoinAlgorithm::SortMerge, TableKind::Cuckoo}};

JoinOptions options_for(const Method& m, JoinKind kind) {
  JoinOptions o;
  o.kind      = kind;
  o.algorithm = m.algorithm;
  o.table     = m.table;
  return o;
}

class GpuJoin : public ::testing::TestWithParam<Method> {};
INSTANTIATE_TEST_SUITE_P(Methods, GpuJoin, ::testing::ValuesIn(kMethods), [](const auto& info) {
  std::string s = info.param.algorithm == JoinAlgorithm::SortMerge
                      ? "sort_merge"
                      : std::string(to_string(info.param.table));
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
});

/// The CUDA join equals the reference, and the CPU join row for row (as a multiset for V1).
void check_cuda_equals_cpu(const JoinCase& c, const JoinOptions& o) {
  check_join(kCuda, c, o);
  SCOPED_TRACE(describe(o) + ", CUDA == CPU");
  auto cuda = run_join(kCuda, c, o).rows;
  auto cpu  = run_join(Backend::Cpu, c, o).rows;
  if (o.algorithm == JoinAlgorithm::Hash && o.table == TableKind::HashGraphV1) {
    std::sort(cuda.begin(), cuda.end());
    std::sort(cpu.begin(), cpu.end());
  }
  EXPECT_TRUE(cuda == cpu) << "the CUDA rows differ from the CPU rows";
}

TEST_P(GpuJoin, MultiplicitiesOnEachSide) {
  REQUIRE_CUDA();
  for (const std::size_t ml : {1, 4, 32}) {
    for (const std::size_t mr : {1, 4, 32}) {
      const JoinCase c = make_join_case(ml * mr > 100 ? 2000 : 20000, ml, mr, 10 * ml + mr);
      for (const JoinKind kind : kAllJoinKinds) {
        for (const JoinSide side : {JoinSide::Left, JoinSide::Right}) {
          JoinOptions o = options_for(GetParam(), kind);
          o.build       = side;
          check_cuda_equals_cpu(c, o);
        }
      }
    }
  }
}

TEST_P(GpuJoin, LargeProbeSide) {
  REQUIRE_CUDA();
  const JoinCase c = make_join_case(1 << 18, 4, 1, 31);  // 2^20 probe rows, 2^18 build rows
  for (const JoinKind kind : kAllJoinKinds)
    check_cuda_equals_cpu(c, options_for(GetParam(), kind));
}

TEST_P(GpuJoin, OverPagesEqualsTheCpuJoinOverPages) {
  REQUIRE_CUDA();
  if (GetParam().algorithm == JoinAlgorithm::SortMerge) GTEST_SKIP() << "a hash join only";
  // 2^18 build rows (each key twice) and 2^19 probe rows under a budget of about 16 pages: the
  // same pages on both backends (the page seed comes from the table options).
  const JoinCase c      = make_join_case(1 << 17, 4, 2, 32);
  const TableKind table = GetParam().table;
  BuildOptions estimate;
  estimate.multivalue = table == TableKind::Cuckoo || table == TableKind::BucketedCuckoo;
  for (const JoinKind kind : kAllJoinKinds) {
    for (const JoinSide side : {JoinSide::Left, JoinSide::Right}) {
      const std::size_t rows = side == JoinSide::Left ? c.left.size() : c.right.size();
      JoinOptions o          = options_for(GetParam(), kind);
      o.build                = side;
      o.gpu_budget           = 2 * estimate_bytes(table, rows / 16, estimate);
      const JoinOutput cuda  = check_join(kCuda, c, o);
      EXPECT_GE(cuda.paged.pages, 16u) << describe(o);
      EXPECT_GT(cuda.paged.bytes_to_device, 0u) << describe(o);
      const JoinOutput cpu = run_join(Backend::Cpu, c, o);
      EXPECT_EQ(cuda.paged.pages, cpu.paged.pages) << describe(o);
      auto cuda_rows = cuda.rows, cpu_rows = cpu.rows;
      if (table == TableKind::HashGraphV1) {
        std::sort(cuda_rows.begin(), cuda_rows.end());
        std::sort(cpu_rows.begin(), cpu_rows.end());
      }
      EXPECT_TRUE(cuda_rows == cpu_rows) << describe(o) << ": the CUDA rows differ from the CPU's";
    }
  }
}

TEST_P(GpuJoin, EmptySides) {
  REQUIRE_CUDA();
  JoinCase no_left = make_join_case(200, 2, 3, 12);
  no_left.left.clear();
  for (const JoinKind kind : kAllJoinKinds) {
    check_cuda_equals_cpu(no_left, options_for(GetParam(), kind));
    check_cuda_equals_cpu(JoinCase{}, options_for(GetParam(), kind));
  }
}

TEST_P(GpuJoin, SizeErrorAndSentinels) {
  REQUIRE_CUDA();
  JoinCase equal;
  equal.left.assign(3000, 99u);
  equal.right.assign(2000, 99u);
  JoinOptions o      = options_for(GetParam(), JoinKind::Inner);
  o.max_output_bytes = std::size_t{1} << 20;
  EXPECT_THROW((void)run_join(kCuda, equal, o), OutOfMemory);
  JoinCase bad = make_join_case(300, 2, 2, 14);
  bad.right[5] = kEmptyKey;
  for (const JoinSide side : {JoinSide::Left, JoinSide::Right}) {
    JoinOptions s = options_for(GetParam(), JoinKind::Left);
    s.build       = side;
    EXPECT_THROW((void)run_join(kCuda, bad, s), InvalidInput);
  }
}

}  // namespace
}  // namespace voxhash::test
