// The frame pipeline's loops, written once for both backends (Exec = CpuExec or CudaExec): animate,
// voxelize, probe, the flood fill's passes and the instances a renderer draws. The per-element
// logic is in core/. The loops over voxel keys take either key width (K = Key or Key64).
#pragma once

#include "core/animation.hpp"
#include "core/atomics.hpp"
#include "core/flood_fill.hpp"
#include "pipeline/room.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/grid.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace voxhash::pipeline {

/// Scratch arrays of one model's flood fill, kept across frames so frames do not allocate.
template <class K = Key>
struct BasicFillBuffers {
  explicit BasicFillBuffers(Backend b)
      : state(b, 0),
        labels(b, 0),
        labels_next(b, 0),
        parent(b, 0),
        roots(b, 0),
        counts(b, 4),
        pending(b, 0),
        undecided(b, 0),
        sizes(b, 4),
        common(b, 2),
        vote_changes(b, 0),
        mask_words(b, 0),
        box(b, 0) {}
  Buffer<std::uint8_t> state;
  Buffer<VoxelLabel> labels, labels_next;
  Buffer<std::uint32_t> parent, roots, counts;
  Buffer<std::uint32_t> pending;    // the barrier voxels the vote rounds label
  Buffer<std::uint32_t> undecided;  // those the votes leave unknown
  Buffer<std::uint32_t> sizes;   // components, pending, undecided voxels, regions wanting more rays
  Buffer<std::uint32_t> common;  // connect_components' common root and listed voxels
  Buffer<std::uint32_t> vote_changes;  // per vote round: 1 when it changed a label
  Buffer<std::uint32_t> mask_words;    // this model's BlockMask, read by the other model's fill
  Buffer<std::uint32_t> box;           // wide grids: the model's cell box, min x y z, max x y z
  core::BlockMaskOf<K> mask;
  // What the fill's loops after the components are sized by: its regions (the inside test's
  // subjects) and its barrier voxels (the votes'); the counts stay on the device until the end.
  Room regions{32}, barrier{256};
};
using FillBuffers = BasicFillBuffers<Key>;

/// Sizes and clears `b`'s block mask for grid g and marks the blocks around every voxel; on a
/// wide grid also finds the voxels' cell box (which synchronizes).
template <class Exec, class K>
void build_block_mask(
    Exec& exec, Grid g, const K* voxels, std::uint32_t n, BasicFillBuffers<K>& b) {
  int s = core::BlockMask::kShift;
  if constexpr (!std::is_same_v<K, Key>) {
    s                  = core::wide_mask_shift(g);
    b.mask.shift.value = s;
  }
  b.mask.blocks          = {((g.resolution.x - 1) >> s) + 1,
                            ((g.resolution.y - 1) >> s) + 1,
                            ((g.resolution.z - 1) >> s) + 1};
  const std::size_t bits = std::size_t{1} * b.mask.blocks.x * b.mask.blocks.y * b.mask.blocks.z;
  b.mask_words.resize((bits + 31) / 32);
  b.mask_words.fill_bytes_async(0, exec.stream());
  b.mask.words    = b.mask_words.data();
  const auto mask = b.mask;
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) { mask.mark_around(g.cell(voxels[id])); });
  if constexpr (!std::is_same_v<K, Key>) {
    b.box.resize(6);
    std::uint32_t* box = b.box.data();
    exec.fill(box, 3, 0xFFFFFFFFu);
    exec.fill(box + 3, 3, 0u);
    exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
      const Int3 c = g.cell(voxels[id]);
      core::record_min(&box[0], static_cast<std::uint32_t>(c.x));
      core::record_min(&box[1], static_cast<std::uint32_t>(c.y));
      core::record_min(&box[2], static_cast<std::uint32_t>(c.z));
      core::record_max(&box[3], static_cast<std::uint32_t>(c.x));
      core::record_max(&box[4], static_cast<std::uint32_t>(c.y));
      core::record_max(&box[5], static_cast<std::uint32_t>(c.z));
    });
    std::uint32_t host[6];
    exec.copy_to_host(host, box, 6);
    // No voxels: an empty box (lo above hi) no ray meets.
    b.mask.shift.lo = {static_cast<std::int32_t>(host[0] == 0xFFFFFFFFu ? 1 : host[0]),
                       static_cast<std::int32_t>(host[1] == 0xFFFFFFFFu ? 1 : host[1]),
                       static_cast<std::int32_t>(host[2] == 0xFFFFFFFFu ? 1 : host[2])};
    b.mask.shift.hi = {static_cast<std::int32_t>(n ? host[3] : 0),
                       static_cast<std::int32_t>(n ? host[4] : 0),
                       static_cast<std::int32_t>(n ? host[5] : 0)};
  }
}

