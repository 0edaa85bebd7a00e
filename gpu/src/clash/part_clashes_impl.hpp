// The clash pass's solids and part-pair clashes, written once over the executor (core/solid.hpp
// has the per-element steps). Each mesh model's triangles, as the last frame placed them, are
// crossed by z-columns (per triangle and tile of columns: count, scan, write), the crossings sorted
// by (column, part, height) and paired into the intervals each part's inside covers; a column with
// an odd number of crossings, or an edge an odd number of triangles use, marks its part open. A's
// intervals meet B's in the same column (a sort-merge join: B's range found by binary search) in
// overlap rows, sorted by part pair and summed per pair (length in fixed point, moments, box). Per
// pair the depth and, for parts that do not overlap, the gap come from distance fields over a box
// of samples around them: each field starts from exact distances along the columns (write_interval)
// and is finished by the one-dimensional transform along y, then x (Felzenszwalb & Huttenlocher),
// so its values are Euclidean distances to the part's boundary as the columns cross it.
#pragma once

#include "clash/clash_raw.hpp"
#include "core/atomics.hpp"
#include "core/solid.hpp"
#include "pipeline/pipeline_backend.hpp"

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
#include <vector>

namespace voxhash::clash {

/// Samples a distance field may hold; a larger box is sampled at a coarser stride. A depth is
/// first found on at most kCoarseFieldSamples, which bounds the box a finer field needs.
inline constexpr std::uint64_t kMaxFieldSamples    = std::uint64_t{1} << 24;
inline constexpr std::uint64_t kCoarseFieldSamples = std::uint64_t{1} << 21;

/// Backend memory a clash pass takes in the same order every time: slot i keeps its allocation
/// from one report to the next (restart() at a report's start), so a report allocates only what
/// outgrows the last one.
template <class Exec>
class Scratch {
 public:
  void restart() { m_next = 0; }

  /// Room for n values of T (uninitialized), valid until the next restart().
  template <class T>
  T* take(std::size_t n) {
    if (m_next == m_slots.size()) m_slots.emplace_back(Exec::kBackend, 0);
    Buffer<std::byte>& slot = m_slots[m_next++];
    slot.resize(std::max<std::size_t>(n, 1) * sizeof(T));
    return reinterpret_cast<T*>(slot.data());
  }

