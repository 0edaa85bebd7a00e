// PipelineImpl<Exec>: one frame of the voxel intersection pipeline for one backend, instantiated
// by that backend's translation unit. It numbers each model's voxels by a sort (VoxelList), holds
// both models' tables of them by their concrete types and probes them through their refs. On the
// GPU the two models run side by side, each on its lane (ModelLanes: a stream and host thread of
// its own), joined where one reads the other's table; stages are timed with Timer at named marks on
// each lane (CUDA events on the GPU), a stage taking the longer of its two lanes. The flood fill's
// steps are in frame_steps.hpp and core/flood_fill.hpp. The key width is chosen per frame: 32-bit
// keys (the fast path) on grids of at most 31 key bits, 64-bit keys on wider grids (or when
// PipelineConfig::wide_keys forces them); each width has its own keys, tables and fill buffers
// (KeyState<K>), the models are shared.
#pragma once

#include "pipeline/frame_steps.hpp"
#include "pipeline/inside_steps.hpp"
#include "pipeline/model_lanes.hpp"
#include "pipeline/paged_voxels.hpp"
#include "pipeline/part_steps.hpp"
#include "pipeline/pipeline_backend.hpp"
#include "pipeline/solid_steps.hpp"
#include "pipeline/voxel_list.hpp"
#include "tables/table_impls.hpp"

#include <voxhash/error.hpp>
#include <voxhash/timer.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>