/// Wide grids: both masks learn the longest side of the two models' cell boxes together (how far
/// an inside test's rays need to walk). Nothing on 32-bit keys.
template <class K>
void share_extent(BasicFillBuffers<K>& a, BasicFillBuffers<K>& b) {
  if constexpr (!std::is_same_v<K, Key>) {
    const core::GridShift &x = a.mask.shift, &y = b.mask.shift;
    const Int3 lo = {std::min(x.lo.x, y.lo.x), std::min(x.lo.y, y.lo.y), std::min(x.lo.z, y.lo.z)};
    const Int3 hi = {std::max(x.hi.x, y.hi.x), std::max(x.hi.y, y.hi.y), std::max(x.hi.z, y.hi.z)};
    const std::int32_t extent =
        std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z, std::int32_t{0}}) + 1;
    a.mask.shift.extent = extent;
    b.mask.shift.extent = extent;
  }
}

template <class Exec>
void animate_points(
    Exec& exec, core::MotionParams motion, const Float3* rest, std::uint32_t n, Float3* out) {
  exec.for_each(
      n, [=] VOXHASH_LAMBDA(std::uint32_t i) { out[i] = core::animate_point(motion, rest[i]); });
}

template <class Exec, class K>
void voxelize_points(Exec& exec, Grid grid, const Float3* points, std::uint32_t n, K* keys) {
  exec.for_each(n,
                [=] VOXHASH_LAMBDA(std::uint32_t i) { keys[i] = grid.voxelize_as<K>(points[i]); });
}

/// state[id] = kStateIntersect where the other model's table holds this model's voxel id.
template <class Exec, class View, class K>
void probe_other(Exec& exec, View other, const K* voxels, std::uint32_t n, std::uint8_t* state) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
    state[id] = other.contains(voxels[id]) ? core::kStateIntersect : 0;
  });
}

/// Flood fill, step 1: mark voxels whose 26-neighbourhood touches the other model.
template <class Exec, class View, class K>
void mark_near(Exec& exec,
               View other,
               core::BlockMaskOf<K> other_mask,
               Grid g,
               const K* voxels,
               std::uint32_t n,
               std::uint8_t* state) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
    if (state[id] == 0 && core::touches(other, other_mask, g, g.cell(voxels[id]))) {
      state[id] = core::kStateNear;
    }
  });
}

/// Every parent becomes its root.
template <class Exec>
void flatten(Exec& exec, std::uint32_t n, std::uint32_t* parent) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
    core::atomic_store(&parent[id], core::root_of(parent, id));
  });
}

/// Unions along the neighbour set Which (forward) for every non-barrier voxel of the model's n.
template <std::uint32_t Which, class Exec, class View, class K>
void unite_along(Exec& exec,
                 View self,
                 Grid g,
                 const K* voxels,
                 std::uint32_t n,
                 const std::uint8_t* state,
                 std::uint32_t* parent) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
    if (state[id] == 0) {
      core::unite_with_neighbours<Which, false>(self, g, voxels, n, id, state, parent);
    }
  });
}

