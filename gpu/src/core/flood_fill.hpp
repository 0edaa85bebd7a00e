// Per-element steps of the flood fill that labels one model's surface voxels inside / outside the
// other model, shared by both backends. Neighbours are found by probing the hash tables.
//
//  1. Barrier: a voxel of this model that the other model occupies (intersection) or touches
//     (one of its 26 neighbours is the other's: a one-voxel closing of the other's surface, so a
//     sparse surface with one-voxel gaps still separates inside from outside).
//  2. Connected components of the non-barrier voxels (26-connectivity) by union-find with pointer
//     jumping (ECL-CC style hooking with atomicCAS, roots ordered by a mix of their ids),
//     in two rounds with a flattening after each (face neighbours first, then the rest; before
//     the rest, Afforest's skip of the component most voxels already share, with the voxels left
//     compacted so whole warps skip).
//  3. Each component is labelled by the robust inside test of src/core/inside_test.hpp: rays in
//     non-axis directions from several voxels spread over it, voted.
//  4. Barrier voxels that are not intersections take the majority label of their labelled
//     neighbours, a few rounds; any left get their own inside test.
// A coarse mask of the other model (one bit per 4x4x4 block, set for every block within one
// voxel of an occupied voxel) lets steps 1 and 3 skip the table probes in empty space.
#pragma once

#include "core/atomics.hpp"

#include <voxhash/detail/hash.hpp>
#include <voxhash/detail/host_device.hpp>
#include <voxhash/grid.hpp>
#include <voxhash/voxels.hpp>

#include <bit>
#include <cstdint>
#include <type_traits>

namespace voxhash::core {

/// The fill's working state beside the three VoxelLabel values: not decided yet (barrier voxels
/// before their vote). No voxel keeps it after the fill.
inline constexpr auto kLabelUnknown = static_cast<VoxelLabel>(3);

inline constexpr std::uint8_t kStateIntersect = 1;  // the other model occupies this voxel
inline constexpr std::uint8_t kStateNear      = 2;  // the other model occupies a 26-neighbour

VOXHASH_HD Int3 offset(Int3 c, int dx, int dy, int dz) {
  return {c.x + dx, c.y + dy, c.z + dz};
}

/// The key type of a table view: its key_type, or Key for a view that names none.
template <class View, class = void>
struct ViewKey {
  using type = Key;
};
template <class View>
struct ViewKey<View, std::void_t<typename View::key_type>> {
  using type = typename View::key_type;
};
template <class View>
using ViewKeyOf = typename ViewKey<View>::type;

/// The key of cell c as `View`'s table stores it (32- or 64-bit).
template <class View>
VOXHASH_HD ViewKeyOf<View> key_in(const View&, const Grid& g, Int3 c) {
  return g.key_as<ViewKeyOf<View>>(c);
}

template <class View>
VOXHASH_HD bool occupied(const View& table, const Grid& g, Int3 c) {
  return g.in_grid(c) && table.contains(key_in(table, g, c));
}

/// The block side of a 32-bit-key grid's mask: always 4 voxels, a constant.
struct FixedShift {
  VOXHASH_HD int operator()() const { return 2; }
};
/// The block side of a wide grid's mask, chosen per grid (wide grids would need up to 2^57 bits
/// of 4-voxel blocks): at most kWideMaskBlocks blocks per axis. It also keeps the box of the
/// model's cells, which lets a wide grid's long rays skip what cannot meet the model.
struct GridShift {
  int value = 2;
  VOXHASH_HD int operator()() const { return value; }

  // The box of cells holding the model's voxels, and the longest side of both models' boxes
  // together (set by the pipeline with the masks).
  Int3 lo{}, hi{};
  std::int32_t extent = 0;