namespace voxhash::pipeline {

/// Rounds of neighbour voting for barrier voxels before the rest get their own ray test.
inline constexpr int kVoteRounds = 6;

/// The frame's stage boundaries, in the order they are recorded.
enum class FrameMark { Begin, Animated, Voxelized, Numbered, Built, Probed, Filled, Count };
/// The flood fill's steps (one model at a time).
enum class FillMark {
  Begin,
  NearDone,
  ComponentsDone,
  InsideDone,
  VotesDone,
  UndecidedDone,
  Count
};

/// What one model's flood fill reports when it returns (its step times and its low-confidence and
/// thin-feature counts are read at the end of the frame: read_fill_times, FillBuffers::counts).
struct FillResult {
  std::uint32_t components = 0;
  std::uint32_t undecided  = 0;
};

/// Labels the voxels of model `self` against the other model's surface `s` (see
/// core/flood_fill.hpp for the steps). state holds the probe's intersection flags. The steps after
/// the components are sized by b's rooms, their counts left on the device, and the host waits
/// once: for the components, the barrier voxels, the voxels the votes leave undecided and the
/// regions whose inside test wants more rays. A count past its room (the room grows) runs those
/// steps again; regions that want more rays (rare) get their rounds, then the labels and votes
/// again, waiting once per round.
template <class Exec, class Ref, class Mask, class K>
FillResult flood_fill(Exec& exec,
                      Timer<FillMark>& timer,
                      Ref self,
                      const OtherSurface<Ref, Mask>& s,
                      const K* voxels,
                      std::uint32_t n,
                      BasicFillBuffers<K>& b,
                      BasicInsideBuffers<K>& ib) {
  FillResult r;
  ib.counts.fill_bytes_async(0, exec.stream());  // no regions flagged unless a test runs
  if (n == 0) return r;
  b.labels.resize(n);
  b.labels_next.resize(n);
  b.parent.resize(n);
  b.roots.resize(n);
  b.pending.resize(n);
  b.undecided.resize(n);
  const Grid g                        = s.g;
  const std::uint8_t* state           = b.state.data();
  const std::uint32_t* parent         = b.parent.data();
  const std::uint32_t* barrier_voxels = b.pending.data();  // the votes' list, once selected
  std::uint32_t* sizes                = b.sizes.data();
  timer.record(FillMark::Begin);
  mark_near(exec, s.other, s.mask, g, voxels, n, b.state.data());
  timer.record(FillMark::NearDone);
  connect_components(exec,
                     self,
                     g,
                     voxels,
                     n,
                     b.state.data(),
                     b.parent.data(),
                     b.common.data(),
                     b.pending.data());  // scratch until the votes' list
  // The components' roots, and the barrier voxels that are not intersections (the votes' voxels).
  exec.select_indices_async(
      n,
      [=] VOXHASH_LAMBDA(std::uint32_t id) { return state[id] == 0 && parent[id] == id; },
      b.roots.data(),
      sizes);
  exec.select_indices_async(
      n,
      [=] VOXHASH_LAMBDA(std::uint32_t id) { return state[id] == core::kStateNear; },
      b.pending.data(),
      sizes + 1);
  timer.record(FillMark::ComponentsDone);
  // The regions' verdicts onto their voxels, the votes over the barrier voxels, and the voxels
  // they leave undecided listed (their number into sizes[2]; a list of their own: the roots are
  // read again when later inside-test rounds run).
  const auto label_and_vote = [&](Counted regions, Counted barrier) {
    VoxelLabel* component_label = b.labels_next.data();  // indexed by root id
    scatter_verdicts(exec, b.roots.data(), regions, ib, component_label);
    count_region_flags_async(exec, regions, ib);
    timer.record(FillMark::InsideDone);
    label_from_components(
        exec, n, b.state.data(), b.parent.data(), component_label, b.labels.data());
    exec.copy_async(b.labels_next.data(), b.labels.data(), n * sizeof(VoxelLabel));
    b.vote_changes.resize(kVoteRounds);
    b.vote_changes.fill_bytes_async(0, exec.stream());
    for (int round = 0; round < kVoteRounds; ++round) {
      const std::uint32_t* before = round ? b.vote_changes.data() + round - 1 : nullptr;
      vote_round(exec,
                 self,
                 g,
                 voxels,
                 barrier_voxels,
                 barrier,
                 b.labels.data(),
                 b.labels_next.data(),
                 before,
                 b.vote_changes.data() + round);
      b.labels.swap(b.labels_next);
    }
    // Their places in the barrier list (the list's tail past its count is stale: the predicate
    // reads the count), made voxel ids once their number is read.
    const VoxelLabel* labels = b.labels.data();
    exec.select_indices_async(
        std::min(barrier.room, n),
        [=] VOXHASH_LAMBDA(std::uint32_t i) {
          return !barrier.beyond(i) && labels[barrier_voxels[i]] == core::kLabelUnknown;
        },
        b.undecided.data(),
        sizes + 2);
  };
  std::uint32_t counts[4];  // components, barrier voxels, undecided voxels, regions wanting rays
  Counted regions, barrier;
  do {
    regions = {b.regions.size, sizes};
    barrier = {b.barrier.size, sizes + 1};
    pick_samples(exec, voxels, n, state, parent, b.roots.data(), regions, ib);
    start_inside_test(exec, s, regions, core::kSamplesPerRegion, ib, sizes + 3);
    label_and_vote(regions, barrier);
    exec.copy_to_host(counts, sizes, 4);
  } while (!(b.regions.fits(counts[0]) & b.barrier.fits(counts[1])));  // both rooms set
  r.components = counts[0];
  if (counts[3] > 0) {
    finish_inside_test(exec, s, regions, core::kSamplesPerRegion, counts[3], ib);
    label_and_vote(regions, barrier);
    counts[2] = exec.read(sizes + 2);
  }
  r.undecided              = counts[2];
  std::uint32_t* undecided = b.undecided.data();
  exec.for_each(r.undecided, [=] VOXHASH_LAMBDA(std::uint32_t u) {
    undecided[u] = barrier_voxels[undecided[u]];
  });
  timer.record(FillMark::VotesDone);
  single_voxel_samples(exec, voxels, b.undecided.data(), r.undecided, ib);
  robust_inside_test(exec, s, r.undecided, 1, ib);
  scatter_verdicts(exec, b.undecided.data(), Counted{r.undecided}, ib, b.labels.data());
  timer.record(FillMark::UndecidedDone);
  return r;
}

/// A fill's step times, read after the frame (each step of the frame's stage times the longer of
/// the two models').
inline void read_fill_times(Timer<FillMark>& timer, StageTimes& ms) {
  const auto longer = [](double& step, double ms_here) { step = std::max(step, ms_here); };
  longer(ms.fill_near, timer.elapsed_ms(FillMark::Begin, FillMark::NearDone));
  longer(ms.fill_components, timer.elapsed_ms(FillMark::NearDone, FillMark::ComponentsDone));
  longer(ms.inside_tests,
         timer.elapsed_ms(FillMark::ComponentsDone, FillMark::InsideDone) +
             timer.elapsed_ms(FillMark::VotesDone, FillMark::UndecidedDone));
  longer(ms.fill_votes, timer.elapsed_ms(FillMark::InsideDone, FillMark::VotesDone));
}

template <class Exec>
class PipelineImpl final : public detail::PipelineBackend {
 public:
  void set_model(int index, std::span<const Float3> rest) override {
    for (std::size_t i = 0; i < rest.size(); ++i) {
      const Float3 p = rest[i];
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
        throw InvalidInput("model " + std::to_string(index) + ": point " + std::to_string(i) +
                           " is not finite (NaN or Inf)");
      }
    }
    if (rest.size() >= 0x80000000ull) {
      throw InvalidInput("model " + std::to_string(index) + ": too many points (max 2^31 - 1)");
    }
    Model& m = m_models.at(index);
    // Both buffers are allocated before either is replaced: on OutOfMemory the model is unchanged.
    Buffer<Float3> rest_points = Buffer<Float3>::from_host(Exec::kBackend, rest);
    Buffer<Float3> animated(Exec::kBackend, rest.size());
    m.rest           = std::move(rest_points);
    m.animated       = std::move(animated);
    m.points         = m.animated.data();
    m.points_stale   = false;
    m.instances      = nullptr;
    m.triangle_count = 0;
    m.parts.resize(0);
    m.solid.topology.ready = false;
  }