 private:
  std::vector<Buffer<std::byte>> m_slots;
  std::size_t m_next = 0;
};

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

/// Part ids a solid takes (each part has a box and an open flag on the device and the host).
inline constexpr std::uint32_t kMaxParts = std::uint32_t{1} << 22;

/// A model's solid: its parts' intervals sorted by key (column, part), then height.
template <class Exec>
struct ModelSolid {
  core::SampleGrid grid;
  Buffer<core::Interval> intervals{Exec::kBackend, 0};
  Buffer<std::uint64_t> keys{Exec::kBackend, 0};  // the intervals' keys, for binary searches
  std::uint32_t parts = 0;                        // part ids below this
  std::vector<std::uint32_t> open;  // per part: 1 for an edge used, or a column crossed, oddly
  std::vector<PartBox> boxes;       // per part: its intervals' sample box
};

/// The first index in keys[lo, hi) whose key is at least `key`.
VOXHASH_HD std::uint32_t lower_bound(const std::uint64_t* keys,
                                     std::uint32_t lo,
                                     std::uint32_t hi,
                                     std::uint64_t key) {
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// A 64-bit total of counts[0..n) and each one's offset; throws InvalidInput naming `what` past
/// 2^31 - 1 (the loops index with 32 bits).
template <class Exec>
std::uint32_t offsets_of(Exec& exec,
                         const std::uint32_t* counts,
                         std::size_t n,
                         std::uint64_t* offsets,
                         const char* what) {
  if (n == 0) return 0;
  exec.exclusive_sum(counts, offsets, n);
  std::uint64_t last = 0;
  std::uint32_t tail = 0;
  exec.copy_to_host(&last, offsets + n - 1, 1);
  exec.copy_to_host(&tail, counts + n - 1, 1);
  const std::uint64_t total = last + tail;
  if (total > 0x7FFFFFFFull) {
    throw InvalidInput("clash report: " + std::to_string(total) + " " + what +
                       ", over 2^31 - 1: use a coarser grid or fewer columns per voxel");
  }
  return static_cast<std::uint32_t>(total);
}

/// One more than the largest part id of the mesh's triangles (1 without part ids).
template <class Exec>
std::uint32_t part_count(Exec& exec, const detail::MeshView& mesh, Scratch<Exec>& scratch) {
  if (!mesh.parts || mesh.triangle_count == 0) return 1;
  std::uint32_t* top = scratch.template take<std::uint32_t>(1);
  exec.fill(top, 1, 0u);
  std::uint32_t* out         = top;
  const std::uint32_t* parts = mesh.parts;
  exec.for_each(mesh.triangle_count,
                [=] VOXHASH_LAMBDA(std::uint32_t t) { core::atomic_max(out, parts[t]); });
  std::uint32_t largest = 0;
  exec.copy_to_host(&largest, out, 1);
  exec.synchronize();
  if (largest >= kMaxParts) {
    throw InvalidInput("clash report: part id " + std::to_string(largest) +
                       ": the solids take part ids below " + std::to_string(kMaxParts) +
                       " (a model's parts numbered 0, 1, 2, ...)");
  }
  return largest + 1;
}

/// The sample lattice over grid `g` with `per_voxel` columns across each voxel axis.
inline core::SampleGrid sample_grid(const Grid& g, int per_voxel, std::uint32_t parts) {
  core::SampleGrid s;
  const double size[3]      = {g.voxel_size.x, g.voxel_size.y, g.voxel_size.z};
  const double origin[3]    = {g.origin.x, g.origin.y, g.origin.z};
  const std::int64_t res[3] = {g.resolution.x, g.resolution.y, g.resolution.z};
  for (int a = 0; a < 3; ++a) {
    s.origin[a] = origin[a];
    s.step[a]   = size[a] / per_voxel;
    s.count[a]  = static_cast<std::uint32_t>(res[a] * per_voxel);
  }
  const int column_bits = std::bit_width(std::uint64_t{s.count[0]} * s.count[1]);
  s.part_bits           = std::max(1, static_cast<int>(std::bit_width(parts)));
  if (column_bits + s.part_bits > 64) {
    throw InvalidInput("clash report: " + std::to_string(parts) + " parts on a grid of " +
                       std::to_string(s.count[0]) + " x " + std::to_string(s.count[1]) +
                       " columns do not fit a 64-bit key: use fewer columns per voxel");
  }
  return s;
}

/// canonical[v] for each of the mesh's vertices: the lowest-sorted vertex at the same position
/// (bit for bit), so that files which repeat a position (an OBJ's faces each with vertices of
/// their own) still share their edges. Sorted by z's bits, then stably by x's and y's.
template <class Exec>
void weld_positions(Exec& exec,
                    const detail::MeshView& mesh,
                    std::uint32_t* canonical,
                    Scratch<Exec>& scratch) {
  const std::uint32_t n       = mesh.vertex_count;
  std::uint64_t* xy           = scratch.template take<std::uint64_t>(n);
  std::uint64_t* xy_sorted    = scratch.template take<std::uint64_t>(n);
  std::uint32_t* z            = scratch.template take<std::uint32_t>(n);
  std::uint32_t* z_sorted     = scratch.template take<std::uint32_t>(n);
  std::uint32_t* order        = scratch.template take<std::uint32_t>(n);
  std::uint32_t* order_sorted = scratch.template take<std::uint32_t>(n);
  const Float3* vertex        = mesh.vertices;
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t v) {
    z[v]     = core::ordered_bits(vertex[v].z);
    order[v] = v;
  });
  exec.sort_pairs(z, z_sorted, order, order_sorted, n, 32);
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t k) {
    const Float3 p = vertex[order_sorted[k]];
    xy[k]          = (std::uint64_t{core::ordered_bits(p.x)} << 32) | core::ordered_bits(p.y);
  });
  exec.sort_pairs(xy, xy_sorted, order_sorted, order, n, 64);
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t k) {
    // The run of equal positions k is in: back to its first member.
    const Float3 p      = vertex[order[k]];
    std::uint32_t first = k;
    while (first > 0) {
      const Float3 q = vertex[order[first - 1]];
      if (!(core::ordered_bits(q.x) == core::ordered_bits(p.x) &&
            core::ordered_bits(q.y) == core::ordered_bits(p.y) &&
            core::ordered_bits(q.z) == core::ordered_bits(p.z))) {
        break;
      }
      --first;
    }
    canonical[order[k]] = order[first];
  });
}