/// The same along Which (forward, or Backward) for the voxels of `list`, as many as the device
/// word *listed says (at most n: no wait for it); a Backward round only when `when` holds a root
/// (*when != kNotFound, read on the device too).
template <std::uint32_t Which, bool Backward, class Exec, class View, class K>
void unite_listed(Exec& exec,
                  View self,
                  Grid g,
                  const K* voxels,
                  std::uint32_t n,
                  const std::uint32_t* list,
                  const std::uint32_t* listed,
                  const std::uint32_t* when,
                  const std::uint8_t* state,
                  std::uint32_t* parent) {
  exec.for_each_counted(n, listed, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    if (Backward && *when == kNotFound) return;
    core::unite_with_neighbours<Which, Backward>(self, g, voxels, n, list[i], state, parent);
  });
}

/// Voxels below which connect_components does not look for a common root: for smaller models the
/// search and select cost more than the skip saves (measured slower for a model of ~200k voxels,
/// faster for one of ~700k).
inline constexpr std::uint32_t kSkipMinVoxels = 1u << 19;

/// Step 2: union-find over the non-barrier voxels in two rounds (Afforest's ideas): hook along the
/// face neighbours and flatten, so almost every voxel then points straight at its root; find the
/// root more than three in four of 32 sampled voxels share (core::common_root, into common[0]) and
/// list the non-barrier voxels outside its tree (all of them when there is none; into `scratch`,
/// n words, their number into common[1]); then the other ten forward neighbours of the listed
/// voxels, and when some voxels were left out, their ten backward ones too — a listed voxel's
/// edge to a skipped one is united from its side (both sizes stay on the device: the rounds run
/// n threads, those past the list's end, or the backward round's when none were left out, return
/// at once; no wait); flatten again so every parent is its
/// root. Compacting the list is what lets whole warps skip (skipping inside warps measured no
/// gain: a warp waits for its slowest lane). Below skip_min_voxels voxels the second round is the
/// forward one for every voxel, without the search. A voxel's id is its rank in `voxels`, which
/// ascend (the frame's VoxelList; core::unite_with_neighbours finds the +x neighbour by a compare).
template <class Exec, class View, class K>
void connect_components(Exec& exec,
                        View self,
                        Grid g,
                        const K* voxels,
                        std::uint32_t n,
                        const std::uint8_t* state,
                        std::uint32_t* parent,
                        std::uint32_t* common,
                        std::uint32_t* scratch,
                        std::uint32_t skip_min_voxels = kSkipMinVoxels) {
  if (n == 0) return;
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) { parent[id] = id; });
  unite_along<core::kFaceNeighbours>(exec, self, g, voxels, n, state, parent);
  flatten(exec, n, parent);
  constexpr std::uint32_t kRest = core::kAllForwardNeighbours & ~core::kFaceNeighbours;
  if (n < skip_min_voxels) {
    unite_along<kRest>(exec, self, g, voxels, n, state, parent);
    flatten(exec, n, parent);
    return;
  }
  using Tile = typename Exec::template Tile<core::kRootSamples>;
  exec.template for_each_tile<core::kRootSamples>(1, [=] VOXHASH_LAMBDA(Tile lanes, std::uint32_t) {
    const std::uint32_t root = core::common_root(lanes, state, parent, n);
    if (lanes.rank() == 0) common[0] = root;
  });
  exec.select_indices_async(
      n,
      [=] VOXHASH_LAMBDA(std::uint32_t id) { return state[id] == 0 && parent[id] != common[0]; },
      scratch,
      common + 1);
  unite_listed<kRest, false>(exec, self, g, voxels, n, scratch, common + 1, common, state, parent);
  unite_listed<kRest, true>(exec, self, g, voxels, n, scratch, common + 1, common, state, parent);
  flatten(exec, n, parent);
}

