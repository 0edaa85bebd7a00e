// The frame's loops for triangle voxelization, point-cloud coverage, the robust inside test and
// the winding-number test against an open mesh, written once for both backends (Exec = CpuExec or
// CudaExec). The per-element logic is in core/triangle_voxelizer.hpp, core/inside_test.hpp and
// core/winding.hpp; flood_fill (pipeline_impl.hpp) calls these. Keys of either width (K = Key or
// Key64).
#pragma once

#include "core/flood_fill.hpp"
#include "core/inside_test.hpp"
#include "core/triangle_voxelizer.hpp"
#include "core/winding.hpp"
#include "pipeline/pipeline_backend.hpp"
#include "pipeline/room.hpp"

#include <voxhash/buffer.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace voxhash::pipeline {

/// Scratch of one model's triangle voxelization, kept across frames. Its buffers are sized by room
/// for items and keys (the last frame's sizes and a little more), so a frame queues the whole
/// voxelization without reading its sizes first; `sizes` gets them on the device, and fits()
/// checks them once they are read, growing the room when they did not fit (the pass is run
/// again) and shrinking it when they used less than half.
template <class K = Key>
struct BasicVoxelizeBuffers {
  explicit BasicVoxelizeBuffers(Backend b)
      : tile_offsets(b, 0),
        item_triangle(b, 0),
        voxel_offsets(b, 0),
        tile_first(b, 0),
        tile_mask(b, 0),
        sizes(b, 3) {}
  Buffer<std::uint32_t> tile_offsets;
  Buffer<std::uint32_t> item_triangle;  // per item: its triangle
  Buffer<std::uint32_t> voxel_offsets;
  Buffer<K> tile_first;             // per item: the key of its tile's first cell
  Buffer<std::uint64_t> tile_mask;  // per item: the tile's voxels the triangle touches
  Buffer<std::uint32_t> sizes;      // device words: items, keys, and a third for the caller
  std::uint32_t item_room = 0, key_room = 0;  // what the buffers hold this frame
  std::uint32_t items = 0;                    // the last voxelization's items, once it fits

  /// Whether a voxelization with these sizes (items, keys: read from `sizes`) fitted the room;
  /// sets the room for the next pass or frame.
  bool fits(std::uint32_t item_count, std::uint32_t key_count) {
    const auto with_slack = [](std::uint32_t n) { return room_for(n, 256); };
    const bool fit        = item_count <= item_room && key_count <= key_room;
    if (item_count > item_room || item_count < item_room / 2) item_room = with_slack(item_count);
    // Past the item room the key count is short; it grows again next pass if still too small.
    if (key_count > key_room || (fit && key_count < key_room / 2)) key_room = with_slack(key_count);
    if (fit) items = item_count;
    return fit;
  }
};
using VoxelizeBuffers = BasicVoxelizeBuffers<Key>;