/// Marks open[part] for every part with an edge that an odd number of its model's triangles use
/// (a hole, a missing face: no inside), whichever way the columns run. Edges join welded positions
/// (weld_positions), so a file's repeated vertices do not open it.
template <class Exec>
void mark_open_edges(Exec& exec,
                     const detail::MeshView& mesh,
                     std::uint32_t* open,
                     Scratch<Exec>& scratch) {
  const std::uint64_t edges = std::uint64_t{3} * mesh.triangle_count;
  if (edges > 0x7FFFFFFFull) return;  // beyond the 32-bit loops: the columns' parity alone
  const auto n             = static_cast<std::uint32_t>(edges);
  std::uint32_t* canonical = scratch.template take<std::uint32_t>(mesh.vertex_count);
  weld_positions(exec, mesh, canonical, scratch);
  std::uint64_t* keys         = scratch.template take<std::uint64_t>(n);
  std::uint64_t* keys_sorted  = scratch.template take<std::uint64_t>(n);
  std::uint32_t* parts        = scratch.template take<std::uint32_t>(n);
  std::uint32_t* parts_sorted = scratch.template take<std::uint32_t>(n);
  {
    std::uint64_t* key           = keys;
    std::uint32_t* part          = parts;
    const std::uint32_t* indices = mesh.triangles;
    const std::uint32_t* owner   = mesh.parts;
    const std::uint32_t* welded  = canonical;
    exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t e) {
      const std::uint32_t t = e / 3, k = e % 3;
      const std::uint32_t u = welded[indices[3 * t + k]];
      const std::uint32_t v = welded[indices[3 * t + (k + 1) % 3]];
      key[e]                = u < v ? (std::uint64_t{u} << 32) | v : (std::uint64_t{v} << 32) | u;
      part[e]               = owner ? owner[t] : 0u;
    });
  }
  exec.sort_pairs(keys, keys_sorted, parts, parts_sorted, n, 64);
  const std::uint64_t* key  = keys_sorted;
  const std::uint32_t* part = parts_sorted;
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t e) {
    if (e > 0 && key[e - 1] == key[e]) return;
    std::uint32_t end = e + 1;
    while (end < n && key[end] == key[e])
      ++end;
    if ((end - e) & 1u) core::atomic_store(&open[part[e]], 1u);
  });
}