  /// Whether the ray o + t d, for t in [t0 - 2, t1 + 2], can pass a cell of the box [lo, hi]
  /// (a cell between two integer parameters lies between their points; 2 units of slack cover
  /// the walk's lead step and the DDA's cells around the line).
  VOXHASH_HD bool segment_may_meet(Int3 o, Int3 d, std::int32_t t0, std::int32_t t1) const {
    double from = t0 - 2.0, to = t1 + 2.0;
    const int oc[3] = {o.x, o.y, o.z}, dc[3] = {d.x, d.y, d.z};
    const int lc[3] = {lo.x, lo.y, lo.z}, hc[3] = {hi.x, hi.y, hi.z};
    for (int a = 0; a < 3; ++a) {
      if (dc[a] == 0) {
        if (oc[a] < lc[a] - 1 || oc[a] > hc[a] + 1) return false;
        continue;
      }
      double enter = (lc[a] - 1.0 - oc[a]) / dc[a], leave = (hc[a] + 1.0 - oc[a]) / dc[a];
      if (enter > leave) {
        const double swap = enter;
        enter             = leave;
        leave             = swap;
      }
      from = from > enter ? from : enter;
      to   = to < leave ? to : leave;
    }
    return from <= to;
  }
};
inline constexpr int kWideMaskBlocks = 512;

/// The block side (log2) of a wide grid's mask: 4 voxels, or as many as keep each axis within
/// kWideMaskBlocks blocks.
inline int wide_mask_shift(const Grid& g) {
  int s = 2;
  while ((((g.resolution.x - 1) >> s) + 1) > kWideMaskBlocks ||
         (((g.resolution.y - 1) >> s) + 1) > kWideMaskBlocks ||
         (((g.resolution.z - 1) >> s) + 1) > kWideMaskBlocks)
    ++s;
  return s;
}

/// One bit per block of 2^shift voxels a side (4x4x4 on 32-bit-key grids): set when some voxel
/// of the model lies within one voxel (26-neighbourhood) of the block. A clear bit means no probe
/// near that block can hit; a coarser block only clears fewer bits.
template <class Shift>
struct BasicBlockMask {
  static constexpr int kShift = 2;  // 4 voxels per block side (FixedShift)
  std::uint32_t* words        = nullptr;
  Int3 blocks{};
  Shift shift{};

  VOXHASH_HD std::uint32_t index(Int3 b) const {
    return (static_cast<std::uint32_t>(b.z) * blocks.y + b.y) * blocks.x + b.x;
  }
  VOXHASH_HD bool maybe_near(Int3 c) const {
    if (c.x < 0 || c.y < 0 || c.z < 0) return false;
    const int s  = shift();
    const Int3 b = {c.x >> s, c.y >> s, c.z >> s};
    if (b.x >= blocks.x || b.y >= blocks.y || b.z >= blocks.z) return false;
    const std::uint32_t i = index(b);
    return (words[i >> 5] >> (i & 31)) & 1u;
  }
  /// Marks every block that holds a voxel within one voxel of c.
  VOXHASH_HD void mark_around(Int3 c) const {
    const int s = shift();
    auto lo     = [s](int v) { return v > 0 ? (v - 1) >> s : 0; };
    auto hi     = [s](int v, int n) { return ((v + 1) >> s) < n ? (v + 1) >> s : n - 1; };
    for (int z = lo(c.z); z <= hi(c.z, blocks.z); ++z)
      for (int y = lo(c.y); y <= hi(c.y, blocks.y); ++y)
        for (int x = lo(c.x); x <= hi(c.x, blocks.x); ++x) {
          const std::uint32_t i   = index({x, y, z});
          const std::uint32_t bit = 1u << (i & 31);
          if (!(atomic_load(&words[i >> 5]) & bit)) atomic_or(&words[i >> 5], bit);
        }
  }
};

using BlockMask     = BasicBlockMask<FixedShift>;
using WideBlockMask = BasicBlockMask<GridShift>;

/// The mask type of a table of keys of width K.
template <class K>
using BlockMaskOf = std::conditional_t<std::is_same_v<K, Key>, BlockMask, WideBlockMask>;

/// Whether any of the 26 neighbours of c is occupied in `table` (whose mask is `mask`).
template <class View, class Mask>
VOXHASH_HD bool touches(const View& table, const Mask& mask, const Grid& g, Int3 c) {
  if (!mask.maybe_near(c)) return false;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        if ((dx | dy | dz) != 0 && occupied(table, g, offset(c, dx, dy, dz))) return true;
      }
  return false;
}

/// The order in which unite hooks roots: a bijective mix of the id (murmur3's finalizer), not the
/// id itself. Voxel ids follow key order, so hooking by id would string each row of a surface into
/// one chain (every voxel's root hooked under its -x neighbour's); mixed ranks give the shallow
/// trees of random linking.
VOXHASH_HD std::uint32_t hook_rank(std::uint32_t x) {
  return detail::murmur_mix(x, 0);
}