/// Keys of every voxel a triangle touches, written to `keys` (duplicates where triangles share a
/// voxel), within b's room: b.key_room words, those past the keys set to kEmptyKeyOf<K>;
/// b.sizes[0] = the items, b.sizes[1] = the keys, on the device, without a wait (b.fits checks
/// them). Tiles per triangle (one thread per triangle) -> scan; each item's triangle (its first
/// item marked, then a running max: no search per item); the voxels of each (triangle, tile) item
/// as a mask (one thread per item) -> scan of their counts; the masks' voxels written (one thread
/// per item). Every loop runs over the room and reads the sizes where it needs them.
template <class Exec, class K>
void voxelize_triangles_async(Exec& exec,
                              Grid g,
                              const Float3* vertices,
                              const std::uint32_t* triangles,
                              std::uint32_t triangle_count,
                              BasicVoxelizeBuffers<K>& b,
                              Buffer<K>& keys) {
  b.tile_offsets.resize(std::size_t{triangle_count} + 1);
  std::uint32_t* tiles = b.tile_offsets.data();
  exec.for_each(std::size_t{triangle_count} + 1, [=] VOXHASH_LAMBDA(std::uint32_t t) {
    if (t == triangle_count) {
      tiles[t] = 0;
      return;
    }
    core::Vec3f v[3];
    core::triangle_in_voxel_units(g, vertices, triangles, t, v);
    tiles[t] = core::triangle_tile_count(core::triangle_cells(g, v[0], v[1], v[2]));
  });
  exec.exclusive_sum(tiles, tiles, std::size_t{triangle_count} + 1);
  const std::uint32_t room     = b.item_room;
  const std::uint32_t key_room = b.key_room;
  b.item_triangle.resize(room);
  std::uint32_t* item_triangle = b.item_triangle.data();
  b.item_triangle.fill_bytes_async(0, exec.stream());
  exec.for_each(triangle_count, [=] VOXHASH_LAMBDA(std::uint32_t t) {
    if (tiles[t + 1] > tiles[t] && tiles[t] < room) item_triangle[tiles[t]] = t;
  });
  exec.inclusive_max(item_triangle, room);

  b.voxel_offsets.resize(std::size_t{room} + 1);
  b.tile_first.resize(room);
  b.tile_mask.resize(room);
  std::uint32_t* offsets = b.voxel_offsets.data();
  K* first               = b.tile_first.data();
  std::uint64_t* mask    = b.tile_mask.data();
  exec.for_each(std::size_t{room} + 1, [=] VOXHASH_LAMBDA(std::uint32_t item) {
    if (item == room || item >= tiles[triangle_count]) {  // past the room or the items: no voxels
      if (item < room) mask[item] = 0;
      offsets[item] = 0;
      return;
    }
    const core::TileVoxels v =
        core::item_voxels(g, vertices, triangles, tiles, item_triangle, item);
    first[item]   = g.key_as<K>(v.first);
    mask[item]    = v.mask;
    offsets[item] = static_cast<std::uint32_t>(core::popcount64(v.mask));
  });
  exec.exclusive_sum(offsets, offsets, std::size_t{room} + 1);  // offsets[room]: the keys
  keys.resize(key_room);
  K* out = keys.data();
  exec.for_each(room, [=] VOXHASH_LAMBDA(std::uint32_t item) {
    std::uint32_t at = offsets[item];
    const Int3 tile  = g.cell(first[item]);
    for (std::uint64_t m = mask[item]; m != 0 && at < key_room; m &= m - 1)
      out[at++] = g.key_as<K>(core::tile_voxel(tile, core::lowest_bit64(m)));
  });
  std::uint32_t* sizes = b.sizes.data();
  exec.for_each(std::size_t{key_room} + 1, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    if (i == key_room) {
      sizes[0] = tiles[triangle_count];
      sizes[1] = offsets[room];
    } else if (i >= offsets[room]) {
      out[i] = kEmptyKeyOf<K>;
    }
  });
}

/// The same, waiting for the sizes and running again with more room until they fit; returns how
/// many keys lead `keys` (sentinels fill the rest of its room).
template <class Exec, class K>
std::size_t voxelize_triangles(Exec& exec,
                               Grid g,
                               const Float3* vertices,
                               const std::uint32_t* triangles,
                               std::uint32_t triangle_count,
                               BasicVoxelizeBuffers<K>& b,
                               Buffer<K>& keys) {
  for (;;) {
    voxelize_triangles_async(exec, g, vertices, triangles, triangle_count, b, keys);
    std::uint32_t sizes[2];
    exec.copy_to_host(sizes, b.sizes.data(), 2);
    if (b.fits(sizes[0], sizes[1])) return sizes[1];
  }
}

