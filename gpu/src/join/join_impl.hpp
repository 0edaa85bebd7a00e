// JoinRun<Exec>: the joins of join.hpp written once over the executor. The build side goes into a
// table (cuckoo or bucketed cuckoo with their multivalue lists, or HashGraph), or both sides are
// radix-sorted (sort-merge); then per probe row: count -> 64-bit exclusive scan -> size check ->
// write. With the left side built, the right rows mark which build keys matched and a pass over
// the left rows emits what depends on that (left-join nulls, semi, anti). A left join of a
// unique-key build side is the paper's: one pass, one output row per probe row.
#pragma once

#include "core/join.hpp"
#include "tables/bucketed_cuckoo_table_impl.hpp"
#include "tables/build_status.hpp"
#include "tables/cuckoo_table_impl.hpp"
#include "tables/hash_graph_impl.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>
#include <voxhash/join.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
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

template <class Exec>
class JoinRun {
 public:
  JoinRun(const JoinOptions& options, Stream stream)
      : m_options(options), m_stream(stream), m_exec(stream) {}

  JoinResult run(const JoinInput& left, const JoinInput& right) {
    if (m_options.algorithm == JoinAlgorithm::Hash && m_options.table == TableKind::PagedCuckoo) {
      throw InvalidInput(
          "join: the build side is hashed into cuckoo, bcht or HashGraph, not paged-cuckoo");
    }
    tables::check_size(left.rows, "join (left side)");
    tables::check_size(right.rows, "join (right side)");
    JoinResult result;
    result.built =
        m_options.build.value_or(right.rows <= left.rows ? JoinSide::Right : JoinSide::Left);
    const JoinInput& build = result.built == JoinSide::Right ? right : left;
    const JoinInput& probe = result.built == JoinSide::Right ? left : right;
    m_sentinel.resize(2);
    m_exec.fill(m_sentinel.data(), 2, 0u);
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
    } else if (m_options.table == TableKind::Cuckoo) {
      probe_slot_table<tables::CuckooTableImpl<Exec>>(build, probe, built, result);
    } else if (m_options.table == TableKind::BucketedCuckoo) {
      probe_slot_table<tables::BucketedCuckooTableImpl<Exec>>(build, probe, built, result);
    } else {
      BuildOptions o = m_options.table_options;
      o.unique_ids   = one_pass_left(result.built);  // only to know whether the keys are unique
      tables::HashGraphImpl<Exec> table(m_options.table, o);
      result.table = table.build(build.keys, build.values, build.rows, m_stream);
      built.record(m_exec);
      const bool unique = result.table.unique_keys == build.rows;
      probe_with(core::HashGraphMatcher{table.ref()}, build, probe, unique, result);
    }
    done.record(m_exec);
    result.build_ms = start.elapsed_ms(built);
    result.probe_ms = built.elapsed_ms(done);
    return result;
  }

  // The passes' bodies (public only because nvcc's extended lambdas need a public enclosing
  // function).

  /// Builds a slot table (cuckoo or bucketed cuckoo) of `build` and probes it with `probe`,
  /// recording `built` in between. The paper's left join needs only the table and whether its
  /// keys are distinct; every other join (and a left join whose build keys repeat) the multivalue
  /// lists.
  template <class Table>
  void probe_slot_table(const JoinInput& build,
                        const JoinInput& probe,
                        typename Exec::Event& built,
                        JoinResult& result) {
    BuildOptions o        = m_options.table_options;
    const bool paper_left = one_pass_left(result.built);
    o.unique_ids          = false;
    o.multiplicities      = false;
    o.multivalue          = !paper_left;
    Table table(o);
    result.table      = table.build(build.keys, build.values, build.rows, m_stream);
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
  /// occurs once (a left join then takes the paper's one-pass path).
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
      allocate(probe.rows, true, result);
      write_unique_left(m_exec,
                        m,
                        probe.keys,
                        probe.values,
                        static_cast<std::uint32_t>(probe.rows),
                        sentinel(pside),
                        result.left.data(),
                        result.right.data());
      check_sentinels();
      return;
    }

    std::vector<Pass> passes;
    Buffer<std::uint32_t> matched(Exec::kBackend,
                                  reversed && kind != JoinKind::Inner ? build.rows : 0);
    if (!reversed) {
      const Emit emit = kind == JoinKind::Inner  ? Emit::Pairs
                        : kind == JoinKind::Left ? Emit::PairsOrNull
                        : kind == JoinKind::Semi ? Emit::Matched
                                                 : Emit::Unmatched;
      passes.push_back({probe, pside, emit});
    } else if (kind == JoinKind::Inner) {
      passes.push_back({probe, pside, Emit::Pairs});
    } else {
      m_exec.fill(matched.data(), matched.size(), 0u);
      passes.push_back(
          {probe, pside, kind == JoinKind::Left ? Emit::Pairs : Emit::Nothing, matched.data()});
      passes.push_back({build,
                        result.built,
                        kind == JoinKind::Semi ? Emit::Matched : Emit::Unmatched,
                        nullptr,
                        matched.data()});
    }

    // Count every pass (marking before reading: the passes run in order on the stream).
    std::vector<Counts> counts(passes.size());
    for (std::size_t p = 0; p < passes.size(); ++p) {
      const Pass& pass = passes[p];
      const auto n     = static_cast<std::uint32_t>(pass.input.rows);
      counts[p]        = Counts(n);
      count_rows(m_exec,
                 m,
                 pass.emit,
                 pass.input.keys,
                 n,
                 pass.matched,
                 pass.matched_in,
                 sentinel(pass.side),
                 counts[p].ranges.data(),
                 counts[p].rows.data());
    }
    std::vector<std::uint64_t> base(passes.size() + 1, 0);
    for (std::size_t p = 0; p < passes.size(); ++p) {
      const auto n        = passes[p].input.rows;
      std::uint64_t total = 0;
      if (passes[p].emit != Emit::Nothing && n != 0) {
        m_exec.exclusive_sum(counts[p].rows.data(), counts[p].offsets.data(), n);
        total = m_exec.read(counts[p].offsets.data() + n - 1) +
                m_exec.read(counts[p].rows.data() + n - 1);
      }
      base[p + 1] = base[p] + total;
    }
    check_sentinels();
    allocate(base.back(), two_cols, result);
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
                 counts[p].rows.data(),
                 counts[p].ranges.data(),
                 counts[p].offsets.data(),
                 base[p],
                 from_left ? left_col : right_col,
                 from_left ? right_col : left_col);
    }
    m_exec.synchronize();  // the passes' scratch is freed on return
  }

 private:
  /// The count pass's per-row scratch.
  struct Counts {
    Counts() = default;
    explicit Counts(std::size_t n)
        : rows(Exec::kBackend, n), ranges(Exec::kBackend, n), offsets(Exec::kBackend, n) {}
    Buffer<std::uint32_t> rows;
    Buffer<ValueRange> ranges;
    Buffer<std::uint64_t> offsets;
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
      if (flags[side == JoinSide::Left ? 0 : 1]) {
        throw InvalidInput("join: the " + std::string(to_string(side)) +
                           " side contains key 0xFFFFFFFF, which is reserved as the empty-slot "
                           "sentinel; remap it before joining");
      }
    }
  }

  /// Checks the output of `rows` rows against the caller's limit and free memory, then allocates
  /// it.
  void allocate(std::uint64_t rows, bool two_cols, JoinResult& result) {
    const std::uint64_t bytes = rows * (two_cols ? 8 : 4);
    const std::size_t limit   = m_options.max_output_bytes;
    if (limit != 0 && bytes > limit) {
      throw OutOfMemory(size_message(rows, bytes) + ", more than the caller's limit of " +
                        bytes_text(limit));
    }
    const std::size_t free = free_memory(Exec::kBackend);
    if (bytes + kMemoryMargin > free) {
      throw OutOfMemory(size_message(rows, bytes) + ", but " + bytes_text(free) +
                        " are free (with " + bytes_text(kMemoryMargin) + " kept back)");
    }
    result.rows  = rows;
    result.left  = Buffer<Value>(Exec::kBackend, rows);
    result.right = Buffer<Value>(Exec::kBackend, two_cols ? rows : 0);
  }

  static std::string size_message(std::uint64_t rows, std::uint64_t bytes) {
    return "join: the output would have " + std::to_string(rows) + " rows, " + bytes_text(bytes);
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
};

}  // namespace voxhash::joins
