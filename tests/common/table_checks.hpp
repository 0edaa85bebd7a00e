// Checks shared by the CPU and GPU table tests: seeded inputs, a std::unordered_map reference, and
// one function per property, each run on a given backend. Outputs are poisoned before every call
// so an element that was never written fails the comparison. Templated on the key width (Key or
// Key64; 64-bit keys drawn across the whole range, most above 2^32).
#pragma once

#include <voxhash/bucketed_cuckoo_table.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/hash_graph.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/sorted_array.hpp>

#include <algorithm>
#include <gtest/gtest.h>
#include <random>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace voxhash::test {

inline constexpr TableKind kAllKinds[] = {
    TableKind::Cuckoo, TableKind::HashGraphV1, TableKind::HashGraphV2, TableKind::BucketedCuckoo};

/// n keys drawn from `distinct` random values (average multiplicity n / distinct), never the
/// sentinel.
template <class K = Key>
std::vector<K> random_keys(std::size_t n, std::size_t distinct, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<K> pool;
  std::unordered_set<K> seen;
  while (pool.size() < distinct) {
    const K k = static_cast<K>(rng());
    if (k != kEmptyKeyOf<K> && seen.insert(k).second) pool.push_back(k);
  }
  std::vector<K> keys(n);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = i < distinct ? pool[i] : pool[rng() % distinct];
  std::shuffle(keys.begin(), keys.end(), rng);
  return keys;
}

/// n distinct 64-bit voxel-like keys of a 2^21-per-axis grid, x | y << 21 | z << 42, all above
/// 2^32, laid out to defeat a hash of the key mod 2^32 - 5: runs of (x + 5120 i, y, z - i) are
/// congruent modulo that prime, and runs differing only in z differ only above bit 32.
inline std::vector<Key64> structured_keys64(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::unordered_set<Key64> seen;
  std::vector<Key64> keys;
  const auto key = [](Key64 x, Key64 y, Key64 z) { return x | (y << 21) | (z << 42); };
  while (keys.size() < n) {
    const Key64 x = rng() % 1024, y = rng() % (Key64{1} << 21), z = 1024 + rng() % 1024;
    const bool congruent = rng() % 2 == 0;
    for (Key64 i = 0; i < 300 && keys.size() < n; ++i) {
      const Key64 k = congruent ? key(x + 5120 * i, y, z - i) : key(x, y, z + i);
      if (seen.insert(k).second) keys.push_back(k);
    }
  }
  std::shuffle(keys.begin(), keys.end(), rng);
  return keys;
}

/// Keys that are certainly not in `keys`.
template <class K>
std::vector<K> absent_keys(const std::vector<K>& keys, std::size_t n, std::uint64_t seed) {
  std::unordered_set<K> present(keys.begin(), keys.end());
  std::mt19937_64 rng(seed);
  std::vector<K> out;
  while (out.size() < n) {
    const K k = static_cast<K>(rng());
    if (k != kEmptyKeyOf<K> && !present.count(k)) out.push_back(k);
  }
  return out;
}

template <class K = Key>
struct BasicReference {
  explicit BasicReference(const std::vector<K>& keys) {
    for (std::size_t i = 0; i < keys.size(); ++i)
      indices[keys[i]].push_back(static_cast<Value>(i));
  }
  std::unordered_map<K, std::vector<Value>> indices;  // key -> input positions, ascending
};
using Reference = BasicReference<Key>;

/// T itself, in a context that deduces nothing (std::type_identity before C++20: .cu files).
template <class T>
struct Identity {
  using type = T;
};

template <class T, class K = Key>
std::vector<T> run_query(
    Backend backend,
    const std::vector<K>& queries,
    T poison,
    const typename Identity<std::function<void(const K*, std::size_t, T*)>>::type& call) {
  auto q   = Buffer<K>::from_host(backend, queries);
  auto out = Buffer<T>::from_host(backend, std::vector<T>(queries.size(), poison));
  call(q.data(), queries.size(), out.data());
  return out.to_host();
}