/// Coverage of a point cloud's surface from its voxel multiplicities: per_voxel counts the points
/// of each of the `unique` voxels (ids from the model's own table), counts[1] and counts[2] get the
/// voxels with one and two points (a histogram). Synchronizes.
template <class Exec, class View, class K>
core::Coverage point_coverage(Exec& exec,
                              View self,
                              const K* keys,
                              std::size_t key_count,
                              std::uint32_t unique,
                              Buffer<std::uint32_t>& per_voxel,
                              Buffer<std::uint32_t>& counts) {
  if (unique == 0) return core::estimate_coverage(0, 0, 0, 0);
  per_voxel.resize(unique);
  counts.resize(3);
  std::uint32_t* pv = per_voxel.data();
  exec.fill(pv, unique, 0u);
  exec.for_each(key_count, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const std::uint32_t id = self.find_id(keys[i]);
    if (id != kNotFound) core::atomic_add(&pv[id], 1u);
  });
  exec.histogram(static_cast<const std::uint32_t*>(pv), counts.data(), 3, unique);
  std::uint32_t f[3];
  exec.copy_to_host(f, counts.data(), 3);
  return core::estimate_coverage(static_cast<double>(key_count), unique, f[1], f[2]);
}

/// Scratch of the robust inside test, kept across frames.
template <class K = Key>
struct BasicInsideBuffers {
  explicit BasicInsideBuffers(Backend b)
      : sample_slots(b, 0),
        comp_index(b, 0),
        sample_key(b, 0),
        subjects(b, 0),
        picked(b, 0),
        crossings(b, 0),
        grazing(b, 0),
        votes_in(b, 0),
        votes_out(b, 0),
        counts(b, 2),
        more(b, 0),
        flags(b, 0),
        label(b, 0),
        winding(b, 0),
        winding_parts(b, 0) {}
  Buffer<std::uint64_t> sample_slots;  // per region, its bottom-k sketch of sample entries
  Buffer<std::uint32_t> comp_index;
  Buffer<K> sample_key;
  Buffer<std::uint32_t> subjects, picked, crossings, grazing, votes_in, votes_out, counts;
  Buffer<std::uint8_t> more, flags;
  Buffer<VoxelLabel> label;
  Buffer<double> winding, winding_parts;  // per sample, and a batch's partial sums (winding test)
};
using InsideBuffers = BasicInsideBuffers<Key>;

/// What the inside test's rays walk through: the other model's voxels (`other`, its table seen by
/// voxel id, and `mask`, its block mask) on grid g; `dilate`: the other model is a sampled surface
/// (core::surface_at). `open_mesh`: the other model's triangles where it is a mesh with holes,
/// whose rays' parity means nothing: the test takes its winding number instead
/// (winding_inside_test).
template <class View, class Mask>
struct OtherSurface {
  View other;
  Mask mask;
  Grid g;
  bool dilate;
  detail::MeshView open_mesh{};
};

/// The regions (their roots in roots[], as many as `regions` counts on the device) pick up to
/// kSamplesPerRegion voxels each: those with the smallest sample_rank of their keys, in rank order
/// (kEmptyKey where a region is smaller), into b.sample_key[region * kSamplesPerRegion + slot].
/// Each voxel inserts its (rank, key) entry into its region's bottom-k sketch
/// (core::insert_bottom_k), after a warp-level cut to the k smallest of each region's lanes, in two
/// passes split at a rank threshold: first only the ranks below it (about kFirstPassVoxels voxels
/// in all, so the few words of a big region's sketch see few atomics: every voxel of one region on
/// one word serializes there), then the rest, only into sketches the first pass
/// left short (a full one holds k ranks below the threshold, which no later rank can beat). Then
/// one thread per slot. On 64-bit keys an entry holds the voxel's id in place of its key
/// (core::sample_entry). Past the room (the pass then runs again) no sketch is written.
template <class Exec, class K>
void pick_samples(Exec& exec,
                  const K* voxels,
                  std::uint32_t n,
                  const std::uint8_t* state,
                  const std::uint32_t* parent,
                  const std::uint32_t* roots,
                  Counted regions,
                  BasicInsideBuffers<K>& b) {
  constexpr int S        = core::kSamplesPerRegion;
  const std::size_t room = regions.room;
  b.comp_index.resize(n);
  b.sample_slots.resize(room * S);
  b.sample_key.resize(room * S);
  std::uint32_t* comp  = b.comp_index.data();
  std::uint64_t* slots = b.sample_slots.data();
  K* key               = b.sample_key.data();
  exec.for_each(room * S, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    if (!regions.beyond(i)) comp[roots[i]] = i;
    slots[i] = core::kNoSample;
  });
  constexpr std::uint64_t kFirstPassVoxels = 256;
  const std::uint64_t cut = std::min<std::uint64_t>((kFirstPassVoxels << 32) / n, kEmptyKey);
  for (const bool first_pass : {true, false}) {
    exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
      if (state[id] != 0) return;
      const std::uint32_t h = core::sample_rank(voxels[id]);
      if (h == kEmptyKey || (h < cut) != first_pass) return;
      const std::uint32_t region = comp[parent[id]];
      if (region >= room) return;  // a root past the room: its comp[] was not written
      std::uint64_t* sketch = &slots[std::size_t{region} * S];
      if (!first_pass && core::load_hint(&sketch[S - 1]) != core::kNoSample) return;
      if (!core::among_warp_bottom_k(region, h, S)) return;
      core::insert_bottom_k(sketch, S, core::sample_entry(voxels[id], id));
    });
  }
  exec.for_each(room * S, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    key[i] = core::sample_key_of(slots[i], voxels);
  });
}

