// The per-frame voxel intersection pipeline (the cuckoo chapter's Figure 4.1 demo): two point
// clouds are animated, voxelized into one shared grid, a table of each model's voxels is built with
// the selected algorithm, each model's voxels are probed against the other's table (intersection),
// a flood fill labels every surface voxel inside / outside the other model, and each model's
// voxels are written as instances grouped by label: what a renderer draws. Front ends (viewer,
// headless bench, tests) drive it; all buffers live in the backend's memory. Voxel keys are 32-bit
// on grids of at most 31 key bits (the fast path) and 64-bit on wider ones (up to 2^21 voxels per
// axis), chosen by the pipeline from the grid.
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/geometry.hpp>
#include <voxhash/gpu_budget.hpp>
#include <voxhash/grid.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/types.hpp>
#include <voxhash/voxels.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace voxhash {

struct AnimationParams {
  float speed             = 1.0f;  // 1 = one pass through each other every ~6 s
  float separation        = 1.2f;  // each model's start offset from the centre, along x
  Deformation deformation = Deformation::Wobble;
  float amount            = 0.1f;  // deformation strength
  bool animate            = true;  // false: models stay at their rest pose, centred (tests)
  Float3 offset_a{}, offset_b{};   // extra rest translation per model (tests place models with it)
  // animate = false: each model's rigid pose (before the offset), set by
  // Pipeline::set_model_transform (keyframed scenes set it every frame).
  std::array<RigidTransform, 2> pose{};
};

/// Slots per key of a frame's cuckoo and bucketed cuckoo tables unless PipelineConfig says
/// otherwise: 2, not BuildOptions' 1.25. The fill probes a table ~13 times a voxel, mostly for
/// neighbours that are absent, and the near test probes the other model's with misses; at load
/// 0.5 a bucketed miss stops in its first bucket and an insertion's chains are short. Both
/// tables' frames measured faster for it (bcht's most), for 6 more bytes a voxel (16 instead of
/// 10).
inline constexpr double kFrameCuckooSpace = 2.0;

struct PipelineConfig {
  GridParams grid;
  AnimationParams animation;
  TableKind algorithm = TableKind::Cuckoo;
  BuildOptions table_options{.cuckoo_space = kFrameCuckooSpace};  // BuildOptions' other defaults
  /// 64-bit keys even where the grid's keys fit 32 bits (a wide grid always uses them): for
  /// comparing the two paths; slower, the same voxels and labels.
  bool wide_keys = false;
  /// Backend memory the two models' tables may take together (none by default; scene files'
  /// `gpu_budget`, the front ends' --gpu-budget). A frame whose tables would need more
  /// (frame_paged) numbers each model's voxels by a sort and puts them in a paged cuckoo table
  /// (the Starfish table, paged_table.hpp) with GpuBudget::per_model of it: the pages beyond it
  /// live in pinned host memory and are streamed through the budget for the probe (Starfish's
  /// search); the fill's dependent lookups search the sorted voxel list. Voxels and labels are
  /// the same as without a budget, whatever the algorithm; FrameStats::paging says what the
  /// tables did.
  GpuBudget gpu_budget{};
};

/// The width of a frame's voxel keys under `config`: 64 where the grid needs more than
/// kNarrowKeyBits key bits (Grid::wide()) or config.wide_keys asks for them, else 32. The one
/// rule the frame, estimate_frame_bytes and Pipeline::key_bits follow. Throws InvalidInput for
/// an unusable grid (Grid's constructor).
[[nodiscard]] int frame_key_bits(const PipelineConfig& config);

/// The build options of a frame's two voxel tables under `config`: the voxel list is distinct keys
/// and each voxel's value is its id, so no unique ids, multiplicities or multivalue lists. Under a
/// GPU budget the cuckoo tables keep BuildOptions' space (or less), as do their Starfish pages:
/// there memory, and the bytes pages move over the link, are what the user asked to save; without
/// one config.table_options' space (kFrameCuckooSpace unless changed) buys shorter probes. The
/// frame builds with these and estimate_frame_bytes counts them.
[[nodiscard]] inline BuildOptions frame_table_options(const PipelineConfig& config) {
  BuildOptions options    = config.table_options;
  options.unique_ids      = false;
  options.multiplicities  = false;
  options.multivalue      = false;
  options.expected_unique = 0;
  if (config.gpu_budget.limited())
    options.cuckoo_space = std::min(options.cuckoo_space, BuildOptions{}.cuckoo_space);
  return options;
}

