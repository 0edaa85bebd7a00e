// A robust inside test of one flood-fill region against the other model's voxels, per element,
// shared by both backends. Several voxels spread over the region (the smallest hashes of their
// keys: deterministic, independent of table numbering) each cast rays in fixed non-axis integer
// directions, walked voxel by voxel by an exact integer 3D DDA. A run of occupied voxels counts as
// one crossing; a run longer than a transversal crossing can be means the ray runs along the
// surface (grazing, or two crossings merged), and the ray is discarded. Votes are tallied per
// sample; a weak or tied majority casts more rays; samples confidently on both sides mean the
// region reaches both sides of a barrier (a thin feature). See docs/ALGORITHMS.md.
#pragma once

#include "core/flood_fill.hpp"

#include <voxhash/detail/hash.hpp>
#include <voxhash/detail/host_device.hpp>
#include <voxhash/grid.hpp>

#include <cstdint>

namespace voxhash::core {

inline constexpr int kRayDirectionCount    = 24;  // cyclic permutations of (1, 2, 3), all signs
inline constexpr int kSamplesPerRegion     = 8;
inline constexpr int kRaysPerRound         = 24;
inline constexpr int kInsideRounds         = 3;  // rounds of rays before a region is decided anyway
inline constexpr std::int32_t kSegmentSpan = 2;  // ray parameter units per thread (12 voxel steps)
// A test of few subjects leaves most of the GPU idle: its rays go in segments of one unit (twice
// the threads, each walking 12 steps with the lead-in instead of 18), which finish sooner.
inline constexpr std::int32_t kFewSubjectsSegmentSpan = 1;
/// Surface cells along a ray come in clusters: near a shallow crossing the 6-connected walk
/// alternates between cells that touch the surface and cells that do not. Occupied steps at most
/// kRunGap free steps apart belong to one cluster, which counts as one crossing.
inline constexpr std::uint32_t kRunGap = 3;
/// Steps a cluster may span and still be one transversal crossing (a ray at 15 to 30 degrees or
/// more to the surface, depending on the voxel's cut); a longer cluster means the ray runs along
/// the surface (grazing, or two crossings merged) and the ray is discarded.
inline constexpr std::uint32_t kMaxRunSteps = 8;
/// The same for a dilated (point-cloud) surface, whose clusters are up to two voxels thicker.
inline constexpr std::uint32_t kMaxRunStepsDilated = 11;
inline constexpr std::uint32_t kMinVotes           = 6;  // valid rays a confident region needs

inline constexpr std::uint8_t kRegionMoreRays      = 1;
inline constexpr std::uint8_t kRegionLowConfidence = 2;
inline constexpr std::uint8_t kRegionThinFeature   = 4;

/// Direction i (mod 24): a cyclic permutation of (1, 2, 3) with signs; consecutive indices differ
/// in sign first, so a sample's few rays point into different octants. No component is zero.
VOXHASH_HD Int3 ray_direction(int i) {
  const int p = (i / 8) % 3, s = i % 8;
  const int v[3] = {1, 2, 3};
  return {(s & 1 ? -1 : 1) * v[p],
          (s & 2 ? -1 : 1) * v[(p + 1) % 3],
          (s & 4 ? -1 : 1) * v[(p + 2) % 3]};
}

VOXHASH_HD std::int32_t abs_i(std::int32_t v) {
  return v < 0 ? -v : v;
}

/// One step of the exact DDA of the ray from the centre of cell o along the integer direction d:
/// the cell after `c`. The ray meets the next x face at parameter (2 |c.x - o.x| + 1) / (2 |d.x|)
/// (likewise y, z); comparing those by cross-multiplication needs no floating point, so every
/// thread and both backends walk the same cells. On a tie (an edge or corner) x steps before y
/// before z: the walk is 6-connected.
VOXHASH_HD Int3 dda_step(Int3 o, Int3 d, Int3 c) {
  const std::int64_t nx = 2 * abs_i(c.x - o.x) + 1, ny = 2 * abs_i(c.y - o.y) + 1,
                     nz = 2 * abs_i(c.z - o.z) + 1;
  const std::int64_t ax = abs_i(d.x), ay = abs_i(d.y), az = abs_i(d.z);
  if (nx * ay <= ny * ax && nx * az <= nz * ax) return {c.x + (d.x > 0 ? 1 : -1), c.y, c.z};
  if (ny * az <= nz * ay) return {c.x, c.y + (d.y > 0 ? 1 : -1), c.z};
  return {c.x, c.y, c.z + (d.z > 0 ? 1 : -1)};
}

/// Whether the other model occupies c, or with `dilate` also one of its six face neighbours (a
/// sampled surface can have one-voxel gaps a ray could slip through).
template <class View, class Mask>
VOXHASH_HD bool surface_at(
    const View& other, const Mask& mask, const Grid& g, Int3 c, bool dilate) {
  if (!mask.maybe_near(c)) return false;
  if (occupied(other, g, c)) return true;
  if (!dilate) return false;
  return occupied(other, g, offset(c, 1, 0, 0)) || occupied(other, g, offset(c, -1, 0, 0)) ||
         occupied(other, g, offset(c, 0, 1, 0)) || occupied(other, g, offset(c, 0, -1, 0)) ||
         occupied(other, g, offset(c, 0, 0, 1)) || occupied(other, g, offset(c, 0, 0, -1));
}

struct RayWalk {
  std::uint32_t crossings;
  bool grazing;
};

/// Segment `segment` of the ray from cell o along d: the steps after the cell at parameter
/// segment * span up to the cell at (segment + 1) * span (cell centres on the
/// ray). Counts the clusters of surface cells that start in the segment (an occupied step with
/// kRunGap free steps before it: the walk starts one parameter unit early to see them); a cluster
/// that starts here is followed past the segment's end until it ends, and one longer than the
/// limit marks the ray grazing. Segments past the grid border return nothing.
template <class View, class Mask>
VOXHASH_HD RayWalk walk_ray_segment(const View& other,
                                    const Mask& mask,
                                    const Grid& g,
                                    Int3 o,
                                    Int3 d,
                                    std::uint32_t segment,
                                    bool dilate,
                                    std::int32_t span = kSegmentSpan) {
  RayWalk r            = {0, false};
  const std::int32_t t = static_cast<std::int32_t>(segment) * span;
  const Int3 start     = {o.x + t * d.x, o.y + t * d.y, o.z + t * d.z};
  if (!g.in_grid(start)) return r;
  if constexpr (std::is_same_v<Mask, WideBlockMask>) {
    // A wide grid's rays are long (2^21 voxels): a segment that cannot meet the other model's
    // cells (its box) has nothing to count and returns at once.
    if (!mask.shift.segment_may_meet(o, d, t, t + span)) return r;
  }
  const std::uint32_t per_unit = abs_i(d.x) + abs_i(d.y) + abs_i(d.z);
  const std::uint32_t lead     = segment == 0 ? 0 : per_unit;  // steps before the segment
  const std::uint32_t last     = lead + static_cast<std::uint32_t>(span) * per_unit;
  const std::uint32_t limit    = dilate ? kMaxRunStepsDilated : kMaxRunSteps;
  Int3 c              = segment == 0 ? o : Int3{start.x - d.x, start.y - d.y, start.z - d.z};
  std::uint32_t gap   = kRunGap + 1;  // free steps since the last surface cell
  std::uint32_t first = 0;            // step where the cluster this segment owns started
  bool own            = false;
  for (std::uint32_t i = 0; i <= last || own; ++i) {
    if (i > 0) c = dda_step(o, d, c);
    if (!g.in_grid(c)) break;
    if (surface_at(other, mask, g, c, dilate)) {
      if (gap > kRunGap) {
        own   = i > lead && i <= last;
        first = i;
        r.crossings += own;
      }
      if (own && i - first + 1 > limit) {
        r.grazing = true;
        break;
      }
      gap = 0;
    } else if (++gap > kRunGap) {
      own = false;
    }
  }
  return r;
}

/// Segments of a ray that can start inside the grid: every direction has a component of
/// magnitude kMaxDirectionComponent, so a ray leaves the grid before parameter
/// max(resolution) / kMaxDirectionComponent. Segments (of `span` units) are launched per ray up to
/// this bound.
inline constexpr std::int32_t kMaxDirectionComponent = 3;
VOXHASH_HD std::uint32_t segments_per_ray(const Grid& g, std::int32_t span = kSegmentSpan) {
  const std::int32_t longest =
      g.resolution.x > g.resolution.y
          ? (g.resolution.x > g.resolution.z ? g.resolution.x : g.resolution.z)
          : (g.resolution.y > g.resolution.z ? g.resolution.y : g.resolution.z);
  return static_cast<std::uint32_t>(longest / (kMaxDirectionComponent * span) + 1);
}

/// The same bound for rays that need to travel only `extent` voxels plus a margin (a wide grid's:
/// the longest side of both models' cell box; beyond it a ray meets nothing).
VOXHASH_HD std::uint32_t segments_per_ray(std::int32_t extent, std::int32_t span = kSegmentSpan) {
  return static_cast<std::uint32_t>((extent + 4) / (kMaxDirectionComponent * span) + 2);
}

/// Which sample slot and direction ray j of `round` uses, for a region with `samples` slots of
/// which `filled` hold a voxel. Each slot's rays over the rounds take distinct directions.
struct RayPlan {
  int slot;
  int direction;
};
VOXHASH_HD RayPlan plan_ray(int round, int j, int samples, int filled) {
  const int per_slot = kRaysPerRound / samples;
  const int nominal  = j / per_slot;
  const int m        = round * per_slot + j % per_slot;
  return {filled > 0 ? nominal % filled : 0, (nominal * 7 + m * 5) % kRayDirectionCount};
}

/// Sample slots filled for subject s (slots fill in order; kEmptyKeyOf<K> marks the rest).
template <class K>
VOXHASH_HD int filled_samples(const K* sample_key, std::uint32_t s, int samples) {
  int f = 0;
  while (f < samples && sample_key[s * samples + f] != kEmptyKeyOf<K>)
    ++f;
  return f;
}

/// A bijective hash of a voxel key: a region's samples are its voxels with the smallest ranks.
VOXHASH_HD std::uint32_t sample_rank(Key key) {
  return detail::murmur_mix(key, 0x9E3779B9u);
}

/// The rank of a 64-bit key: the 32-bit key's rank where the key fits 32 bits (a narrow grid on
/// the 64-bit path picks the same samples), else a fold of the key (not bijective: ties between
/// ranks are broken by the voxel id, see sample_entry).
VOXHASH_HD std::uint32_t sample_rank(Key64 key) {
  return key >> 32 ? detail::murmur_mix(key, 0x9E3779B9u) : sample_rank(static_cast<Key>(key));
}

/// A candidate sample as one ordered word: its rank above its key (ranks are distinct, so entries
/// order as ranks do). kNoSample marks an empty slot. A 64-bit key does not fit beside its rank:
/// its voxel id (< 2^31) stands in, and sample_key_of reads the key back.
inline constexpr std::uint64_t kNoSample = ~std::uint64_t{0};
VOXHASH_HD std::uint64_t sample_entry(Key key, std::uint32_t /*id*/) {
  return static_cast<std::uint64_t>(sample_rank(key)) << 32 | key;
}
VOXHASH_HD std::uint64_t sample_entry(Key64 key, std::uint32_t id) {
  return static_cast<std::uint64_t>(sample_rank(key)) << 32 | id;
}

/// The key of a bottom-k sketch's entry (kEmptyKeyOf<K> for an empty slot).
VOXHASH_HD Key sample_key_of(std::uint64_t entry, const Key* /*voxels*/) {
  return entry == kNoSample ? kEmptyKey : static_cast<Key>(entry);
}
VOXHASH_HD Key64 sample_key_of(std::uint64_t entry, const Key64* voxels) {
  return entry == kNoSample ? kEmptyKeyOf<Key64> : voxels[static_cast<std::uint32_t>(entry)];
}

/// Whether `rank` is among the k smallest ranks of the warp's active lanes in the same `group`
/// (always true on the CPU): a voxel with k smaller ones in its own region is not among the
/// region's k smallest, so only these lanes go on to insert_bottom_k. Ranks must be distinct.
VOXHASH_HD bool among_warp_bottom_k(std::uint32_t group, std::uint32_t rank, int k) {
#if defined(__CUDA_ARCH__)
  unsigned left = __match_any_sync(__activemask(), group);
  for (int j = 0; j < k && left; ++j) {
    const std::uint32_t m = __reduce_min_sync(left, rank);
    const unsigned hit    = __ballot_sync(left, rank == m);
    if (rank == m) return true;
    left &= ~hit;
  }
  return false;
#else
  (void)group, (void)rank, (void)k;
  return true;
#endif
}

/// Inserts `entry` into a bottom-k sketch of k ascending slots that many threads fill at once:
/// each slot keeps the smaller of its value and the arriving one (atomic minimum), the larger
/// moves on to the next slot. Whatever the interleaving, slot j ends with the (j+1)-th smallest
/// entry inserted: a slot's final value is the minimum of the entries that reached it, and every
/// entry but that minimum moves on. A slot already below the entry is passed by a read alone
/// (slots only decrease), and an entry above the last slot stops at once.
VOXHASH_HD void insert_bottom_k(std::uint64_t* slots, int k, std::uint64_t entry) {
  if (atomic_load(&slots[k - 1]) < entry) return;
  for (int j = 0; j < k && entry != kNoSample; ++j) {
    if (atomic_load(&slots[j]) < entry) continue;
    const std::uint64_t seen = atomic_min(&slots[j], entry);
    if (seen > entry) entry = seen;
  }
}

/// Adds one round's rays (crossings and grazing flags of kRaysPerRound rays) to a region's votes
/// per sample slot, then decides (a single-sample region's later rounds would repeat its rays, so
/// its caller passes last_round at once): the label of the majority of valid rays, with flags
/// kRegionMoreRays (not confident yet and rounds are left: cast more), kRegionLowConfidence
/// (decided without a clear majority: fewer than kMinVotes valid rays, under 3:1, or a tie) and
/// kRegionThinFeature (samples on both sides, each sure of its own answer, or after the last
/// round a minority over one in four of enough valid rays).
VOXHASH_HD std::uint8_t tally_region(const std::uint32_t* crossings,
                                     const std::uint32_t* grazing,
                                     bool last_round,
                                     int samples,
                                     int filled,
                                     std::uint32_t* votes_in,
                                     std::uint32_t* votes_out,
                                     VoxelLabel* label) {
  // The rays by their nominal sample (plan_ray: a run of per_slot rays each, whatever the round),
  // one division a sample rather than two a ray: a region's tally is one thread, so its time is
  // its instruction count.
  if (filled > 0) {
    const int per_slot = kRaysPerRound / samples;
    for (int nominal = 0; nominal * per_slot < kRaysPerRound; ++nominal) {
      const int slot = nominal % filled;
      const int end =
          (nominal + 1) * per_slot < kRaysPerRound ? (nominal + 1) * per_slot : kRaysPerRound;
      for (int j = nominal * per_slot; j < end; ++j) {
        if (grazing[j]) continue;
        if (crossings[j] & 1u) {
          ++votes_in[slot];
        } else {
          ++votes_out[slot];
        }
      }
    }
  }
  std::uint32_t in = 0, out = 0;
  int lean_in = 0, lean_out = 0;
  for (int s = 0; s < samples; ++s) {
    in += votes_in[s];
    out += votes_out[s];
    lean_in += votes_in[s] >= 2 && votes_in[s] >= 4 * votes_out[s];
    lean_out += votes_out[s] >= 2 && votes_out[s] >= 4 * votes_in[s];
  }
  const std::uint32_t total = in + out, minority = in < out ? in : out;
  // Samples sure of opposite answers, or (all rounds cast, enough valid rays) a minority over one
  // in four: the region sees the other surface as open from some directions and closed from
  // others, as behind a wall thinner than the barrier (its two crossings merge into one).
  const int fewer = lean_in < lean_out ? lean_in : lean_out;
  const bool thin = (fewer >= 1 && 4 * fewer >= lean_in + lean_out) ||
                    (last_round && total >= 2 * kMinVotes && 4 * minority > total);
  const bool confident = !thin && total >= kMinVotes && 4 * minority <= total;
  *label               = in > out ? VoxelLabel::Inside : VoxelLabel::Outside;
  if (confident) return 0;
  if (!last_round && filled > 0) return kRegionMoreRays;
  return kRegionLowConfidence | (thin ? kRegionThinFeature : 0);
}

}  // namespace voxhash::core
