// 64-bit-key tables on the CUDA backend (label gpu): the CPU checks of test_tables64.cpp run on the
// GPU (16-byte slots exchanged by Hopper's 128-bit atomics, 16-byte HashGraph edges), and the CUDA
// tables' answers compared with the CPU tables'. Skipped, saying why, where no CUDA device exists.
#include "common/require_cuda.hpp"
#include "common/table_checks.hpp"

#include <voxhash/bucketed_cuckoo_table.hpp>
#include <voxhash/cuckoo_table.hpp>
#include <voxhash/error.hpp>

namespace voxhash::test {
namespace {

constexpr Backend kCuda = Backend::Cuda;

class GpuTables64 : public ::testing::TestWithParam<TableKind> {};
INSTANTIATE_TEST_SUITE_P(Kinds, GpuTables64, ::testing::ValuesIn(kAllKinds), [](const auto& info) {
  std::string s(to_string(info.param));
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
});

TEST_P(GpuTables64, KeysAbove2To32MatchTheReference) {
  REQUIRE_CUDA();
  check_table<Key64>(kCuda, GetParam(), random_keys<Key64>(1 << 20, 1 << 20, 1));
  check_table<Key64>(kCuda, GetParam(), random_keys<Key64>(1 << 20, (1 << 20) / 8, 2));
  check_table<Key64>(kCuda, GetParam(), structured_keys64(1 << 18, 3));
  check_table<Key64>(kCuda, GetParam(), std::vector<Key64>(20000, 0xFFFFFFFFull));
}

TEST_P(GpuTables64, SentinelKeyRejected) {
  REQUIRE_CUDA();
  auto keys  = random_keys<Key64>(100000, 100000, 6);
  keys[777]  = kEmptyKeyOf<Key64>;
  auto d     = Buffer<Key64>::from_host(kCuda, keys);
  auto table = make_table64(GetParam(), kCuda);
  EXPECT_THROW(table->build(d.data(), nullptr, keys.size()), InvalidInput);
  EXPECT_EQ(d.to_host(), keys);
  EXPECT_EQ(table->unique_count(), 0u);
}

TEST_P(GpuTables64, CudaAnswersEqualCpuAnswers) {
  REQUIRE_CUDA();
  const auto keys = random_keys<Key64>(300000, 100000, 4);
  auto queries    = keys;
  const auto miss = absent_keys(keys, 50000, 5);
  queries.insert(queries.end(), miss.begin(), miss.end());
  std::vector<std::uint32_t> counts[2], ids[2];
  std::vector<Key64> unique[2], named[2];
  const Backend backends[2] = {Backend::Cpu, kCuda};
  for (int b = 0; b < 2; ++b) {
    auto table = make_table64(GetParam(), backends[b]);
    auto d     = Buffer<Key64>::from_host(backends[b], keys);
    table->build(d.data(), nullptr, keys.size());
    counts[b] = run_query<std::uint32_t, Key64>(
        backends[b], queries, 0xDEADBEEFu, [&](auto q, auto n, auto o) {
          table->count_async(q, n, o);
        });
    ids[b] = run_query<std::uint32_t, Key64>(
        backends[b], queries, 0xDEADBEEFu, [&](auto q, auto n, auto o) {
          table->find_id_async(q, n, o);
        });
    unique[b].resize(table->unique_count());
    copy_bytes(unique[b].data(),
               Backend::Cpu,
               table->unique_keys(),
               backends[b],
               unique[b].size() * sizeof(Key64));
    // Ids differ between backends (slot order); the key each id names must not.
    for (const std::uint32_t id : ids[b])
      named[b].push_back(id < unique[b].size() ? unique[b][id] : kEmptyKeyOf<Key64>);
    std::sort(unique[b].begin(), unique[b].end());
  }
  EXPECT_EQ(counts[0], counts[1]);
  EXPECT_EQ(named[0], named[1]);
  EXPECT_EQ(unique[0], unique[1]);
}

TEST(GpuTables64Multivalue, CuckooAndBucketed) {
  REQUIRE_CUDA();
  BuildOptions options;
  options.multivalue = true;
  for (const TableKind kind : {TableKind::Cuckoo, TableKind::BucketedCuckoo}) {
    check_table<Key64>(kCuda, kind, random_keys<Key64>(400000, 50000, 7), options);
  }
}

TEST(GpuTables64Probe, HashGraphProbeMethodsAgree) {
  REQUIRE_CUDA();
  for (const TableKind kind : {TableKind::HashGraphV1, TableKind::HashGraphV2}) {
    check_probe_methods_agree<Key64>(kCuda, kind, random_keys<Key64>(200000, 50000, 8));
  }
}

TEST(GpuTables64Probe, HashGraphInvariants) {
  REQUIRE_CUDA();
  for (const TableKind kind : {TableKind::HashGraphV1, TableKind::HashGraphV2}) {
    for (const double load : {1.0, 0.05})
      check_hash_graph_invariants<Key64>(kCuda, kind, random_keys<Key64>(200000, 50000, 9), load);
  }
}

}  // namespace
}  // namespace voxhash::test