/// Builds `kind` on `backend` from `keys` and checks find / contains / count / find_id and the
/// unique key list against the reference, for all keys and for absent keys.
template <class K = Key>
void check_table(Backend backend,
                 TableKind kind,
                 const std::vector<K>& keys,
                 const BuildOptions& options = {}) {
  SCOPED_TRACE(std::string(to_string(kind)) + " on " + std::string(to_string(backend)) + ", n=" +
               std::to_string(keys.size()) + ", " + std::to_string(8 * sizeof(K)) + "-bit keys");
  const BasicReference<K> ref(keys);
  auto table             = make_table<K>(kind, backend, options);
  auto d_keys            = Buffer<K>::from_host(backend, keys);
  const BuildStats stats = table->build(d_keys.data(), nullptr, keys.size());
  EXPECT_EQ(stats.keys, keys.size());
  ASSERT_EQ(table->unique_count(), ref.indices.size());
  EXPECT_EQ(stats.unique_keys, ref.indices.size());
  EXPECT_EQ(d_keys.to_host(), keys) << "the build must not modify its input";

  std::vector<K> queries = keys;
  const auto misses      = absent_keys(keys, std::max<std::size_t>(keys.size() / 4, 16), 99);
  queries.insert(queries.end(), misses.begin(), misses.end());

  const auto found = run_query<Value, K>(
      backend, queries, 0xDEADBEEFu, [&](auto q, auto n, auto o) { table->find_async(q, n, o); });
  const auto has = run_query<std::uint8_t, K>(
      backend, queries, 7, [&](auto q, auto n, auto o) { table->contains_async(q, n, o); });
  const auto counts = run_query<std::uint32_t, K>(
      backend, queries, 0xDEADBEEFu, [&](auto q, auto n, auto o) { table->count_async(q, n, o); });
  const auto ids =
      run_query<std::uint32_t, K>(backend, queries, 0xDEADBEEFu, [&](auto q, auto n, auto o) {
        table->find_id_async(q, n, o);
      });
  std::vector<K> unique(table->unique_count());
  copy_bytes(unique.data(), Backend::Cpu, table->unique_keys(), backend, unique.size() * sizeof(K));

  std::size_t errors = 0;
  for (std::size_t i = 0; i < queries.size() && errors < 10; ++i) {
    const K q     = queries[i];
    const auto it = ref.indices.find(q);
    if (it == ref.indices.end()) {
      errors += found[i] != kNotFound || has[i] != 0 || counts[i] != 0 || ids[i] != kNotFound;
      EXPECT_EQ(found[i], kNotFound) << "miss " << q;
      EXPECT_EQ(has[i], 0) << "miss " << q;
      EXPECT_EQ(counts[i], 0u) << "miss " << q;
      EXPECT_EQ(ids[i], kNotFound) << "miss " << q;
      continue;
    }
    const auto& positions = it->second;
    const bool value_ok =
        std::find(positions.begin(), positions.end(), found[i]) != positions.end();
    const bool id_ok = ids[i] < unique.size() && unique[ids[i]] == q;
    errors += !value_ok || has[i] != 1 || counts[i] != positions.size() || !id_ok;
    EXPECT_TRUE(value_ok) << "find(" << q << ") = " << found[i] << " is not an input index of it";
    EXPECT_EQ(has[i], 1) << "contains(" << q << ")";
    EXPECT_EQ(counts[i], positions.size()) << "count(" << q << ")";
    EXPECT_TRUE(id_ok) << "find_id(" << q << ") = " << ids[i];
  }
  std::sort(unique.begin(), unique.end());
  EXPECT_TRUE(std::adjacent_find(unique.begin(), unique.end()) == unique.end())
      << "unique keys repeat";
}

