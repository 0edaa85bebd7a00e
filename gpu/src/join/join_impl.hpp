// JoinRun<Exec>: the joins of join.hpp written once over the executor. The build side goes into a
// table (cuckoo or bucketed cuckoo with their multivalue lists, or HashGraph), or both sides are
// radix-sorted (sort-merge); then per probe row: count -> 64-bit exclusive scan -> size check ->
// write. With the left side built, the right rows mark which build keys matched and a pass over
// the left rows emits what depends on that (left-join nulls, semi, anti). A left join of a
// unique-key build side is the paper's: one pass, one output row per probe row. A build side over
// the GPU budget is joined over pages: both sides partitioned by the paged table's page hash
// (tables/page_partition.hpp), then the same join page by page, the build pages streamed from
// pinned host memory (a PinnedPool's, kept from join to join) through two slots
// (tables/page_stream.hpp, the paged table's page stream) while the output grows.
#pragma once

#include "core/join.hpp"
#include "core/paged.hpp"
#include "tables/build_status.hpp"
#include "tables/page_partition.hpp"
#include "tables/page_stream.hpp"
#include "tables/table_impls.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>
#include <voxhash/join.hpp>
#include <voxhash/pinned_pool.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace voxhash::joins {

using core::Emit;

/// Copies a side's keys and values (or row indices) for sorting; flags sentinel keys.
template <class Exec>
void stage_side(Exec& exec, JoinInput in, Key* keys, Value* values, std::uint32_t* sentinel) {
  const Key* k   = in.keys;
  const Value* v = in.values;
  exec.for_each(in.rows, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const Key key = k[i];
    if (key == kEmptyKey) core::atomic_store(sentinel, 1u);
    keys[i]   = key;
    values[i] = tables::value_or_index(v, i);
  });
}

/// The count pass over n probe rows: each row's matches located and stored (ranges[i], which the
/// write pass reads instead of locating again) with its output rows (rows[i]); kQueryBatch rows
/// per thread (strided, so loads and stores stay coalesced) with their lookups in flight together.
/// A sentinel key sets *sentinel and yields nothing.
template <class Exec, class Matcher>
void count_rows(Exec& exec,
                Matcher m,
                Emit emit,
                const Key* keys,
                std::uint32_t n,
                std::uint32_t* matched,
                const std::uint32_t* matched_in,
                std::uint32_t* sentinel,
                ValueRange* ranges,
                std::uint32_t* rows) {
  constexpr int K            = tables::kQueryBatch;
  const std::uint32_t stride = (n + K - 1) / K;
  exec.for_each(stride, [=] VOXHASH_LAMBDA(std::uint32_t t) {
    Key key[K];
    ValueRange range[K];
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      const std::uint32_t i = t + k * stride;
      key[k]                = i < n ? keys[i] : kEmptyKey;
      if (i < n && key[k] == kEmptyKey) core::atomic_store(sentinel, 1u);
    }
    m.template locate_batch<K>(key, range);
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      const std::uint32_t i = t + k * stride;
      if (i >= n) continue;
      ranges[i] = range[k];
      rows[i] =
          key[k] == kEmptyKey ? 0u : core::count_located_row(emit, range[k], matched, matched_in);
    }
  });
}

/// The write pass: probe row i's rows from output row base + offsets[i].
template <class Exec, class Matcher>
void write_rows(Exec& exec,
                Matcher m,
                Emit emit,
                const Key* keys,
                const Value* values,
                std::uint32_t n,
                const std::uint32_t* rows,
                const ValueRange* ranges,
                const std::uint64_t* offsets,
                std::uint64_t base,
                Value* probe_col,
                Value* build_col) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    if (rows[i] == 0) return;
    core::write_probe_row(m,
                          emit,
                          keys[i],
                          tables::value_or_index(values, i),
                          ranges[i],
                          base + offsets[i],
                          probe_col,
                          build_col);
  });
}

/// The paper's left join of a build side with unique keys: output row i is probe row i and its
/// match (or kNotFound), written in one pass without counting; kQueryBatch rows per thread
/// (strided, so loads and stores stay coalesced) with their lookups in flight together.
template <class Exec, class Matcher>
void write_unique_left(Exec& exec,
                       Matcher m,
                       const Key* keys,
                       const Value* values,
                       std::uint32_t n,
                       std::uint32_t* sentinel,
                       Value* probe_col,
                       Value* build_col) {
  constexpr int K            = tables::kQueryBatch;
  const std::uint32_t stride = (n + K - 1) / K;
  exec.for_each(stride, [=] VOXHASH_LAMBDA(std::uint32_t t) {
    Key key[K];
    Value match[K];
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      const std::uint32_t i = t + k * stride;
      key[k]                = i < n ? keys[i] : kEmptyKey;
      if (i < n && key[k] == kEmptyKey) core::atomic_store(sentinel, 1u);
    }
    m.template find_batch<K>(key, match);
    VOXHASH_UNROLL
    for (int k = 0; k < K; ++k) {
      const std::uint32_t i = t + k * stride;
      if (i >= n) continue;
      probe_col[i] = tables::value_or_index(values, i);
      build_col[i] = match[k];
    }
  });
}