/// The segment span of a test of `room` subjects: few (rays in fewer threads than kFewRayThreads,
/// a quarter of the threads a large GPU holds resident) walk shorter segments, so more threads
/// share the walk; the counts do not depend on the span.
inline std::int32_t segment_span(const Grid& g, std::uint32_t room) {
  constexpr std::uint64_t kFewRayThreads = 1u << 16;
  return std::uint64_t{room} * core::kRaysPerRound * core::segments_per_ray(g) < kFewRayThreads
             ? core::kFewSubjectsSegmentSpan
             : core::kSegmentSpan;
}

/// Rounds first_round.. of the robust inside test for the `active` subjects listed in b.subjects
/// (b's buffers sized by start_rays for `all`): rays walked from the subjects' samples through
/// `s`, one thread per ray segment, tallied into b.label / b.flags per subject. The host waits once
/// per round that leaves subjects for another (to size it), except with `more_count`: after round
/// 0 the subjects that want more rays are listed in b.subjects and their number left in that
/// device word, and the rest waits for finish_inside_test.
template <class Exec, class View, class Mask, class K>
void inside_test_rounds(Exec& exec,
                        const OtherSurface<View, Mask>& s,
                        Counted all,
                        int samples,
                        int first_round,
                        Counted active,
                        std::uint32_t* more_count,
                        BasicInsideBuffers<K>& b) {
  constexpr int R         = core::kRaysPerRound;
  std::uint32_t* subjects = b.subjects.data();
  std::uint32_t* picked   = b.picked.data();
  std::uint32_t* cross    = b.crossings.data();
  std::uint32_t* grazing  = b.grazing.data();
  std::uint32_t* in       = b.votes_in.data();
  std::uint32_t* out      = b.votes_out.data();
  std::uint8_t* more      = b.more.data();
  std::uint8_t* flags     = b.flags.data();
  VoxelLabel* label       = b.label.data();
  const K* sample_key     = b.sample_key.data();
  const Grid g            = s.g;
  const std::int32_t span = segment_span(g, all.room);
  std::uint32_t segments  = core::segments_per_ray(g, span);
  if constexpr (std::is_same_v<Mask, core::WideBlockMask>) {
    segments = std::min(segments, core::segments_per_ray(s.mask.shift.extent, span));
  }
  const int rounds = samples > 1 ? core::kInsideRounds : 1;
  for (int round = first_round; round < rounds && active.room > 0; ++round) {
    if (round > 0) {
      exec.for_each(std::size_t{active.room} * R,
                    [=] VOXHASH_LAMBDA(std::uint32_t t) { cross[t] = grazing[t] = 0; });
    }
    // One thread per (subject, ray, segment), in chunks of subjects that keep thread ids 32-bit.
    const std::uint32_t per_subject = R * segments;
    const std::uint32_t chunk       = 0x7FFFFFFFu / per_subject;
    for (std::uint32_t base = 0; base < active.room; base += chunk) {
      const std::uint32_t here = active.room - base < chunk ? active.room - base : chunk;
      exec.for_each(std::size_t{here} * per_subject, [=] VOXHASH_LAMBDA(std::uint32_t t) {
        const std::uint32_t a = base + t / per_subject;
        if (active.beyond(a)) return;
        const int j           = static_cast<int>((t / segments) % R);
        const std::uint32_t i = subjects[a];
        const int f           = core::filled_samples(sample_key, i, samples);
        if (f == 0) return;
        const core::RayPlan p = core::plan_ray(round, j, samples, f);
        const Int3 origin     = g.cell(sample_key[i * samples + p.slot]);
        const core::RayWalk w = core::walk_ray_segment(s.other,
                                                       s.mask,
                                                       g,
                                                       origin,
                                                       core::ray_direction(p.direction),
                                                       t % segments,
                                                       s.dilate,
                                                       span);
        if (w.crossings) core::atomic_add(&cross[a * R + j], w.crossings);
        if (w.grazing) core::atomic_or(&grazing[a * R + j], 1u);
      });
    }
    exec.for_each(active.room, [=] VOXHASH_LAMBDA(std::uint32_t a) {
      more[a] = 0;
      if (active.beyond(a)) return;
      const std::uint32_t i = subjects[a];
      flags[i]              = core::tally_region(&cross[a * R],
                                    &grazing[a * R],
                                    round + 1 == rounds,
                                    samples,
                                    core::filled_samples(sample_key, i, samples),
                                    &in[i * samples],
                                    &out[i * samples],
                                    &label[i]);
      more[a]               = flags[i] & core::kRegionMoreRays;
    });
    if (round + 1 == rounds) break;  // the last round decides every subject
    if (more_count != nullptr) {
      // Round 0 lists every subject at its own place: the flagged places are the subjects.
      exec.select_indices_async(
          active.room,
          [=] VOXHASH_LAMBDA(std::uint32_t a) { return more[a] != 0; },
          picked,
          more_count);
      b.subjects.swap(b.picked);
      return;
    }
    const auto next =
        static_cast<std::uint32_t>(exec.select_flagged_indices(more, picked, active.room));
    exec.for_each(next, [=] VOXHASH_LAMBDA(std::uint32_t i) { picked[i] = subjects[picked[i]]; });
    b.subjects.swap(b.picked);
    subjects = b.subjects.data();
    picked   = b.picked.data();
    active   = Counted{next};
  }
  if (more_count != nullptr) exec.fill(more_count, 1, 0u);  // no round after this one
}