/// A bucketed cuckoo table's placement, read back to the host: every stored key sits in one of
/// its buckets, and every bucket before that one in probe order is full (what lets lookups stop at
/// the first bucket with a free slot).
inline void check_bucketed_invariant(Backend backend, const HashTable& table) {
  BucketedCuckooRef view = dynamic_cast<const BucketedCuckooTable&>(table).ref();
  std::vector<CuckooEntry> slots(std::size_t{view.buckets} * detail::kBucketSlots);
  copy_bytes(slots.data(), Backend::Cpu, view.slots, backend, slots.size() * sizeof(CuckooEntry));
  view.slots      = slots.data();
  const auto full = [&](std::uint32_t b) {
    for (int j = 0; j < detail::kBucketSlots; ++j) {
      if (detail::entry_key(slots[std::size_t{b} * detail::kBucketSlots + j]) == kEmptyKey) {
        return false;
      }
    }
    return true;
  };
  std::size_t stored = 0, misplaced = 0, not_full_before = 0;
  for (std::size_t s = 0; s < slots.size(); ++s) {
    const Key k = detail::entry_key(slots[s]);
    if (k == kEmptyKey) continue;
    ++stored;
    const auto b = static_cast<std::uint32_t>(s / detail::kBucketSlots);
    int f        = 0;
    while (f < detail::kBucketFunctions && view.bucket(f, k) != b)
      ++f;
    misplaced += f == detail::kBucketFunctions;
    for (int before = 0; before < f; ++before)
      not_full_before += !full(view.bucket(before, k));
  }
  EXPECT_GE(stored, table.unique_count());
  EXPECT_EQ(misplaced, 0u);
  EXPECT_EQ(not_full_before, 0u);
}

/// HashGraph's CSR invariants: the bucket records' lists start at 0, follow one another and end at
/// n; each record's first edge is its list's first (the empty marker where the list is empty);
/// every edge sits in its key's vertex; the edges are exactly the input's (key, index) pairs.
template <class K = Key>
void check_hash_graph_invariants(Backend backend,
                                 TableKind kind,
                                 const std::vector<K>& keys,
                                 double load) {
  using Bucket = BasicHashGraphBucket<K>;
  using Edge   = BasicHashGraphEdge<K>;
  SCOPED_TRACE(std::string(to_string(kind)) + " invariants, load " + std::to_string(load) + ", " +
               std::to_string(8 * sizeof(K)) + "-bit keys");
  BuildOptions options;
  options.load = load;
  auto table   = make_table<K>(kind, backend, options);
  auto& graph  = dynamic_cast<BasicHashGraph<K>&>(*table);
  auto d_keys  = Buffer<K>::from_host(backend, keys);
  table->build(d_keys.data(), nullptr, keys.size());
  const BasicHashGraphRef<K> view = graph.ref();
  ASSERT_EQ(view.range,
            std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(keys.size() / load))));
  std::vector<Bucket> buckets(view.range);
  copy_bytes(buckets.data(), Backend::Cpu, view.buckets, backend, buckets.size() * sizeof(Bucket));
  std::vector<Edge> edges(keys.size());
  copy_bytes(edges.data(), Backend::Cpu, view.edges, backend, edges.size() * sizeof(Edge));
  ASSERT_EQ(buckets.front().begin, 0u);
  ASSERT_EQ(buckets.back().end, keys.size());
  std::size_t misplaced = 0, unlinked = 0, wrong_first = 0;
  for (std::uint32_t v = 0; v < view.range; ++v) {
    const Bucket& b = buckets[v];
    ASSERT_LE(b.begin, b.end) << "vertex " << v;
    unlinked += v > 0 && buckets[v - 1].end != b.begin;
    const Edge first = b.begin < b.end ? edges[b.begin] : Edge{kEmptyKeyOf<K>, kNotFound};
    wrong_first += b.first.key != first.key || b.first.value != first.value;
    for (std::uint32_t e = b.begin; e < b.end; ++e) {
      misplaced += detail::hash_graph_vertex(edges[e].key, view.seed, view.range) != v;
    }
  }
  EXPECT_EQ(unlinked, 0u);
  EXPECT_EQ(wrong_first, 0u);
  EXPECT_EQ(misplaced, 0u);
  std::vector<bool> seen(keys.size(), false);
  for (const auto& e : edges) {
    ASSERT_LT(e.value, keys.size());
    EXPECT_FALSE(seen[e.value]) << "input index " << e.value << " appears twice";
    seen[e.value] = true;
    EXPECT_EQ(keys[e.value], e.key);
  }
}

