// The clash pass's part-pair clashes of two mesh models' solids (pipeline/solid_steps.hpp builds
// them), written once over the executor (core/solid.hpp has the per-element steps). A's intervals
// meet B's in the same column (a sort-merge join: B's range found by binary search) in overlap
// rows, sorted by part pair and summed per pair (length in fixed point, moments, box). Per pair
// the depth and, for parts that do not overlap, the gap come from distance fields over a box of
// samples around them: each field starts from exact distances along the columns (write_interval)
// and is finished by the one-dimensional transform along y, then x (Felzenszwalb & Huttenlocher),
// so its values are Euclidean distances to the part's boundary as the columns cross it. Pairs
// that may come within the clearance are found by a sweep over the parts' boxes.
#pragma once

#include "clash/clash_raw.hpp"
#include "core/atomics.hpp"
#include "core/search.hpp"
#include "core/solid.hpp"
#include "pipeline/pipeline_backend.hpp"
#include "pipeline/solid_steps.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>
#include <voxhash/grid.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace voxhash::clash {

using core::PartBox;
using pipeline::ModelSolid;
using pipeline::offsets_of;
using pipeline::Scratch;

/// Samples a distance field may hold; a larger box is sampled at a coarser stride. A depth is
/// first found on at most kCoarseFieldSamples, which bounds the box a finer field needs.
inline constexpr std::uint64_t kMaxFieldSamples    = std::uint64_t{1} << 24;
inline constexpr std::uint64_t kCoarseFieldSamples = std::uint64_t{1} << 21;

/// Milliseconds between laps on the host's steady clock.
class Stopwatch {
 public:
  double lap() {
    const auto now  = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - m_last).count();
    m_last          = now;
    return ms;
  }

 private:
  std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
};

/// The distance fields' memory, kept from one field to the next of a clash pass.
template <class Exec>
struct FieldScratch {
  Buffer<std::uint32_t> v{Exec::kBackend, 0};
  Buffer<double> z{Exec::kBackend, 0};
  Buffer<float> g{Exec::kBackend, 0};
  std::array<Buffer<float>, 2> fields{Buffer<float>{Exec::kBackend, 0},
                                      Buffer<float>{Exec::kBackend, 0}};
};

/// One distance field of a pass of distance_fields: part `part` of `solid` into `out`.
template <class Exec>
struct FieldJob {
  const ModelSolid<Exec>* solid = nullptr;
  std::uint32_t part            = 0;
  Buffer<float>* out            = nullptr;
};