/// Sizes b for a test of `all.room` subjects (`samples` slots each in b.sample_key) and queues
/// every subject listed, its votes none and round 0's rays cleared: one launch (the test of one
/// region is a run of small launches the host issues one by one).
template <class Exec, class K>
void start_rays(Exec& exec, Counted all, int samples, BasicInsideBuffers<K>& b) {
  constexpr int R           = core::kRaysPerRound;
  const std::uint32_t count = all.room;
  b.subjects.resize(count);
  b.picked.resize(count);
  b.more.resize(count);
  b.flags.resize(count);
  b.label.resize(count);
  b.crossings.resize(std::size_t{count} * R);
  b.grazing.resize(std::size_t{count} * R);
  b.votes_in.resize(std::size_t{count} * samples);
  b.votes_out.resize(std::size_t{count} * samples);
  std::uint32_t* subjects = b.subjects.data();
  std::uint32_t* cross    = b.crossings.data();
  std::uint32_t* grazing  = b.grazing.data();
  std::uint32_t* in       = b.votes_in.data();
  std::uint32_t* out      = b.votes_out.data();
  static_assert(R >= core::kSamplesPerRegion);
  exec.for_each(std::size_t{count} * R, [=] VOXHASH_LAMBDA(std::uint32_t t) {
    if (t < count) subjects[t] = t;
    if (t < std::size_t{count} * samples) in[t] = out[t] = 0;
    cross[t] = grazing[t] = 0;
  });
}