/// Root of x's tree, halving the path on the way (parents' hook ranks only ever decrease). Reads
/// may be stale (load_hint: on the GPU L1 serves the hot top of the trees): a stale parent is still
/// an ancestor, so the walk ends at a root or at a node that was one, which unite's
/// compare-and-swap then finds out.
VOXHASH_HD std::uint32_t find_root(std::uint32_t* parent, std::uint32_t x) {
  std::uint32_t curr = load_hint(&parent[x]);
  if (curr != x) {
    std::uint32_t prev = x, next;
    while (hook_rank(curr) > hook_rank(next = load_hint(&parent[curr]))) {
      atomic_store(&parent[prev], next);
      prev = curr;
      curr = next;
    }
  }
  return curr;
}

/// Root of x's tree by reads alone, for the final flattening: path halving there could overwrite
/// a node's freshly written root with an older ancestor. Safe while no unions run (roots stay
/// roots, so a stale read only lengthens the walk).
VOXHASH_HD std::uint32_t root_of(const std::uint32_t* parent, std::uint32_t x) {
  std::uint32_t next;
  while ((next = load_hint(&parent[x])) != x)
    x = next;
  return x;
}

/// Joins the trees of a and b, hooking the root of larger hook_rank under the other.
VOXHASH_HD void unite(std::uint32_t* parent, std::uint32_t a, std::uint32_t b) {
  std::uint32_t ra = find_root(parent, a);
  std::uint32_t rb = find_root(parent, b);
  while (ra != rb) {
    if (hook_rank(ra) < hook_rank(rb)) {
      const std::uint32_t seen = atomic_cas(&parent[rb], rb, ra);
      if (seen == rb) return;
      rb = seen;
    } else {
      const std::uint32_t seen = atomic_cas(&parent[ra], ra, rb);
      if (seen == ra) return;
      ra = seen;
    }
  }
}

inline constexpr int kForwardNeighbours = 13;
/// The forward neighbours across a face (+x, +y, +z) in the numbering below: enough to join
/// most of a surface before the first flattening.
inline constexpr std::uint32_t kFaceNeighbours       = (1u << 0) | (1u << 2) | (1u << 8);
inline constexpr std::uint32_t kAllForwardNeighbours = (1u << kForwardNeighbours) - 1u;

/// Forward neighbour n's offset from its voxel: the 13 offsets greater than (0, 0, 0) in
/// (z, y, x) order, codes 14..26 of 0..26; Backward, the opposite offset.
template <bool Backward = false>
VOXHASH_HD Int3 forward_neighbour(Int3 c, int n) {
  const int code = n + 14;
  const int s    = Backward ? -1 : 1;
  return offset(c, s * (code % 3 - 1), s * ((code / 3) % 3 - 1), s * (code / 9 - 1));
}

/// The position of the k-th set bit of `which` (a compile-time neighbour set).
constexpr int nth_neighbour(std::uint32_t which, int k) {
  for (int n = 0;; ++n) {
    if (((which >> n) & 1u) && k-- == 0) return n;
  }
}

/// Unites voxel `id` (at cell c) with those of its 13 "forward" 26-neighbours in the set Which
/// (bit n: neighbour n; Backward: their mirrors) that are voxels of the same model and not
/// barriers; the other 13 neighbours are covered by their own threads (or, for voxels that skip
/// the round, by the other end's Backward round: common_root). The set is a template argument so
/// each round's
/// kernel holds only its own lookups (registers limit these latency-bound kernels' occupancy). The
/// lookups go out together (find_id_batch), and a neighbour already under the same parent is
/// skipped without walking the trees (two equal parents, even stale, share a tree). The ids are
/// ranks in `voxels`, the model's n voxel keys in ascending order (pipeline/voxel_list.hpp): a
/// neighbour whose key is the next integer (the +x one) is the next voxel or absent, so it is a
/// compare with voxels[id + 1], not a lookup.
template <std::uint32_t Which, bool Backward, class View>
VOXHASH_HD void unite_with_neighbours(const View& self,
                                      const Grid& g,
                                      const ViewKeyOf<View>* voxels,
                                      std::uint32_t n,
                                      std::uint32_t id,
                                      const std::uint8_t* state,
                                      std::uint32_t* parent) {
  using K              = ViewKeyOf<View>;
  constexpr int kCount = std::popcount(Which);
  const K own          = voxels[id];
  const Int3 c         = g.cell(own);
  K key[kCount];
  bool next[kCount];
  VOXHASH_UNROLL
  for (int k = 0; k < kCount; ++k) {
    const Int3 nc = forward_neighbour<Backward>(c, nth_neighbour(Which, k));
    key[k]        = g.in_grid(nc) ? g.key_as<K>(nc) : kEmptyKeyOf<K>;
    next[k]       = key[k] != kEmptyKeyOf<K> && key[k] == own + 1;
    if (next[k]) key[k] = kEmptyKeyOf<K>;  // found by the compare below
  }
  std::uint32_t nid[kCount];
  self.template find_id_batch<kCount>(key, nid);
  VOXHASH_UNROLL
  for (int k = 0; k < kCount; ++k) {
    if (next[k]) nid[k] = id + 1 < n && voxels[id + 1] == own + 1 ? id + 1 : kNotFound;
  }
  for (int k = 0; k < kCount; ++k) {
    if (nid[k] == kNotFound || state[nid[k]] != 0) continue;
    if (load_hint(&parent[id]) == load_hint(&parent[nid[k]])) continue;
    unite(parent, id, nid[k]);
  }
}

