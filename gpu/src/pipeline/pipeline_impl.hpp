// PipelineImpl<Exec>: one frame of the voxel intersection pipeline for one backend. Stages are
// timed with the executor's marks (CUDA events on the GPU). The flood fill (frame_steps.hpp,
// core/flood_fill.hpp) probes the tables through their device views.
#pragma once

#include "pipeline/frame_steps.hpp"
#include "pipeline/inside_steps.hpp"
#include "pipeline/pipeline_backend.hpp"

#include <voxhash/cuckoo_table.hpp>
#include <voxhash/error.hpp>
#include <voxhash/hash_graph.hpp>

#include <array>
#include <cmath>
#include <memory>
#include <string>

namespace voxhash::pipeline {

/// Rounds of neighbour voting for barrier voxels before the rest get their own ray test.
inline constexpr int kVoteRounds = 6;

template <class View>
View view_of(const HashTable& table) {
  if constexpr (std::is_same_v<View, core::CuckooView>) {
    return dynamic_cast<const CuckooTable&>(table).view();
  } else {
    return dynamic_cast<const HashGraph&>(table).view();
  }
}

/// What one model's flood fill reports.
struct FillResult {
  std::uint32_t components     = 0;
  std::uint32_t undecided      = 0;
  std::uint32_t low_confidence = 0;
  std::uint32_t thin_features  = 0;
  double near_ms = 0, components_ms = 0, inside_test_ms = 0, votes_ms = 0;
};

/// Labels the voxels of model `self` against model `other` (see core/flood_fill.hpp for the
/// steps; `dilate`: the other model is a sampled surface). state holds the probe's intersection
/// flags. Uses the executor's marks 6..11.
template <class Exec, class View>
FillResult flood_fill(Exec& exec,
                      View self,
                      View other,
                      core::BlockMask other_mask,
                      bool dilate,
                      core::GridView g,
                      const Key* voxels,
                      std::uint32_t n,
                      FillBuffers& b,
                      InsideBuffers& ib) {
  FillResult r;
  if (n == 0) return r;
  b.labels.resize(n);
  b.labels_next.resize(n);
  b.flags.resize(n);
  b.parent.resize(n);
  b.roots.resize(n);
  exec.mark(10);
  mark_near(exec, other, other_mask, g, voxels, n, b.state.data());
  exec.mark(11);
  connect_components(exec, self, g, voxels, n, b.state.data(), b.parent.data());
  flag_roots(exec, n, b.state.data(), b.parent.data(), b.flags.data());
  r.components =
      static_cast<std::uint32_t>(exec.select_flagged_indices(b.flags.data(), b.roots.data(), n));
  std::uint8_t* component_label = b.labels_next.data();  // indexed by root id
  exec.mark(6);
  pick_samples(exec, voxels, n, b.state.data(), b.parent.data(), b.roots.data(), r.components, ib);
  const InsideResult regions = robust_inside_test(
      exec, other, other_mask, g, dilate, r.components, core::kSamplesPerRegion, ib);
  scatter_verdicts(exec, b.roots.data(), r.components, ib, component_label);
  r.low_confidence = regions.low_confidence;
  r.thin_features  = regions.thin_features;
  exec.mark(7);
  label_from_components(exec, n, b.state.data(), b.parent.data(), component_label, b.labels.data());
  for (int round = 0; round < kVoteRounds; ++round) {
    vote_round(exec, self, g, voxels, n, b.labels.data(), b.labels_next.data());
    b.labels.swap(b.labels_next);
  }
  flag_label(exec, b.labels.data(), n, core::kLabelUnknown, b.flags.data());
  r.undecided =
      static_cast<std::uint32_t>(exec.select_flagged_indices(b.flags.data(), b.roots.data(), n));
  exec.mark(8);
  single_voxel_samples(exec, voxels, b.roots.data(), r.undecided, ib);
  robust_inside_test(exec, other, other_mask, g, dilate, r.undecided, 1, ib);
  scatter_verdicts(exec, b.roots.data(), r.undecided, ib, b.labels.data());
  exec.mark(9);
  r.near_ms        = exec.elapsed_ms(10, 11);
  r.components_ms  = exec.elapsed_ms(11, 6);
  r.inside_test_ms = exec.elapsed_ms(6, 7) + exec.elapsed_ms(8, 9);
  r.votes_ms       = exec.elapsed_ms(7, 8);
  return r;
}

template <class Exec>
class PipelineImpl final : public PipelineBackend {
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
    m.rest   = Buffer<Float3>::from_host(Exec::kBackend, rest);
    m.animated.resize(rest.size());
    m.points         = m.animated.data();
    m.triangle_count = 0;
  }