/// One pass over a row set (count, then write): which rows, what they emit, where they go.
struct Pass {
  JoinInput input;
  JoinSide side;  // the side `input` is
  Emit emit;
  std::uint32_t* matched          = nullptr;  // flags this pass sets (per build position)
  const std::uint32_t* matched_in = nullptr;  // flags this pass reads
};

// ---- joins over pages (see join.hpp) ---------------------------------------------------------

/// Build rows a page holds at least: a budget below two tables of this many rows is refused.
inline constexpr std::size_t kMinPageRows = 1024;
/// Pages are planned for this share more rows than an even split gives each (the page hash's
/// spread).
inline constexpr double kPageMargin = 1.125;
/// Partitions of the build side tried before a page too large for the budget is an error.
inline constexpr int kPartitionRounds = 4;
/// Builds of one page's table (the first, then rebuilds of that page alone) before the join fails.
inline constexpr int kPageBuilds = 4;

/// Whether `kind` is a paged table (its traits' paged).
inline bool is_paged(TableKind kind) {
  return visit_table(kind, [](auto traits) { return traits.paged; });
}

/// The GPU budget a join runs under (0: none): JoinOptions::gpu_budget, else for a hash join on
/// the paged table its table_options.page_budget.
inline std::size_t join_budget(const JoinOptions& o) {
  if (o.algorithm != JoinAlgorithm::Hash) return 0;
  if (o.gpu_budget.limited()) return o.gpu_budget.bytes();
  return is_paged(o.table) ? o.table_options.page_budget : 0;
}

/// Bytes a join's table of `rows` build rows holds at most: estimate_bytes of `kind`, with the
/// multivalue lists for a slot table (cuckoo, bcht).
inline std::size_t join_table_bytes(TableKind kind, std::size_t rows, const BuildOptions& options) {
  BuildOptions o = options;
  o.multivalue   = visit_table(kind, [](auto traits) { return traits.slot_table; });
  return estimate_bytes(kind, rows, o);
}

/// Whether a join of `build_rows` build rows runs over pages.
inline bool joins_over_pages(const JoinOptions& o, std::size_t build_rows) {
  const GpuBudget budget = join_budget(o);
  if (is_paged(o.table)) return budget.limited();
  return budget.pages(join_table_bytes(join_table_for(o.table), build_rows, o.table_options));
}