/// Voxels sampled (evenly spread ids) to find the common root.
inline constexpr int kRootSamples = 32;

/// Sample s's root (parents flattened), or kNotFound for a barrier voxel.
VOXHASH_HD std::uint32_t sampled_root(const std::uint8_t* state,
                                      const std::uint32_t* parent,
                                      std::uint32_t n,
                                      int s) {
  const auto id = static_cast<std::uint32_t>(
      (std::uint64_t{2} * static_cast<std::uint32_t>(s) + 1) * n / (2 * kRootSamples));
  return state[id] == 0 ? load_hint(&parent[id]) : kNotFound;
}

/// Afforest's skip (Sutton et al., 2018): the root that more than three in four of the
/// kRootSamples sampled voxels share after the first union round, else kNotFound. Its voxels may
/// skip the last round: an edge from one of them to a voxel outside its tree is united by the
/// other end, which looks at its backward neighbours too. The lanes of `lanes` share the samples
/// (one thread on the CPU).
template <class Tile>
VOXHASH_HD std::uint32_t common_root(const Tile& lanes,
                                     const std::uint8_t* state,
                                     const std::uint32_t* parent,
                                     std::uint32_t n) {
  std::uint64_t best = 0;  // votes in the high word, ~root in the low one
  for (int s = lanes.rank(); s < kRootSamples; s += Tile::kSize) {
    const std::uint32_t r = sampled_root(state, parent, n, s);
    if (r == kNotFound) continue;
    std::uint32_t votes = 0;
    for (int t = 0; t < kRootSamples; ++t)
      votes += sampled_root(state, parent, n, t) == r;
    const std::uint64_t entry = std::uint64_t{votes} << 32 | (0xFFFFFFFFu - r);
    best                      = entry > best ? entry : best;
  }
  for (int d = Tile::kSize / 2; d > 0; d /= 2) {
    const std::uint64_t other = lanes.shfl(best, lanes.rank() ^ d);
    best                      = other > best ? other : best;
  }
  if (4 * (best >> 32) <= static_cast<std::uint64_t>(3 * kRootSamples)) return kNotFound;
  return 0xFFFFFFFFu - static_cast<std::uint32_t>(best);
}

VOXHASH_HD int popcount32(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  return __popc(v);
#else
  return std::popcount(v);
#endif
}

/// Majority label (inside / outside) of the labelled 26-neighbours of c; unknown on a tie or none.
/// The lanes of `lanes` look up one neighbour each (one thread on the CPU: all 26): one voxel's
/// 26 lookups one after another held a vote round to their chain of latencies.
template <class Tile, class View>
VOXHASH_HD VoxelLabel neighbour_vote(
    const Tile& lanes, const View& self, const Grid& g, Int3 c, const VoxelLabel* labels) {
  std::uint32_t inside = 0, outside = 0;  // bit k: neighbour k is labelled so
  for (int k = lanes.rank(); k < 26; k += Tile::kSize) {
    const int code = k < 13 ? k : k + 1;  // code 13 is c itself
    const Int3 n   = offset(c, code % 3 - 1, (code / 3) % 3 - 1, code / 9 - 1);
    if (!g.in_grid(n)) continue;
    const std::uint32_t id = self.find_id(key_in(self, g, n));
    if (id == kNotFound) continue;
    inside |= static_cast<std::uint32_t>(labels[id] == VoxelLabel::Inside) << k;
    outside |= static_cast<std::uint32_t>(labels[id] == VoxelLabel::Outside) << k;
  }
  const int in  = popcount32(lanes.reduce_or(inside));
  const int out = popcount32(lanes.reduce_or(outside));
  return in > out ? VoxelLabel::Inside : out > in ? VoxelLabel::Outside : kLabelUnknown;
}

}  // namespace voxhash::core