/// Labels the `all` subjects by the winding number of `mesh` (the other model's triangles, as the
/// frame placed them; core/winding.hpp) at their samples' voxel centres (b.sample_key, `samples`
/// slots each): b.label and b.flags per subject, as the ray test writes them, for a mesh with
/// holes, whose rays' parity means nothing. In batches of points: one thread per (point, chunk of
/// triangles), then one per point adding its chunks in order; then one per subject. No wait.
template <class Exec, class K>
void winding_inside_test(Exec& exec,
                         const detail::MeshView& mesh,
                         const Grid& g,
                         Counted all,
                         int samples,
                         BasicInsideBuffers<K>& b) {
  const std::uint32_t count = all.room;
  if (count == 0) return;
  b.flags.resize(count);
  b.label.resize(count);
  const std::uint32_t n      = mesh.triangle_count;
  const std::uint32_t chunks = (n + core::kWindingChunk - 1) / core::kWindingChunk;
  const std::size_t points   = std::size_t{count} * samples;
  const std::size_t batch    = std::max<std::size_t>(1, core::kWindingBatch / chunks);
  b.winding.resize(points);
  b.winding_parts.resize(std::min(points, batch) * chunks);
  double* winding              = b.winding.data();
  double* partial              = b.winding_parts.data();
  const K* sample_key          = b.sample_key.data();
  const Float3* vertices       = mesh.vertices;
  const std::uint32_t* indices = mesh.triangles;
  const auto wanted            = [=] VOXHASH_LAMBDA(std::size_t point) {
    return !all.beyond(static_cast<std::uint32_t>(point / samples)) &&
           sample_key[point] != kEmptyKeyOf<K>;
  };
  const std::uint32_t chunk = core::kWindingChunk;
  for (std::size_t base = 0; base < points; base += batch) {
    const std::size_t here = std::min(points - base, batch);
    exec.for_each(here * chunks, [=] VOXHASH_LAMBDA(std::uint32_t t) {
      const std::size_t point = base + t / chunks;
      if (!wanted(point)) return;
      const std::uint32_t k     = t % chunks;
      const std::uint32_t first = k * chunk;
      const Int3 c              = g.cell(sample_key[point]);
      const double p[3]         = {g.origin.x + (c.x + 0.5) * static_cast<double>(g.voxel_size.x),
                                   g.origin.y + (c.y + 0.5) * static_cast<double>(g.voxel_size.y),
                                   g.origin.z + (c.z + 0.5) * static_cast<double>(g.voxel_size.z)};
      const std::uint32_t left  = n - first;
      partial[t] = core::winding_part(vertices, indices, first, left < chunk ? left : chunk, p);
    });
    exec.for_each(here, [=] VOXHASH_LAMBDA(std::uint32_t q) {
      if (wanted(base + q))
        winding[base + q] = core::winding_number(partial + std::size_t{q} * chunks, chunks);
    });
  }
  std::uint8_t* flags = b.flags.data();
  VoxelLabel* label   = b.label.data();
  exec.for_each(count, [=] VOXHASH_LAMBDA(std::uint32_t r) {
    if (all.beyond(r)) return;
    flags[r] = core::tally_winding(winding + std::size_t{r} * samples,
                                   core::filled_samples(sample_key, r, samples),
                                   &label[r]);
  });
}