/// The page count of the first partition of `rows` build rows: one when their table fits half the
/// budget, else each page's table at most half the budget for kPageMargin times an even share of
/// the rows.
inline std::uint32_t join_page_count(const JoinOptions& o, std::size_t rows) {
  const TableKind kind   = join_table_for(o.table);
  const std::size_t half = join_budget(o) / 2;
  std::size_t lo = kMinPageRows, hi = std::max(rows, kMinPageRows);
  while (lo < hi) {  // the most rows whose table fits half the budget
    const std::size_t mid = lo + (hi - lo + 1) / 2;
    if (join_table_bytes(kind, mid, o.table_options) <= half) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  const double even = std::ceil(static_cast<double>(rows) * kPageMargin / static_cast<double>(lo));
  const auto pages  = join_table_bytes(kind, rows, o.table_options) <= half
                          ? std::size_t{1}
                          : static_cast<std::size_t>(std::max(1.0, even));
  return static_cast<std::uint32_t>(std::min<std::size_t>(pages, 0x7FFFFFFFu));
}

/// The page count of the next partition after one of `pages` pages whose largest page's table
/// came out `over` times half the budget: at least a quarter more, as many more as `over` asks
/// (1/16 beyond it), at most twice as many (a repeated key does not shrink with more pages).
inline std::uint32_t next_page_count(std::uint32_t pages, double over) {
  const double scaled = std::ceil(pages * std::min(2.0, over * 1.0625));
  const double more   = std::max(static_cast<double>(pages + pages / 4 + 1), scaled);
  return static_cast<std::uint32_t>(std::min(more, static_cast<double>(0x7FFFFFFFu)));
}

/// The page hash's seed of partition `round`: a stream of the table options' seed, apart from the
/// one the page tables draw their constants from.
inline std::uint32_t join_page_seed(const JoinOptions& o, int round) {
  std::mt19937_64 rng(o.table_options.seed ^ 0x6a6f696e70616765ull);
  rng.discard(static_cast<unsigned long long>(round));
  return static_cast<std::uint32_t>(rng());
}

template <class Exec>
class JoinRun {
 public:
  JoinRun(const JoinOptions& options, Stream stream)
      : m_options(options), m_stream(stream), m_exec(stream) {}

  /// Test hook: the table of page `page` of a join over pages counts as failed after each of its
  /// next `times` builds, so that page is rebuilt alone.
  void force_page_failures(std::size_t page, int times) {
    if (page >= m_forced.size()) m_forced.resize(page + 1, 0);
    m_forced[page] = times;
  }

  JoinResult run(const JoinInput& left, const JoinInput& right) {
    tables::check_size(left.rows, "join (left side)");
    tables::check_size(right.rows, "join (right side)");
    JoinResult result;
    result.built =
        m_options.build.value_or(right.rows <= left.rows ? JoinSide::Right : JoinSide::Left);
    const JoinInput& build = result.built == JoinSide::Right ? right : left;
    const JoinInput& probe = result.built == JoinSide::Right ? left : right;
    m_sentinel.resize(2);
    m_exec.fill(m_sentinel.data(), 2, 0u);
    const bool paged = joins_over_pages(m_options, build.rows);
    if (paged) check_budget();
    if (paged && build.rows != 0 && probe.rows != 0) {
      run_pages(build, probe, result);
      return result;
    }
    typename Exec::Event start, built, done;
    start.record(m_exec);

    if (m_options.algorithm == JoinAlgorithm::SortMerge) {
      SortedSide b = sort_side(build, result.built);
      SortedSide p = sort_side(probe, other(result.built));
      built.record(m_exec);
      const core::SortedMatcher m{
          b.keys.data(), b.values.data(), static_cast<std::uint32_t>(b.rows)};
      const JoinInput sorted_build{b.keys.data(), b.values.data(), b.rows};
      const JoinInput sorted_probe{p.keys.data(), p.values.data(), p.rows};
      probe_with(m, sorted_build, sorted_probe, false, result);
    } else {
      with_table([&](auto& table) { join_on(table, build, probe, built, result); });
    }
    done.record(m_exec);
    result.build_ms = start.elapsed_ms(built);
    result.probe_ms = built.elapsed_ms(done);
    return result;
  }

  // The passes' bodies (public only because nvcc's extended lambdas need a public enclosing
  // function).

  /// Builds `table` of `build` and probes it with `probe`, recording `built` in between.
  template <class Table>
  void join_on(Table& table,
               const JoinInput& build,
               const JoinInput& probe,
               typename Exec::Event& built,
               JoinResult& result) {
    if constexpr (std::is_same_v<Table, tables::HashGraphImpl<Exec>>) {
      BuildOptions o = m_options.table_options;
      o.unique_ids   = one_pass_left(result.built);  // only to know whether the keys are unique
      table.set_options(o);
      result.table = table.build(build.keys, build.values, build.rows, m_stream);
      fail_if_forced();
      built.record(m_exec);
      const bool unique = result.table.unique_keys == build.rows;
      probe_with(core::HashGraphMatcher{table.ref()}, build, probe, unique, result);
    } else {
      probe_slot_table(table, build, probe, built, result);
    }
  }

  /// Builds a slot table (cuckoo or bucketed cuckoo) of `build` and probes it with `probe`,
  /// recording `built` in between. The paper's left join needs only the table and whether its
  /// keys are distinct; every other join (and a left join whose build keys repeat) the multivalue
  /// lists.
  template <class Table>
  void probe_slot_table(Table& table,
                        const JoinInput& build,
                        const JoinInput& probe,
                        typename Exec::Event& built,
                        JoinResult& result) {
    BuildOptions o        = m_options.table_options;
    const bool paper_left = one_pass_left(result.built);
    o.unique_ids          = false;
    o.multiplicities      = false;
    o.multivalue          = !paper_left;
    table.set_options(o);
    result.table = table.build(build.keys, build.values, build.rows, m_stream);
    fail_if_forced();
    const bool unique = paper_left ? table.distinct_keys() : result.table.unique_keys == build.rows;
    if (paper_left && unique) result.table.unique_keys = build.rows;
    if (paper_left && !unique) {
      o.multivalue = true;
      table.set_options(o);
      result.table = table.build(build.keys, build.values, build.rows, m_stream);
    }
    using Lists       = decltype(table.multi_ref());
    const Lists lists = paper_left && unique ? Lists{table.ref()} : table.multi_ref();
    built.record(m_exec);
    probe_with(core::SlotMatcher<Lists>{lists}, build, probe, unique, result);
  }

  /// Probes `build`'s matcher with `probe` for the join's kind; `unique_build`: every build key
  /// occurs once (a left join then takes the paper's one-pass path). The rows go after those the
  /// output holds already (a join over pages: the earlier pages').
  template <class Matcher>
  void probe_with(const Matcher& m,
                  const JoinInput& build,
                  const JoinInput& probe,
                  bool unique_build,
                  JoinResult& result) {
    const JoinKind kind  = m_options.kind;
    const bool reversed  = result.built == JoinSide::Left;
    const bool two_cols  = kind == JoinKind::Inner || kind == JoinKind::Left;
    const JoinSide pside = other(result.built);
    if (unique_build && one_pass_left(result.built)) {
      const std::uint64_t at = claim(probe.rows, true, result);
      write_unique_left(m_exec,
                        m,
                        probe.keys,
                        probe.values,
                        static_cast<std::uint32_t>(probe.rows),
                        sentinel(pside),
                        result.left.data() + at,
                        result.right.data() + at);
      check_sentinels();
      return;
    }

    std::vector<Pass> passes;
    m_matched.resize(reversed && kind != JoinKind::Inner ? build.rows : 0);
    if (!reversed) {
      const Emit emit = kind == JoinKind::Inner  ? Emit::Pairs
                        : kind == JoinKind::Left ? Emit::PairsOrNull
                        : kind == JoinKind::Semi ? Emit::Matched
                                                 : Emit::Unmatched;
      passes.push_back({probe, pside, emit});
    } else if (kind == JoinKind::Inner) {
      passes.push_back({probe, pside, Emit::Pairs});
    } else {
      m_exec.fill(m_matched.data(), m_matched.size(), 0u);
      passes.push_back(
          {probe, pside, kind == JoinKind::Left ? Emit::Pairs : Emit::Nothing, m_matched.data()});
      passes.push_back({build,
                        result.built,
                        kind == JoinKind::Semi ? Emit::Matched : Emit::Unmatched,
                        nullptr,
                        m_matched.data()});
    }

    // Count every pass (marking before reading: the passes run in order on the stream).
    while (m_counts.size() < passes.size())
      m_counts.emplace_back();
    for (std::size_t p = 0; p < passes.size(); ++p) {
      const Pass& pass = passes[p];
      const auto n     = static_cast<std::uint32_t>(pass.input.rows);
      m_counts[p].resize(n);
      count_rows(m_exec,
                 m,
                 pass.emit,
                 pass.input.keys,
                 n,
                 pass.matched,
                 pass.matched_in,
                 sentinel(pass.side),
                 m_counts[p].ranges.data(),
                 m_counts[p].rows.data());
    }
    std::vector<std::uint64_t> base(passes.size() + 1, 0);
    for (std::size_t p = 0; p < passes.size(); ++p) {
      const auto n        = passes[p].input.rows;
      std::uint64_t total = 0;
      if (passes[p].emit != Emit::Nothing && n != 0) {
        m_exec.exclusive_sum(m_counts[p].rows.data(), m_counts[p].offsets.data(), n);
        total = m_exec.read(m_counts[p].offsets.data() + n - 1) +
                m_exec.read(m_counts[p].rows.data() + n - 1);
      }
      base[p + 1] = base[p] + total;
    }
    check_sentinels();
    const std::uint64_t at = claim(base.back(), two_cols, result);
    for (std::size_t p = 0; p < passes.size(); ++p) {
      const Pass& pass = passes[p];
      if (pass.emit == Emit::Nothing) continue;
      Value* left_col      = result.left.data();
      Value* right_col     = two_cols ? result.right.data() : nullptr;
      const bool from_left = pass.side == JoinSide::Left;
      write_rows(m_exec,
                 m,
                 pass.emit,
                 pass.input.keys,
                 pass.input.values,
                 static_cast<std::uint32_t>(pass.input.rows),
                 m_counts[p].rows.data(),
                 m_counts[p].ranges.data(),
                 m_counts[p].offsets.data(),
                 at + base[p],
                 from_left ? left_col : right_col,
                 from_left ? right_col : left_col);
    }
    m_exec.synchronize();  // the passes' inputs may be reused on return (a page slot)
  }

 private:
  /// The count pass's per-row scratch, kept from pass to pass (and page to page).
  struct Counts {
    void resize(std::size_t n) {
      rows.resize(n);
      ranges.resize(n);
      offsets.resize(n);
    }
    Buffer<std::uint32_t> rows{Exec::kBackend, 0};
    Buffer<ValueRange> ranges{Exec::kBackend, 0};
    Buffer<std::uint64_t> offsets{Exec::kBackend, 0};
  };

  /// A side's keys and values (or row indices) sorted by key.
  struct SortedSide {
    Buffer<Key> keys;
    Buffer<Value> values;
    std::size_t rows = 0;
  };

  SortedSide sort_side(const JoinInput& in, JoinSide side) {
    SortedSide s{
        Buffer<Key>(Exec::kBackend, in.rows), Buffer<Value>(Exec::kBackend, in.rows), in.rows};
    Buffer<Key> keys(Exec::kBackend, in.rows);
    Buffer<Value> values(Exec::kBackend, in.rows);
    stage_side(m_exec, in, keys.data(), values.data(), sentinel(side));
    m_exec.sort_pairs(keys.data(), s.keys.data(), values.data(), s.values.data(), in.rows, 32);
    m_exec.synchronize();  // the staging buffers are freed on return
    return s;
  }

  /// f(table) on an empty table of the kind the join builds on, made with the table options.
  template <class F>
  void with_table(F f) {
    visit_table(join_table_for(m_options.table), [&](auto traits) {
      using Traits = decltype(traits);
      if constexpr (!Traits::paged) {
        const auto table = tables::make_table_impl<Traits, Exec>(m_options.table_options);
        f(*table);
      }
    });
  }

  // ---- over pages ------------------------------------------------------------------------------

  /// Where a join over pages keeps its sides once partitioned: page p's build rows are at
  /// [build_at[p], build_at[p + 1]) (pages 0 and 1 in their slots, the others in the pinned host
  /// columns from host_begin on), its probe rows at [probe_at[p], probe_at[p + 1]) of the probe
  /// columns.
  struct Pages {
    std::uint32_t count = 0;
    std::vector<std::uint32_t> build_at, probe_at;
    std::size_t host_begin = 0;
    PinnedPool::Lease host;  // the host columns: keys, then values
    Key* host_keys               = nullptr;
    Value* host_values           = nullptr;
    Buffer<Key> slot_keys[2]     = {Buffer<Key>(Exec::kBackend, 0), Buffer<Key>(Exec::kBackend, 0)};
    Buffer<Value> slot_values[2] = {Buffer<Value>(Exec::kBackend, 0),
                                    Buffer<Value>(Exec::kBackend, 0)};
    const Key* probe_keys        = nullptr;
    const Value* probe_values    = nullptr;

    [[nodiscard]] std::size_t build_rows(std::uint32_t p) const {
      return build_at[p + 1] - build_at[p];
    }
    [[nodiscard]] std::size_t probe_rows(std::uint32_t p) const {
      return probe_at[p + 1] - probe_at[p];
    }
  };

  /// Refuses a budget below two page tables of the smallest page.
  void check_budget() const {
    const std::size_t budget = join_budget(m_options);
    const TableKind kind     = join_table_for(m_options.table);
    const std::size_t least  = join_table_bytes(kind, kMinPageRows, m_options.table_options);
    if (2 * least <= budget) return;
    throw InvalidInput("join: GPU budget " + bytes_text(budget) +
                       " is smaller than two page tables of the smallest page: 2 x " +
                       bytes_text(least) + " (a " + std::string(to_string(kind)) + " table of " +
                       std::to_string(kMinPageRows) + " build rows); raise the budget");
  }

  /// The join over pages: both sides partitioned, the build pages beyond the first two moved to
  /// pinned host memory, then page by page (see join.hpp).
  void run_pages(const JoinInput& build, const JoinInput& probe, JoinResult& result) {
    PagedJoinStats& st = result.paged;
    st.budget          = join_budget(m_options);
    result.left        = Buffer<Value>(Exec::kBackend, 0);
    result.right       = Buffer<Value>(Exec::kBackend, 0);
    typename Exec::Event start, partitioned;
    start.record(m_exec);
    Pages pages;
    tables::PagePartition<Exec> part;
    Buffer<core::PagedOpStatus> op(Exec::kBackend, 1);
    const std::uint32_t seed = partition_build(build, result.built, part, op, pages, st);
    move_build_pages(part, pages, st);
    m_exec.fill(op.data(), 1, core::PagedOpStatus{});
    part.run(m_exec, probe.keys, probe.values, probe.rows, pages.count, seed, op.data(), false);
    check_partition(op, other(result.built));
    pages.probe_at     = part.offsets();
    const auto columns = part.split_columns(m_exec);
    pages.probe_keys   = columns.keys;
    pages.probe_values = columns.values;
    part.release_entries(m_exec);
    partitioned.record(m_exec);
    st.partition_ms = start.elapsed_ms(partitioned);

    m_pages_total = pages.count;
    with_table([&](auto& table) { join_pages(table, pages, result); });
    result.build_ms += st.partition_ms;
    const bool two_cols = m_options.kind == JoinKind::Inner || m_options.kind == JoinKind::Left;
    result.left.resize(result.rows);
    result.right.resize(two_cols ? result.rows : 0);
  }

  /// Partitions the build side until every page's table fits half the budget (a fresh seed and
  /// more pages each round); returns the seed, the page count and offsets in `pages`.
  std::uint32_t partition_build(const JoinInput& build,
                                JoinSide side,
                                tables::PagePartition<Exec>& part,
                                Buffer<core::PagedOpStatus>& op,
                                Pages& pages,
                                PagedJoinStats& st) {
    const TableKind kind = join_table_for(m_options.table);
    pages.count          = join_page_count(m_options, build.rows);
    for (int round = 0;; ++round) {
      const std::uint32_t seed = join_page_seed(m_options, round);
      m_exec.fill(op.data(), 1, core::PagedOpStatus{});
      part.run(m_exec, build.keys, build.values, build.rows, pages.count, seed, op.data(), false);
      check_partition(op, side);
      pages.build_at        = part.offsets();
      std::uint32_t largest = 0;
      for (std::uint32_t p = 0; p < pages.count; ++p)
        largest = std::max(largest, pages.build_at[p + 1] - pages.build_at[p]);
      st.pages                = pages.count;
      st.partitions           = static_cast<std::size_t>(round) + 1;
      st.largest_page_rows    = largest;
      const std::size_t bytes = join_table_bytes(kind, largest, m_options.table_options);
      if (2 * bytes <= st.budget) return seed;
      pages.count = next_page_count(pages.count, 2.0 * bytes / st.budget);
      if (round + 1 == kPartitionRounds) {
        throw OutOfMemory("join: a page of the build side holds " + std::to_string(largest) +
                          " rows after " + std::to_string(kPartitionRounds) +
                          " partitions with fresh page seeds (its keys repeat: a key's rows stay "
                          "in one page), and its " +
                          std::string(to_string(kind)) + " table needs " + bytes_text(bytes) +
                          ", more than half the GPU budget of " + bytes_text(st.budget) +
                          " (two page tables are resident); raise the "
                          "budget to at least " +
                          bytes_text(2 * bytes));
      }
    }
  }

  /// Pages 0 and 1 of the partitioned build side into the slots, the others to pinned host memory
  /// lent by the join's pool (taken first: a shortfall changes nothing). Synchronizes (the
  /// partition's scratch is the probe side's next).
  void move_build_pages(tables::PagePartition<Exec>& part, Pages& pages, PagedJoinStats& st) {
    const std::size_t rows = pages.build_at.back();
    pages.host_begin       = pages.build_at[std::min<std::uint32_t>(2, pages.count)];
    const std::size_t host = rows - pages.host_begin;
    PinnedPool& pool       = m_options.pinned_pool ? *m_options.pinned_pool : default_pinned_pool();
    const auto pin_start   = std::chrono::steady_clock::now();
    try {
      pages.host        = pool.lend(host * (sizeof(Key) + sizeof(Value)));
      pages.host_keys   = static_cast<Key*>(pages.host.data());
      pages.host_values = reinterpret_cast<Value*>(pages.host_keys + host);
      st.bytes_pinned   = pages.host.pinned_bytes();
      st.pin_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - pin_start)
              .count();
    } catch (const OutOfMemory& e) {
      throw OutOfMemory(
          "join: pinned host memory for the build side's pages beyond the first two (" +
          bytes_text(host * 8) + ") could not be allocated; the GPU budget of " +
          bytes_text(st.budget) + " keeps only two pages on the device: " + e.what());
    }
    std::size_t largest = 0;
    for (std::uint32_t p = 0; p < pages.count; ++p)
      largest = std::max(largest, pages.build_rows(p));
    for (int s = 0; s < 2; ++s) {
      pages.slot_keys[s].resize(largest);
      pages.slot_values[s].resize(largest);
    }
    const auto columns = part.split_columns(m_exec);
    for (std::uint32_t p = 0; p < std::min<std::uint32_t>(2, pages.count); ++p) {
      const std::uint32_t at = pages.build_at[p];
      copy_rows(m_exec,
                pages.slot_keys[p].data(),
                pages.slot_values[p].data(),
                columns.keys + at,
                columns.values + at,
                pages.build_rows(p));
    }
    copy_rows(m_exec,
              pages.host_keys,
              pages.host_values,
              columns.keys + pages.host_begin,
              columns.values + pages.host_begin,
              host);
    st.bytes_to_host = host * 8;
    m_exec.synchronize();
  }

  /// Page by page on `table` through the two slots (PageStream, one page ahead): the next page
  /// uploaded into the slot the last one freed while this one is built and probed. Pages 0 and 1
  /// start in slots 0 and 1; a page with no output is passed over.
  template <class Table>
  void join_pages(Table& table, Pages& pages, JoinResult& result) {
    PagedJoinStats& st = result.paged;
    tables::PageStream<Exec> stream(1, false);
    stream.set_slots(2);
    stream.set_pages(pages.count);
    for (std::uint32_t p = 0; p < std::min<std::uint32_t>(2, pages.count); ++p)
      stream.place(p, p);
    std::vector<std::uint32_t> order;
    for (std::uint32_t p = 0; p < pages.count; ++p) {
      if (!skipped(pages, p)) order.push_back(p);
    }
    BuildStats tables;
    stream.run(
        m_exec,
        order,
        [&](Exec& up, std::uint32_t p, std::uint32_t s, bool resident) {
          if (resident) return;
          const std::size_t n  = pages.build_rows(p);
          const std::size_t at = pages.build_at[p] - pages.host_begin;
          copy_rows(up,
                    pages.slot_keys[s].data(),
                    pages.slot_values[s].data(),
                    pages.host_keys + at,
                    pages.host_values + at,
                    n);
          st.bytes_to_device += n * 8;
        },
        [&](Exec&, std::uint32_t p, std::uint32_t s) {
          join_page(table, pages, p, s, result);
          add_page_table(tables, result.table);
        },
        [](Exec&, std::uint32_t, std::uint32_t) {},
        [](std::uint32_t, std::uint32_t) {});
    st.upload_ms += stream.times().bring_ms;
    result.table = tables;
  }

  /// Page p, in slot s: its table built (rebuilt alone with new constants when the build fails),
  /// probed by its probe rows, its rows written after the output's.
  template <class Table>
  void join_page(
      Table& table, const Pages& pages, std::uint32_t p, std::uint32_t s, JoinResult& result) {
    const JoinInput build{
        pages.slot_keys[s].data(), pages.slot_values[s].data(), pages.build_rows(p)};
    const JoinInput probe{pages.probe_keys + pages.probe_at[p],
                          pages.probe_values + pages.probe_at[p],
                          pages.probe_rows(p)};
    m_page       = p;
    m_pages_done = p + 1;
    for (int attempt = 1;; ++attempt) {
      typename Exec::Event start, built, done;
      start.record(m_exec);
      try {
        join_on(table, build, probe, built, result);
      } catch (const BuildFailed& e) {
        if (attempt == kPageBuilds) {
          throw BuildFailed("join: the table of page " + std::to_string(p) + " of " +
                            std::to_string(pages.count) + " (" + std::to_string(build.rows) +
                            " build rows) failed " + std::to_string(kPageBuilds) +
                            " builds, each alone with new constants: " + e.what());
        }
        ++result.paged.page_rebuilds;
        continue;
      }
      done.record(m_exec);
      result.build_ms += start.elapsed_ms(built);
      result.probe_ms += built.elapsed_ms(done);
      return;
    }
  }

  /// Copies n rows of a key and a value column on `exec`, between any two memories.
  static void copy_rows(Exec& exec,
                        Key* keys,
                        Value* values,
                        const Key* from_keys,
                        const Value* from_values,
                        std::size_t n) {
    if (n == 0) return;
    exec.transfer_async(keys, from_keys, n * sizeof(Key));
    exec.transfer_async(values, from_values, n * sizeof(Value));
  }

  /// A page with no output whatever its other side: no rows on either side, or (inner and semi
  /// joins) none on one.
  [[nodiscard]] bool skipped(const Pages& pages, std::uint32_t p) const {
    const bool none_b = pages.build_rows(p) == 0, none_p = pages.probe_rows(p) == 0;
    const bool needs_both = m_options.kind == JoinKind::Inner || m_options.kind == JoinKind::Semi;
    return (none_b && none_p) || (needs_both && (none_b || none_p));
  }

  /// Adds a page's table to the join's (see JoinResult::table).
  static void add_page_table(BuildStats& all, const BuildStats& page) {
    all.keys += page.keys;
    all.unique_keys += page.unique_keys;
    all.attempts      = std::max(all.attempts, page.attempts);
    all.longest_chain = std::max(all.longest_chain, page.longest_chain);
    all.chain_limit   = std::max(all.chain_limit, page.chain_limit);
    if (page.bytes >= all.bytes) {
      all.bytes = page.bytes;
      all.slots = page.slots;
    }
  }

  /// Test hook (force_page_failures): the page's table counts as failed after this build.
  void fail_if_forced() {
    if (!m_page || *m_page >= m_forced.size() || m_forced[*m_page] == 0) return;
    --m_forced[*m_page];
    throw BuildFailed("join: page " + std::to_string(*m_page) +
                      ": a failure forced by the test hook");
  }

  /// Reads a partition's status: a sentinel key on `side` is the join's InvalidInput.
  void check_partition(Buffer<core::PagedOpStatus>& op, JoinSide side) {
    if (m_exec.read(op.data()).sentinel_key) throw_sentinel(side);
  }

  // ---- shared ----------------------------------------------------------------------------------

  /// A left join probing with the left side through a hash table: given a unique-key build side,
  /// the paper's one-pass join.
  [[nodiscard]] bool one_pass_left(JoinSide built) const {
    return built == JoinSide::Right && m_options.kind == JoinKind::Left &&
           m_options.algorithm == JoinAlgorithm::Hash;
  }

  static JoinSide other(JoinSide side) {
    return side == JoinSide::Left ? JoinSide::Right : JoinSide::Left;
  }

  std::uint32_t* sentinel(JoinSide side) {
    return m_sentinel.data() + (side == JoinSide::Left ? 0 : 1);
  }

  void check_sentinels() {
    std::uint32_t flags[2];
    m_exec.copy_to_host(flags, m_sentinel.data(), 2);
    for (const JoinSide side : {JoinSide::Left, JoinSide::Right}) {
      if (flags[side == JoinSide::Left ? 0 : 1]) throw_sentinel(side);
    }
  }

  [[noreturn]] static void throw_sentinel(JoinSide side) {
    throw InvalidInput("join: the " + std::string(to_string(side)) +
                       " side contains key 0xFFFFFFFF, which is reserved as the empty-slot "
                       "sentinel; remap it before joining");
  }

  /// Makes room for `rows` more output rows after those the output holds, checked against the
  /// caller's limit (all rows so far) and free memory first; returns the first new row. In one
  /// piece: the output is allocated at its size. Over pages: it grows to the rows the pages so
  /// far predict for all of them (1/16 more), or to exactly what is needed where that does not
  /// fit.
  std::uint64_t claim(std::uint64_t rows, bool two_cols, JoinResult& result) {
    const std::uint64_t base  = result.rows;
    const std::uint64_t total = base + rows;
    const std::uint64_t width = two_cols ? 8 : 4;
    const std::size_t limit   = m_options.max_output_bytes;
    if (limit != 0 && total * width > limit) {
      throw OutOfMemory(size_message(total, total * width) + ", more than the caller's limit of " +
                        bytes_text(limit));
    }
    if (m_pages_total == 0) {
      check_free(total, total * width);
      result.rows  = total;
      result.left  = Buffer<Value>(Exec::kBackend, total);
      result.right = Buffer<Value>(Exec::kBackend, two_cols ? total : 0);
      return 0;
    }
    if (total > m_capacity) {
      const double predicted = static_cast<double>(total) * m_pages_total / m_pages_done * 1.0625;
      std::uint64_t want     = std::max(total, static_cast<std::uint64_t>(predicted));
      if (limit != 0) want = std::max(total, std::min<std::uint64_t>(want, limit / width));
      if (want * width + kMemoryMargin > free_memory(Exec::kBackend)) want = total;
      check_free(total, total * width);  // (a larger `want` fits already)
      Buffer<Value> left(Exec::kBackend, want);
      Buffer<Value> right(Exec::kBackend, two_cols ? want : 0);
      m_exec.copy_async(left.data(), result.left.data(), base * sizeof(Value));
      if (two_cols) m_exec.copy_async(right.data(), result.right.data(), base * sizeof(Value));
      m_exec.synchronize();  // the old columns are freed next
      result.left.swap(left);
      result.right.swap(right);
      m_capacity = want;
      ++result.paged.output_grows;
    }
    result.rows = total;
    return base;
  }

  /// Throws OutOfMemory when an output of `rows` rows, `bytes` bytes, does not fit the free
  /// memory.
  void check_free(std::uint64_t rows, std::uint64_t bytes) const {
    const std::size_t free = free_memory(Exec::kBackend);
    if (bytes + kMemoryMargin <= free) return;
    throw OutOfMemory(size_message(rows, bytes) + ", but " + bytes_text(free) + " are free (with " +
                      bytes_text(kMemoryMargin) + " kept back)");
  }

  std::string size_message(std::uint64_t rows, std::uint64_t bytes) const {
    if (m_pages_total == 0) {
      return "join: the output would have " + std::to_string(rows) + " rows, " + bytes_text(bytes);
    }
    return "join: the output would have at least " + std::to_string(rows) + " rows, " +
           bytes_text(bytes) + " (pages 0 to " + std::to_string(m_pages_done - 1) + " of " +
           std::to_string(m_pages_total) + " counted)";
  }

  static std::string bytes_text(std::uint64_t bytes) {
    char text[64];
    std::snprintf(text,
                  sizeof text,
                  "%llu bytes (%.2f GiB)",
                  static_cast<unsigned long long>(bytes),
                  static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
    return text;
  }

  static constexpr std::size_t kMemoryMargin = std::size_t{64} << 20;

  JoinOptions m_options;
  Stream m_stream;
  Exec m_exec;
  Buffer<std::uint32_t> m_sentinel{Exec::kBackend, 0};
  Buffer<std::uint32_t> m_matched{Exec::kBackend, 0};  // per build row: a probe row matched it
  std::vector<Counts> m_counts;                        // per pass

  // Over pages: the pages, those counted so far, the output's allocated rows, the page being
  // joined (for the test hook) and the failures the hook still forces, by page.
  std::uint32_t m_pages_total = 0;
  std::uint32_t m_pages_done  = 0;
  std::uint64_t m_capacity    = 0;
  std::optional<std::uint32_t> m_page;
  std::vector<int> m_forced;
};

}  // namespace voxhash::joins
