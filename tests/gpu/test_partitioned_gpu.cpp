// Tables and joins partitioned over every CUDA device through NCCL against one CPU table / join of
// the same input (finds, misses, counts, duplicates, rows). Needs at least two devices and NCCL;
// skips saying which is missing otherwise.
#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/communicator.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/join.hpp>
#include <voxhash/partitioned.hpp>

#include <algorithm>
#include <gtest/gtest.h>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace voxhash {
namespace {

std::vector<Key> random_keys(std::size_t n, std::size_t distinct, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Key> pool(distinct);
  for (Key& k : pool)
    k = static_cast<Key>(rng() % 0xFFFFFFF0u);
  std::vector<Key> keys(n);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = pool[i < distinct ? i : rng() % distinct];
  std::shuffle(keys.begin(), keys.end(), rng);
  return keys;
}

class PartitionedGpuTest : public testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device: " << cuda_unavailable_reason();
    if (!nccl_available()) GTEST_SKIP() << nccl_unavailable_reason();
    m_gpus = cuda_device_count();
    if (m_gpus < 2) {
      GTEST_SKIP() << "needs at least 2 CUDA devices for NCCL partitions; " << m_gpus << " present";
    }
    m_comm = make_communicator(Backend::Cuda, m_gpus);
  }

  /// host[begin, begin + n) of each rank's even share, copied to that rank's device.
  template <class T>
  std::vector<Buffer<T>> shards(const std::vector<T>& host) {
    std::vector<Buffer<T>> out;
    const std::size_t share = (host.size() + m_gpus - 1) / m_gpus;
    for (int r = 0; r < m_gpus; ++r) {
      m_comm->activate(r);
      const std::size_t begin = std::min(host.size(), share * r);
      const std::size_t n     = std::min(share, host.size() - begin);
      out.push_back(Buffer<T>::from_host(Backend::Cuda, {host.data() + begin, n}));
    }
    return out;
  }

  template <class T>
  std::vector<T> gather(const std::vector<Buffer<T>>& parts) {
    std::vector<T> all;
    for (const Buffer<T>& b : parts) {
      const std::vector<T> h = b.to_host();
      all.insert(all.end(), h.begin(), h.end());
    }
    return all;
  }

  int m_gpus = 0;
  std::unique_ptr<Communicator> m_comm;
};

TEST_F(PartitionedGpuTest, EveryKindMatchesOneCpuTable) {
  const std::vector<Key> keys   = random_keys(std::size_t{1} << 21, std::size_t{1} << 19, 11);
  std::vector<Key> queries      = keys;
  const std::vector<Key> misses = random_keys(std::size_t{1} << 20, std::size_t{1} << 20, 12);
  queries.insert(queries.end(), misses.begin(), misses.end());
  for (const TableKind kind : kTableKinds) {
    SCOPED_TRACE(std::string(to_string(kind)));
    auto one = make_table(kind, Backend::Cpu);
    one->build(keys.data(), nullptr, keys.size());
    std::vector<std::uint32_t> counts(queries.size());
    one->count_async(queries.data(), queries.size(), counts.data());

    auto table     = make_partitioned_table(kind, *m_comm);
    auto key_parts = shards(keys);
    std::vector<KeyShard> build;
    for (const auto& b : key_parts)
      build.push_back({b.data(), nullptr, b.size()});
    EXPECT_EQ(table->build(build).unique_keys, one->stats().unique_keys);

    auto query_parts = shards(queries);
    std::vector<Buffer<Value>> found;
    std::vector<Buffer<std::uint32_t>> counted;
    std::vector<LookupShard<Value>> finds;
    std::vector<LookupShard<std::uint32_t>> counts_shards;
    for (int r = 0; r < m_gpus; ++r) {
      m_comm->activate(r);
      const std::size_t n = query_parts[r].size();
      found.emplace_back(Backend::Cuda, n);
      counted.emplace_back(Backend::Cuda, n);
      found.back().fill_bytes_async(0x5a);
      finds.push_back({query_parts[r].data(), n, found.back().data()});
      counts_shards.push_back({query_parts[r].data(), n, counted.back().data()});
    }
    table->find(finds);
    table->count(counts_shards);
    const std::vector<Value> got        = gather(found);
    const std::vector<std::uint32_t> nc = gather(counted);
    ASSERT_EQ(got.size(), queries.size());
    EXPECT_EQ(nc, counts);
    for (std::size_t i = 0; i < queries.size(); ++i) {
      if (counts[i] == 0) {
        ASSERT_EQ(got[i], kNotFound) << i;
      } else {
        ASSERT_LT(got[i], keys.size()) << i;
        ASSERT_EQ(keys[got[i]], queries[i]) << i;
      }
    }
    EXPECT_GT(table->last_exchange().bytes_crossing, 0u);
  }
}

TEST_F(PartitionedGpuTest, InnerJoinMatchesOneCpuJoin) {
  const std::vector<Key> left  = random_keys(std::size_t{1} << 20, std::size_t{1} << 18, 13);
  const std::vector<Key> right = random_keys(std::size_t{1} << 19, std::size_t{1} << 18, 13);
  const JoinResult one         = join(
      Backend::Cpu, {left.data(), nullptr, left.size()}, {right.data(), nullptr, right.size()});
  auto l = shards(left);
  auto r = shards(right);
  std::vector<JoinInput> li, ri;
  for (int g = 0; g < m_gpus; ++g) {
    li.push_back({l[g].data(), nullptr, l[g].size()});
    ri.push_back({r[g].data(), nullptr, r[g].size()});
  }
  const PartitionedJoinResult result = partitioned_join(*m_comm, li, ri);
  EXPECT_EQ(result.rows, one.rows);
  std::vector<std::pair<Value, Value>> expected, got;
  const auto el = one.left.to_host(), er = one.right.to_host();
  for (std::size_t i = 0; i < one.rows; ++i)
    expected.emplace_back(el[i], er[i]);
  for (const JoinResult& part : result.parts) {
    const auto pl = part.left.to_host(), pr = part.right.to_host();
    for (std::size_t i = 0; i < part.rows; ++i)
      got.emplace_back(pl[i], pr[i]);
  }
  std::sort(expected.begin(), expected.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, expected);
}

}  // namespace
}  // namespace voxhash
