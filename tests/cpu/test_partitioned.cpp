// Tables and joins partitioned over G = 1..4 emulated partitions (the CPU backend's communicator)
// against one table / one join of the same input: finds, misses, duplicates, counts, sentinel
// keys, empty inputs; the partition hash's balance and the count matrix's offsets.
#include <voxhash/communicator.hpp>
#include <voxhash/detail/partition.hpp>
#include <voxhash/error.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/join.hpp>
#include <voxhash/partitioned.hpp>

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace voxhash {
namespace {

constexpr int kMaxParts = 4;

/// n keys drawn from `distinct` values (duplicates when distinct < n), never kEmptyKey.
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

/// Splits [0, n) into `parts` uneven runs (the first ones shorter), as the ranks' shards.
std::vector<std::pair<std::size_t, std::size_t>> split(std::size_t n, int parts) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  std::size_t begin = 0;
  for (int p = 0; p < parts; ++p) {
    const std::size_t end = p + 1 == parts ? n : std::min(n, begin + n / (2 * parts) * (p + 1));
    runs.emplace_back(begin, end - begin);
    begin = end;
  }
  return runs;
}

std::vector<KeyShard> key_shards(const std::vector<Key>& keys,
                                 const std::vector<Value>* values,
                                 int parts) {
  std::vector<KeyShard> shards;
  for (const auto& [begin, n] : split(keys.size(), parts))
    shards.push_back({keys.data() + begin, values ? values->data() + begin : nullptr, n});
  return shards;
}

template <class T>
std::vector<LookupShard<T>> lookup_shards(const std::vector<Key>& queries,
                                          std::vector<T>& out,
                                          int parts) {
  std::vector<LookupShard<T>> shards;
  for (const auto& [begin, n] : split(queries.size(), parts))
    shards.push_back({queries.data() + begin, n, out.data() + begin});
  return shards;
}

/// The build keys, then as many keys that are (almost surely) not in them.
std::vector<Key> hits_and_misses(const std::vector<Key>& keys) {
  std::vector<Key> queries    = keys;
  const std::vector<Key> more = random_keys(keys.size(), keys.size(), 99);
  queries.insert(queries.end(), more.begin(), more.end());
  queries.push_back(kEmptyKey);
  return queries;
}

struct Case {
  TableKind kind;
  int parts;
};

std::string case_name(const testing::TestParamInfo<Case>& info) {
  std::string name =
      std::string(to_string(info.param.kind)) + "_G" + std::to_string(info.param.parts);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const TableKind kind : kTableKinds) {
    for (int g = 1; g <= kMaxParts; ++g)
      cases.push_back({kind, g});
  }
  return cases;
}

class PartitionedTableTest : public testing::TestWithParam<Case> {
 protected:
  void SetUp() override { m_comm = make_emulated_communicator(GetParam().parts); }

  std::unique_ptr<PartitionedTable> partitioned(const BuildOptions& options = {}) {
    return make_partitioned_table(GetParam().kind, *m_comm, options);
  }
  std::unique_ptr<HashTable> single(const BuildOptions& options = {}) {
    return make_table(GetParam().kind, Backend::Cpu, options);
  }

  std::unique_ptr<Communicator> m_comm;
};