/// Into `solid`: model `mesh`'s solid (see the file comment) on lattice `s`, its part ids below
/// `parts` (part_count).
template <class Exec>
void build_solid(Exec& exec,
                 const core::SampleGrid& s,
                 const detail::MeshView& mesh,
                 std::uint32_t parts,
                 ModelSolid<Exec>& solid,
                 Scratch<Exec>& scratch) {
  solid.grid = s;
  solid.intervals.resize(0);
  solid.keys.resize(0);
  const std::uint32_t n = mesh.triangle_count;
  solid.parts           = parts;
  solid.open.assign(solid.parts, 0);
  solid.boxes.assign(solid.parts, PartBox{});
  if (n == 0) return;
  std::uint32_t* open = scratch.template take<std::uint32_t>(solid.parts);
  exec.fill(open, solid.parts, 0u);
  mark_open_edges(exec, mesh, open, scratch);

  // Items: (triangle, tile of its columns), each triangle's first item marked with its index and
  // spread to the rest by a running max.
  std::uint32_t* tiles          = scratch.template take<std::uint32_t>(n);
  const Float3* vertices        = mesh.vertices;
  const std::uint32_t* indices  = mesh.triangles;
  const std::uint32_t* tri_part = mesh.parts;
  auto triangle                 = [=] VOXHASH_LAMBDA(std::uint32_t t) {
    return core::ColumnTriangle(
        s, vertices[indices[3 * t]], vertices[indices[3 * t + 1]], vertices[indices[3 * t + 2]]);
  };
  {
    std::uint32_t* count = tiles;
    exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t t) {
      count[t] = core::column_span(s, triangle(t)).tiles();
    });
  }
  std::uint64_t* tile_offsets  = scratch.template take<std::uint64_t>(n + 1);
  const std::uint32_t items    = offsets_of(exec, tiles, n, tile_offsets, "column tiles");
  std::uint32_t* item_triangle = scratch.template take<std::uint32_t>(items);
  std::uint32_t* crossings     = scratch.template take<std::uint32_t>(items);
  exec.fill(item_triangle, items, 0u);
  {
    std::uint32_t* first        = item_triangle;
    const std::uint32_t* count  = tiles;
    const std::uint64_t* offset = tile_offsets;
    exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t t) {
      if (count[t]) first[offset[t]] = t;
    });
  }
  exec.inclusive_max(item_triangle, items);
  {
    std::uint32_t* count        = crossings;
    const std::uint32_t* tri    = item_triangle;
    const std::uint64_t* offset = tile_offsets;
    exec.for_each(items, [=] VOXHASH_LAMBDA(std::uint32_t item) {
      const core::ColumnTriangle t = triangle(tri[item]);
      std::uint32_t c              = 0;
      core::for_each_crossing(t,
                              core::column_span(s, t),
                              static_cast<std::uint32_t>(item - offset[tri[item]]),
                              [&](std::uint32_t, std::uint32_t, double) { ++c; });
      count[item] = c;
    });
  }
  std::uint64_t* crossing_offsets = scratch.template take<std::uint64_t>(std::size_t{items} + 1);
  const std::uint32_t m = offsets_of(exec, crossings, items, crossing_offsets, "crossings");
  if (m == 0) {
    exec.copy_to_host(solid.open.data(), open, solid.parts);
    exec.synchronize();
    return;
  }

  // The crossings as (key, height bits), sorted by height, then (stably) by key.
  std::uint64_t* keys           = scratch.template take<std::uint64_t>(m);
  std::uint64_t* keys_sorted    = scratch.template take<std::uint64_t>(m);
  std::uint32_t* heights        = scratch.template take<std::uint32_t>(m);
  std::uint32_t* heights_sorted = scratch.template take<std::uint32_t>(m);
  {
    std::uint64_t* key          = keys;
    std::uint32_t* height       = heights;
    const std::uint32_t* tri    = item_triangle;
    const std::uint64_t* offset = tile_offsets;
    const std::uint64_t* at     = crossing_offsets;
    exec.for_each(items, [=] VOXHASH_LAMBDA(std::uint32_t item) {
      const std::uint32_t t_index  = tri[item];
      const core::ColumnTriangle t = triangle(t_index);
      const std::uint32_t part     = tri_part ? tri_part[t_index] : 0u;
      std::uint64_t out            = at[item];
      core::for_each_crossing(t,
                              core::column_span(s, t),
                              static_cast<std::uint32_t>(item - offset[t_index]),
                              [&](std::uint32_t i, std::uint32_t j, double h) {
                                key[out]    = s.key(s.column(i, j), part);
                                height[out] = core::ordered_bits(static_cast<float>(h));
                                ++out;
                              });
    });
  }
  exec.sort_pairs(heights, heights_sorted, keys, keys_sorted, m, 32);
  const int key_bits = std::bit_width(std::uint64_t{s.count[0]} * s.count[1]) + s.part_bits;
  exec.sort_pairs(keys_sorted, keys, heights_sorted, heights, m, key_bits);

  // Pairs of crossings, two by two within each (column, part) run; an odd run opens its part.
  std::uint8_t* starts = scratch.template take<std::uint8_t>(m);
  {
    std::uint8_t* start       = starts;
    std::uint32_t* odd        = open;
    const std::uint64_t* key  = keys;
    const std::uint32_t total = m;
    exec.for_each(m, [=] VOXHASH_LAMBDA(std::uint32_t k) {
      const std::uint32_t first = lower_bound(key, 0, k, key[k]);
      const bool even           = ((k - first) & 1u) == 0;
      const bool paired         = k + 1 < total && key[k + 1] == key[k];
      start[k]                  = even && paired;
      if (even && !paired) core::atomic_store(&odd[s.part_of(key[k])], 1u);
    });
  }
  std::uint32_t* chosen   = scratch.template take<std::uint32_t>(m);
  const std::size_t count = exec.select_flagged_indices(starts, chosen, m);
  solid.intervals.resize(count);
  solid.keys.resize(count);
  {
    core::Interval* out         = solid.intervals.data();
    std::uint64_t* out_keys     = solid.keys.data();
    const std::uint32_t* pick   = chosen;
    const std::uint64_t* key    = keys;
    const std::uint32_t* height = heights;
    exec.for_each(count, [=] VOXHASH_LAMBDA(std::uint32_t r) {
      const std::uint32_t k = pick[r];
      out[r]      = {key[k], core::ordered_float(height[k]), core::ordered_float(height[k + 1])};
      out_keys[r] = key[k];
    });
  }
  // Each part's box of samples.
  PartBox* boxes = scratch.template take<PartBox>(solid.parts);
  exec.fill(boxes, solid.parts, PartBox{});
  {
    PartBox* box               = boxes;
    const core::Interval* list = solid.intervals.data();
    const auto total           = static_cast<std::uint32_t>(count);
    // A thread's intervals into a box of its own, added to the part's when the part changes.
    exec.for_each(
        (total + core::kRowsPerThread - 1) / core::kRowsPerThread,
        [=] VOXHASH_LAMBDA(std::uint32_t chunk) {
          const std::uint32_t first = chunk * core::kRowsPerThread;
          const std::uint32_t last =
              total - first < core::kRowsPerThread ? total : first + core::kRowsPerThread;
          PartBox own;
          std::uint32_t current = s.part_of(list[first].key);
          const auto flush      = [&] {
            for (int a = 0; a < 3; ++a) {
              core::atomic_min(&box[current].min[a], own.min[a]);
              core::atomic_max(&box[current].max[a], own.max[a]);
            }
          };
          for (std::uint32_t r = first; r < last; ++r) {
            const core::Interval iv  = list[r];
            const std::uint64_t col  = s.column_of(iv.key);
            const std::uint32_t part = s.part_of(iv.key);
            if (part != current) {
              flush();
              own     = {};
              current = part;
            }
            const double top = static_cast<double>(s.count[2]) - 1.0;
            const double lo  = std::min(std::max(std::floor(static_cast<double>(iv.z0)), 0.0), top);
            const double hi =
                std::min(std::max(std::ceil(static_cast<double>(iv.z1)) - 1.0, lo), top);
            const std::uint32_t cell_lo[3] = {static_cast<std::uint32_t>(col % s.count[0]),
                                              static_cast<std::uint32_t>(col / s.count[0]),
                                              static_cast<std::uint32_t>(lo)};
            const std::uint32_t cell_hi[3] = {
                cell_lo[0], cell_lo[1], static_cast<std::uint32_t>(hi)};
            for (int a = 0; a < 3; ++a) {
              own.min[a] = std::min(own.min[a], cell_lo[a]);
              own.max[a] = std::max(own.max[a], cell_hi[a]);
            }
          }
          flush();
        });
  }
  exec.copy_to_host(solid.open.data(), open, solid.parts);
  exec.copy_to_host(solid.boxes.data(), boxes, solid.parts);
  exec.synchronize();
  return;
}