/// Step 3a: flags[id] = 1 where voxel id is the root of its component.
template <class Exec>
void flag_roots(Exec& exec,
                std::uint32_t n,
                const std::uint8_t* state,
                const std::uint32_t* parent,
                std::uint8_t* root_flags) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
    root_flags[id] = state[id] == 0 && parent[id] == id;
  });
}

/// Step 4a: intersection voxels, component labels for the rest, unknown for the barrier.
/// component_label is indexed by root id (written by the robust inside test).
template <class Exec>
void label_from_components(Exec& exec,
                           std::uint32_t n,
                           const std::uint8_t* state,
                           const std::uint32_t* parent,
                           const VoxelLabel* component_label,
                           VoxelLabel* labels) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
    labels[id] = (state[id] & core::kStateIntersect) ? VoxelLabel::Intersection
                 : state[id]                         ? core::kLabelUnknown
                                                     : component_label[parent[id]];
  });
}

/// Lanes of a vote: one per 26-neighbour.
inline constexpr int kVoteLanes = 32;

/// Step 4b: one round of neighbour voting for the `count`ed voxels of `pending` (the barrier voxels
/// left unknown: reads `labels`, writes those voxels' `next`; every other voxel's label is the
/// same in both arrays), a tile of lanes per voxel (core::neighbour_vote); `*changed` becomes 1
/// when a label changes. After a round that changed nothing (`changed_before` still 0; null for
/// the first round) both label arrays hold the same labels and every later round would repeat
/// them, so the round returns at once.
template <class Exec, class View, class K>
void vote_round(Exec& exec,
                View self,
                Grid g,
                const K* voxels,
                const std::uint32_t* pending,
                Counted count,
                const VoxelLabel* labels,
                VoxelLabel* next,
                const std::uint32_t* changed_before,
                std::uint32_t* changed) {
  using Tile = typename Exec::template Tile<kVoteLanes>;
  exec.template for_each_tile<kVoteLanes>(
      count.room, [=] VOXHASH_LAMBDA(Tile lanes, std::uint32_t i) {
        if (count.beyond(i) || (changed_before && core::load_hint(changed_before) == 0)) return;
        const std::uint32_t id = pending[i];
        const VoxelLabel label = labels[id];
        VoxelLabel voted       = label;
        if (label == core::kLabelUnknown) {
          voted = core::neighbour_vote(lanes, self, g, g.cell(voxels[id]), labels);
          if (voted != label && lanes.rank() == 0) core::atomic_store(changed, 1u);
        }
        if (lanes.rank() == 0) next[id] = voted;
      });
}

/// counts[0..2] = voxels labelled outside, inside, intersection: a histogram of the labels, with
/// per-block counters (atomics on three words serialize every warp on them).
template <class Exec>
void count_labels(Exec& exec, const VoxelLabel* labels, std::uint32_t n, std::uint32_t* counts) {
  static_assert(sizeof(VoxelLabel) == 1);
  exec.histogram(reinterpret_cast<const std::uint8_t*>(labels), counts, kVoxelLabels, n);
}

/// The renderer's records: each voxel's centre and label written into its label's range of `out`
/// (ranges from count_labels); a slot in the range is claimed per label (order within a range
/// unspecified). `cursors` holds 3 counters. A voxel beyond its label's range is dropped.
template <class Exec, class K>
void write_instances(Exec& exec,
                     Grid g,
                     const K* voxels,
                     const VoxelLabel* labels,
                     std::uint32_t n,
                     LabelRanges ranges,
                     std::uint32_t* cursors,
                     VoxelInstance* out) {
  exec.fill(cursors, kVoxelLabels, 0u);
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
    const auto label = static_cast<std::uint32_t>(labels[id]);
    if (label >= kVoxelLabels) return;
    const std::uint32_t slot = core::claim_slot(cursors, label);
    if (slot < ranges.count[label]) out[ranges.first[label] + slot] = {g.center(voxels[id]), label};
  });
}

}  // namespace voxhash::pipeline
