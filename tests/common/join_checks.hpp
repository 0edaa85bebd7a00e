// Checks shared by the CPU and GPU join tests: seeded sides with a given multiplicity on each side
// and a known overlap, a std::unordered_multimap reference of every join kind, and a runner that
// returns a join's rows (in output order) from any backend. Semi and anti rows read (left,
// kNotFound).
#pragma once

#include <voxhash/buffer.hpp>
#include <voxhash/join.hpp>

#include <algorithm>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace voxhash::test {

inline constexpr JoinKind kAllJoinKinds[] = {
    JoinKind::Inner, JoinKind::Left, JoinKind::Semi, JoinKind::Anti};

using JoinRow = std::pair<Value, Value>;

/// Two sides; empty value vectors mean "values are row indices".
struct JoinCase {
  std::vector<Key> left, right;
  std::vector<Value> left_values, right_values;
};

/// `distinct` keys on each side, each repeated exactly `mult_left` / `mult_right` times, the two
/// key sets sharing half their keys; rows shuffled. Never the sentinel.
inline JoinCase make_join_case(std::size_t distinct,
                               std::size_t mult_left,
                               std::size_t mult_right,
                               std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Key> pool;
  std::unordered_set<Key> seen;
  while (pool.size() < distinct + distinct / 2) {
    const Key k = static_cast<Key>(rng());
    if (k != kEmptyKey && seen.insert(k).second) pool.push_back(k);
  }
  JoinCase c;
  for (std::size_t i = 0; i < distinct; ++i) {
    c.left.insert(c.left.end(), mult_left, pool[i]);
    c.right.insert(c.right.end(), mult_right, pool[distinct / 2 + i]);
  }
  std::shuffle(c.left.begin(), c.left.end(), rng);
  std::shuffle(c.right.begin(), c.right.end(), rng);
  return c;
}

inline Value row_value(const std::vector<Value>& values, std::size_t i) {
  return values.empty() ? static_cast<Value>(i) : values[i];
}

/// The rows a join of `c` must produce, sorted.
inline std::vector<JoinRow> reference_join(const JoinCase& c, JoinKind kind) {
  std::unordered_multimap<Key, Value> right;
  for (std::size_t j = 0; j < c.right.size(); ++j)
    right.emplace(c.right[j], row_value(c.right_values, j));
  std::vector<JoinRow> rows;
  for (std::size_t i = 0; i < c.left.size(); ++i) {
    const Value lv   = row_value(c.left_values, i);
    const auto range = right.equal_range(c.left[i]);
    const bool hit   = range.first != range.second;
    switch (kind) {
      case JoinKind::Inner:
      case JoinKind::Left:
        for (auto it = range.first; it != range.second; ++it)
          rows.emplace_back(lv, it->second);
        if (!hit && kind == JoinKind::Left) rows.emplace_back(lv, kNotFound);
        break;
      case JoinKind::Semi:
        if (hit) rows.emplace_back(lv, kNotFound);
        break;
      case JoinKind::Anti:
        if (!hit) rows.emplace_back(lv, kNotFound);
        break;
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

struct JoinOutput {
  std::vector<JoinRow> rows;  // in output order
  JoinSide built    = JoinSide::Right;
  std::size_t count = 0;
  PagedJoinStats paged;  // a join over pages: its pages, partitions, bytes moved
};

inline JoinOutput run_join(Backend backend, const JoinCase& c, const JoinOptions& options) {
  auto lk = Buffer<Key>::from_host(backend, c.left);
  auto rk = Buffer<Key>::from_host(backend, c.right);
  auto lv = Buffer<Value>::from_host(backend, c.left_values);
  auto rv = Buffer<Value>::from_host(backend, c.right_values);
  const JoinInput left{lk.data(), c.left_values.empty() ? nullptr : lv.data(), c.left.size()};
  const JoinInput right{rk.data(), c.right_values.empty() ? nullptr : rv.data(), c.right.size()};
  const JoinResult r = join(backend, left, right, options);
  EXPECT_EQ(lk.to_host(), c.left) << "the join must not modify its input";
  EXPECT_EQ(rk.to_host(), c.right) << "the join must not modify its input";
  JoinOutput out;
  out.built       = r.built;
  out.count       = r.rows;
  out.paged       = r.paged;
  const auto lcol = r.left.to_host();
  const auto rcol = r.right.to_host();
  EXPECT_EQ(lcol.size(), r.rows);
  const bool pairs = options.kind == JoinKind::Inner || options.kind == JoinKind::Left;
  EXPECT_EQ(rcol.size(), pairs ? r.rows : 0u);
  for (std::size_t i = 0; i < lcol.size(); ++i)
    out.rows.emplace_back(lcol[i], pairs ? rcol[i] : kNotFound);
  return out;
}

inline std::string describe(const JoinOptions& o) {
  std::string s = std::string(to_string(o.kind)) + " join, " +
                  (o.algorithm == JoinAlgorithm::SortMerge ? std::string("sort-merge")
                                                           : std::string(to_string(o.table)));
  s += o.build ? ", build " + std::string(to_string(*o.build)) : ", build smaller";
  return s;
}

/// Joins `c` on `backend` and compares the rows (as a multiset) with the reference; with the
/// right side built and row indices as values, also checks the documented order of a join in one
/// piece (grouped by left row, in left order). Returns what the join did.
inline JoinOutput check_join(Backend backend, const JoinCase& c, const JoinOptions& options) {
  SCOPED_TRACE(describe(options) + " on " + std::string(to_string(backend)) + ", " +
               std::to_string(c.left.size()) + " x " + std::to_string(c.right.size()) + " rows");
  const JoinOutput out = run_join(backend, c, options);
  const JoinSide expected_side =
      options.build.value_or(c.right.size() <= c.left.size() ? JoinSide::Right : JoinSide::Left);
  EXPECT_EQ(out.built, expected_side);
  auto sorted = out.rows;
  std::sort(sorted.begin(), sorted.end());
  const auto expected = reference_join(c, options.kind);
  EXPECT_EQ(sorted.size(), expected.size());
  EXPECT_TRUE(sorted == expected) << "rows differ from the unordered_multimap reference";
  if (out.built == JoinSide::Right && c.left_values.empty() &&
      options.algorithm == JoinAlgorithm::Hash && out.paged.pages == 0) {
    EXPECT_TRUE(
        std::is_sorted(out.rows.begin(),
                       out.rows.end(),
                       [](const JoinRow& a, const JoinRow& b) { return a.first < b.first; }))
        << "rows are not grouped by left row in left order";
  }
  return out;
}

}  // namespace voxhash::test
