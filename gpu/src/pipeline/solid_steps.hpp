// The solids of mesh models, written once over the executor (core/solid.hpp has the per-element
// steps): each model's triangles, as the frame placed them, are crossed by z-columns (per triangle
// and tile of columns: count, scan, write), the crossings sorted by (column, part, height) and
// paired into the intervals each part's inside covers; a column with an odd number of crossings,
// or an edge an odd number of a part's triangles use, marks its part open. The frame labels
// voxels inside a mesh from its solid at one column per voxel (label_by_solid); the clash pass
// measures overlaps and gaps on solids at finer columns (clash/part_clashes_impl.hpp).
#pragma once

#include "core/atomics.hpp"
#include "core/flood_fill.hpp"
#include "core/search.hpp"
#include "core/solid.hpp"
#include "pipeline/pipeline_backend.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>
#include <voxhash/grid.hpp>
#include <voxhash/voxels.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace voxhash::pipeline {

/// Backend memory a pass takes in the same order every time: slot i keeps its allocation from one
/// pass to the next (restart() at a pass's start), so a pass allocates only what outgrows the
/// last one.
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

/// Part ids a solid takes (each part has a box and an open flag on the device and the host).
inline constexpr std::uint32_t kMaxParts = std::uint32_t{1} << 22;

/// A model's solid: its parts' intervals sorted by key (column, part), then height.
template <class Exec>
struct ModelSolid {
  core::SampleGrid grid;
  Buffer<core::Interval> intervals{Exec::kBackend, 0};
  Buffer<std::uint64_t> keys{Exec::kBackend, 0};  // the intervals' keys, for binary searches
  std::uint32_t parts = 0;                        // part ids below this
  std::vector<std::uint32_t> open;   // per part: 1 for an edge used, or a column crossed, oddly
  std::vector<core::PartBox> boxes;  // per part: its intervals' sample box (none without boxes)
};

