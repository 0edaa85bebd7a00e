// The paged cuckoo table on the CUDA backend (label gpu): the CPU tests' checks with real streams,
// pinned host pages and a budget in device memory, on 32-bit keys and on 64-bit keys (16-byte
// slots, 128-bit atomics); CUDA answers compared with the CPU backend's; a kernel probing resident
// pages through PagedRef / PagedRef64. Skipped, saying why, where no CUDA device exists.
#include "common/paged_checks.hpp"
#include "common/require_cuda.hpp"

#include <cuda_runtime.h>

namespace voxhash::test {
namespace {

constexpr Backend kCuda = Backend::Cuda;

constexpr std::size_t kResidentSlots = 256;
constexpr std::size_t kStreamSlots   = 4;

TEST(GpuPagedTable, ResidentAndStreamedEqualFlat) {
  REQUIRE_CUDA();
  check_paged_like_flat(kCuda, random_keys(200000, 200000, 1), kResidentSlots, true);
  check_paged_like_flat(kCuda, random_keys(200000, 200000, 2), kStreamSlots, false);
  check_paged_like_flat(kCuda, random_keys(200000, 20000, 3), kStreamSlots, false);
}

TEST(GpuPagedTable, Changes) {
  REQUIRE_CUDA();
  check_paged_changes(kCuda, kResidentSlots);
  check_paged_changes(kCuda, kStreamSlots);
}

TEST(GpuPagedTable, ForcedPageFailureRebuiltAlone) {
  REQUIRE_CUDA();
  check_forced_page_failure(kCuda, kResidentSlots);
  check_forced_page_failure(kCuda, kStreamSlots);
}

TEST(GpuPagedTable, SixtyFourBitKeys) {
  REQUIRE_CUDA();
  check_paged_like_flat(kCuda, random_keys<Key64>(200000, 200000, 11), kResidentSlots, true);
  check_paged_like_flat(kCuda, random_keys<Key64>(200000, 200000, 12), kStreamSlots, false);
  check_paged_like_flat(kCuda, structured_keys64(200000, 13), kStreamSlots, false);
  check_paged_changes<Key64>(kCuda, kResidentSlots);
  check_paged_changes<Key64>(kCuda, kStreamSlots);
  check_forced_page_failure<Key64>(kCuda, kResidentSlots);
  check_forced_page_failure<Key64>(kCuda, kStreamSlots);
}

/// Builds the same paged table on both backends, deletes some keys, and compares the answers.
template <class K>
void check_cuda_equals_cpu() {
  const auto keys = random_keys<K>(150000, 30000, 4);
  auto queries    = keys;
  const auto miss = absent_keys(keys, 50000, 5);
  queries.insert(queries.end(), miss.begin(), miss.end());
  std::vector<K> gone(keys.begin(), keys.begin() + 20000);
  std::vector<std::uint8_t> has[2];
  const Backend backends[2] = {Backend::Cpu, kCuda};
  for (int b = 0; b < 2; ++b) {
    auto paged  = make_paged<K>(backends[b], paged_options<K>(kStreamSlots));
    auto d_keys = Buffer<K>::from_host(backends[b], keys);
    auto d_gone = Buffer<K>::from_host(backends[b], gone);
    paged->build(d_keys.data(), nullptr, keys.size());
    paged->erase(d_gone.data(), gone.size());
    has[b] = ask(backends[b], *paged, queries).has;
    EXPECT_EQ(paged->paged_stats().pages,
              (keys.size() + kTestPageCapacity - 1) / kTestPageCapacity);
  }
  EXPECT_EQ(has[0], has[1]);
}

TEST(GpuPagedTable, CudaEqualsCpu) {
  REQUIRE_CUDA();
  check_cuda_equals_cpu<Key>();
  check_cuda_equals_cpu<Key64>();
}

/// Each thread probes one query through the whole table's ref.
template <class K>
__global__ void find_through_ref(BasicPagedRef<K> table, const K* q, std::uint32_t n, Value* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = table.find(q[i]);
}

template <class K>
void check_kernels_probe_resident_pages() {
  const auto keys = random_keys<K>(100000, 100000, 6);
  auto paged      = make_paged<K>(kCuda, paged_options<K>(kResidentSlots));
  auto d_keys     = Buffer<K>::from_host(kCuda, keys);
  paged->build(d_keys.data(), nullptr, keys.size());
  auto out = Buffer<Value>::from_host(kCuda, std::vector<Value>(keys.size(), 0xDEADBEEFu));
  find_through_ref<K><<<(keys.size() + 255) / 256, 256>>>(
      paged->ref(), d_keys.data(), static_cast<std::uint32_t>(keys.size()), out.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto found  = out.to_host();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < keys.size(); ++i)
    wrong += found[i] != i;
  EXPECT_EQ(wrong, 0u);
}

TEST(GpuPagedTable, KernelsProbeResidentPages) {
  REQUIRE_CUDA();
  check_kernels_probe_resident_pages<Key>();
  check_kernels_probe_resident_pages<Key64>();
}

TEST(GpuPagedTable, BudgetBelowOnePageIsAClearError) {
  REQUIRE_CUDA();
  BuildOptions o;
  o.page_budget = std::size_t{4} << 20;
  EXPECT_THROW((void)make_table(TableKind::PagedCuckoo, kCuda, o), InvalidInput);
}

}  // namespace
}  // namespace voxhash::test