/// probe-standard and probe-intersect give identical find / count / find_id / find_all answers.
template <class K = Key>
void check_probe_methods_agree(Backend backend, TableKind kind, const std::vector<K>& keys) {
  SCOPED_TRACE(std::string(to_string(kind)) + " probe methods, " + std::to_string(8 * sizeof(K)) +
               "-bit keys");
  auto table  = make_table<K>(kind, backend);
  auto& graph = dynamic_cast<BasicHashGraph<K>&>(*table);
  auto d_keys = Buffer<K>::from_host(backend, keys);
  table->build(d_keys.data(), nullptr, keys.size());
  std::vector<K> queries = keys;
  const auto misses      = absent_keys(keys, keys.size() / 2 + 1, 5);
  queries.insert(queries.end(), misses.begin(), misses.end());
  std::shuffle(queries.begin(), queries.end(), std::mt19937(3));

  std::vector<std::uint32_t> results[2][3];
  std::vector<std::vector<Value>> all[2];
  for (int m = 0; m < 2; ++m) {
    graph.set_probe_method(m == 0 ? ProbeMethod::Standard : ProbeMethod::Intersect);
    results[m][0] = run_query<Value, K>(
        backend, queries, 0xDEADBEEFu, [&](auto q, auto n, auto o) { table->find_async(q, n, o); });
    results[m][1] =
        run_query<std::uint32_t, K>(backend, queries, 0xDEADBEEFu, [&](auto q, auto n, auto o) {
          table->count_async(q, n, o);
        });
    results[m][2] =
        run_query<std::uint32_t, K>(backend, queries, 0xDEADBEEFu, [&](auto q, auto n, auto o) {
          table->find_id_async(q, n, o);
        });
    auto d_q            = Buffer<K>::from_host(backend, queries);
    const MatchList lst = graph.find_all(d_q.data(), queries.size());
    const auto offsets  = lst.offsets.to_host();
    const auto values   = lst.values.to_host();
    all[m].resize(queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
      all[m][i].assign(values.begin() + offsets[i], values.begin() + offsets[i + 1]);
    }
  }
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(results[0][r], results[1][r]) << "result " << r;
  EXPECT_EQ(all[0], all[1]);
  // find_all against the reference multimap (as sets: bucket order is the table's).
  const BasicReference<K> ref(keys);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    auto got = all[0][i];
    std::sort(got.begin(), got.end());
    const auto it = ref.indices.find(queries[i]);
    wrong += got != (it == ref.indices.end() ? std::vector<Value>{} : it->second);
  }
  EXPECT_EQ(wrong, 0u);
}

/// SortedArray::build_set on `backend` (the frame's sort + unique baseline): the distinct keys of
/// `keys`, and each key's rank among them (misses: kNotFound), as a std::set says.
inline void check_sorted_set(Backend backend, const std::vector<Key>& keys) {
  const std::set<Key> distinct(keys.begin(), keys.end());
  const std::vector<Key> ordered(distinct.begin(), distinct.end());
  std::vector<Key> queries = ordered;
  const auto misses        = absent_keys(keys, 64, 7);
  queries.insert(queries.end(), misses.begin(), misses.end());
  const auto input = Buffer<Key>::from_host(backend, keys);
  const auto asked = Buffer<Key>::from_host(backend, queries);
  Buffer<Value> ranks(backend, queries.size());
  auto set = make_sorted_array(backend);
  ASSERT_EQ(set->build_set(input.data(), keys.size()), ordered.size());
  set->find_async(asked.data(), queries.size(), ranks.data());
  const std::vector<Value> got = ranks.to_host();
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const Value want = i < ordered.size() ? static_cast<Value>(i) : kNotFound;
    ASSERT_EQ(got[i], want) << "query " << i << " key " << queries[i];
  }
}

}  // namespace voxhash::test