/// offsets[0..n] = the exclusive sum of counts[0..n) and, at offsets[n], their 64-bit total (room
/// for n + 1); returns the total (one wait). Throws InvalidInput naming `what` past 2^31 - 1 (the
/// loops index with 32 bits).
template <class Exec>
std::uint32_t offsets_of(Exec& exec,
                         const std::uint32_t* counts,
                         std::size_t n,
                         std::uint64_t* offsets,
                         const char* what) {
  if (n == 0) return 0;
  exec.exclusive_sum(counts, offsets, n);
  std::uint64_t* at = offsets + n;
  exec.for_each(1, [=] VOXHASH_LAMBDA(std::uint32_t) { *at = at[-1] + counts[n - 1]; });
  std::uint64_t total = 0;
  exec.copy_to_host(&total, at, 1);
  if (total > 0x7FFFFFFFull) {
    throw InvalidInput("solids: " + std::to_string(total) + " " + what +
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
    throw InvalidInput("solids: part id " + std::to_string(largest) +
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
    throw InvalidInput("solids: " + std::to_string(parts) + " parts on a grid of " +
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

/// Marks open[part] for every part with an edge that an odd number of the part's triangles use
/// (a hole, a missing face: no inside), whichever way the columns run. Edges join welded positions
/// (weld_positions), so a file's repeated vertices do not open it.
template <class Exec>
void mark_open_edges(Exec& exec,
                     const detail::MeshView& mesh,
                     std::uint32_t* open,
                     Scratch<Exec>& scratch,
                     std::uint32_t* boundary = nullptr) {
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
  // By part, then (stably) by edge: each edge's uses grouped by part.
  exec.sort_pairs(parts, parts_sorted, keys, keys_sorted, n, 32);
  exec.sort_pairs(keys_sorted, keys, parts_sorted, parts, n, 64);
  const std::uint64_t* key  = keys;
  const std::uint32_t* part = parts;
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t e) {
    if (e > 0 && key[e - 1] == key[e] && part[e - 1] == part[e]) return;
    std::uint32_t end = e + 1;
    while (end < n && key[end] == key[e] && part[end] == part[e])
      ++end;
    if ((end - e) & 1u) {
      core::atomic_store(&open[part[e]], 1u);
      if (boundary) core::atomic_add(boundary, 1u);
    }
  });
}

/// Into `solid`: model `mesh`'s solid (see the file comment) on lattice `s`, its part ids below
/// `parts` (part_count). `open_edges`: the parts' open edges already marked (MeshTopology), one
/// word per part; null: marked here (mark_open_edges). `with_boxes`: the parts' boxes too (the
/// clash pass's; left empty without).
template <class Exec>
void build_solid(Exec& exec,
                 const core::SampleGrid& s,
                 const detail::MeshView& mesh,
                 std::uint32_t parts,
                 ModelSolid<Exec>& solid,
                 Scratch<Exec>& scratch,
                 const std::uint32_t* open_edges = nullptr,
                 bool with_boxes                 = true) {
  solid.grid = s;
  solid.intervals.resize(0);
  solid.keys.resize(0);
  const std::uint32_t n = mesh.triangle_count;
  solid.parts           = parts;
  solid.open.assign(solid.parts, 0);
  solid.boxes.assign(with_boxes ? solid.parts : 0, core::PartBox{});
  if (n == 0) return;
  std::uint32_t* open = scratch.template take<std::uint32_t>(solid.parts);
  if (open_edges) {
    exec.copy_async(open, open_edges, std::size_t{solid.parts} * sizeof(std::uint32_t));
  } else {
    exec.fill(open, solid.parts, 0u);
    mark_open_edges(exec, mesh, open, scratch);
  }

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

  // The crossings as (key, height bits), sorted by key, then height: as one 64-bit word where the
  // key takes 32 bits or fewer, else by height and then (stably) by key.
  const int key_bits         = std::bit_width(std::uint64_t{s.count[0]} * s.count[1]) + s.part_bits;
  const bool one_word        = key_bits <= 32;
  std::uint64_t* keys        = scratch.template take<std::uint64_t>(m);
  std::uint64_t* keys_sorted = scratch.template take<std::uint64_t>(m);
  std::uint32_t* heights     = scratch.template take<std::uint32_t>(m);
  std::uint32_t* heights_sorted = scratch.template take<std::uint32_t>(m);
  {
    std::uint64_t* key          = one_word ? keys_sorted : keys;
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
                                const std::uint64_t k = s.key(s.column(i, j), part);
                                const std::uint32_t b = core::ordered_bits(static_cast<float>(h));
                                if (one_word) {
                                  key[out] = (k << 32) | b;
                                } else {
                                  key[out]    = k;
                                  height[out] = b;
                                }
                                ++out;
                              });
    });
  }
  if (one_word) {
    exec.sort_keys(keys_sorted, keys, m, 32 + key_bits);
    std::uint64_t* key    = keys;
    std::uint32_t* height = heights;
    exec.for_each(m, [=] VOXHASH_LAMBDA(std::uint32_t k) {
      const std::uint64_t word = key[k];
      height[k]                = static_cast<std::uint32_t>(word);
      key[k]                   = word >> 32;
    });
  } else {
    exec.sort_pairs(heights, heights_sorted, keys, keys_sorted, m, 32);
    exec.sort_pairs(keys_sorted, keys, heights_sorted, heights, m, key_bits);
  }

  // Pairs of crossings, two by two within each (column, part) run; an odd run opens its part.
  std::uint8_t* starts = scratch.template take<std::uint8_t>(m);
  {
    std::uint8_t* start       = starts;
    std::uint32_t* odd        = open;
    const std::uint64_t* key  = keys;
    const std::uint32_t total = m;
    exec.for_each(m, [=] VOXHASH_LAMBDA(std::uint32_t k) {
      const std::uint32_t first = core::lower_bound(key, 0, k, key[k]);
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
  if (!with_boxes) {
    exec.copy_to_host(solid.open.data(), open, solid.parts);
    return;
  }
  // Each part's box of samples.
  core::PartBox* boxes = scratch.template take<core::PartBox>(solid.parts);
  exec.fill(boxes, solid.parts, core::PartBox{});
  {
    core::PartBox* box         = boxes;
    const core::Interval* list = solid.intervals.data();
    const auto total           = static_cast<std::uint32_t>(count);
    // A thread's intervals into a box of its own, added to the part's when the part changes.
    exec.for_each(
        (total + core::kRowsPerThread - 1) / core::kRowsPerThread,
        [=] VOXHASH_LAMBDA(std::uint32_t chunk) {
          const std::uint32_t first = chunk * core::kRowsPerThread;
          const std::uint32_t last =
              total - first < core::kRowsPerThread ? total : first + core::kRowsPerThread;
          core::PartBox own;
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

/// What a mesh's solids take from its triangles alone, whatever its pose, worked out once per mesh:
/// its part count and which parts have an edge used oddly (mark_open_edges), per part and with the
/// model as one part.
template <class Exec>
struct MeshTopology {
  bool ready          = false;
  bool counted        = false;  // false: part ids past kMaxParts, the model taken as one part
  std::uint32_t parts = 1;
  Buffer<std::uint32_t> part_open{Exec::kBackend, 0};   // per part: 1 for an open edge
  Buffer<std::uint32_t> whole_open{Exec::kBackend, 2};  // as one part: open (1, 0), boundary edges
  bool whole                   = false;                 // the host's copies of whole_open
  std::uint32_t boundary_edges = 0;
};

/// Works out `t` (MeshTopology) for `mesh`: the same triangles, as any pose places them (welding
/// joins vertices at the same position, which a transform keeps together).
template <class Exec>
void mesh_topology(Exec& exec,
                   const detail::MeshView& mesh,
                   MeshTopology<Exec>& t,
                   Scratch<Exec>& scratch) {
  t.ready = false;
  try {
    t.parts   = part_count(exec, mesh, scratch);
    t.counted = true;
  } catch (const InvalidInput&) {  // part ids past kMaxParts: the model as one part
    t.parts   = 1;
    t.counted = false;
  }
  t.part_open.resize(t.parts);
  exec.fill(t.part_open.data(), t.parts, 0u);
  exec.fill(t.whole_open.data(), 2, 0u);
  detail::MeshView whole = mesh;
  whole.parts            = nullptr;
  mark_open_edges(exec, whole, t.whole_open.data(), scratch, t.whole_open.data() + 1);
  if (t.parts > 1) {
    mark_open_edges(exec, mesh, t.part_open.data(), scratch);
  } else {
    exec.copy_async(t.part_open.data(), t.whole_open.data(), sizeof(std::uint32_t));
  }
  std::uint32_t whole_open[2] = {0, 0};
  exec.copy_to_host(whole_open, t.whole_open.data(), 2);
  t.whole          = whole_open[0] != 0;
  t.boundary_edges = whole_open[1];
  t.ready          = true;
}

/// A mesh model's solid as the frame keeps it: on the voxel grid at one column per voxel (columns
/// through the voxels' centres, sample z at height z + 0.5), per part as the model numbers them;
/// when a part is open on its own, the model as one part. `closed`: the solid decides what lies
/// inside the model (an assembly's inside is the union of its parts'); else the model is open.
template <class Exec>
struct FrameSolid {
  MeshTopology<Exec> topology;  // reset (ready = false) when the model's mesh or parts change
  ModelSolid<Exec> solid;
  Scratch<Exec> scratch;
  bool closed              = false;
  std::uint32_t parts      = 0;  // the model's parts
  std::uint32_t open_parts = 0;  // of them, open ones (0 when the whole is closed)
};

/// Builds model `mesh`'s FrameSolid on grid `g` (see FrameSolid); its topology from `rest` (the
/// same triangles at rest) when not ready.
template <class Exec>
void build_frame_solid(Exec& exec,
                       const Grid& g,
                       const detail::MeshView& mesh,
                       const detail::MeshView& rest,
                       FrameSolid<Exec>& f) {
  f.scratch.restart();
  MeshTopology<Exec>& t = f.topology;
  if (!t.ready) mesh_topology(exec, rest, t, f.scratch);
  f.closed              = false;
  f.open_parts          = 0;
  f.parts               = t.parts;
  const auto open_count = [&] {
    return static_cast<std::uint32_t>(std::count_if(
        f.solid.open.begin(), f.solid.open.end(), [](std::uint32_t o) { return o != 0; }));
  };
  const int column_bits = std::bit_width(std::uint64_t(g.resolution.x) * g.resolution.y);
  if (f.parts > 1 && column_bits + std::bit_width(f.parts) <= 64) {
    build_solid(exec,
                sample_grid(g, 1, f.parts),
                mesh,
                f.parts,
                f.solid,
                f.scratch,
                t.part_open.data(),
                false);
    f.open_parts = open_count();
    if (f.open_parts == 0) {
      f.closed = true;
      return;
    }
  }
  // The model as one part; with an open edge it has no inside, whatever its columns cross.
  if (!t.whole) {
    detail::MeshView whole = mesh;
    whole.parts            = nullptr;
    build_solid(
        exec, sample_grid(g, 1, 1), whole, 1, f.solid, f.scratch, t.whole_open.data(), false);
    f.closed = open_count() == 0;
  } else {
    f.solid.intervals.resize(0);
    f.solid.keys.resize(0);
  }
  if (f.closed) f.open_parts = 0;
  if (!f.closed && f.open_parts == 0) f.open_parts = 1;  // open as a whole: at least one part
}

/// Labels model `self`'s voxels against the other model's closed solid (FrameSolid): Intersection
/// where the probe found the other's surface (`state`), Inside where the voxel's centre lies in an
/// interval of any of the other's parts, else Outside. Exact whatever the walls' thickness in
/// voxels: the columns' crossings are the triangles' own.
template <class Exec, class K>
void label_by_solid(Exec& exec,
                    const Grid& g,
                    const ModelSolid<Exec>& other,
                    const K* voxels,
                    std::uint32_t n,
                    const std::uint8_t* state,
                    VoxelLabel* labels) {
  const core::SampleGrid s   = other.grid;
  const core::Interval* list = other.intervals.data();
  const std::uint64_t* keys  = other.keys.data();
  const auto m               = static_cast<std::uint32_t>(other.intervals.size());
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
    if (state[id] & core::kStateIntersect) {
      labels[id] = VoxelLabel::Intersection;
      return;
    }
    const Int3 c = g.cell(voxels[id]);
    const std::uint64_t column =
        s.column(static_cast<std::uint32_t>(c.x), static_cast<std::uint32_t>(c.y));
    const std::uint32_t lo = core::lower_bound(keys, 0, m, s.key(column, 0));
    const std::uint32_t hi = core::lower_bound(keys, lo, m, s.key(column + 1, 0));
    const float h          = static_cast<float>(c.z) + 0.5f;
    bool inside            = false;
    for (std::uint32_t q = lo; q < hi && !inside; ++q)
      inside = list[q].z0 <= h && h < list[q].z1;
    labels[id] = inside ? VoxelLabel::Inside : VoxelLabel::Outside;
  });
}

}  // namespace voxhash::pipeline