/// One voxel as a renderer draws it: the voxel's world-space centre and its label (16 bytes,
/// laid out for a GL instance buffer).
struct VoxelInstance {
  Float3 center;
  std::uint32_t label;  // a VoxelLabel value
};
static_assert(sizeof(VoxelInstance) == 16);

/// A model's instances are stored grouped by label: outside, then inside, then intersection.
/// first[l] and count[l] give the range of label l (a VoxelLabel value).
struct LabelRanges {
  std::uint32_t first[kVoxelLabels] = {};
  std::uint32_t count[kVoxelLabels] = {};

  [[nodiscard]] std::size_t total() const { return std::size_t{count[0]} + count[1] + count[2]; }
};

/// Milliseconds per stage, both models together (CUDA events on the GPU, steady clock on the CPU).
struct StageTimes {
  // number: the voxel keys sorted and de-duplicated (each voxel's id its rank in key order);
  // build: the algorithm's tables of those voxels.
  double animate = 0, voxelize = 0, number = 0, build = 0, probe = 0, flood_fill = 0, total = 0;
  // flood_fill broken down: barrier (near) test, union-find components, six-ray inside tests,
  // neighbour votes for the barrier.
  double fill_near = 0, fill_components = 0, inside_tests = 0, fill_votes = 0;
};

struct ModelFrameStats {
  std::size_t points       = 0;
  std::size_t outside_grid = 0;  // points dropped because they fell outside the grid
  std::size_t voxels       = 0;  // unique occupied voxels
  std::size_t intersection = 0;  // voxels occupied by both models
  std::size_t inside       = 0;  // surface voxels inside the other model
  std::size_t outside      = 0;
  std::size_t components   = 0;  // flood-fill regions (connected components) labelled
  std::size_t undecided    = 0;  // barrier voxels the neighbour vote left to their own ray test
  LabelRanges ranges;            // where each label's instances are (empty without instances)
  // Regions the inside test decided without a clear majority of its rays (their labels may be
  // wrong), and regions whose sampled voxels were sure of opposite answers: they reach both sides
  // of a wall thinner than the barrier (a thin feature), and one label cannot be right for all.
  std::size_t low_confidence_regions = 0;
  std::size_t thin_feature_regions   = 0;
  // Point clouds: the estimated share of surface voxels holding a point (1 for meshes, which are
  // voxelized from their triangles) and the points that would cover this grid (0 for meshes).
  // Below kMinPointCoverage, gaps wider than the barrier's closing can let a region leak.
  double point_coverage          = 1.0;
  std::size_t recommended_points = 0;
  // Meshes: this model's parts that are open (a hole, a missing face) when the model as a whole
  // is open too, and its boundary edges (edges its triangles use an odd number of times, after
  // welding equal positions); such a model has no solid, so the other model's labels against it
  // come from its winding number (inside where the surface wraps a point more than halfway round).
  std::size_t open_parts     = 0;
  std::size_t boundary_edges = 0;
  // This model's labels came from the other model's solid (a closed mesh: exact, whatever its
  // walls' thickness in voxels), not from the flood fill (components and undecided are 0).
  bool labels_from_solid = false;
  // This model's regions were decided by the other model's winding number (an open mesh), not by
  // voxel rays.
  bool labels_from_winding = false;
};

/// The point coverage under which a cloud's labels cannot be trusted (see ModelFrameStats).
inline constexpr double kMinPointCoverage = 0.9;

/// A frame's tables under PipelineConfig::gpu_budget: both models' paged tables together (all
/// zero for a frame whose tables fit the budget, or without one).
struct FramePaging {
  bool paged                    = false;  // the frame's voxels were in paged tables
  std::size_t pages             = 0;      // pages of the two tables
  std::size_t resident_pages    = 0;      // pages in backend memory after the builds
  std::size_t backend_bytes     = 0;      // the tables' backend memory (page slots, lists, refs)
  std::size_t host_bytes        = 0;      // pinned host memory of the pages
  std::uint64_t bytes_to_device = 0;      // pages uploaded by the builds and the probe's search
  std::uint64_t bytes_to_host   = 0;      // pages downloaded by them
};

