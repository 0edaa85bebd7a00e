// Hash-table tests on the CUDA backend (label gpu): the same checks as the CPU tests, the CUDA
// backend compared with the CPU backend, kernels probing through the tables' device views, the
// cuckoo table's stash, the slot tables' changes after a build, and the bucketed table's load
// 0.95 builds and early-exit invariant under the GPU's concurrency.
// Skipped, saying why, where no CUDA device exists.
#include "common/require_cuda.hpp"
#include "common/slot_change_checks.hpp"
#include "common/table_checks.hpp"

#include <voxhash/bucketed_cuckoo_table.hpp>
#include <voxhash/cuckoo_table.hpp>
#include <voxhash/error.hpp>

#include <cuda_runtime.h>

namespace voxhash::test {
namespace {

constexpr Backend kCuda = Backend::Cuda;

class GpuTables : public ::testing::TestWithParam<TableKind> {};
INSTANTIATE_TEST_SUITE_P(Kinds, GpuTables, ::testing::ValuesIn(kAllKinds), [](const auto& info) {
  std::string s(to_string(info.param));
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
});

TEST_P(GpuTables, UniqueKeys2To20) {
  REQUIRE_CUDA();
  check_table(kCuda, GetParam(), random_keys(1 << 20, 1 << 20, 1));
}

TEST_P(GpuTables, Duplicates) {
  REQUIRE_CUDA();
  check_table(kCuda, GetParam(), random_keys(1 << 20, 1 << 20, 2));
  check_table(kCuda, GetParam(), random_keys(1 << 20, (1 << 20) / 4, 3));
  check_table(kCuda, GetParam(), random_keys(1 << 20, (1 << 20) / 32, 4));
}

TEST_P(GpuTables, EdgeCases) {
  REQUIRE_CUDA();
  check_table(kCuda, GetParam(), {42});
  check_table(kCuda, GetParam(), {7, 9});
  check_table(kCuda, GetParam(), std::vector<Key>(20000, 123456u));
  std::vector<Key> top;
  for (Key k = 0xFFFFFFFEu; k > 0xFFFFFFFEu - 5000; --k)
    top.push_back(k);
  check_table(kCuda, GetParam(), top);
  auto table = make_table(GetParam(), kCuda);
  EXPECT_EQ(table->build(nullptr, nullptr, 0).keys, 0u);
}

TEST_P(GpuTables, SentinelKeyRejected) {
  REQUIRE_CUDA();
  auto keys  = random_keys(100000, 100000, 6);
  keys[777]  = kEmptyKey;
  auto d     = Buffer<Key>::from_host(kCuda, keys);
  auto table = make_table(GetParam(), kCuda);
  EXPECT_THROW(table->build(d.data(), nullptr, keys.size()), InvalidInput);
  EXPECT_EQ(d.to_host(), keys);
  EXPECT_EQ(table->unique_count(), 0u);
}

TEST_P(GpuTables, CudaEqualsCpu) {
  REQUIRE_CUDA();
  const auto keys = random_keys(300000, 40000, 20);
  auto queries    = keys;
  const auto miss = absent_keys(keys, 50000, 21);
  queries.insert(queries.end(), miss.begin(), miss.end());
  std::vector<std::uint32_t> counts[2];
  std::vector<std::uint8_t> has[2];
  std::vector<Key> unique[2];
  const Backend backends[2] = {Backend::Cpu, kCuda};
  for (int b = 0; b < 2; ++b) {
    auto table = make_table(GetParam(), backends[b]);
    auto d     = Buffer<Key>::from_host(backends[b], keys);
    table->build(d.data(), nullptr, keys.size());
    counts[b] =
        run_query<std::uint32_t>(backends[b], queries, 0xDEADBEEFu, [&](auto q, auto n, auto o) {
          table->count_async(q, n, o);
        });
    has[b] = run_query<std::uint8_t>(
        backends[b], queries, 9, [&](auto q, auto n, auto o) { table->contains_async(q, n, o); });
    unique[b].resize(table->unique_count());
    copy_bytes(unique[b].data(),
               Backend::Cpu,
               table->unique_keys(),
               backends[b],
               unique[b].size() * sizeof(Key));
    std::sort(unique[b].begin(), unique[b].end());
  }
  EXPECT_EQ(counts[0], counts[1]);
  EXPECT_EQ(has[0], has[1]);
  EXPECT_EQ(unique[0], unique[1]);
}

TEST(GpuSortedArray, SetBuildSortsAndDeduplicates) {
  REQUIRE_CUDA();
  check_sorted_set(kCuda, random_keys(1000000, 250000, 21));
  check_sorted_set(kCuda, {7});
  check_sorted_set(kCuda, {});
}

TEST(GpuHashGraph, InvariantsAndV2MatchesCpuExactly) {
  REQUIRE_CUDA();
  const auto keys = random_keys(1 << 20, (1 << 20) / 8, 30);
  for (TableKind kind : {TableKind::HashGraphV1, TableKind::HashGraphV2}) {
    for (double load : {0.25, 1.0, 2.0})
      check_hash_graph_invariants(kCuda, kind, keys, load);
    check_hash_graph_invariants(kCuda, kind, std::vector<Key>(1 << 16, 5u), 0.01);
    check_hash_graph_invariants(kCuda, kind, random_keys(1 << 16, 100, 33), 0.05);
    check_hash_graph_invariants(kCuda, kind, std::vector<Key>{}, 1.0);
  }
  // V2 is deterministic (stable radix sort): the CUDA CSR equals the CPU CSR bit for bit.
  auto cpu = make_table(TableKind::HashGraphV2, Backend::Cpu);
  auto gpu = make_table(TableKind::HashGraphV2, kCuda);
  auto d   = Buffer<Key>::from_host(kCuda, keys);
  cpu->build(keys.data(), nullptr, keys.size());
  gpu->build(d.data(), nullptr, keys.size());
  const auto gc = dynamic_cast<HashGraph&>(*cpu).ref();
  const auto gg = dynamic_cast<HashGraph&>(*gpu).ref();
  ASSERT_EQ(gc.range, gg.range);
  std::vector<HashGraphBucket> buckets(gg.range);
  std::vector<HashGraphEdge> edges(keys.size());
  copy_bytes(
      buckets.data(), Backend::Cpu, gg.buckets, kCuda, buckets.size() * sizeof(HashGraphBucket));
  copy_bytes(edges.data(), Backend::Cpu, gg.edges, kCuda, edges.size() * 8);
  const auto same_edge = [](auto a, auto b) { return a.key == b.key && a.value == b.value; };
  EXPECT_TRUE(std::equal(buckets.begin(), buckets.end(), gc.buckets, [&](auto a, auto b) {
    return a.begin == b.begin && a.end == b.end && same_edge(a.first, b.first);
  }));
  EXPECT_TRUE(std::equal(edges.begin(), edges.end(), gc.edges, same_edge));
}

TEST(GpuHashGraph, ProbeStandardEqualsProbeIntersect) {
  REQUIRE_CUDA();
  for (TableKind kind : {TableKind::HashGraphV1, TableKind::HashGraphV2}) {
    check_probe_methods_agree(kCuda, kind, random_keys(1 << 19, 1 << 19, 31));
    check_probe_methods_agree(kCuda, kind, random_keys(1 << 19, 1 << 14, 32));
  }
}

TEST(GpuCuckoo, ForcedFailureRestartsThenClearError) {
  REQUIRE_CUDA();
  BuildOptions options;
  options.cuckoo_space = 1.0;
  options.max_chain    = 2;
  options.max_attempts = 3;
  auto table           = make_table(TableKind::Cuckoo, kCuda, options);
  const auto keys      = random_keys(1 << 20, 1 << 20, 33);
  auto d               = Buffer<Key>::from_host(kCuda, keys);
  EXPECT_THROW(table->build(d.data(), nullptr, keys.size()), BuildFailed);
  EXPECT_EQ(d.to_host(), keys);
  EXPECT_EQ(table->unique_count(), 0u);
}

TEST(GpuBucketedCuckoo, ForcedFailureRestartsThenClearError) {
  REQUIRE_CUDA();
  BuildOptions options;
  options.cuckoo_space = 1.0;
  options.max_chain    = 2;
  options.max_attempts = 3;
  auto table           = make_table(TableKind::BucketedCuckoo, kCuda, options);
  const auto keys      = random_keys(1 << 20, 1 << 20, 34);
  auto d               = Buffer<Key>::from_host(kCuda, keys);
  EXPECT_THROW(table->build(d.data(), nullptr, keys.size()), BuildFailed);
  EXPECT_EQ(d.to_host(), keys);
  EXPECT_EQ(table->unique_count(), 0u);
}

TEST(GpuCuckoo, StashPlacesWhatWouldRestartTheBuildAsOnTheCpu) {
  REQUIRE_CUDA();
  // The constants come from the seed and a chain of one exchange stashes one item per collision
  // at h_0, so both backends stash the same number of items.
  EXPECT_EQ(check_stash_saves_build<Key>(kCuda).stash_entries,
            check_stash_saves_build<Key>(Backend::Cpu).stash_entries);
  EXPECT_EQ(check_stash_saves_build<Key64>(kCuda).stash_entries,
            check_stash_saves_build<Key64>(Backend::Cpu).stash_entries);
}

TEST(GpuSlotTables, EraseInsertOrAssignUpdateAsOnTheCpu) {
  REQUIRE_CUDA();
  for (const TableKind kind : {TableKind::Cuckoo, TableKind::BucketedCuckoo}) {
    SCOPED_TRACE(to_string(kind));
    EXPECT_TRUE(check_slot_changes<Key>(kCuda, kind) ==
                check_slot_changes<Key>(Backend::Cpu, kind));
    EXPECT_TRUE(check_slot_changes<Key64>(kCuda, kind) ==
                check_slot_changes<Key64>(Backend::Cpu, kind));
  }
}

TEST(GpuBucketedCuckoo, Load095BuildsAndEarlyExitInvariantHolds) {
  REQUIRE_CUDA();
  BuildOptions options;
  options.cuckoo_space = 1.0 / 0.95;
  for (const std::size_t distinct : {std::size_t{1} << 22, std::size_t{1} << 18}) {
    const auto keys    = random_keys(1 << 22, distinct, 35);
    auto table         = make_table(TableKind::BucketedCuckoo, kCuda, options);
    auto d             = Buffer<Key>::from_host(kCuda, keys);
    const BuildStats s = table->build(d.data(), nullptr, keys.size());
    EXPECT_EQ(s.unique_keys, distinct);
    EXPECT_LE(s.attempts, 2);
    check_bucketed_invariant(kCuda, *table);
    check_table(kCuda, TableKind::BucketedCuckoo, keys, options);
  }
}

/// One thread per query: find through a view in device code (what the flood fill does).
template <class View>
__global__ void probe_view_kernel(View view,
                                  const Key* queries,
                                  std::uint32_t n,
                                  Value* found,
                                  std::uint32_t* ids,
                                  std::uint32_t* counts) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  found[i]  = view.find(queries[i]);
  ids[i]    = view.find_id(queries[i]);
  counts[i] = view.count(queries[i]);
}

template <class TableType>
void check_device_view(TableKind kind) {
  const auto keys = random_keys(400000, 100000, 40);
  auto queries    = keys;
  const auto miss = absent_keys(keys, 100000, 41);
  queries.insert(queries.end(), miss.begin(), miss.end());
  auto table = make_table(kind, kCuda);
  auto d     = Buffer<Key>::from_host(kCuda, keys);
  table->build(d.data(), nullptr, keys.size());
  const auto n = static_cast<std::uint32_t>(queries.size());
  auto d_q     = Buffer<Key>::from_host(kCuda, queries);
  Buffer<Value> found(kCuda, n), ids(kCuda, n), counts(kCuda, n);
  found.fill_bytes_async(0xAB);
  probe_view_kernel<<<(n + 255) / 256, 256>>>(dynamic_cast<TableType&>(*table).ref(),
                                              d_q.data(),
                                              n,
                                              found.data(),
                                              ids.data(),
                                              counts.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  // The host interface on the same table must agree with the kernel, element by element.
  const auto host_found = run_query<Value>(
      kCuda, queries, 0, [&](auto q, auto m, auto o) { table->find_async(q, m, o); });
  const auto host_ids = run_query<std::uint32_t>(
      kCuda, queries, 0, [&](auto q, auto m, auto o) { table->find_id_async(q, m, o); });
  const auto host_counts = run_query<std::uint32_t>(
      kCuda, queries, 0, [&](auto q, auto m, auto o) { table->count_async(q, m, o); });
  EXPECT_EQ(found.to_host(), host_found);
  EXPECT_EQ(ids.to_host(), host_ids);
  EXPECT_EQ(counts.to_host(), host_counts);
  // And with the reference.
  const Reference ref(keys);
  const auto c      = counts.to_host();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const auto it = ref.indices.find(queries[i]);
    wrong += c[i] != (it == ref.indices.end() ? 0u : it->second.size());
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(GpuDeviceView, CuckooViewProbesFromAKernel) {
  REQUIRE_CUDA();
  check_device_view<CuckooTable>(TableKind::Cuckoo);
}

TEST(GpuDeviceView, BucketedCuckooViewProbesFromAKernel) {
  REQUIRE_CUDA();
  check_device_view<BucketedCuckooTable>(TableKind::BucketedCuckoo);
}

TEST(GpuDeviceView, HashGraphViewProbesFromAKernel) {
  REQUIRE_CUDA();
  check_device_view<HashGraph>(TableKind::HashGraphV1);
  check_device_view<HashGraph>(TableKind::HashGraphV2);
}

}  // namespace
}  // namespace voxhash::test
