// The frame pipeline's loops, written once for both backends (Exec = CpuExec or CudaExec): animate,
// voxelize, probe, the flood fill's passes and the instances a renderer draws. The per-element
// logic is in core/.
#pragma once

#include "core/animation.hpp"
#include "core/atomics.hpp"
#include "core/flood_fill.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/grid.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <cstdint>

namespace voxhash::pipeline {

/// Scratch arrays of one model's flood fill, kept across frames so frames do not allocate.
struct FillBuffers {
  explicit FillBuffers(Backend b)
      : state(b, 0),
        flags(b, 0),
        labels(b, 0),
        labels_next(b, 0),
        parent(b, 0),
        rep_key(b, 0),
        roots(b, 0),
        crossings(b, 0),
        counts(b, 4),
        mask_words(b, 0) {}
  Buffer<std::uint8_t> state, flags;
  Buffer<VoxelLabel> labels, labels_next;
  Buffer<std::uint32_t> parent, rep_key, roots, crossings, counts;
  Buffer<std::uint32_t> mask_words;  // this model's BlockMask, read by the other model's fill
  core::BlockMask mask;
};

/// Sizes and clears `b`'s block mask for grid g and marks the blocks around every voxel.
template <class Exec>
void build_block_mask(Exec& exec, Grid g, const Key* voxels, std::uint32_t n, FillBuffers& b) {
  const int s            = core::BlockMask::kShift;
  b.mask.blocks          = {((g.resolution.x - 1) >> s) + 1,
                            ((g.resolution.y - 1) >> s) + 1,
                            ((g.resolution.z - 1) >> s) + 1};
  const std::size_t bits = std::size_t{1} * b.mask.blocks.x * b.mask.blocks.y * b.mask.blocks.z;
  b.mask_words.resize((bits + 31) / 32);
  b.mask_words.fill_bytes_async(0, exec.stream());
  b.mask.words               = b.mask_words.data();
  const core::BlockMask mask = b.mask;
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) { mask.mark_around(g.cell(voxels[id])); });
}

template <class Exec>
void animate_points(
    Exec& exec, core::MotionParams motion, const Float3* rest, std::uint32_t n, Float3* out) {
  exec.for_each(
      n, [=] VOXHASH_LAMBDA(std::uint32_t i) { out[i] = core::animate_point(motion, rest[i]); });
}

template <class Exec>
void voxelize_points(Exec& exec, Grid grid, const Float3* points, std::uint32_t n, Key* keys) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) { keys[i] = grid.voxelize(points[i]); });
}

/// state[id] = kStateIntersect where the other model's table holds this model's voxel id.
template <class Exec, class View>
void probe_other(Exec& exec, View other, const Key* voxels, std::uint32_t n, std::uint8_t* state) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
    state[id] = other.contains(voxels[id]) ? core::kStateIntersect : 0;
  });
}

/// Flood fill, step 1: mark voxels whose 26-neighbourhood touches the other model.
template <class Exec, class View>
void mark_near(Exec& exec,
               View other,
               core::BlockMask other_mask,
               Grid g,
               const Key* voxels,
               std::uint32_t n,
               std::uint8_t* state) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
    if (state[id] == 0 && core::touches(other, other_mask, g, g.cell(voxels[id]))) {
      state[id] = core::kStateNear;
    }
  });
}

/// Step 2: union-find over the non-barrier voxels in two rounds (Afforest's idea): hook along the
/// face neighbours and flatten, so almost every voxel then points straight at its root; then the
/// remaining forward neighbours, most of which are found under the same root at once and cost no
/// tree walk; flatten again so every parent is its root.
template <class Exec, class View>
void connect_components(Exec& exec,
                        View self,
                        Grid g,
                        const Key* voxels,
                        std::uint32_t n,
                        const std::uint8_t* state,
                        std::uint32_t* parent) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) { parent[id] = id; });
  for (const std::uint32_t which :
       {core::kFaceNeighbours, core::kAllForwardNeighbours & ~core::kFaceNeighbours}) {
    exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
      if (state[id] == 0) {
        core::unite_with_neighbours(self, g, g.cell(voxels[id]), id, which, state, parent);
      }
    });
    exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
      core::atomic_store(&parent[id], core::root_of(parent, id));
    });
  }
}