struct FrameStats {
  std::array<ModelFrameStats, 2> model;
  FramePaging paging;
  StageTimes ms;
  int key_bits            = 32;  // the width of the frame's voxel keys (64 on a wide grid)
  double build_keys_per_s = 0;   // voxels (unique keys) inserted into the tables per second
  double probe_keys_per_s = 0;   // unique voxels probed per second
  /// 1 when a table's build, queued without a wait, missed a key (an eviction chain at its limit:
  /// rare) and the frame ran again with builds that retry; its times count both runs.
  int builds_redone = 0;
};

/// Front ends warn when more than this share of a model's points fall outside the grid (the model
/// is then partly or wholly missing from the frame).
inline constexpr double kOutsideGridWarning = 0.01;

/// The share of the model's points that fell outside the grid; 0 for a model without points.
[[nodiscard]] inline double outside_grid_fraction(const ModelFrameStats& s) {
  return s.points ? static_cast<double>(s.outside_grid) / static_cast<double>(s.points) : 0.0;
}

/// The warning for model `model` (0: A, 1: B), named `name`, when it is an open mesh
/// (ModelFrameStats::open_parts); empty when it is not.
[[nodiscard]] std::string open_mesh_warning(const ModelFrameStats& stats,
                                            int model,
                                            const std::string& name);

/// What a frame's labels warn about, one line each, naming the models by `names`: a point cloud
/// too sparse for the grid (with the points that would cover it), regions behind a wall of the
/// other model thinner than the barrier, an open mesh (open_mesh_warning), a model partly
/// outside the grid (kOutsideGridWarning). Empty when the frame can be trusted.
[[nodiscard]] std::vector<std::string> frame_warnings(const FrameStats& stats,
                                                      const std::array<std::string, 2>& names);

/// Where run_frame writes what a renderer draws. A null pointer means an internal buffer.
struct FrameTargets {
  /// Model i's animated points: backend memory with room for all of its points (e.g. a
  /// CUDA-mapped GL buffer).
  std::array<Float3*, 2> points{};
  /// Model i's voxel instances grouped by label: backend memory with room for
  /// instance_capacity[i] instances.
  std::array<VoxelInstance*, 2> instances{};
  /// Room in instances[i]; 0 means as many as model i has points (a point cloud has at most one
  /// voxel per point; a mesh can have more). A model whose voxels exceed it gets no instances this
  /// frame (its ranges are empty; ModelFrameStats::voxels says how much room it needs).
  std::array<std::size_t, 2> instance_capacity{};
  /// false: no instances this frame (headless runs that only read statistics or voxels).
  bool write_instances = true;
};

/// Peak memory a Pipeline with this configuration needs for models of points[0] and points[1]
/// points, computed before anything is allocated: in the backend's memory every buffer and table
/// a frame holds (internal points and instances included, every point taken as its own voxel, the
/// tables at the size for all points), and in host memory the models' rest points a front end
/// holds to pass to set_model (12 bytes a point). An upper bound for Pipeline's own allocations.
[[nodiscard]] MemoryEstimate estimate_frame_bytes(const PipelineConfig& config,
                                                  std::array<std::size_t, 2> points);

/// Bytes a frame of `config` needs for one model's table of `voxels` voxels: estimate_bytes of
/// the algorithm with frame_table_options, at the frame's key width (frame_key_bits).
[[nodiscard]] std::size_t frame_table_bytes(const PipelineConfig& config, std::size_t voxels);

/// Whether a frame of `config` whose models have voxels[0] and voxels[1] voxels puts them in paged
/// tables: when the two models' tables (frame_table_bytes) together exceed config.gpu_budget
/// (GpuBudget::pages). The one rule the frame and estimate_frame_bytes follow.
[[nodiscard]] bool frame_paged(const PipelineConfig& config, std::array<std::size_t, 2> voxels);

/// require_memory for estimate_frame_bytes: throws OutOfMemory naming the point counts, the grid,
/// the bytes needed and the bytes available when a frame would not fit in free memory. Front ends
/// call it before loading models and creating the pipeline.
void check_frame_memory(Backend backend,
                        const PipelineConfig& config,
                        std::array<std::size_t, 2> points);

namespace detail {
class PipelineBackend;
}
struct ClashOptions;
struct ClashReport;

