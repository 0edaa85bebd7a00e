// Hash-table tests on the CPU backend (label cpu): cuckoo, HashGraph V1/V2 and bucketed cuckoo
// against std::unordered_map on seeded inputs, edge cases, bad input, forced cuckoo failures, the
// cuckoo table's stash, the slot tables' changes after a build, and the bucketed table's
// early-exit invariant.
#include "common/slot_change_checks.hpp"
#include "common/table_checks.hpp"

#include <voxhash/bucketed_cuckoo_table.hpp>
#include <voxhash/cuckoo_table.hpp>
#include <voxhash/error.hpp>

#include <numeric>
#include <utility>

namespace voxhash::test {
namespace {

constexpr Backend kCpu = Backend::Cpu;

class AllTables : public ::testing::TestWithParam<TableKind> {};
INSTANTIATE_TEST_SUITE_P(Kinds, AllTables, ::testing::ValuesIn(kAllKinds), [](const auto& info) {
  std::string s(to_string(info.param));
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
});

TEST_P(AllTables, UniqueKeys2To20) {
  check_table(kCpu, GetParam(), random_keys(1 << 20, 1 << 20, 1));
}

TEST_P(AllTables, DuplicatesMultiplicity1) {
  check_table(kCpu, GetParam(), random_keys(200000, 200000, 2));
}
TEST_P(AllTables, DuplicatesMultiplicity4) {
  check_table(kCpu, GetParam(), random_keys(200000, 50000, 3));
}
TEST_P(AllTables, DuplicatesMultiplicity32) {
  check_table(kCpu, GetParam(), random_keys(320000, 10000, 4));
}

TEST_P(AllTables, EmptyInput) {
  auto table             = make_table(GetParam(), kCpu);
  const BuildStats stats = table->build(nullptr, nullptr, 0);
  EXPECT_EQ(stats.keys, 0u);
  EXPECT_EQ(table->unique_count(), 0u);
  const std::vector<Key> q{1, 2, 3};
  std::vector<Value> out(3, 0);
  table->find_async(q.data(), q.size(), out.data());
  EXPECT_EQ(out, std::vector<Value>(3, kNotFound));
}

TEST_P(AllTables, OneAndTwoKeys) {
  check_table(kCpu, GetParam(), {42});
  check_table(kCpu, GetParam(), {7, 9});
  check_table(kCpu, GetParam(), {7, 7});
}

TEST_P(AllTables, AllKeysEqual) {
  check_table(kCpu, GetParam(), std::vector<Key>(5000, 123456u));
}

TEST_P(AllTables, KeysAtTopOfRange) {
  std::vector<Key> keys;
  for (Key k = 0xFFFFFFFEu; k > 0xFFFFFFFEu - 2000; --k)
    keys.push_back(k);
  keys.push_back(0);
  keys.push_back(0xFFFFFFFEu);
  check_table(kCpu, GetParam(), keys);
}

TEST_P(AllTables, CallerValuesAreStored) {
  const auto keys = random_keys(10000, 10000, 5);
  std::vector<Value> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    values[i] = keys[i] ^ 0x5A5A5A5Au;
  auto table = make_table(GetParam(), kCpu);
  table->build(keys.data(), values.data(), keys.size());
  std::vector<Value> out(keys.size(), 0);
  table->find_async(keys.data(), keys.size(), out.data());
  EXPECT_EQ(out, values);
}

TEST_P(AllTables, SentinelKeyRejectedAndNothingLost) {
  auto keys        = random_keys(1000, 1000, 6);
  keys[500]        = kEmptyKey;
  const auto input = keys;
  auto table       = make_table(GetParam(), kCpu);
  try {
    table->build(keys.data(), nullptr, keys.size());
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("0xFFFFFFFF"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sentinel"), std::string::npos) << e.what();
  }
  EXPECT_EQ(keys, input);
  EXPECT_EQ(table->unique_count(), 0u);
  // The table is usable again afterwards.
  keys[500] = 17;
  table->build(keys.data(), nullptr, keys.size());
  std::uint8_t has = 0;
  const Key q      = 17;
  table->contains_async(&q, 1, &has);
  EXPECT_EQ(has, 1);
}

/// A table too small for chains of two exchanges fails max_attempts times with an error naming
/// the attempts and the keys, leaves the input as it was and the table empty.
void expect_too_small_fails(TableKind kind) {
  BuildOptions options;
  options.cuckoo_space = 1.0;  // a full table with chains of at most 2 exchanges cannot be built
  options.max_chain    = 2;
  options.max_attempts = 3;
  auto table           = make_table(kind, kCpu, options);
  auto keys            = random_keys(20000, 20000, 7);
  const auto input     = keys;
  try {
    table->build(keys.data(), nullptr, keys.size());
    FAIL() << "expected BuildFailed";
  } catch (const BuildFailed& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("failed 3 times"), std::string::npos) << msg;
    EXPECT_NE(msg.find("20000 keys"), std::string::npos) << msg;
  }
  EXPECT_EQ(keys, input);
  EXPECT_EQ(table->unique_count(), 0u);
  std::uint8_t has = 1;
  table->contains_async(&keys[0], 1, &has);
  EXPECT_EQ(has, 0) << "a failed build leaves an empty table";
}

/// A short chain limit (`max_chain` at `space` slots per key) makes some attempts fail: some seed
/// must need a restart, and that build must end correct. Without a stash: the cuckoo table's
/// stash takes the items such chains leave (StashPlacesWhatWouldRestartTheBuild).
void expect_restart_then_success(TableKind kind, double space, std::uint32_t max_chain) {
  const auto keys = random_keys(50000, 50000, 8);
  bool restarted  = false;
  for (std::uint64_t seed = 1; seed < 40 && !restarted; ++seed) {
    BuildOptions options;
    options.cuckoo_space = space;
    options.max_chain    = max_chain;
    options.max_attempts = 50;
    options.stash_slots  = 0;
    options.seed         = seed;
    auto table           = make_table(kind, kCpu, options);
    const BuildStats s   = table->build(keys.data(), nullptr, keys.size());
    if (s.attempts > 1) {
      restarted = true;
      EXPECT_LE(s.longest_chain, max_chain);
      check_table(kCpu, kind, keys, options);
    }
  }
  EXPECT_TRUE(restarted) << "no seed needed a restart: tighten the chain limit";
}

TEST(CuckooTable, TooSmallFailsWithClearErrorAndNothingLost) {
  expect_too_small_fails(TableKind::Cuckoo);
}

TEST(CuckooTable, RestartsWithFreshConstantsThenSucceeds) {
  // About half of the attempts at this size fail.
  expect_restart_then_success(TableKind::Cuckoo, BuildOptions{}.cuckoo_space, 38);
}

TEST(CuckooTable, DefaultChainLimitIsSevenLgN) {
  auto table         = make_table(TableKind::Cuckoo, kCpu);
  const auto keys    = random_keys(1 << 16, 1 << 16, 9);
  const BuildStats s = table->build(keys.data(), nullptr, keys.size());
  EXPECT_EQ(s.chain_limit, 7u * 16u);
  EXPECT_EQ(s.slots, static_cast<std::size_t>((1 << 16) * 1.25));
  EXPECT_LE(s.longest_chain, s.chain_limit);
  EXPECT_GE(s.attempts, 1);
}

TEST(CuckooTable, LookupsProbeAtMostFourSlotsAndViewMatches) {
  const auto keys = random_keys(100000, 60000, 10);
  auto table      = make_table(TableKind::Cuckoo, kCpu);
  table->build(keys.data(), nullptr, keys.size());
  const CuckooRef view = dynamic_cast<CuckooTable&>(*table).ref();
  for (std::size_t i = 0; i < 1000; ++i) {
    const std::uint32_t slot = view.find_slot(keys[i]);
    ASSERT_NE(slot, kNotFound);
    bool among_four = false;
    for (int f = 0; f < detail::kCuckooFunctions; ++f)
      among_four |= view.location(f, keys[i]) == slot;
    EXPECT_TRUE(among_four);
  }
}

TEST(CuckooTable, CountNeedsUniqueIds) {
  BuildOptions options;
  options.unique_ids = false;
  auto table         = make_table(TableKind::Cuckoo, kCpu, options);
  const std::vector<Key> keys{1, 2, 3};
  table->build(keys.data(), nullptr, keys.size());
  std::uint32_t out = 0;
  EXPECT_THROW(table->count_async(keys.data(), 1, &out), InvalidInput);
  Value v = 0;
  table->find_async(keys.data() + 1, 1, &v);
  EXPECT_EQ(v, 1u);
}

TEST(CuckooTable, StashPlacesWhatWouldRestartTheBuild) {
  check_stash_saves_build<Key>(kCpu);
  check_stash_saves_build<Key64>(kCpu);
}

TEST(SlotTables, EraseInsertOrAssignUpdate) {
  for (const TableKind kind : {TableKind::Cuckoo, TableKind::BucketedCuckoo}) {
    check_slot_changes<Key>(kCpu, kind);
    check_slot_changes<Key64>(kCpu, kind);
  }
}

/// The refs kernels probe through see a change: an erased key is not contained and finds nothing,
/// an assigned one finds its new value.
TEST(SlotTables, RefsSeeErasedAndAssignedKeys) {
  const std::vector<Key> keys{10, 20, 30, 40};
  for (const TableKind kind : {TableKind::Cuckoo, TableKind::BucketedCuckoo}) {
    SCOPED_TRACE(to_string(kind));
    auto table = make_table(kind, kCpu);
    table->build(keys.data(), nullptr, keys.size());
    with_slot_table(*table, [&](auto& t) {
      const Key gone = 20, changed = 30;
      const Value v = 99;
      t.erase(&gone, 1);
      t.insert(&changed, &v, 1);
      const auto ref = t.ref();
      EXPECT_FALSE(ref.contains(gone));
      EXPECT_EQ(ref.find(gone), kNotFound);
      EXPECT_TRUE(ref.contains(changed));
      EXPECT_EQ(ref.find(changed), 99u);
      EXPECT_EQ(ref.find(40), 3u);
      t.insert(&gone, &v, 1);
      EXPECT_EQ(t.ref().find(gone), 99u) << "an erased key comes back with its new value";
    });
  }
}

TEST(BucketedCuckooTable, BuildsAtLoad095) {
  BuildOptions options;
  options.cuckoo_space = 1.0 / 0.95;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    options.seed       = seed;
    const auto keys    = random_keys(200000, 200000, 40 + seed);
    auto table         = make_table(TableKind::BucketedCuckoo, kCpu, options);
    const BuildStats s = table->build(keys.data(), nullptr, keys.size());
    EXPECT_EQ(s.attempts, 1) << "seed " << seed;
    EXPECT_EQ(s.slots, (static_cast<std::size_t>(std::ceil(200000 / 0.95)) + 7) / 8 * 8);
    check_table(kCpu, TableKind::BucketedCuckoo, keys, options);
  }
}

TEST(BucketedCuckooTable, TooSmallFailsWithClearErrorAndNothingLost) {
  expect_too_small_fails(TableKind::BucketedCuckoo);
}

TEST(BucketedCuckooTable, RestartsWithFreshConstantsThenSucceeds) {
  // About half of the attempts at this load and size need more.
  expect_restart_then_success(TableKind::BucketedCuckoo, 1.0 / 0.97, 27);
}

/// Every stored key sits in one of its three buckets, and every bucket before it in probe order
/// is full: the property that lets a lookup stop at the first bucket with a free slot.
TEST(BucketedCuckooTable, EarlyExitInvariantAndProbeCounts) {
  for (const double load : {0.8, 0.95}) {
    SCOPED_TRACE("load " + std::to_string(load));
    BuildOptions options;
    options.cuckoo_space = 1.0 / load;
    const auto keys      = random_keys(300000, 100000, 50);
    auto table           = make_table(TableKind::BucketedCuckoo, kCpu, options);
    table->build(keys.data(), nullptr, keys.size());
    check_bucketed_invariant(kCpu, *table);

    // Unique keys at load 0.8 need ~1.10 buckets per hit and ~1.58 per miss (a sequential
    // simulation of 4M keys); generous bounds, the parallel build's order varies.
    const auto unique = random_keys(400000, 400000, 51);
    auto unique_table = make_table(TableKind::BucketedCuckoo, kCpu, options);
    unique_table->build(unique.data(), nullptr, unique.size());
    check_bucketed_invariant(kCpu, *unique_table);
    const BucketedCuckooRef u = dynamic_cast<BucketedCuckooTable&>(*unique_table).ref();
    const auto misses         = absent_keys(unique, 100000, 52);
    double hit_probes = 0, miss_probes = 0;
    for (std::size_t i = 0; i < 100000; ++i) {
      hit_probes += u.probes(unique[4 * i]);  // spread over the insertion order
      miss_probes += u.probes(misses[i]);
      ASSERT_NE(u.find_slot(unique[4 * i]), kNotFound);
    }
    if (load == 0.8) {
      EXPECT_NEAR(hit_probes / 100000, 1.10, 0.05);
      EXPECT_NEAR(miss_probes / 100000, 1.58, 0.08);
    } else {
      EXPECT_NEAR(hit_probes / 100000, 1.34, 0.08);
      EXPECT_NEAR(miss_probes / 100000, 2.45, 0.12);
    }
  }
}

TEST(BucketedCuckooTable, ViewMatchesTheTable) {
  const auto keys = random_keys(100000, 60000, 10);
  auto table      = make_table(TableKind::BucketedCuckoo, kCpu);
  table->build(keys.data(), nullptr, keys.size());
  const BucketedCuckooRef view = dynamic_cast<BucketedCuckooTable&>(*table).ref();
  std::vector<std::uint32_t> ids(keys.size());
  table->find_id_async(keys.data(), keys.size(), ids.data());
  for (std::size_t i = 0; i < keys.size(); i += 7) {
    ASSERT_EQ(view.find_id(keys[i]), ids[i]);
    Key batch[3]              = {keys[i], keys[(i + 1) % keys.size()], kEmptyKey};
    std::uint32_t batch_id[3] = {};
    view.find_id_batch<3>(batch, batch_id);
    EXPECT_EQ(batch_id[0], ids[i]);
    EXPECT_EQ(batch_id[1], ids[(i + 1) % keys.size()]);
    EXPECT_EQ(batch_id[2], kNotFound);
  }
}

TEST(BucketedCuckooTable, CountNeedsUniqueIds) {
  BuildOptions options;
  options.unique_ids = false;
  auto table         = make_table(TableKind::BucketedCuckoo, kCpu, options);
  const std::vector<Key> keys{1, 2, 3};
  table->build(keys.data(), nullptr, keys.size());
  std::uint32_t out = 0;
  EXPECT_THROW(table->count_async(keys.data(), 1, &out), InvalidInput);
  EXPECT_THROW(table->find_id_async(keys.data(), 1, &out), InvalidInput);
  Value v = 0;
  table->find_async(keys.data() + 1, 1, &v);
  EXPECT_EQ(v, 1u);
  EXPECT_EQ(table->stats().bytes, table->stats().slots * sizeof(CuckooEntry));
}

TEST(HashGraph, OffsetAndBucketInvariants) {
  const auto unique = random_keys(100000, 100000, 11);
  const auto dups   = random_keys(100000, 3000, 12);
  for (TableKind kind : {TableKind::HashGraphV1, TableKind::HashGraphV2}) {
    for (double load : {0.25, 1.0, 2.0}) {
      check_hash_graph_invariants(kCpu, kind, unique, load);
      check_hash_graph_invariants(kCpu, kind, dups, load);
    }
    check_hash_graph_invariants(kCpu, kind, std::vector<Key>(1000, 5u), 1.0);
    check_hash_graph_invariants(kCpu, kind, std::vector<Key>(1000, 5u), 0.01);
    check_hash_graph_invariants(kCpu, kind, std::vector<Key>{}, 1.0);
    check_hash_graph_invariants(kCpu, kind, std::vector<Key>{7}, 0.02);
    check_hash_graph_invariants(kCpu, kind, random_keys(3000, 40, 18), 0.03);
  }
}

TEST(HashGraph, ProbeStandardEqualsProbeIntersect) {
  for (TableKind kind : {TableKind::HashGraphV1, TableKind::HashGraphV2}) {
    check_probe_methods_agree(kCpu, kind, random_keys(50000, 50000, 13));
    check_probe_methods_agree(kCpu, kind, random_keys(50000, 2000, 14));
  }
}

TEST(HashGraph, V1AndV2BuildTheSameBuckets) {
  const auto keys = random_keys(30000, 9000, 15);
  auto v1         = make_table(TableKind::HashGraphV1, kCpu);
  auto v2         = make_table(TableKind::HashGraphV2, kCpu);
  v1->build(keys.data(), nullptr, keys.size());
  v2->build(keys.data(), nullptr, keys.size());
  const auto g1 = dynamic_cast<HashGraph&>(*v1).ref();
  const auto g2 = dynamic_cast<HashGraph&>(*v2).ref();
  ASSERT_EQ(g1.range, g2.range);
  ASSERT_EQ(g1.seed, g2.seed) << "same seed option, same hash";
  EXPECT_TRUE(std::equal(g1.buckets, g1.buckets + g1.range, g2.buckets, [](auto a, auto b) {
    return a.begin == b.begin && a.end == b.end;
  }));
  // V2 orders a bucket by the keys' hashes, then input order (a stable sort of the hashes); V1's
  // order is the atomics' order.
  const auto order = [&](const HashGraphEdge& e) {
    return std::pair(detail::murmur_mix(e.key, g2.seed), e.value);
  };
  for (std::uint32_t v = 0; v < g2.range; ++v) {
    for (std::uint32_t e = g2.buckets[v].begin + 1; e < g2.buckets[v].end; ++e) {
      ASSERT_LT(order(g2.edges[e - 1]), order(g2.edges[e]));
    }
  }
}

TEST(HashGraph, MurmurUnmixInvertsTheMix) {
  std::mt19937 rng(19);
  std::vector<std::uint32_t> keys = {0u, 1u, 2u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, kEmptyKey};
  for (int i = 0; i < 100000; ++i)
    keys.push_back(static_cast<std::uint32_t>(rng()));
  std::size_t wrong           = 0;
  const std::uint32_t seeds[] = {
      0u, 1u, 0x9e3779b9u, 0xffffffffu, static_cast<std::uint32_t>(rng())};
  for (const std::uint32_t seed : seeds) {
    for (const std::uint32_t k : keys)
      wrong += detail::murmur_unmix(detail::murmur_mix(k, seed), seed) != k;
  }
  EXPECT_EQ(wrong, 0u);
  // Also the other way round on a few hashes: the mix is a bijection, so unmix is one too.
  for (const std::uint32_t h : {0u, 1u, 0xffffffffu, 0x12345678u})
    EXPECT_EQ(detail::murmur_mix(detail::murmur_unmix(h, 5u), 5u), h);
}

TEST(Tables, AllKindsGiveTheSameAnswers) {
  const auto keys = random_keys(100000, 25000, 16);
  auto queries    = keys;
  const auto miss = absent_keys(keys, 20000, 17);
  queries.insert(queries.end(), miss.begin(), miss.end());
  std::vector<std::vector<std::uint32_t>> counts;
  std::vector<std::vector<std::uint8_t>> has;
  for (TableKind kind : kAllKinds) {
    auto table = make_table(kind, kCpu);
    table->build(keys.data(), nullptr, keys.size());
    counts.emplace_back(queries.size());
    has.emplace_back(queries.size());
    table->count_async(queries.data(), queries.size(), counts.back().data());
    table->contains_async(queries.data(), queries.size(), has.back().data());
  }
  for (std::size_t k = 1; k < counts.size(); ++k) {
    EXPECT_EQ(counts[0], counts[k]) << to_string(kAllKinds[k]);
    EXPECT_EQ(has[0], has[k]) << to_string(kAllKinds[k]);
  }
}

TEST(SortedArray, SetBuildSortsAndDeduplicates) {
  check_sorted_set(kCpu, random_keys(100000, 25000, 21));
  check_sorted_set(kCpu, {7});
  check_sorted_set(kCpu, {});
}

TEST(Tables, ParseNamesAndBadOptions) {
  EXPECT_EQ(parse_table_kind("cuckoo"), TableKind::Cuckoo);
  EXPECT_EQ(parse_table_kind("hashgraph-v2"), TableKind::HashGraphV2);
  EXPECT_EQ(parse_table_kind("bcht"), TableKind::BucketedCuckoo);
  EXPECT_EQ(parse_table_kind("bucketed-cuckoo"), TableKind::BucketedCuckoo);
  for (const TableKind kind : kTableKinds)
    EXPECT_EQ(parse_table_kind(to_string(kind)), kind);
  EXPECT_THROW((void)parse_table_kind("robinhood"), InvalidInput);
  EXPECT_THROW((void)parse_backend("opencl"), InvalidInput);
  BuildOptions bad;
  bad.cuckoo_space = 0.5;
  EXPECT_THROW((void)make_table(TableKind::Cuckoo, kCpu, bad), InvalidInput);
  EXPECT_THROW((void)make_table(TableKind::BucketedCuckoo, kCpu, bad), InvalidInput);
  bad      = {};
  bad.load = 0;
  EXPECT_THROW((void)make_table(TableKind::HashGraphV1, kCpu, bad), InvalidInput);
}

}  // namespace
}  // namespace voxhash::test