/// Into each job's buffer: a distance field over `box` of the job's part of its solid (squared
/// world units): inside fields hold each sample's distance to the part's boundary inside the part
/// (0 outside), outside fields the distance to the part's solid (0 inside). The fields' lines are
/// transformed together, a thread a line, so that two fields keep twice the lines in flight.
template <class Exec, std::size_t N>
void distance_fields(Exec& exec,
                     const std::array<FieldJob<Exec>, N>& jobs,
                     const core::FieldBox& box,
                     bool inside,
                     FieldScratch<Exec>& scratch) {
  static_assert(N == 1 || N == 2, "one or two fields a pass");
  const std::uint64_t size = box.size();
  const core::SampleGrid s = jobs[0].solid->grid;
  for (const FieldJob<Exec>& job : jobs) {
    job.out->resize(size);
    exec.fill(job.out->data(), size, inside ? 0.0f : core::kFarSquared);
    float* field               = job.out->data();
    const core::Interval* list = job.solid->intervals.data();
    const auto total           = static_cast<std::uint32_t>(job.solid->intervals.size());
    const std::uint32_t part   = job.part;
    exec.for_each(total, [=] VOXHASH_LAMBDA(std::uint32_t r) {
      const core::Interval iv = list[r];
      if (s.part_of(iv.key) != part) return;
      const std::uint64_t col = s.column_of(iv.key);
      const std::int64_t a    = box.lattice(0, static_cast<std::int64_t>(col % s.count[0]));
      const std::int64_t b    = box.lattice(1, static_cast<std::int64_t>(col / s.count[0]));
      if (a < 0 || b < 0) return;
      const bool first     = r == 0 || list[r - 1].key != iv.key;
      const bool has_next  = r + 1 < total && list[r + 1].key == iv.key;
      const double next_z0 = has_next ? static_cast<double>(list[r + 1].z0) : 1e300;
      core::write_interval(field,
                           box,
                           static_cast<std::uint32_t>(a),
                           static_cast<std::uint32_t>(b),
                           iv.z0,
                           iv.z1,
                           next_z0,
                           first,
                           inside,
                           s.step[2]);
    });
  }
  float* field0 = jobs[0].out->data();
  float* field1 = jobs[N - 1].out->data();
  // Along y, then x, a thread a line of either field. Its scratch is contiguous on the CPU (one
  // core walks one line) and interleaved across lines on the GPU (neighbouring threads,
  // neighbouring words).
  for (const int axis : {1, 0}) {
    const std::uint32_t len   = box.n[axis];
    const std::uint64_t lines = size / len;
    const std::uint64_t all   = lines * N;
    if (all > 0xFFFFFFFFull) throw InvalidInput("clash report: a distance field too large");
    scratch.v.resize(size * N);
    scratch.z.resize((size + lines) * N);
    scratch.g.resize(size * N);
    constexpr bool interleave = Exec::kBackend == Backend::Cuda;
    std::uint32_t* sv         = scratch.v.data();
    double* sz                = scratch.z.data();
    float* sg                 = scratch.g.data();
    const double h            = box.stride * s.step[axis];
    const std::uint32_t n0 = box.n[0], n1 = box.n[1];
    exec.for_each(all, [=] VOXHASH_LAMBDA(std::uint32_t global) {
      const std::uint32_t l = static_cast<std::uint32_t>(global % lines);
      float* field          = global < lines ? field0 : field1;
      std::uint64_t base, stride;
      if (axis == 1) {  // lines (a, c) along b
        const std::uint32_t a = l % n0, c = l / n0;
        base   = std::uint64_t{c} * n1 * n0 + a;
        stride = n0;
      } else {  // lines (b, c) along a
        base   = std::uint64_t{l} * n0;
        stride = 1;
      }
      const std::uint64_t at   = interleave ? global : std::uint64_t{global} * len;
      const std::uint64_t at_z = interleave ? global : std::uint64_t{global} * (len + 1);
      const std::uint64_t step = interleave ? all : 1;
      core::distance_transform_line(
          field + base, stride, len, h, sv + at, sz + at_z, sg + at, step);
    });
  }
}

/// A box of samples [lo, hi] (inclusive, clipped to the lattice) as a field box, at the finest
/// stride that keeps it within `max_samples`.
inline core::FieldBox field_box(const core::SampleGrid& s,
                                const std::int64_t lo_in[3],
                                const std::int64_t hi_in[3],
                                std::uint64_t max_samples = kMaxFieldSamples) {
  core::FieldBox box;
  std::int64_t lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = std::max<std::int64_t>(lo_in[a], 0);
    hi[a] = std::min<std::int64_t>(hi_in[a], std::int64_t{s.count[a]} - 1);
    if (hi[a] < lo[a]) return box;  // empty
  }
  for (std::uint32_t stride = 1;; stride *= 2) {
    std::uint64_t total = 1;
    for (int a = 0; a < 3; ++a) {
      box.origin[a] = lo[a];
      box.n[a]      = static_cast<std::uint32_t>((hi[a] - lo[a]) / stride + 1);
      total *= box.n[a];
    }
    box.stride = stride;
    if (total <= max_samples) return box;
  }
}

