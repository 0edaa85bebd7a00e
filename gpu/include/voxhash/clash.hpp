// The clash report of the pipeline's last frame, on the pipeline's backend: one clash per pair of
// parts (a part of model A and a part of model B) whose solids overlap — hard, or touching when the
// penetration is within the tolerance — or whose surfaces come within the clearance, with the
// overlap volume, the penetration depth or the gap, the location and a stable id; and the
// intersection voxels grouped into 26-connected clash regions (union-find over a hash table of the
// intersection keys), each with its size and the pairs of parts that meet in it. What `voxhash
// clash` writes and the viewer's clash list shows. docs/SCENES.md defines every field.
#pragma once

#include <voxhash/geometry.hpp>
#include <voxhash/gpu_budget.hpp>
#include <voxhash/grid.hpp>
#include <voxhash/pipeline.hpp>
#include <voxhash/types.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace voxhash {

/// A part of model 0 and a part of model 1 that occupy the same voxels, and how many: a voxel
/// counts once for every pair of a part of A and a part of B that both occupy it.
struct PartPair {
  std::uint32_t part_a = 0;  // part id in model 0 (Pipeline::set_model_parts)
  std::uint32_t part_b = 0;  // part id in model 1
  std::size_t voxels   = 0;
};

/// One 26-connected region of intersection voxels.
struct ClashRegion {
  std::size_t voxels = 0;
  double volume      = 0;       // voxels times one voxel's volume, in world units cubed
  Bounds bounds;                // world box of its voxels (outer faces)
  Float3 centroid;              // mean of its voxel centres
  Int3 min_cell, max_cell;      // the same box in grid cells, inclusive
  std::vector<PartPair> parts;  // most voxels first, then by part_a, part_b
};

/// What a part pair's clash is: `Hard` — the solids overlap by more than the tolerance; `Touching`
/// — they overlap, by at most the tolerance; `Clearance` — they do not overlap, and their surfaces
/// come closer than the clearance.
enum class ClashKind : std::uint8_t { Hard, Touching, Clearance };
inline constexpr int kClashKinds = 3;

[[nodiscard]] std::string_view to_string(ClashKind kind);

/// One clash: a part of model A and a part of model B. Lengths in world (scene) units.
struct Clash {
  std::uint64_t id     = 0;  // clash_id of the parts' names (and location, where names repeat)
  ClashKind kind       = ClashKind::Hard;
  std::uint32_t part_a = 0, part_b = 0;
  /// |solid of part A ∩ solid of part B|, in world units cubed; 0 for a clearance clash; NaN
  /// where a model has no solid (a point cloud: its clashes are the surfaces' shared voxels).
  double volume = 0;
  /// How far one part reaches into the other: the largest distance, over the overlap, from a point
  /// to the boundary of the part it is inside of (for two spheres, the sum of the radii less the
  /// distance of the centres); 0 for a clearance clash; NaN without solids.
  double depth = 0;
  /// Clearance clashes: the smallest distance between the parts' surfaces; otherwise 0.
  double distance = 0;
  /// The uncertainty of depth and distance: the spacing of the samples they were measured on.
  double resolution = 0;
  Float3 centroid;  // the overlap's centroid; a clearance clash: the closest point on part A
  Bounds bounds;    // the overlap's box; a clearance clash: a sample's box there
  std::size_t contact_voxels = 0;  // surface voxels of the frame both parts occupy
};

/// Milliseconds of a report's stages on the host clock (each ends in a read of its results):
/// the clash regions and part pairs, the two solids, the overlaps with their sums, the depths and
/// the gaps.
struct ClashTimes {
  double regions = 0, solids = 0, overlaps = 0, depths = 0, gaps = 0, total = 0;
};