  void set_model(int index, const Mesh& mesh, std::span<const Float3> rest) override {
    const std::string what = "model " + std::to_string(index) + ": ";
    if (mesh.triangles.size() % 3 != 0 || mesh.triangles.size() / 3 >= 0x80000000ull) {
      throw InvalidInput(what + std::to_string(mesh.triangles.size()) +
                         " triangle indices: not a multiple of 3, or over 2^31 - 1 triangles");
    }
    if (!mesh.triangle_parts.empty() && mesh.triangle_parts.size() != mesh.triangles.size() / 3) {
      throw InvalidInput(what + std::to_string(mesh.triangle_parts.size()) + " part ids for " +
                         std::to_string(mesh.triangles.size() / 3) + " triangles");
    }
    // A vertex no triangle uses may be anything (a loader keeps a non-finite one, its triangles
    // dropped, so the indices hold); a vertex a triangle uses must be finite.
    for (const std::uint32_t t : mesh.triangles) {
      if (t >= mesh.vertices.size()) {
        throw InvalidInput(what + "triangle index " + std::to_string(t) + " is out of range");
      }
      const Float3& v = mesh.vertices[t];
      if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z)) {
        throw InvalidInput(what + "a triangle uses a vertex that is not finite (NaN or Inf)");
      }
    }
    set_model(index, rest);
    Model& m = m_models.at(index);
    m.rest_vertices =
        Buffer<Float3>::from_host(Exec::kBackend, std::span<const Float3>(mesh.vertices));
    m.vertices.resize(mesh.vertices.size());
    m.triangles      = Buffer<std::uint32_t>::from_host(Exec::kBackend,
                                                   std::span<const std::uint32_t>(mesh.triangles));
    m.triangle_count = static_cast<std::uint32_t>(mesh.triangles.size() / 3);
    set_model_parts(index, mesh.triangle_parts);
  }

  void set_model_parts(int index, std::span<const std::uint32_t> parts) override {
    Model& m                = m_models.at(index);
    const std::size_t items = m.triangle_count ? m.triangle_count : count(m);
    if (!parts.empty() && parts.size() != items) {
      throw InvalidInput("model " + std::to_string(index) + ": " + std::to_string(parts.size()) +
                         " part ids for " + std::to_string(items) +
                         (m.triangle_count ? " triangles" : " points"));
    }
    m.parts                = Buffer<std::uint32_t>::from_host(Exec::kBackend, parts);
    m.solid.topology.ready = false;
  }

  FrameStats run_frame(const PipelineConfig& config,
                       const Grid& g,
                       double time,
                       const FrameTargets& targets,
                       Stream stream) override {
    const bool wide = frame_key_bits(config) == 64;
    if (wide != m_wide) {  // the other width's keys, tables and buffers are not needed any more
      if (wide) {
        m_narrow = std::make_unique<KeyState<Key>>();
      } else {
        m_wide64 = std::make_unique<KeyState<Key64>>();
      }
      m_wide = wide;
    }
    FrameStats stats = wide ? run_frame_as(*m_wide64, config, g, time, targets, stream)
                            : run_frame_as(*m_narrow, config, g, time, targets, stream);
    stats.key_bits   = wide ? 64 : 32;
    return stats;
  }

  [[nodiscard]] int key_bits() const override { return m_wide ? 64 : 32; }

  [[nodiscard]] std::span<const Key> voxels(int i) const override {
    if (m_wide) throw InvalidInput("the frame's voxel keys are 64-bit: read them with voxels64");
    const auto& k = m_narrow->models.at(i);
    return {k.list.data(), k.list.count()};
  }
  [[nodiscard]] std::span<const Key64> voxels64(int i) const override {
    if (!m_wide) throw InvalidInput("the frame's voxel keys are 32-bit: read them with voxels");
    const auto& k = m_wide64->models.at(i);
    return {k.list.data(), k.list.count()};
  }
  [[nodiscard]] std::span<const Key> keys(int i) const override {
    if (m_wide) throw InvalidInput("the frame's voxel keys are 64-bit: its build keys are too");
    const auto& k = m_narrow->models.at(i);
    return {k.keys.data(), k.key_count};
  }
  [[nodiscard]] std::span<const VoxelLabel> labels(int i) const override {
    const std::uint32_t unique =
        m_wide ? m_wide64->models.at(i).list.count() : m_narrow->models.at(i).list.count();
    const VoxelLabel* l = m_wide ? m_wide64->models.at(i).fill.labels.data()
                                 : m_narrow->models.at(i).fill.labels.data();
    return {l, unique};
  }
  [[nodiscard]] std::span<const Float3> points(int i) const override {
    const Model& m = m_models.at(i);
    if (m.points_stale) {
      Exec exec(m_exec.stream());
      animate_points(exec, m.motion, m.rest.data(), count(m), m.points);
      exec.synchronize();
      m.points_stale = false;
    }
    return {m.points, m.rest.size()};
  }
  [[nodiscard]] std::span<const VoxelInstance> instances(int i) const override {
    const Model& m = m_models.at(i);
    const std::uint32_t unique =
        m_wide ? m_wide64->models.at(i).list.count() : m_narrow->models.at(i).list.count();
    return {m.instances, m.instances ? unique : 0};
  }
  [[nodiscard]] ModelVoxels download(int i) const override {
    return m_wide ? download_as(*m_wide64, i) : download_as(*m_narrow, i);
  }
  [[nodiscard]] detail::PartPairs part_pairs(int i, Buffer<std::uint32_t>& scratch) const override {
    return m_wide ? part_pairs_as(*m_wide64, i, scratch) : part_pairs_as(*m_narrow, i, scratch);
  }

  [[nodiscard]] detail::MeshView mesh(int i) const override {
    const Model& m = m_models.at(i);
    if (!m.triangle_count) return {};
    const bool known = m.solid.topology.ready && m.solid.topology.counted;
    return {m.vertices.data(),
            static_cast<std::uint32_t>(m.vertices.size()),
            m.triangles.data(),
            m.triangle_count,
            m.parts.empty() ? nullptr : m.parts.data(),
            known ? m.solid.topology.parts : 0u,
            known ? m.solid.topology.part_open.data() : nullptr};
  }

 private:
  /// Model i's mesh at rest (mesh() as set, before the frame placed it).
  [[nodiscard]] detail::MeshView rest_mesh(int i) const {
    detail::MeshView v = mesh(i);
    v.vertices         = m_models.at(i).rest_vertices.data();
    return v;
  }

  template <class K>
  using Paged = PagedVoxels<Exec, K>;

  /// A model as it was set: points (and a mesh), part ids, where its instances went.
  struct Model {
    Buffer<Float3> rest{Exec::kBackend, 0}, animated{Exec::kBackend, 0};
    Float3* points = nullptr;           // where the last frame's animated points are
    core::MotionParams motion{};        // the last frame's motion
    mutable bool points_stale = false;  // a mesh's points not animated yet (points() does it)
    Buffer<VoxelInstance> own_instances{Exec::kBackend, 0};
    Buffer<std::uint32_t> cursors{Exec::kBackend, kVoxelLabels};
    VoxelInstance* instances = nullptr;  // where the last frame's instances are, if it wrote any
    // A mesh model (triangle_count > 0) is voxelized from its triangles; the points are drawn.
    Buffer<Float3> rest_vertices{Exec::kBackend, 0}, vertices{Exec::kBackend, 0};
    Buffer<std::uint32_t> triangles{Exec::kBackend, 0};
    std::uint32_t triangle_count = 0;
    // Part id per point (a point cloud) or per triangle (a mesh); empty: all part 0.
    Buffer<std::uint32_t> parts{Exec::kBackend, 0};
    FrameSolid<Exec> solid;  // a mesh's solid, as the last frame placed it
  };

  /// A model's frame state for keys of width K: its keys, table, voxels and fill scratch.
  template <class K>
  struct ModelKeys {
    Buffer<K> keys_all{Exec::kBackend, 0}, keys{Exec::kBackend, 0};
    std::size_t key_count = 0;
    // The algorithm's table (each frame algorithm's type, table_impls.hpp), or Paged: the frame's
    // tables beyond PipelineConfig::gpu_budget, whatever the algorithm.
    tables::FrameTableVariant<Exec, K, Paged<K>> table;
    VoxelList<Exec, K> list;  // the model's voxels, numbered in key order
    BasicFillBuffers<K> fill{Exec::kBackend};
    BasicVoxelizeBuffers<K> voxelize{Exec::kBackend};
    BasicInsideBuffers<K> inside{Exec::kBackend};
    Buffer<std::uint32_t> per_voxel{Exec::kBackend, 0}, coverage_counts{Exec::kBackend, 0};
  };

  template <class K>
  struct KeyState {
    std::array<ModelKeys<K>, 2> models;
  };

  static std::uint32_t count(const Model& m) { return static_cast<std::uint32_t>(m.rest.size()); }

  /// f(table) with m's table as its concrete type, if it is the algorithm's (not the paged voxels):
  /// those build queued (queue_build and status()).
  template <class K, class F>
  static void with_frame_table(ModelKeys<K>& m, F&& f) {
    std::visit(
        [&](auto& t) {
          if constexpr (requires { t.status(); }) f(t);
        },
        m.table);
  }

  /// The frame's counts into m_readback with one wait: per model the labels', the flagged
  /// regions' and, after queued builds, the build's status.
  template <class K>
  void read_frame_counts(KeyState<K>& ks, bool queued) {
    for (int i = 0; i < 2; ++i) {
      ModelKeys<K>& k   = ks.models[i];
      std::uint32_t* to = m_readback.data() + i * kReadbackPerModel;
      count_labels(m_exec, k.fill.labels.data(), k.list.count(), k.fill.counts.data());
      m_exec.transfer_async(to, k.fill.counts.data(), kVoxelLabels * sizeof(std::uint32_t));
      m_exec.transfer_async(to + kVoxelLabels, k.inside.counts.data(), 2 * sizeof(std::uint32_t));
      if (queued) {
        with_frame_table(k, [&](const auto& t) {
          m_exec.transfer_async(to + kVoxelLabels + 2, t.status(), sizeof(tables::BuildStatus));
        });
      }
    }
    m_exec.synchronize();
  }

  /// Whether the frame's queued builds placed every key (their status words in m_readback): no
  /// eviction chain at its limit, no sentinel key (a voxel list has none; the checked build would
  /// say so).
  bool builds_placed_every_key() const {
    for (int i = 0; i < 2; ++i) {
      tables::BuildStatus s;
      std::memcpy(static_cast<void*>(&s),
                  m_readback.data() + i * kReadbackPerModel + kVoxelLabels + 2,
                  sizeof(tables::BuildStatus));
      if (s.failed || s.sentinel_key) return false;
    }
    return true;
  }

  template <class K>
  FrameStats run_frame_as(KeyState<K>& ks,
                          const PipelineConfig& config,
                          const Grid& g,
                          double time,
                          const FrameTargets& targets,
                          Stream stream) {
    m_exec.set_stream(stream);
    m_frame_timer.set_stream(stream);
    FrameStats stats;
    // The tables' builds are queued without a wait and their status read with the frame's counts;
    // a build that did not place every key (rare) runs the frame again with checked builds (the
    // frame's time counts both runs).
    m_frame_timer.record(FrameMark::Begin);
    int redone = 0;
    for (bool checked = false;; checked = true, redone = 1) {
      stats = FrameStats{};
      m_lanes.fork(m_exec);
      bool queued = false;
      try {
        queued = run_lanes(ks, config, g, time, targets, stats, checked);
      } catch (...) {
        m_lanes.join(m_exec);  // what the lanes queued before the error comes before later reads
        throw;
      }
      m_lanes.join(m_exec);
      m_frame_timer.record(FrameMark::Filled);
      read_frame_counts(ks, queued);
      if (!queued || builds_placed_every_key()) break;
    }
    stats.builds_redone = redone;
    for (int i = 0; i < 2; ++i) {
      const std::uint32_t* c   = m_readback.data() + i * kReadbackPerModel;
      ModelFrameStats& s       = stats.model[i];
      const bool any           = ks.models[i].list.count() > 0;
      s.outside                = any ? c[0] : 0;
      s.inside                 = any ? c[1] : 0;
      s.intersection           = any ? c[2] : 0;
      s.low_confidence_regions = any ? c[kVoxelLabels] : 0;
      s.thin_feature_regions   = any ? c[kVoxelLabels + 1] : 0;
      if (any) read_fill_times(m_fill_timers[i], stats.ms);
    }
    // The models' stages ran side by side: each stage takes the longer of its two lanes.
    const auto stage_ms = [&](FrameMark from, FrameMark to) {
      return std::max(m_lane_timers[0].elapsed_ms(from, to), m_lane_timers[1].elapsed_ms(from, to));
    };
    stats.ms.animate    = stage_ms(FrameMark::Begin, FrameMark::Animated);
    stats.ms.voxelize   = stage_ms(FrameMark::Animated, FrameMark::Voxelized);
    stats.ms.number     = stage_ms(FrameMark::Voxelized, FrameMark::Numbered);
    stats.ms.build      = stage_ms(FrameMark::Numbered, FrameMark::Built);
    stats.ms.probe      = stage_ms(FrameMark::Built, FrameMark::Probed);
    stats.ms.flood_fill = stage_ms(FrameMark::Probed, FrameMark::Filled);
    stats.ms.total      = m_frame_timer.elapsed_ms(FrameMark::Begin, FrameMark::Filled);
    const double voxels =
        static_cast<double>(ks.models[0].list.count()) + ks.models[1].list.count();
    stats.build_keys_per_s = stats.ms.build > 0 ? voxels / (stats.ms.build * 1e-3) : 0;
    stats.probe_keys_per_s = stats.ms.probe > 0 ? voxels / (stats.ms.probe * 1e-3) : 0;
    for (int i = 0; i < 2; ++i)
      write_model_instances(ks.models[i], g, targets, i, stats.model[i]);
    return stats;
  }

  template <class K>
  detail::PartPairs part_pairs_as(const KeyState<K>& ks,
                                  int i,
                                  Buffer<std::uint32_t>& scratch) const {
    const Model& m        = m_models.at(i);
    const ModelKeys<K>& k = ks.models.at(i);
    const std::size_t ids = m.triangle_count ? k.voxelize.tile_offsets.size() : k.keys_all.size();
    if (!m.parts.empty() && ids != m.parts.size() + (m.triangle_count ? 1 : 0)) {
      throw InvalidInput("model " + std::to_string(i) +
                         " changed since the last frame: run a frame before reading its parts");
    }
    if (!m.triangle_count) return pairs_of(k.keys_all.data(), m.parts.data(), k.keys_all.size());
    if (m.parts.empty() || k.key_count == 0) return pairs_of(k.keys.data(), nullptr, k.key_count);
    scratch.resize(k.key_count);
    Exec exec(m_exec.stream());
    key_parts_of_triangles(exec,
                           k.voxelize.tile_offsets.data(),
                           m.triangle_count,
                           k.voxelize.voxel_offsets.data(),
                           k.voxelize.items,
                           m.parts.data(),
                           k.key_count,
                           scratch.data());
    exec.synchronize();
    return pairs_of(k.keys.data(), scratch.data(), k.key_count);
  }

  /// The voxels (already in key order) and labels copied to the host.
  template <class K>
  ModelVoxels download_as(const KeyState<K>& ks, int i) const {
    const ModelKeys<K>& k = ks.models.at(i);
    const std::size_t n   = k.list.count();
    if (n == 0) return {};
    Exec exec(m_exec.stream());
    std::vector<K> host_keys(n);
    ModelVoxels out;
    out.labels.resize(n);
    exec.copy_to_host(host_keys.data(), k.list.data(), n);
    exec.copy_to_host(out.labels.data(), k.fill.labels.data(), n);
    out.keys.assign(host_keys.begin(), host_keys.end());
    return out;
  }

  template <class K>
  static detail::PartPairs pairs_of(const K* keys, const std::uint32_t* parts, std::size_t n) {
    detail::PartPairs p;
    if constexpr (std::is_same_v<K, Key>) {
      p.keys = keys;
    } else {
      p.keys64 = keys;
    }
    p.parts = parts;
    p.count = n;
    return p;
  }

  /// Both models' table refs of type Table, seen by voxel id.
  template <class Table, class K>
  static auto id_refs(const KeyState<K>& ks) {
    using Ref = decltype(std::get<Table>(ks.models[0].table).ref());
    return std::array{VoxelIdRef<Ref>{std::get<Table>(ks.models[0].table).ref()},
                      VoxelIdRef<Ref>{std::get<Table>(ks.models[1].table).ref()}};
  }

  /// Creates the tables when the algorithm (or paging) changes and sets this frame's options.
  template <class K>
  void prepare_tables(KeyState<K>& ks, const PipelineConfig& config, bool paged) {
    const BuildOptions options = frame_table_options(config);
    for (ModelKeys<K>& m : ks.models) {
      if (paged) {
        if (!std::holds_alternative<Paged<K>>(m.table)) m.table.template emplace<Paged<K>>();
        try {
          std::get<Paged<K>>(m.table).set_options(options, config.gpu_budget.per_model());
        } catch (const InvalidInput& e) {
          throw InvalidInput("gpu_budget " + format_bytes(config.gpu_budget.bytes()) +
                             " (half of it for each model's paged table): " + e.what());
        }
        continue;
      }
      visit_table(config.algorithm, [&](auto traits) {
        using Traits = decltype(traits);
        if constexpr (Traits::frame_algorithm) {
          using Table = tables::TableImpl<Traits, Exec, K>;
          Table* t    = std::get_if<Table>(&m.table);
          if (!t || t->kind() != config.algorithm)
            t = &tables::emplace_table_impl<Traits, Exec, K>(m.table, options);
          t->set_options(options);
        }
      });
    }
  }

  /// The frame's work on the lanes, between the fork and the join: both models numbered, their
  /// tables built (queued unless `checked` or paged: returns whether they were), probed and
  /// filled.
  template <class K>
  bool run_lanes(KeyState<K>& ks,
                 const PipelineConfig& config,
                 const Grid& g,
                 double time,
                 const FrameTargets& targets,
                 FrameStats& stats,
                 bool checked) {
    m_lanes.run(kSideBySide, [&](int i) {
      number_voxels(ks.models[i], config, g, time, targets, i, stats.model[i]);
    });
    // Each table maps a voxel's key to its id: built from the list, each voxel's value its rank.
    // Paged tables share the paging counters and their host-side pages: one model at a time.
    const bool paged = frame_paged(config, {ks.models[0].list.count(), ks.models[1].list.count()});
    const bool side_by_side = kSideBySide && !paged;
    prepare_tables(ks, config, paged);
    const bool queued = !paged && !checked;
    m_lanes.run(side_by_side, [&](int i) {
      ModelKeys<K>& k = ks.models[i];
      if (paged) {
        Paged<K>& t = std::get<Paged<K>>(k.table);
        t.build(m_lanes.exec(i), k.list.data(), k.list.count());
        add_paging(stats.paging, t.paged_stats());
      } else {
        with_frame_table(k, [&](auto& t) {
          if (checked) {
            t.build(k.list.data(), nullptr, k.list.count(), m_lanes.stream(i));
          } else {
            t.queue_build(k.list.data(), k.list.count(), m_lanes.stream(i));
          }
        });
      }
    });
    m_lanes.exchange();  // each model's probe reads the other's table
    for (Timer<FrameMark>& t : m_lane_timers)
      t.record(FrameMark::Built);
    if (paged) {
      probe_and_fill(ks,
                     g,
                     std::array{std::get<Paged<K>>(ks.models[0].table).ref(),
                                std::get<Paged<K>>(ks.models[1].table).ref()},
                     side_by_side,
                     stats);
    } else {
      visit_table(config.algorithm, [&](auto traits) {
        using Traits = decltype(traits);
        if constexpr (Traits::frame_algorithm) {
          probe_and_fill(
              ks, g, id_refs<tables::TableImpl<Traits, Exec, K>>(ks), side_by_side, stats);
        }
      });
    }
    return queued;
  }

  /// Lane i's first stages: model i animated, voxelized (its keys) and numbered (its voxel list).
  template <class K>
  void number_voxels(ModelKeys<K>& k,
                     const PipelineConfig& config,
                     const Grid& g,
                     double time,
                     const FrameTargets& targets,
                     int i,
                     ModelFrameStats& s) {
    Exec& exec              = m_lanes.exec(i);
    Timer<FrameMark>& timer = m_lane_timers[i];
    Model& m                = m_models[i];
    timer.record(FrameMark::Begin);
    const core::MotionParams motion = make_motion(config.animation, i, time);
    m.points                        = targets.points[i] ? targets.points[i] : m.animated.data();
    // A mesh is voxelized from its vertices; its points are only drawn, so unless the caller gave
    // them a target they are animated when read (points()).
    m.points_stale = m.triangle_count && !targets.points[i];
    m.motion       = motion;
    if (!m.points_stale) animate_points(exec, motion, m.rest.data(), count(m), m.points);
    if (m.triangle_count) {
      animate_points(exec,
                     motion,
                     m.rest_vertices.data(),
                     static_cast<std::uint32_t>(m.rest_vertices.size()),
                     m.vertices.data());
    }
    timer.record(FrameMark::Animated);
    s.points = count(m);
    if (m.triangle_count) {
      number_mesh_voxels(k, m, g, i);
    } else {
      k.keys_all.resize(count(m));
      k.keys.resize(count(m));
      voxelize_points(exec, g, m.points, count(m), k.keys_all.data());
      k.key_count =
          exec.select_not_equal(k.keys_all.data(), k.keys.data(), count(m), kEmptyKeyOf<K>);
      s.outside_grid = count(m) - k.key_count;
      timer.record(FrameMark::Voxelized);
      k.list.number(exec, k.keys.data(), k.key_count, g.key_bits());
    }
    s.voxels = k.list.count();
    timer.record(FrameMark::Numbered);
  }

  /// A mesh's voxels: every voxel its triangles touch, clipped to the grid, voxelized into the
  /// room the last frame's sizes left and numbered with no wait between, then the three sizes
  /// (items, keys, voxels) read at once; again with more room if they did not fit.
  template <class K>
  void number_mesh_voxels(ModelKeys<K>& k, const Model& m, const Grid& g, int i) {
    Exec& exec                 = m_lanes.exec(i);
    BasicVoxelizeBuffers<K>& b = k.voxelize;
    for (;;) {
      voxelize_triangles_async(
          exec, g, m.vertices.data(), m.triangles.data(), m.triangle_count, b, k.keys);
      m_lane_timers[i].record(FrameMark::Voxelized);
      const std::uint32_t room = b.key_room;
      k.list.number_async(exec, k.keys.data(), room, g.key_bits(), b.sizes.data() + 2);
      std::uint32_t sizes[3];
      exec.copy_to_host(sizes, b.sizes.data(), 3);
      if (b.fits(sizes[0], sizes[1])) {
        k.key_count = sizes[1];
        k.list.set_count(sizes[2], sizes[1] < room);
        return;
      }
    }
  }

  /// A model's labels against the other model's closed solid (label_by_solid): no flood fill, no
  /// inside test; the fill's marks are recorded around it (its time reads as the inside tests').
  template <class K>
  static void label_against_solid(Exec& exec,
                                  Timer<FillMark>& timer,
                                  const Grid& g,
                                  const ModelSolid<Exec>& wall,
                                  ModelKeys<K>& k) {
    BasicFillBuffers<K>& b = k.fill;
    k.inside.counts.fill_bytes_async(0, exec.stream());  // no regions flagged
    b.labels.resize(k.list.count());
    timer.record(FillMark::Begin);
    timer.record(FillMark::NearDone);
    timer.record(FillMark::ComponentsDone);
    label_by_solid(exec, g, wall, k.list.data(), k.list.count(), b.state.data(), b.labels.data());
    timer.record(FillMark::InsideDone);
    timer.record(FillMark::VotesDone);
    timer.record(FillMark::UndecidedDone);
  }

  /// Probe (each model's voxels against the other's table) and flood fill, for one ref type, the
  /// two models side by side or one after the other. A model's voxels against a closed mesh are
  /// labelled from the mesh's solid instead of the fill.
  template <class K, class Ref>
  void probe_and_fill(KeyState<K>& ks,
                      const Grid& g,
                      const std::array<Ref, 2>& refs,
                      bool side_by_side,
                      FrameStats& stats) {
    m_lanes.run(side_by_side, [&](int i) {
      Exec& exec         = m_lanes.exec(i);
      ModelKeys<K>& k    = ks.models[i];
      ModelFrameStats& s = stats.model[i];
      if (!m_models[i].triangle_count) {
        const core::Coverage c = point_coverage(exec,
                                                refs[i],
                                                k.keys.data(),
                                                k.key_count,
                                                k.list.count(),
                                                k.per_voxel,
                                                k.coverage_counts);
        s.point_coverage       = c.fraction;
        s.recommended_points   = static_cast<std::size_t>(c.recommended_points);
      }
      k.fill.state.resize(k.list.count());
      if constexpr (std::is_same_v<Ref, PagedVoxelRef<K>>) {
        // Independent lookups: Starfish's search, batched by page (contains writes 1 or 0).
        static_assert(core::kStateIntersect == 1);
        const Paged<K>& other = std::get<Paged<K>>(ks.models[1 - i].table);
        other.contains(exec, k.list.data(), k.list.count(), k.fill.state.data());
        stats.paging.bytes_to_device += other.paged_stats().bytes_to_device;
        stats.paging.bytes_to_host += other.paged_stats().bytes_to_host;
      } else {
        probe_other(exec, refs[1 - i], k.list.data(), k.list.count(), k.fill.state.data());
      }
      m_lane_timers[i].record(FrameMark::Probed);
      build_block_mask(exec, g, k.list.data(), k.list.count(), k.fill);
      if (m_models[i].triangle_count) {
        build_frame_solid(exec, g, mesh(i), rest_mesh(i), m_models[i].solid);
        s.open_parts     = m_models[i].solid.open_parts;
        s.boundary_edges = s.open_parts ? m_models[i].solid.topology.boundary_edges : 0;
      }
    });
    m_lanes.exchange();  // each model's fill reads the other's block mask
    share_extent(ks.models[0].fill, ks.models[1].fill);
    m_lanes.run(side_by_side, [&](int i) {
      ModelKeys<K>& k              = ks.models[i];
      const FrameSolid<Exec>& wall = m_models[1 - i].solid;
      if (m_models[1 - i].triangle_count && wall.closed) {
        label_against_solid(m_lanes.exec(i), m_fill_timers[i], g, wall.solid, k);
        stats.model[i].labels_from_solid = true;
        m_lane_timers[i].record(FrameMark::Filled);
        return;
      }
      // Against an open mesh (no solid), its winding number decides the regions.
      const bool open_mesh = m_models[1 - i].triangle_count != 0;
      const OtherSurface<Ref, core::BlockMaskOf<K>> other{
          refs[1 - i],
          ks.models[1 - i].fill.mask,
          g,
          !open_mesh,
          open_mesh ? mesh(1 - i) : detail::MeshView{}};
      stats.model[i].labels_from_winding = open_mesh;
      const FillResult r                 = flood_fill(m_lanes.exec(i),
                                      m_fill_timers[i],
                                      refs[i],
                                      other,
                                      k.list.data(),
                                      k.list.count(),
                                      k.fill,
                                      k.inside);
      stats.model[i].components          = r.components;
      stats.model[i].undecided           = r.undecided;
      m_lane_timers[i].record(FrameMark::Filled);
    });
  }

  /// Model i's label ranges, and (unless the targets ask for none) its instances, queued last.
  template <class K>
  void write_model_instances(
      ModelKeys<K>& k, const Grid& g, const FrameTargets& targets, int i, ModelFrameStats& s) {
    Model& m                                       = m_models[i];
    LabelRanges& r                                 = s.ranges;
    r.count[static_cast<int>(VoxelLabel::Outside)] = static_cast<std::uint32_t>(s.outside);
    r.count[static_cast<int>(VoxelLabel::Inside)]  = static_cast<std::uint32_t>(s.inside);
    r.count[static_cast<int>(VoxelLabel::Intersection)] =
        static_cast<std::uint32_t>(s.intersection);
    r.first[1]  = r.count[0];
    r.first[2]  = r.count[0] + r.count[1];
    m.instances = nullptr;
    if (!targets.write_instances) return;
    if (targets.instances[i]) {
      const std::size_t room =
          targets.instance_capacity[i] ? targets.instance_capacity[i] : count(m);
      if (k.list.count() > room) {  // the caller's buffer is too small: write nothing
        r = {};
        return;
      }
      m.instances = targets.instances[i];
    } else {
      m.own_instances.resize(k.list.count());
      m.instances = m.own_instances.data();
    }
    write_instances(m_exec,
                    g,
                    k.list.data(),
                    k.fill.labels.data(),
                    k.list.count(),
                    r,
                    m.cursors.data(),
                    m.instances);
  }

  /// The lanes run side by side on the GPU only: on the CPU every loop already spreads over all
  /// cores (TBB) and nothing waits for a device, so one model follows the other.
  static constexpr bool kSideBySide = Exec::kBackend == Backend::Cuda;
  Exec m_exec;  // the caller's stream: before and after the lanes
  Timer<FrameMark> m_frame_timer{Exec::kBackend};  // the frame's begin and end
  ModelLanes<Exec> m_lanes;                        // each model's executor, stream and host thread
  // Each model's stage and fill-step marks, on its lane's stream.
  std::array<Timer<FrameMark>, 2> m_lane_timers{
      Timer<FrameMark>{Exec::kBackend, m_lanes.stream(0)},
      Timer<FrameMark>{Exec::kBackend, m_lanes.stream(1)}};
  std::array<Timer<FillMark>, 2> m_fill_timers{Timer<FillMark>{Exec::kBackend, m_lanes.stream(0)},
                                               Timer<FillMark>{Exec::kBackend, m_lanes.stream(1)}};
  // The frame's counts on their way back (pinned, so the copies queue without waiting): per model
  // its labels', its flagged regions' and its queued build's status.
  static constexpr std::size_t kStatusWords = sizeof(tables::BuildStatus) / sizeof(std::uint32_t);
  static constexpr std::size_t kReadbackPerModel = kVoxelLabels + 2 + kStatusWords;
  Buffer<std::uint32_t> m_readback = Buffer<std::uint32_t>::pinned_host(2 * kReadbackPerModel);
  std::array<Model, 2> m_models;
  bool m_wide = false;  // the last frame ran on 64-bit keys
  // Each width's frame state (the one not in use is empty; replaced when the width changes).
  std::unique_ptr<KeyState<Key>> m_narrow   = std::make_unique<KeyState<Key>>();
  std::unique_ptr<KeyState<Key64>> m_wide64 = std::make_unique<KeyState<Key64>>();
};

}  // namespace voxhash::pipeline