/// The depth of a part pair's overlap rows [begin, end) on field box `box`: the largest distance,
/// over the rows' samples, to the boundary of part_a or part_b (world units); for rows no sample
/// lies in (an overlap thinner than the stride), the thickest row's height.
template <class Exec>
double overlap_depth(Exec& exec,
                     const ModelSolid<Exec>& a,
                     const ModelSolid<Exec>& b,
                     std::uint32_t part_a,
                     std::uint32_t part_b,
                     const core::FieldBox& box,
                     const core::OverlapRow* rows,
                     std::uint32_t begin,
                     std::uint32_t end,
                     std::uint32_t* deepest,
                     FieldScratch<Exec>& scratch) {
  const core::SampleGrid s = a.grid;
  distance_fields<Exec, 2>(exec,
                           {{{&a, part_a, &scratch.fields[0]}, {&b, part_b, &scratch.fields[1]}}},
                           box,
                           true,
                           scratch);
  const Buffer<float>& fa = scratch.fields[0];
  const Buffer<float>& fb = scratch.fields[1];
  exec.fill(deepest, 2, 0u);
  std::uint32_t* out = deepest;
  const float* da    = fa.data();
  const float* db    = fb.data();
  exec.for_each(end - begin, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const core::OverlapRow r = rows[begin + i];
    core::atomic_max(&out[1], core::ordered_bits(r.hi - r.lo));
    const std::int64_t x = box.lattice(0, static_cast<std::int64_t>(r.column % s.count[0]));
    const std::int64_t y = box.lattice(1, static_cast<std::int64_t>(r.column / s.count[0]));
    if (x < 0 || y < 0) return;
    const std::uint32_t c1 = box.first_at_or_above(r.hi);
    float deepest_here     = 0.0f;
    for (std::uint32_t z = box.first_at_or_above(r.lo); z < c1; ++z) {
      const std::uint64_t at =
          box.index(static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), z);
      deepest_here = std::max(deepest_here, std::max(da[at], db[at]));
    }
    if (deepest_here > 0.0f) core::atomic_max(&out[0], core::ordered_bits(deepest_here));
  });
  std::uint32_t deep[2];
  exec.copy_to_host(deep, out, 2);
  exec.synchronize();
  const float d2 = core::ordered_float(deep[0]);
  return d2 > 0.0f ? std::sqrt(static_cast<double>(d2))
                   : static_cast<double>(core::ordered_float(deep[1])) * s.step[2];
}