struct ClashReport {
  /// Largest first; ties ordered by min_cell (z, y, x), then max_cell. At most
  /// ClashOptions::max_regions of them; the totals below count every region.
  std::vector<ClashRegion> regions;
  std::size_t total_regions = 0;
  std::size_t voxels        = 0;  // intersection voxels of the frame
  double volume             = 0;
  std::vector<PartPair> parts;  // over every region, ordered as a region's
  Grid grid;                    // the grid the voxels are in (cells -> world)
  /// With ClashOptions::voxels: every intersection voxel's key, sorted, and the index of its
  /// region in `regions` (kNotFound for a region beyond max_regions). 64-bit, whichever width the
  /// frame's keys had.
  std::vector<Key64> voxel_keys;
  std::vector<std::uint32_t> voxel_regions;
  /// One clash per pair of parts: hard first, then touching, then clearance; within a kind the
  /// deepest (or, for clearance, closest) first, then by volume, then by part ids.
  std::vector<Clash> clashes;
  std::array<std::size_t, kClashKinds> kind_counts{};  // clashes of each kind
  /// Whether both models had solids (closed meshes): volumes and depths are measured. Otherwise
  /// the clashes are the part pairs whose surfaces share voxels, without volume or depth.
  bool solids = false;
  /// Per model, the parts a column crossed an odd number of times: open meshes (holes, missing
  /// faces), which have no well-defined inside; their volumes and depths are not to be trusted.
  std::array<std::vector<std::uint32_t>, 2> open_parts;
  ClashTimes ms;
};

/// A clash's stable id: FNV-1a (64-bit) of the models' and parts' names, and of `cell` (a coarse
/// location) where the same names meet in more than one clash of a report.
[[nodiscard]] std::uint64_t clash_id(const std::string& model_a,
                                     const std::string& part_a,
                                     const std::string& model_b,
                                     const std::string& part_b,
                                     const std::string& cell = {});

struct ClashOptions {
  std::size_t max_regions = 0;        // list only the largest N regions (0: all)
  bool voxels             = false;    // also return the voxels and their regions (a PLY export)
  Stream stream           = nullptr;  // where the CUDA backend queues its work
  /// The part pairs' join: backend memory its build table may hold (none by default); a larger
  /// one is joined over pages (JoinOptions::gpu_budget).
  GpuBudget gpu_budget{};
  /// Penetrations up to this depth (world units) are Touching, deeper ones Hard.
  double tolerance = 0;
  /// Parts that do not overlap but come closer than this (world units) are Clearance clashes; 0:
  /// none. Must be at least one voxel (InvalidInput otherwise, saying what voxel size it needs).
  double clearance = 0;
  bool touching    = true;  // list Touching clashes (false: leave them out)
  /// The solids' columns across each voxel axis: more sample the overlap finer (the volume's
  /// error falls with the spacing), at the square of the cost.
  int columns_per_voxel = 2;
  /// Names for the clashes' ids: each model's, and its parts' by part id (a part without a name
  /// is "part N").
  std::array<std::string, 2> model_names;
  std::array<std::vector<std::string>, 2> part_names;
};

/// The clash report of `pipeline`'s last frame (call after run_frame, before the grid or a model
/// changes). Intersection voxels are those both models occupy; regions are their 26-connected
/// components; a region's part pairs come from the parts each model's points or triangles have in
/// that voxel (Pipeline::set_model_parts; all part 0 where none were set): each model's distinct
/// (voxel, part) pairs in the intersection voxels are inner-joined with the other's on the voxel
/// key (join(), on the pipeline's table where the join builds on it, else cuckoo; over pages
/// beyond options.gpu_budget: an InvalidInput for a budget too small for it). Runs on the
/// pipeline's backend and reads the result back once (the join and the compactions read their
/// sizes back on the way); allocates its scratch per call. Synchronizes options.stream. Throws
/// OutOfMemory, naming the rows, when the part pairs (one row per part of A and part of B sharing
/// a voxel) would exceed 2^31 - 1 rows or a fifth of the backend's free memory.
[[nodiscard]] ClashReport compute_clash_report(const Pipeline& pipeline,
                                               const ClashOptions& options = {});

}  // namespace voxhash