/// Step 3a: each component's representative is its smallest key; flags mark component roots.
template <class Exec>
void pick_representatives(Exec& exec,
                          const Key* voxels,
                          std::uint32_t n,
                          const std::uint8_t* state,
                          const std::uint32_t* parent,
                          std::uint32_t* rep_key,
                          std::uint8_t* root_flags) {
  exec.fill(rep_key, n, kEmptyKey);
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
    if (state[id] == 0) core::aggregate_min_at(rep_key, parent[id], voxels[id]);
    root_flags[id] = state[id] == 0 && parent[id] == id;
  });
}

/// Step 3b: inside test of `count` voxels (start keys start_key[subject[r]]): crossings of the
/// other surface along six rays, each ray split into segments of kRaySegment steps (one thread
/// each); label[subject[r]] = majority verdict. `crossings` needs count * 6 entries.
template <class Exec, class View>
void inside_test(Exec& exec,
                 View other,
                 core::BlockMask other_mask,
                 Grid g,
                 const std::uint32_t* subject,
                 std::uint32_t count,
                 const std::uint32_t* start_key,
                 std::uint32_t* crossings,
                 VoxelLabel* label) {
  if (count == 0) return;
  const std::int32_t longest   = std::max(g.resolution.x, std::max(g.resolution.y, g.resolution.z));
  const std::uint32_t segments = (longest + core::kRaySegment - 1) / core::kRaySegment;
  const std::uint32_t per_subject = core::kRayDirections * segments;
  exec.fill(crossings, std::size_t{count} * core::kRayDirections, 0u);
  exec.for_each(std::size_t{count} * per_subject, [=] VOXHASH_LAMBDA(std::uint32_t t) {
    const std::uint32_t r    = t / per_subject;
    const int dir            = static_cast<int>((t % per_subject) / segments);
    const std::uint32_t seg  = t % segments;
    const Int3 c             = g.cell(start_key[subject[r]]);
    const std::int32_t first = static_cast<std::int32_t>(seg * core::kRaySegment) + 1;
    const std::int32_t last =
        std::min<std::int32_t>(first + core::kRaySegment - 1, core::ray_length(g, c, dir));
    const std::uint32_t n =
        first <= last ? core::ray_crossings(other, other_mask, g, c, dir, first, last) : 0;
    if (n) core::atomic_add(&crossings[r * core::kRayDirections + dir], n);
  });
  exec.for_each(count, [=] VOXHASH_LAMBDA(std::uint32_t r) {
    label[subject[r]] = core::inside_by_majority(&crossings[r * core::kRayDirections]);
  });
}

/// Step 4a: intersection voxels, component labels for the rest, unknown for the barrier.
/// component_label is indexed by root id (written by inside_test).
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

/// Step 4b: one round of neighbour voting for unknown labels (reads `labels`, writes `next`).
template <class Exec, class View>
void vote_round(Exec& exec,
                View self,
                Grid g,
                const Key* voxels,
                std::uint32_t n,
                const VoxelLabel* labels,
                VoxelLabel* next) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
    next[id] = labels[id] == core::kLabelUnknown
                   ? core::neighbour_vote(self, g, g.cell(voxels[id]), labels)
                   : labels[id];
  });
}

template <class Exec>
void flag_label(
    Exec& exec, const VoxelLabel* labels, std::uint32_t n, VoxelLabel label, std::uint8_t* flags) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) { flags[id] = labels[id] == label; });
}

/// counts[0..2] = voxels labelled outside, inside, intersection.
template <class Exec>
void count_labels(Exec& exec, const VoxelLabel* labels, std::uint32_t n, std::uint32_t* counts) {
  exec.fill(counts, 3, 0u);
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t id) {
    const VoxelLabel l = labels[id];
    core::aggregate_add(&counts[0], l == VoxelLabel::Outside);
    core::aggregate_add(&counts[1], l == VoxelLabel::Inside);
    core::aggregate_add(&counts[2], l == VoxelLabel::Intersection);
  });
}

/// The renderer's records: each voxel's centre and label written into its label's range of `out`
/// (ranges from count_labels); a slot in the range is claimed per label (order within a range
/// unspecified). `cursors` holds 3 counters. A voxel beyond its label's range is dropped.
template <class Exec>
void write_instances(Exec& exec,
                     Grid g,
                     const Key* voxels,
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