TEST_P(PartitionedTableTest, UniqueKeysFindAndMissLikeOneTable) {
  const int g                 = GetParam().parts;
  const std::vector<Key> keys = random_keys(20000, 20000, 1);
  std::vector<Value> values(keys.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<Value>(3 * i + 7);
  auto table             = partitioned();
  const BuildStats stats = table->build(key_shards(keys, &values, g));
  auto one               = single();
  one->build(keys.data(), values.data(), keys.size());
  EXPECT_EQ(stats.keys, keys.size());
  EXPECT_EQ(stats.unique_keys, one->stats().unique_keys);

  const std::vector<Key> queries = hits_and_misses(keys);
  std::vector<Value> expected(queries.size()), got(queries.size(), 0x12345678u);
  one->find_async(queries.data(), queries.size(), expected.data());
  table->find(lookup_shards(queries, got, g));
  EXPECT_EQ(got, expected);

  std::vector<std::uint8_t> c_expected(queries.size()), c_got(queries.size(), 7);
  one->contains_async(queries.data(), queries.size(), c_expected.data());
  table->contains(lookup_shards(queries, c_got, g));
  EXPECT_EQ(c_got, c_expected);

  const ExchangeStats& x = table->last_exchange();
  EXPECT_GE(x.exchange_share(), 0.0);
  EXPECT_LE(x.exchange_share(), 1.0);
  if (g == 1) {
    EXPECT_EQ(x.elements_crossing, 0u);
  } else {
    EXPECT_GT(x.elements_crossing, 0u);
  }
}

TEST_P(PartitionedTableTest, DuplicatesCountAndFindOneOfTheValues) {
  const int g                 = GetParam().parts;
  const std::vector<Key> keys = random_keys(30000, 3000, 2);
  auto table                  = partitioned();
  table->build(key_shards(keys, nullptr, g));
  auto one = single();
  one->build(keys.data(), nullptr, keys.size());
  EXPECT_EQ(table->stats().unique_keys, one->stats().unique_keys);

  const std::vector<Key> queries = hits_and_misses(keys);
  std::vector<std::uint32_t> n_expected(queries.size()), n_got(queries.size(), 77);
  one->count_async(queries.data(), queries.size(), n_expected.data());
  table->count(lookup_shards(queries, n_got, g));
  EXPECT_EQ(n_got, n_expected);

  // Null values: a key's value is its index in the shards concatenated, i.e. in `keys`.
  std::vector<Value> got(queries.size());
  table->find(lookup_shards(queries, got, g));
  for (std::size_t i = 0; i < queries.size(); ++i) {
    if (n_expected[i] == 0) {
      EXPECT_EQ(got[i], kNotFound) << i;
    } else {
      ASSERT_LT(got[i], keys.size()) << i;
      EXPECT_EQ(keys[got[i]], queries[i]) << i;
    }
  }
}

TEST_P(PartitionedTableTest, RejectsSentinelKeysAndIsEmptyAfterwards) {
  const int g           = GetParam().parts;
  std::vector<Key> keys = random_keys(5000, 5000, 3);
  auto table            = partitioned();
  table->build(key_shards(keys, nullptr, g));
  keys[keys.size() - 10] = kEmptyKey;
  EXPECT_THROW(table->build(key_shards(keys, nullptr, g)), InvalidInput);
  std::vector<std::uint8_t> found(keys.size(), 1);
  table->contains(lookup_shards(keys, found, g));
  EXPECT_EQ(std::count(found.begin(), found.end(), 1), 0);
  EXPECT_EQ(table->stats().keys, 0u);
}

TEST_P(PartitionedTableTest, EmptyInputsAndEmptyShards) {
  const int g = GetParam().parts;
  auto table  = partitioned();
  const std::vector<Key> none;
  table->build(key_shards(none, nullptr, g));
  EXPECT_EQ(table->stats().keys, 0u);
  const std::vector<Key> queries = random_keys(100, 100, 4);
  std::vector<Value> got(queries.size(), 0);
  table->find(lookup_shards(queries, got, g));
  EXPECT_EQ(std::count(got.begin(), got.end(), kNotFound), 100);

  // Keys in the last shard only, no queries on some ranks.
  const std::vector<Key> keys = random_keys(1000, 1000, 5);
  std::vector<KeyShard> shards(static_cast<std::size_t>(g));
  shards.back() = {keys.data(), nullptr, keys.size()};
  table->build(shards);
  std::vector<Value> found(keys.size());
  std::vector<LookupShard<Value>> lookups(static_cast<std::size_t>(g));
  lookups.front() = {keys.data(), keys.size(), found.data()};
  table->find(lookups);
  for (std::size_t i = 0; i < keys.size(); ++i)
    EXPECT_EQ(found[i], i);
}

TEST_P(PartitionedTableTest, WrongShardCountIsInvalidInput) {
  auto table = partitioned();
  const std::vector<KeyShard> shards(static_cast<std::size_t>(GetParam().parts + 1));
  EXPECT_THROW(table->build(shards), InvalidInput);
}

INSTANTIATE_TEST_SUITE_P(Kinds, PartitionedTableTest, testing::ValuesIn(all_cases()), case_name);

TEST(PartitionedTable, MultivalueCuckooFindsTheFirstValueLikeOneTable) {
  BuildOptions options;
  options.multivalue             = true;
  const std::vector<Key> keys    = random_keys(20000, 2500, 6);
  const std::vector<Key> queries = hits_and_misses(keys);
  auto one                       = make_table(TableKind::Cuckoo, Backend::Cpu, options);
  one->build(keys.data(), nullptr, keys.size());
  std::vector<Value> expected(queries.size());
  one->find_async(queries.data(), queries.size(), expected.data());
  for (int g = 1; g <= kMaxParts; ++g) {
    auto comm  = make_emulated_communicator(g);
    auto table = make_partitioned_table(TableKind::Cuckoo, *comm, options);
    table->build(key_shards(keys, nullptr, g));
    std::vector<Value> got(queries.size());
    table->find(lookup_shards(queries, got, g));
    EXPECT_EQ(got, expected) << g << " partitions";
  }
}

TEST(PartitionedTable, PagedTableIsRefused) {
  auto comm = make_emulated_communicator(2);
  EXPECT_THROW((void)make_partitioned_table(TableKind::PagedCuckoo, *comm), InvalidInput);
}

/// Rows as sorted (left, right) pairs, whatever the partitions' order.
std::vector<std::pair<Value, Value>> sorted_rows(const std::vector<const JoinResult*>& results) {
  std::vector<std::pair<Value, Value>> rows;
  for (const JoinResult* r : results) {
    const std::vector<Value> left  = r->left.to_host();
    const std::vector<Value> right = r->right.to_host();
    for (std::size_t i = 0; i < r->rows; ++i)
      rows.emplace_back(left[i], right.empty() ? kNotFound : right[i]);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST(PartitionedJoin, EveryKindAndPartitionCountGivesOneJoinsRows) {
  const std::vector<Key> left_keys = random_keys(6000, 1500, 7);
  std::vector<Key> right_keys      = random_keys(4000, 1000, 8);
  std::copy(left_keys.begin(), left_keys.begin() + 500, right_keys.begin());
  for (const JoinKind kind : {JoinKind::Inner, JoinKind::Left, JoinKind::Semi, JoinKind::Anti}) {
    JoinOptions options;
    options.kind         = kind;
    const JoinResult one = join(Backend::Cpu,
                                {left_keys.data(), nullptr, left_keys.size()},
                                {right_keys.data(), nullptr, right_keys.size()},
                                options);
    const auto expected  = sorted_rows({&one});
    for (int g = 1; g <= kMaxParts; ++g) {
      auto comm = make_emulated_communicator(g);
      std::vector<JoinInput> left, right;
      for (const auto& [begin, n] : split(left_keys.size(), g))
        left.push_back({left_keys.data() + begin, nullptr, n});
      for (const auto& [begin, n] : split(right_keys.size(), g))
        right.push_back({right_keys.data() + begin, nullptr, n});
      const PartitionedJoinResult result = partitioned_join(*comm, left, right, options);
      std::vector<const JoinResult*> parts;
      for (const JoinResult& p : result.parts)
        parts.push_back(&p);
      EXPECT_EQ(result.rows, one.rows) << to_string(kind) << ", " << g << " partitions";
      EXPECT_EQ(sorted_rows(parts), expected) << to_string(kind) << ", " << g << " partitions";
    }
  }
}

TEST(Partition, HashSpreadsKeysEvenlyAndDiffersFromTheTablesHashes) {
  for (const std::uint32_t parts : {2u, 3u, 8u, 64u}) {
    std::vector<std::size_t> per(parts);
    for (std::uint32_t k = 0; k < 1u << 20; ++k)
      ++per[detail::partition_of(k, parts)];
    const double mean = static_cast<double>(1u << 20) / parts;
    for (const std::size_t c : per)
      EXPECT_NEAR(static_cast<double>(c), mean, 0.02 * mean) << parts << " partitions";
  }
  // Sequential keys (voxel keys are close together) land in both halves of two partitions.
  std::size_t same = 0;
  for (std::uint32_t k = 0; k < 1000; ++k)
    same += detail::partition_of(k, 2) == detail::partition_of(k + 1, 2);
  EXPECT_GT(same, 350u);
  EXPECT_LT(same, 650u);
  EXPECT_NE(detail::partition_hash(12345), detail::murmur_mix(12345, detail::kPartitionSeed));
}

TEST(Partition, CountMatrixOffsetsAndTranspose) {
  CountMatrix m(3);
  // from 0: 1 2 3; from 1: 4 5 6; from 2: 7 8 9
  for (int f = 0; f < 3; ++f) {
    for (int t = 0; t < 3; ++t)
      m.at(f, t) = static_cast<std::size_t>(3 * f + t + 1);
  }
  EXPECT_EQ(m.sent_by(1), 15u);
  EXPECT_EQ(m.received_by(1), 15u);
  EXPECT_EQ(m.send_offset(1, 2), 9u);
  EXPECT_EQ(m.receive_offset(2, 2), 3u + 6u);
  EXPECT_EQ(m.crossing(), 45u - 15u);
  EXPECT_EQ(m.transposed().at(2, 0), 3u);
}

TEST(Partition, CommunicatorChoice) {
  EXPECT_THROW((void)make_emulated_communicator(0), InvalidInput);
  auto comm = make_communicator(Backend::Cpu, 3);
  EXPECT_EQ(comm->size(), 3);
  EXPECT_EQ(comm->local_ranks().size(), 3u);
  EXPECT_EQ(comm->backend(), Backend::Cpu);
  if (!nccl_available()) {
    EXPECT_FALSE(nccl_unavailable_reason().empty());
    EXPECT_THROW((void)make_nccl_communicator(std::vector<int>{0, 1}), InvalidInput);
  }
}

}  // namespace
}  // namespace voxhash
