// 64-bit-key tables on the CPU backend (label cpu): every frame algorithm (cuckoo with 16-byte
// slots, HashGraph V1 / V2 with 16-byte edges, bucketed cuckoo) against std::unordered_map with
// keys above 2^32 and keys built to collide under a 32-bit hash, the 64-bit sentinel rejected,
// 0xFFFFFFFF accepted as an ordinary key, multivalue builds, both HashGraph probes, the estimates.
#include "common/table_checks.hpp"

#include <voxhash/bucketed_cuckoo_table.hpp>
#include <voxhash/cuckoo_table.hpp>
#include <voxhash/error.hpp>

namespace voxhash::test {
namespace {

constexpr Backend kCpu = Backend::Cpu;

class AllTables64 : public ::testing::TestWithParam<TableKind> {};
INSTANTIATE_TEST_SUITE_P(Kinds, AllTables64, ::testing::ValuesIn(kAllKinds), [](const auto& info) {
  std::string s(to_string(info.param));
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
});

TEST_P(AllTables64, RandomKeysAbove2To32) {
  check_table<Key64>(kCpu, GetParam(), random_keys<Key64>(1 << 17, 1 << 17, 1));
}

TEST_P(AllTables64, DuplicatesMultiplicity4) {
  check_table<Key64>(kCpu, GetParam(), random_keys<Key64>(100000, 25000, 2));
}

TEST_P(AllTables64, VoxelKeysCongruentModuloThePrime) {
  check_table<Key64>(kCpu, GetParam(), structured_keys64(1 << 16, 3));
}

TEST_P(AllTables64, EdgeKeys) {
  // 0xFFFFFFFF is the 32-bit sentinel but an ordinary 64-bit key; so are keys next to the 64-bit
  // sentinel and keys equal in their low 32 bits.
  std::vector<Key64> keys{0, 0xFFFFFFFFull, 0x1FFFFFFFFull, kEmptyKeyOf<Key64> - 1};
  for (Key64 i = 1; i <= 2000; ++i)
    keys.push_back((i << 32) | 0x1234u);
  check_table<Key64>(kCpu, GetParam(), keys);
  check_table<Key64>(kCpu, GetParam(), std::vector<Key64>(3000, Key64{1} << 40));
}

TEST_P(AllTables64, SentinelKeyRejectedAndNothingLost) {
  auto keys        = random_keys<Key64>(1000, 1000, 6);
  keys[500]        = kEmptyKeyOf<Key64>;
  const auto input = keys;
  auto table       = make_table64(GetParam(), kCpu);
  try {
    table->build(keys.data(), nullptr, keys.size());
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("0xFFFFFFFFFFFFFFFF"), std::string::npos) << e.what();
  }
  EXPECT_EQ(keys, input);
  EXPECT_EQ(table->unique_count(), 0u);
  keys[500] = 0xFFFFFFFFull;
  table->build(keys.data(), nullptr, keys.size());
  std::uint8_t has = 0;
  const Key64 q    = 0xFFFFFFFFull;
  table->contains_async(&q, 1, &has);
  EXPECT_EQ(has, 1);
}

TEST_P(AllTables64, CallerValuesAreStored) {
  const auto keys = random_keys<Key64>(10000, 10000, 5);
  std::vector<Value> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    values[i] = static_cast<Value>(keys[i] >> 33) ^ 0x5A5A5A5Au;
  auto table = make_table<Key64>(GetParam(), kCpu);
  table->build(keys.data(), values.data(), keys.size());
  std::vector<Value> out(keys.size(), 0);
  table->find_async(keys.data(), keys.size(), out.data());
  EXPECT_EQ(out, values);
}

TEST(Tables64, MultivalueCuckooAndBucketed) {
  BuildOptions options;
  options.multivalue = true;
  const auto keys    = random_keys<Key64>(60000, 15000, 7);
  for (const TableKind kind : {TableKind::Cuckoo, TableKind::BucketedCuckoo}) {
    check_table<Key64>(kCpu, kind, keys, options);
  }
  auto table = make_table64(TableKind::Cuckoo, kCpu, options);
  table->build(keys.data(), nullptr, keys.size());
  const CuckooMultiRef64 multi = dynamic_cast<const CuckooTable64&>(*table).multi_ref();
  const BasicReference<Key64> ref(keys);
  std::size_t wrong = 0;
  std::vector<Value> values(64);
  for (const auto& [key, positions] : ref.indices) {
    const std::uint32_t n = multi.find_all(key, values.data());
    wrong += std::vector<Value>(values.begin(), values.begin() + n) != positions;
  }
  EXPECT_EQ(wrong, 0u) << "every value of every key, in input order";
}

TEST(Tables64, HashGraphProbeMethodsAgree) {
  for (const TableKind kind : {TableKind::HashGraphV1, TableKind::HashGraphV2}) {
    check_probe_methods_agree<Key64>(kCpu, kind, random_keys<Key64>(40000, 10000, 8));
  }
}

TEST(Tables64, HashGraphInvariants) {
  for (const TableKind kind : {TableKind::HashGraphV1, TableKind::HashGraphV2}) {
    for (const double load : {1.0, 0.05})
      check_hash_graph_invariants<Key64>(kCpu, kind, random_keys<Key64>(20000, 5000, 9), load);
  }
}

TEST(Tables64, RefsSeeTheSameTable) {
  const auto keys = structured_keys64(5000, 9);
  auto cuckoo     = make_table64(TableKind::Cuckoo, kCpu);
  auto bucketed   = make_table64(TableKind::BucketedCuckoo, kCpu);
  auto graph      = make_table64(TableKind::HashGraphV2, kCpu);
  for (auto* t : {cuckoo.get(), bucketed.get(), graph.get()})
    t->build(keys.data(), nullptr, keys.size());
  const CuckooRef64 c         = dynamic_cast<const CuckooTable64&>(*cuckoo).ref();
  const BucketedCuckooRef64 b = dynamic_cast<const BucketedCuckooTable64&>(*bucketed).ref();
  const HashGraphRef64 g      = dynamic_cast<const HashGraph64&>(*graph).ref();
  std::size_t wrong           = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    wrong += c.find(keys[i]) != i || b.find(keys[i]) != i || g.find(keys[i]) != i;
    wrong += c.contains(keys[i] ^ (Key64{1} << 62)) || b.contains(keys[i] ^ (Key64{1} << 62)) ||
             g.contains(keys[i] ^ (Key64{1} << 62));
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(Tables64, PagedTableTakesSixtyFourBitKeys) {
  // The paged table's own 64-bit cases are in test_paged.cpp.
  BuildOptions o;
  o.page_capacity = 1024;
  EXPECT_EQ(make_table64(TableKind::PagedCuckoo, kCpu, o)->kind(), TableKind::PagedCuckoo);
  EXPECT_GT(estimate_bytes(TableKind::PagedCuckoo, 100, {}, 8),
            estimate_bytes(TableKind::PagedCuckoo, 100, {}, 4));
}

TEST(Tables64, EstimatesCountWideSlots) {
  for (const TableKind kind : kAllKinds) {
    const std::size_t narrow = estimate_bytes(kind, 1 << 20);
    EXPECT_EQ(estimate_bytes(kind, 1 << 20, {}, 4), narrow) << to_string(kind);
    EXPECT_GT(estimate_bytes(kind, 1 << 20, {}, 8), narrow + (std::size_t{8} << 20))
        << to_string(kind);
  }
}

}  // namespace
}  // namespace voxhash::test