  void set_model(int index, const Mesh& mesh, std::span<const Float3> rest) override {
    const std::string what = "model " + std::to_string(index) + ": ";
    if (mesh.triangles.size() % 3 != 0 || mesh.triangles.size() / 3 >= 0x80000000ull) {
      throw InvalidInput(what + std::to_string(mesh.triangles.size()) +
                         " triangle indices: not a multiple of 3, or over 2^31 - 1 triangles");
    }
    for (const std::uint32_t t : mesh.triangles) {
      if (t >= mesh.vertices.size()) {
        throw InvalidInput(what + "triangle index " + std::to_string(t) + " is out of range");
      }
    }
    for (const Float3& v : mesh.vertices) {
      if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z)) {
        throw InvalidInput(what + "a mesh vertex is not finite (NaN or Inf)");
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
  }

  FrameStats run_frame(const PipelineConfig& config,
                       double time,
                       std::array<Float3*, 2> out) override {
    const core::GridView g = grid_view(config.grid);
    prepare_tables(config);
    FrameStats stats;
    m_exec.mark(0);
    for (int i = 0; i < 2; ++i) {
      Model& m = m_models[i];
      m.points = out[i] ? out[i] : m.animated.data();
      animate_points(
          m_exec, make_motion(config.animation, i, time), m.rest.data(), count(m), m.points);
      if (m.triangle_count) {
        animate_points(m_exec,
                       make_motion(config.animation, i, time),
                       m.rest_vertices.data(),
                       static_cast<std::uint32_t>(m.rest_vertices.size()),
                       m.vertices.data());
      }
    }
    m_exec.mark(1);
    std::size_t keys_in_grid = 0;
    for (int i = 0; i < 2; ++i) {
      Model& m              = m_models[i];
      stats.model[i].points = count(m);
      if (m.triangle_count) {  // a mesh: every voxel its triangles touch, clipped to the grid
        m.key_count = voxelize_triangles(
            m_exec, g, m.vertices.data(), m.triangles.data(), m.triangle_count, m.voxelize, m.keys);
      } else {
        m.keys_all.resize(count(m));
        m.keys.resize(count(m));
        voxelize_points(m_exec, g, m.points, count(m), m.keys_all.data());
        m.key_count =
            m_exec.select_not_equal(m.keys_all.data(), m.keys.data(), count(m), kEmptyKey);
        stats.model[i].outside_grid = count(m) - m.key_count;
      }
      keys_in_grid += m.key_count;
    }
    m_exec.mark(2);
    for (int i = 0; i < 2; ++i) {
      Model& m = m_models[i];
      m.table->build(m.keys.data(), nullptr, m.key_count);
      m.unique              = static_cast<std::uint32_t>(m.table->unique_count());
      stats.model[i].voxels = m.unique;
    }
    m_exec.mark(3);
    if (config.algorithm == TableKind::Cuckoo) {
      probe_and_fill<core::CuckooView>(g, stats);
    } else {
      probe_and_fill<core::HashGraphView>(g, stats);
    }
    m_exec.mark(5);
    for (int i = 0; i < 2; ++i) {
      Model& m = m_models[i];
      count_labels(m_exec, m.fill.labels.data(), m.unique, m.fill.counts.data());
      std::uint32_t c[3];
      detail::copy_bytes(c, Backend::Cpu, m.fill.counts.data(), Exec::kBackend, sizeof(c));
      stats.model[i].outside      = m.unique ? c[0] : 0;
      stats.model[i].inside       = m.unique ? c[1] : 0;
      stats.model[i].intersection = m.unique ? c[2] : 0;
    }
    stats.ms.animate       = m_exec.elapsed_ms(0, 1);
    stats.ms.voxelize      = m_exec.elapsed_ms(1, 2);
    stats.ms.build         = m_exec.elapsed_ms(2, 3);
    stats.ms.probe         = m_exec.elapsed_ms(3, 4);
    stats.ms.flood_fill    = m_exec.elapsed_ms(4, 5);
    stats.ms.total         = m_exec.elapsed_ms(0, 5);
    const double probed    = static_cast<double>(m_models[0].unique) + m_models[1].unique;
    stats.build_keys_per_s = stats.ms.build > 0 ? keys_in_grid / (stats.ms.build * 1e-3) : 0;
    stats.probe_keys_per_s = stats.ms.probe > 0 ? probed / (stats.ms.probe * 1e-3) : 0;
    return stats;
  }