/// Labels `count` subjects by rays from their samples (b.sample_key, `samples` slots each) through
/// `s`: b.label[r] and b.flags[r] per subject. Rounds of kRaysPerRound rays per undecided subject;
/// the host waits once per round that leaves subjects for another. Against an open mesh, its
/// winding number instead (winding_inside_test; no wait).
template <class Exec, class View, class Mask, class K>
void robust_inside_test(Exec& exec,
                        const OtherSurface<View, Mask>& s,
                        std::uint32_t count,
                        int samples,
                        BasicInsideBuffers<K>& b) {
  if (count == 0) return;
  if (s.open_mesh.triangle_count) {
    winding_inside_test(exec, s.open_mesh, s.g, Counted{count}, samples, b);
    return;
  }
  start_rays(exec, Counted{count}, samples, b);
  inside_test_rounds(exec, s, Counted{count}, samples, 0, Counted{count}, nullptr, b);
}

/// The same test queued without a wait, for the subjects `all` counts on the device: round 0 for
/// every subject, the number of those that want more rays left in the device word *more_count;
/// read it (with the frame's other sizes), then finish_inside_test runs their rounds (none when it
/// is 0, the common case; always none against an open mesh).
template <class Exec, class View, class Mask, class K>
void start_inside_test(Exec& exec,
                       const OtherSurface<View, Mask>& s,
                       Counted all,
                       int samples,
                       BasicInsideBuffers<K>& b,
                       std::uint32_t* more_count) {
  if (all.room == 0 || s.open_mesh.triangle_count) {
    winding_inside_test(exec, s.open_mesh, s.g, all, samples, b);  // nothing without an open mesh
    exec.fill(more_count, 1, 0u);
    return;
  }
  start_rays(exec, all, samples, b);
  inside_test_rounds(exec, s, all, samples, 0, all, more_count, b);
}

/// The rounds after start_inside_test's (for the same `all`) for the `more` subjects it listed
/// (waits as robust_inside_test does).
template <class Exec, class View, class Mask, class K>
void finish_inside_test(Exec& exec,
                        const OtherSurface<View, Mask>& s,
                        Counted all,
                        int samples,
                        std::uint32_t more,
                        BasicInsideBuffers<K>& b) {
  if (more == 0) return;
  inside_test_rounds(exec, s, all, samples, 1, Counted{more}, nullptr, b);
}

/// b.counts = how many of the last test's subjects were flagged low confidence and thin (read them
/// after later tests: only this writes b.counts).
template <class Exec, class K>
void count_region_flags_async(Exec& exec, Counted subjects, BasicInsideBuffers<K>& b) {
  const std::uint8_t* flags = b.flags.data();
  std::uint32_t* c          = b.counts.data();
  exec.fill(c, 2, 0u);
  exec.for_each(subjects.room, [=] VOXHASH_LAMBDA(std::uint32_t r) {
    const bool here = !subjects.beyond(r);
    core::aggregate_add(&c[0], here && (flags[r] & core::kRegionLowConfidence) != 0);
    core::aggregate_add(&c[1], here && (flags[r] & core::kRegionThinFeature) != 0);
  });
}

/// dst[index[r]] = b.label[r] for each subject r: the test's verdicts back to voxel or root ids.
template <class Exec, class K>
void scatter_verdicts(Exec& exec,
                      const std::uint32_t* index,
                      Counted subjects,
                      const BasicInsideBuffers<K>& b,
                      VoxelLabel* dst) {
  const VoxelLabel* label = b.label.data();
  exec.for_each(subjects.room, [=] VOXHASH_LAMBDA(std::uint32_t r) {
    if (!subjects.beyond(r)) dst[index[r]] = label[r];
  });
}

/// b.sample_key[r] = voxels[index[r]]: single voxels as their own one-sample subjects.
template <class Exec, class K>
void single_voxel_samples(Exec& exec,
                          const K* voxels,
                          const std::uint32_t* index,
                          std::uint32_t count,
                          BasicInsideBuffers<K>& b) {
  b.sample_key.resize(count);
  K* key = b.sample_key.data();
  exec.for_each(count, [=] VOXHASH_LAMBDA(std::uint32_t r) { key[r] = voxels[index[r]]; });
}

}  // namespace voxhash::pipeline