class Pipeline {
 public:
  /// Throws InvalidInput for an unusable grid, or for Backend::Cuda where CUDA is unavailable.
  Pipeline(Backend backend, const PipelineConfig& config);
  ~Pipeline();
  Pipeline(const Pipeline&)            = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  [[nodiscard]] Backend backend() const;
  [[nodiscard]] const PipelineConfig& config() const;
  /// The validated grid of the current configuration.
  [[nodiscard]] const Grid& grid() const;

  /// Sets model `index` (0 or 1) from rest-pose points on the host (copied to the backend;
  /// synchronous). Non-finite points throw InvalidInput (loaders drop them first); on that or on
  /// OutOfMemory the model keeps its previous points.
  void set_model(int index, std::span<const Float3> rest_points);
  /// Sets model `index` from a closed triangle mesh (copied to the backend): its voxels are every
  /// voxel its triangles touch (no holes at any resolution; the animation moves the vertices);
  /// rest_points (e.g. sample_surface(mesh, ...)) are only animated and drawn. Indices out of
  /// range or non-finite vertices throw InvalidInput.
  void set_model(int index, const Mesh& mesh, std::span<const Float3> rest_points);
  /// Part ids of model `index` (what the clash report names): one per point of a point-cloud
  /// model, or one per triangle of a mesh model (set_model(index, mesh, ...) takes
  /// mesh.triangle_parts itself). Empty: every voxel is part 0. set_model resets them, so call this
  /// after it. Copied to the backend (synchronous); a size that matches neither throws
  /// InvalidInput.
  void set_model_parts(int index, std::span<const std::uint32_t> parts);
  /// Takes effect on the next frame; no output voxel changes with the algorithm.
  void set_algorithm(TableKind kind);
  void set_grid(const GridParams& grid);
  void set_animation(const AnimationParams& animation);
  /// Model `index`'s rigid pose for frames with AnimationParams::animate = false (scene keyframes);
  /// takes effect on the next frame. The rest points and mesh stay as they were set.
  void set_model_transform(int index, const RigidTransform& transform);

  /// Runs one frame at `time` seconds on `stream` (ignored by the CPU backend). The statistics,
  /// voxels and labels are complete on return (the frame reads its counts back, which waits for
  /// the stream); the instances are queued last and are complete once `stream` is synchronized,
  /// so a caller can unmap interop buffers on the same stream without waiting here. If it throws
  /// (OutOfMemory from an allocation inside the frame, ...), the pipeline holds no frame (voxels,
  /// labels, instances and download are empty) but keeps its models and configuration, and the
  /// next run_frame starts afresh.
  FrameStats run_frame(double time, const FrameTargets& targets = {}, Stream stream = nullptr);

  /// The width of the voxel keys the next frame runs on (frame_key_bits of the configuration).
  [[nodiscard]] int key_bits() const;

  /// The last frame's voxels of model `index` (backend memory, ascending key order: a voxel's
  /// index is its id) and labels.
  /// voxels() is for 32-bit frames (InvalidInput after a 64-bit one), voxels64() for 64-bit ones.
  [[nodiscard]] std::span<const Key> voxels(int index) const;
  [[nodiscard]] std::span<const Key64> voxels64(int index) const;
  [[nodiscard]] std::span<const VoxelLabel> labels(int index) const;
  /// The keys the last frame's voxels of model `index` were numbered from (backend memory): one per
  /// point in the grid, or a mesh's voxelizer output, duplicates included. 32-bit frames only
  /// (InvalidInput after a 64-bit one).
  [[nodiscard]] std::span<const Key> keys(int index) const;
  /// The last frame's animated points of model `index` (backend memory).
  [[nodiscard]] std::span<const Float3> points(int index) const;
  /// The last frame's voxel instances of model `index` (backend memory), grouped by label as
  /// FrameStats::model[index].ranges says; empty when the frame wrote none.
  [[nodiscard]] std::span<const VoxelInstance> instances(int index) const;

  /// Host copy of the last frame's voxels and labels of model `index`, sorted by key (either
  /// width).
  [[nodiscard]] ModelVoxels download(int index) const;

 private:
  friend ClashReport compute_clash_report(const Pipeline&, const ClashOptions&);

  Backend m_backend;
  PipelineConfig m_config;
  Grid m_grid;
  std::unique_ptr<detail::PipelineBackend> m_impl;
  bool m_has_frame = false;  // the last run_frame completed
};

}  // namespace voxhash