/// The pairs (part of A, part of B) of non-empty boxes whose gap along x is at most `gap`
/// samples, sorted: a sweep along x over both models' boxes in order of their lower ends, each box
/// tested against the other model's boxes still open there.
inline std::vector<std::pair<std::uint32_t, std::uint32_t>> near_along_x(
    const std::vector<PartBox>& a, const std::vector<PartBox>& b, std::int64_t gap) {
  struct Span {
    std::int64_t lo, hi;
    std::uint32_t part;
  };
  auto spans = [](const std::vector<PartBox>& boxes, std::int64_t grow) {
    std::vector<Span> out;
    for (std::uint32_t p = 0; p < boxes.size(); ++p) {
      if (boxes[p].min[0] > boxes[p].max[0]) continue;
      out.push_back(
          {std::int64_t{boxes[p].min[0]} - grow, std::int64_t{boxes[p].max[0]} + grow, p});
    }
    std::sort(out.begin(), out.end(), [](const Span& l, const Span& r) { return l.lo < r.lo; });
    return out;
  };
  const std::vector<Span> sa = spans(a, gap), sb = spans(b, 0);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  std::vector<Span> open_a, open_b;
  // Meets `span` with the other model's open spans, dropping those that ended before it starts.
  auto meet = [&](const Span& span, std::vector<Span>& others, bool span_is_a) {
    for (std::size_t i = 0; i < others.size();) {
      if (others[i].hi < span.lo) {
        others[i] = others.back();
        others.pop_back();
        continue;
      }
      pairs.emplace_back(span_is_a ? span.part : others[i].part,
                         span_is_a ? others[i].part : span.part);
      ++i;
    }
  };
  std::size_t i = 0, j = 0;
  while (i < sa.size() || j < sb.size()) {
    if (j == sb.size() || (i < sa.size() && sa[i].lo <= sb[j].lo)) {
      meet(sa[i], open_b, true);
      open_a.push_back(sa[i++]);
    } else {
      meet(sb[j], open_a, false);
      open_b.push_back(sb[j++]);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

/// The part-pair clashes of two mesh models (see the file comment): every overlapping pair with
/// its sums, depth and sample spacing, and every other pair whose parts' boxes come within
/// `reach` samples of each other with its gap (when under `clearance`, world units).
template <class Exec>
void find_part_clashes(Exec& exec,
                       const ModelSolid<Exec>& a,
                       const ModelSolid<Exec>& b,
                       double clearance,
                       RawClash& raw,
                       Scratch<Exec>& scratch,
                       FieldScratch<Exec>& fields,
                       Stopwatch& clock) {
  const core::SampleGrid s = a.grid;
  const auto na            = static_cast<std::uint32_t>(a.intervals.size());
  const auto nb            = static_cast<std::uint32_t>(b.intervals.size());

  // Overlap rows: each interval of A against B's intervals in its column.
  std::uint32_t* counts     = scratch.template take<std::uint32_t>(na);
  const core::SampleGrid sb = b.grid;
  {
    std::uint32_t* count        = counts;
    const core::Interval* ia    = a.intervals.data();
    const core::Interval* ib    = b.intervals.data();
    const std::uint64_t* keys_b = b.keys.data();
    exec.for_each(na, [=] VOXHASH_LAMBDA(std::uint32_t r) {
      const std::uint64_t col = s.column_of(ia[r].key);
      const std::uint32_t lo  = core::lower_bound(keys_b, 0, nb, sb.key(col, 0));
      const std::uint32_t hi  = core::lower_bound(keys_b, lo, nb, sb.key(col + 1, 0));
      std::uint32_t c         = 0;
      for (std::uint32_t q = lo; q < hi; ++q) {
        c += std::min(ia[r].z1, ib[q].z1) > std::max(ia[r].z0, ib[q].z0);
      }
      count[r] = c;
    });
  }
  std::uint64_t* offsets          = scratch.template take<std::uint64_t>(std::size_t{na} + 1);
  const std::uint32_t rows        = offsets_of(exec, counts, na, offsets, "overlap rows");
  core::OverlapRow* row_list      = scratch.template take<core::OverlapRow>(rows);
  std::uint64_t* pair_keys        = scratch.template take<std::uint64_t>(rows);
  std::uint64_t* pair_keys_sorted = scratch.template take<std::uint64_t>(rows);
  std::uint32_t* order            = scratch.template take<std::uint32_t>(rows);
  std::uint32_t* order_sorted     = scratch.template take<std::uint32_t>(rows);
  {
    core::OverlapRow* out       = row_list;
    std::uint64_t* pk           = pair_keys;
    std::uint32_t* ord          = order;
    const std::uint64_t* at     = offsets;
    const core::Interval* ia    = a.intervals.data();
    const core::Interval* ib    = b.intervals.data();
    const std::uint64_t* keys_b = b.keys.data();
    exec.for_each(na, [=] VOXHASH_LAMBDA(std::uint32_t r) {
      const std::uint64_t col = s.column_of(ia[r].key);
      const std::uint32_t lo  = core::lower_bound(keys_b, 0, nb, sb.key(col, 0));
      const std::uint32_t hi  = core::lower_bound(keys_b, lo, nb, sb.key(col + 1, 0));
      std::uint64_t w         = at[r];
      for (std::uint32_t q = lo; q < hi; ++q) {
        const float top    = std::min(ia[r].z1, ib[q].z1);
        const float bottom = std::max(ia[r].z0, ib[q].z0);
        if (!(top > bottom)) continue;
        const core::OverlapRow row{s.part_of(ia[r].key), sb.part_of(ib[q].key), col, bottom, top};
        out[w] = row;
        pk[w]  = (std::uint64_t{row.part_a} << 32) | row.part_b;
        ord[w] = static_cast<std::uint32_t>(w);
        ++w;
      }
    });
  }
  exec.sort_pairs(pair_keys, pair_keys_sorted, order, order_sorted, rows, 64);
  core::OverlapRow* sorted_rows = scratch.template take<core::OverlapRow>(rows);
  std::uint8_t* starts          = scratch.template take<std::uint8_t>(rows);
  {
    core::OverlapRow* out      = sorted_rows;
    std::uint8_t* start        = starts;
    const core::OverlapRow* in = row_list;
    const std::uint32_t* ord   = order_sorted;
    const std::uint64_t* pk    = pair_keys_sorted;
    exec.for_each(rows, [=] VOXHASH_LAMBDA(std::uint32_t r) {
      out[r]   = in[ord[r]];
      start[r] = r == 0 || pk[r] != pk[r - 1];
    });
  }
  std::uint32_t* first_rows  = scratch.template take<std::uint32_t>(rows + 1);
  const std::size_t pairs    = exec.select_flagged_indices(starts, first_rows, rows);
  std::uint32_t* pair_of_row = scratch.template take<std::uint32_t>(rows);
  {
    std::uint32_t* flags      = pair_of_row;
    const std::uint8_t* start = starts;
    exec.for_each(rows, [=] VOXHASH_LAMBDA(std::uint32_t r) { flags[r] = start[r]; });
  }
  exec.exclusive_sum(pair_of_row, pair_of_row, rows);
  core::PairSums* sums = scratch.template take<core::PairSums>(pairs);
  exec.fill(sums, pairs, core::PairSums{});
  {
    core::PairSums* sum         = sums;
    const core::OverlapRow* row = sorted_rows;
    const std::uint32_t* pair   = pair_of_row;
    const std::uint8_t* start   = starts;
    const std::uint32_t total   = rows;
    exec.for_each((rows + core::kRowsPerThread - 1) / core::kRowsPerThread,
                  [=] VOXHASH_LAMBDA(std::uint32_t chunk) {
                    const std::uint32_t first = chunk * core::kRowsPerThread;
                    const std::uint32_t last =
                        total - first < core::kRowsPerThread ? total : first + core::kRowsPerThread;
                    core::PairSums own;
                    std::uint32_t current = pair[first] + start[first] - 1u;
                    for (std::uint32_t r = first; r < last; ++r) {
                      const std::uint32_t p = pair[r] + start[r] - 1u;
                      if (p != current) {
                        core::add_sums(sum[current], own);
                        own     = {};
                        current = p;
                      }
                      core::add_row(own, s, row[r]);
                    }
                    core::add_sums(sum[current], own);
                  });
  }
  std::vector<core::PairSums> host_sums(pairs);
  std::vector<std::uint32_t> host_first(pairs);
  exec.copy_to_host(host_sums.data(), sums, pairs);
  exec.copy_to_host(host_first.data(), first_rows, pairs);
  std::vector<core::OverlapRow> first_row(pairs);
  {
    core::OverlapRow* firsts    = scratch.template take<core::OverlapRow>(pairs);
    const core::OverlapRow* row = sorted_rows;
    const std::uint32_t* at     = first_rows;
    exec.for_each(pairs, [=] VOXHASH_LAMBDA(std::uint32_t p) { firsts[p] = row[at[p]]; });
    exec.copy_to_host(first_row.data(), firsts, pairs);
  }
  exec.synchronize();

  raw.ms.overlaps = clock.lap();

  // Depth per overlapping pair: the largest distance, over the overlap's samples, to the boundary
  // of either part, from inside-distance fields over the overlap's box grown by a margin the
  // depth cannot exceed: first twice the overlap's extent, coarsely (kCoarseFieldSamples), then,
  // where that stride was coarse, the depth found plus its error, as finely as kMaxFieldSamples
  // allows.
  std::uint32_t* deepest = scratch.template take<std::uint32_t>(2);
  for (std::size_t p = 0; p < pairs; ++p) {
    const core::PairSums& sum = host_sums[p];
    RawPairClash c;
    c.part_a            = first_row[p].part_a;
    c.part_b            = first_row[p].part_b;
    c.sums              = sum;
    std::int64_t extent = 0;
    for (int d = 0; d < 3; ++d)
      extent = std::max<std::int64_t>(extent, std::int64_t{sum.max[d]} - sum.min[d] + 1);
    const std::uint32_t begin = host_first[p];
    const std::uint32_t end   = p + 1 < pairs ? host_first[p + 1] : rows;
    std::int64_t margin       = 2 * extent;
    for (int pass = 0; pass < 2; ++pass) {
      std::int64_t lo[3], hi[3];
      for (int d = 0; d < 3; ++d) {
        lo[d] = std::int64_t{sum.min[d]} - margin;
        hi[d] = std::int64_t{sum.max[d]} + margin;
      }
      const core::FieldBox box =
          field_box(s, lo, hi, pass == 0 ? kCoarseFieldSamples : kMaxFieldSamples);
      if (pass == 1 && box.stride >= c.stride) break;
      c.stride  = box.stride;
      c.spacing = box.stride * std::max(s.step[0], s.step[1]);
      c.depth   = overlap_depth(
          exec, a, b, c.part_a, c.part_b, box, sorted_rows, begin, end, deepest, fields);
      margin = static_cast<std::int64_t>(
                   std::ceil(c.depth / std::min({s.step[0], s.step[1], s.step[2]}))) +
               2 * box.stride;
      if (box.stride == 1) break;
    }
    raw.pairs.push_back(c);
  }

  raw.ms.depths = clock.lap();

  // Gaps: pairs that do not overlap and whose parts' boxes come within the clearance.
  if (!(clearance > 0)) return;
  std::vector<std::uint64_t> overlapped;
  for (const RawPairClash& c : raw.pairs)
    overlapped.push_back((std::uint64_t{c.part_a} << 32) | c.part_b);
  std::sort(overlapped.begin(), overlapped.end());
  const std::int64_t reach = static_cast<std::int64_t>(std::ceil(
                                 clearance / std::min({s.step[0], s.step[1], s.step[2]}))) +
                             1;
  // A's intervals part by part: their indices sorted by part, and where each part's run begins.
  std::uint32_t* run_start = nullptr;
  std::uint32_t* by_part   = nullptr;
  std::vector<std::uint32_t> host_run_start;
  auto sort_by_part = [&] {
    std::uint32_t* part_keys        = scratch.template take<std::uint32_t>(na);
    std::uint32_t* part_keys_sorted = scratch.template take<std::uint32_t>(na);
    std::uint32_t* index            = scratch.template take<std::uint32_t>(na);
    by_part                         = scratch.template take<std::uint32_t>(na);
    run_start                       = scratch.template take<std::uint32_t>(a.parts + 1);
    {
      std::uint32_t* part        = part_keys;
      std::uint32_t* at          = index;
      const core::Interval* list = a.intervals.data();
      exec.for_each(na, [=] VOXHASH_LAMBDA(std::uint32_t r) {
        part[r] = s.part_of(list[r].key);
        at[r]   = r;
      });
    }
    exec.sort_pairs(part_keys, part_keys_sorted, index, by_part, na, std::bit_width(a.parts));
    {
      std::uint32_t* start       = run_start;
      const std::uint32_t* parts = part_keys_sorted;
      exec.for_each(a.parts + 1, [=] VOXHASH_LAMBDA(std::uint32_t p) {
        start[p] = core::lower_bound(parts, 0, na, p);
      });
    }
    host_run_start.resize(a.parts + 1);
    exec.copy_to_host(host_run_start.data(), run_start, a.parts + 1);
    exec.synchronize();
  };
  std::uint64_t* nearest = scratch.template take<std::uint64_t>(1);
  for (const auto& [pa, pb] : near_along_x(a.boxes, b.boxes, 2 * reach)) {
    const PartBox& ba = a.boxes[pa];
    const PartBox& bb = b.boxes[pb];
    if (std::binary_search(overlapped.begin(), overlapped.end(), (std::uint64_t{pa} << 32) | pb))
      continue;
    std::int64_t lo[3], hi[3];
    bool near = true;
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::max<std::int64_t>(std::int64_t{ba.min[d]}, std::int64_t{bb.min[d]}) - reach;
      hi[d] = std::min<std::int64_t>(std::int64_t{ba.max[d]}, std::int64_t{bb.max[d]}) + reach;
      near  = near && lo[d] <= hi[d];
    }
    if (!near) continue;
    const core::FieldBox box = field_box(s, lo, hi);
    if (box.size() == 0) continue;
    if (by_part == nullptr) sort_by_part();
    const std::uint32_t first = host_run_start[pa];
    const std::uint32_t count = host_run_start[pa + 1] - first;
    distance_fields<Exec, 1>(exec, {{{&b, pb, &fields.fields[1]}}}, box, false, fields);
    const Buffer<float>& fb = fields.fields[1];
    exec.fill(nearest, 1, ~std::uint64_t{0});
    {
      std::uint64_t* out         = nearest;
      const float* dist          = fb.data();
      const core::Interval* list = a.intervals.data();
      const std::uint32_t* pick  = by_part + first;
      const double step_z        = s.step[2];
      exec.for_each(count, [=] VOXHASH_LAMBDA(std::uint32_t r) {
        const core::Interval iv = list[pick[r]];
        const std::uint64_t col = s.column_of(iv.key);
        const std::int64_t x    = box.lattice(0, static_cast<std::int64_t>(col % s.count[0]));
        const std::int64_t y    = box.lattice(1, static_cast<std::int64_t>(col / s.count[0]));
        if (x < 0 || y < 0) return;
        auto offer = [&](std::uint32_t z, double less) {
          const std::uint64_t at =
              box.index(static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), z);
          const double d = std::max(std::sqrt(static_cast<double>(dist[at])) - less, 0.0);
          core::atomic_min(out,
                           (std::uint64_t{core::ordered_bits(static_cast<float>(d))} << 32) |
                               static_cast<std::uint32_t>(at));
        };
        const std::uint32_t c0 = box.first_at_or_above(iv.z0);
        const std::uint32_t c1 = box.first_at_or_above(iv.z1);
        for (std::uint32_t z = c0; z < c1; ++z)
          offer(z, 0.0);
        // The interval's ends, from the nearest samples of the field (a distance changes by at
        // most the step to them).
        for (const float end : {iv.z0, iv.z1}) {
          // An end beyond the box's heights is farther than the clearance from B: the box
          // holds every point that comes that close.
          const double c =
              std::round((end - 0.5 - static_cast<double>(box.origin[2])) / box.stride);
          if (!(c >= 0.0 && c < static_cast<double>(box.n[2]))) continue;
          const auto z = static_cast<std::uint32_t>(c);
          offer(z, std::abs(box.height(z) - end) * step_z);
        }
      });
    }
    std::uint64_t best = 0;
    exec.copy_to_host(&best, nearest, 1);
    exec.synchronize();
    if (best == ~std::uint64_t{0}) continue;
    const double gap = core::ordered_float(static_cast<std::uint32_t>(best >> 32));
    if (!(gap < clearance)) continue;
    const auto at = static_cast<std::uint32_t>(best);
    RawPairClash c;
    c.part_a              = pa;
    c.part_b              = pb;
    c.gap                 = gap;
    c.spacing             = box.stride * std::max(s.step[0], s.step[1]);
    const std::uint32_t x = at % box.n[0], y = (at / box.n[0]) % box.n[1],
                        z       = at / box.n[0] / box.n[1];
    const std::uint32_t cell[3] = {
        static_cast<std::uint32_t>(box.origin[0] + std::int64_t{x} * box.stride),
        static_cast<std::uint32_t>(box.origin[1] + std::int64_t{y} * box.stride),
        static_cast<std::uint32_t>(box.origin[2] + std::int64_t{z} * box.stride)};
    for (int d = 0; d < 3; ++d) {
      c.sums.min[d]    = cell[d];
      c.sums.max[d]    = cell[d];
      c.sums.moment[d] = cell[d] + 0.5;
    }
    raw.pairs.push_back(c);
  }
  raw.ms.gaps = clock.lap();
}

}  // namespace voxhash::clash