  [[nodiscard]] std::span<const Key> voxels(int i) const override {
    const Model& m = m_models.at(i);
    return {m.table ? m.table->unique_keys() : nullptr, m.unique};
  }
  [[nodiscard]] std::span<const VoxelLabel> labels(int i) const override {
    const Model& m = m_models.at(i);
    return {reinterpret_cast<const VoxelLabel*>(m.fill.labels.data()), m.unique};
  }
  [[nodiscard]] std::span<const Float3> points(int i) const override {
    const Model& m = m_models.at(i);
    return {m.points, m.rest.size()};
  }

  /// Probe (each model's voxels against the other's table) and flood fill, for one view type.
  template <class View>
  void probe_and_fill(const core::GridView& g, FrameStats& stats) {
    const View views[2] = {view_of<View>(*m_models[0].table), view_of<View>(*m_models[1].table)};
    for (int i = 0; i < 2; ++i) {
      Model& m = m_models[i];
      if (m.triangle_count) continue;
      const core::Coverage c = point_coverage(
          m_exec, views[i], m.keys.data(), m.key_count, m.unique, m.per_voxel, m.coverage_counts);
      stats.model[i].point_coverage     = c.fraction;
      stats.model[i].recommended_points = static_cast<std::size_t>(c.recommended_points);
    }
    for (int i = 0; i < 2; ++i) {
      Model& m = m_models[i];
      m.fill.state.resize(m.unique);
      probe_other(m_exec, views[1 - i], m.table->unique_keys(), m.unique, m.fill.state.data());
    }
    m_exec.mark(4);
    for (Model& m : m_models)
      build_block_mask(m_exec, g, m.table->unique_keys(), m.unique, m.fill);
    for (int i = 0; i < 2; ++i) {
      Model& m                              = m_models[i];
      const FillResult r                    = flood_fill(m_exec,
                                      views[i],
                                      views[1 - i],
                                      m_models[1 - i].fill.mask,
                                      m_models[1 - i].triangle_count == 0,
                                      g,
                                      m.table->unique_keys(),
                                      m.unique,
                                      m.fill,
                                      m.inside);
      stats.model[i].components             = r.components;
      stats.model[i].undecided              = r.undecided;
      stats.model[i].low_confidence_regions = r.low_confidence;
      stats.model[i].thin_feature_regions   = r.thin_features;
      stats.ms.fill_near += r.near_ms;
      stats.ms.fill_components += r.components_ms;
      stats.ms.inside_tests += r.inside_test_ms;
      stats.ms.fill_votes += r.votes_ms;
    }
  }

 private:
  struct Model {
    Buffer<Float3> rest{Exec::kBackend, 0}, animated{Exec::kBackend, 0};
    Float3* points = nullptr;  // where the last frame's animated points are
    Buffer<Key> keys_all{Exec::kBackend, 0}, keys{Exec::kBackend, 0};
    std::size_t key_count = 0;
    std::unique_ptr<HashTable> table;
    std::uint32_t unique = 0;
    FillBuffers fill{Exec::kBackend};
    // A mesh model (triangle_count > 0) is voxelized from its triangles; the points are drawn.
    Buffer<Float3> rest_vertices{Exec::kBackend, 0}, vertices{Exec::kBackend, 0};
    Buffer<std::uint32_t> triangles{Exec::kBackend, 0};
    std::uint32_t triangle_count = 0;
    VoxelizeBuffers voxelize{Exec::kBackend};
    InsideBuffers inside{Exec::kBackend};
    Buffer<std::uint32_t> per_voxel{Exec::kBackend, 0}, coverage_counts{Exec::kBackend, 0};
  };

  static std::uint32_t count(const Model& m) { return static_cast<std::uint32_t>(m.rest.size()); }

  /// Creates the tables when the algorithm changes; sets this frame's options on them: unique ids
  /// (the flood fill numbers voxels by them), no multiplicities, and the last frame's voxel count
  /// as the expected number of distinct keys.
  void prepare_tables(const PipelineConfig& config) {
    for (Model& m : m_models) {
      if (!m.table || m.table->kind() != config.algorithm) {
        m.table  = make_table(config.algorithm, Exec::kBackend, config.table_options);
        m.unique = 0;
      }
      BuildOptions options    = config.table_options;
      options.unique_ids      = true;
      options.multiplicities  = false;
      options.expected_unique = m.unique ? m.unique + m.unique / 4 + 1024 : 0;
      m.table->set_options(options);
    }
  }

  Exec m_exec;
  std::array<Model, 2> m_models;
};

}  // namespace voxhash::pipeline