/// The distance fields' memory, kept from one field to the next of a clash pass.
template <class Exec>
struct FieldScratch {
  Buffer<std::uint32_t> v{Exec::kBackend, 0};
  Buffer<double> z{Exec::kBackend, 0};
  Buffer<float> g{Exec::kBackend, 0};
  std::array<Buffer<float>, 2> fields{Buffer<float>{Exec::kBackend, 0},
                                      Buffer<float>{Exec::kBackend, 0}};
};

/// Into `f`: a distance field over `box` of part `part` of `solid` (squared world units): inside
/// fields hold each sample's distance to the part's boundary inside the part (0 outside), outside
/// fields the distance to the part's solid (0 inside).
template <class Exec>
void distance_field(Exec& exec,
                    const ModelSolid<Exec>& solid,
                    std::uint32_t part,
                    const core::FieldBox& box,
                    bool inside,
                    Buffer<float>& f,
                    FieldScratch<Exec>& scratch) {
  const std::uint64_t size = box.size();
  f.resize(size);
  exec.fill(f.data(), size, inside ? 0.0f : core::kFarSquared);
  const core::SampleGrid s = solid.grid;
  {
    float* field               = f.data();
    const core::Interval* list = solid.intervals.data();
    const auto total           = static_cast<std::uint32_t>(solid.intervals.size());
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
  // Along y, then x, a thread a line. Its scratch is contiguous on the CPU (one core walks one
  // line) and interleaved across lines on the GPU (neighbouring threads, neighbouring words).
  for (const int axis : {1, 0}) {
    const std::uint32_t len   = box.n[axis];
    const std::uint64_t lines = size / len;
    if (lines > 0xFFFFFFFFull) throw InvalidInput("clash report: a distance field too large");
    scratch.v.resize(size);
    scratch.z.resize(size + lines);
    scratch.g.resize(size);
    constexpr bool interleave = Exec::kBackend == Backend::Cuda;
    float* field              = f.data();
    std::uint32_t* sv         = scratch.v.data();
    double* sz                = scratch.z.data();
    float* sg                 = scratch.g.data();
    const double h            = box.stride * s.step[axis];
    const std::uint32_t n0 = box.n[0], n1 = box.n[1];
    exec.for_each(lines, [=] VOXHASH_LAMBDA(std::uint32_t l) {
      std::uint64_t base, stride;
      if (axis == 1) {  // lines (a, c) along b
        const std::uint32_t a = l % n0, c = l / n0;
        base   = std::uint64_t{c} * n1 * n0 + a;
        stride = n0;
      } else {  // lines (b, c) along a
        base   = std::uint64_t{l} * n0;
        stride = 1;
      }
      const std::uint64_t at   = interleave ? l : std::uint64_t{l} * len;
      const std::uint64_t at_z = interleave ? l : std::uint64_t{l} * (len + 1);
      const std::uint64_t step = interleave ? lines : 1;
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
  distance_field(exec, a, part_a, box, true, scratch.fields[0], scratch);
  distance_field(exec, b, part_b, box, true, scratch.fields[1], scratch);
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
      const std::uint32_t lo  = lower_bound(keys_b, 0, nb, sb.key(col, 0));
      const std::uint32_t hi  = lower_bound(keys_b, lo, nb, sb.key(col + 1, 0));
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
      const std::uint32_t lo  = lower_bound(keys_b, 0, nb, sb.key(col, 0));
      const std::uint32_t hi  = lower_bound(keys_b, lo, nb, sb.key(col + 1, 0));
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
  std::uint64_t* nearest = scratch.template take<std::uint64_t>(1);
  for (std::uint32_t pa = 0; pa < a.parts; ++pa) {
    const PartBox& ba = a.boxes[pa];
    if (ba.min[0] > ba.max[0]) continue;
    for (std::uint32_t pb = 0; pb < b.parts; ++pb) {
      const PartBox& bb = b.boxes[pb];
      if (bb.min[0] > bb.max[0]) continue;
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
      distance_field(exec, b, pb, box, false, fields.fields[1], fields);
      const Buffer<float>& fb = fields.fields[1];
      exec.fill(nearest, 1, ~std::uint64_t{0});
      {
        std::uint64_t* out         = nearest;
        const float* dist          = fb.data();
        const core::Interval* list = a.intervals.data();
        const double step_z        = s.step[2];
        exec.for_each(na, [=] VOXHASH_LAMBDA(std::uint32_t r) {
          const core::Interval iv = list[r];
          if (s.part_of(iv.key) != pa) return;
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
  }
  raw.ms.gaps = clock.lap();
}

/// The clash pass's memory, kept by the pipeline from one report to the next
/// (PipelineBackend::clash_state): the executor's temporary storage, the scratch slots, the solids
/// and the distance fields.
template <class Exec>
struct ClashWorkspace final : detail::PassState {
  Buffer<std::byte> temp{Exec::kBackend, 0};
  Scratch<Exec> scratch;
  std::array<ModelSolid<Exec>, 2> solids;
  FieldScratch<Exec> fields;
};

}  // namespace voxhash::clash
