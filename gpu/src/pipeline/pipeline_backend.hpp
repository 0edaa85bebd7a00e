// The one virtual seam of the pipeline: Pipeline (pipeline.cpp) holds a PipelineBackend made by
// the chosen backend, which is PipelineImpl<Exec> for that backend's executor.
#pragma once

#include "core/animation.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/grid.hpp>
#include <voxhash/pipeline.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace voxhash::detail {

/// A model's (voxel key, part id) pairs of the last frame, in backend memory: keys[j] (keys64[j]
/// when the frame ran on 64-bit keys; the other is null) belongs to part parts[j] (parts null:
/// part 0) for j < count. Keys repeat (several points or triangles per voxel), and a point outside
/// the grid has the sentinel, which matches no voxel.
struct PartPairs {
  const Key* keys            = nullptr;
  const Key64* keys64        = nullptr;
  const std::uint32_t* parts = nullptr;
  std::size_t count          = 0;

  /// The keys of width K.
  template <class K>
  [[nodiscard]] const K* keys_as() const {
    if constexpr (sizeof(K) == sizeof(Key)) {
      return keys;
    } else {
      return keys64;
    }
  }
};

/// A mesh model's triangles as the last frame placed them, in backend memory (triangle_count 0:
/// a point cloud).
struct MeshView {
  const Float3* vertices         = nullptr;
  std::uint32_t vertex_count     = 0;
  const std::uint32_t* triangles = nullptr;  // three vertex indices a triangle
  std::uint32_t triangle_count   = 0;
  const std::uint32_t* parts     = nullptr;  // a part id a triangle; null: all part 0
  // Once a frame has worked them out (pipeline/solid_steps.hpp's MeshTopology): the part count
  // and, one word per part, 1 where a part has an edge its triangles use oddly; else 0 and null.
  std::uint32_t part_count        = 0;
  const std::uint32_t* open_edges = nullptr;
};

/// What a pass over the pipeline's frames keeps from one call to the next (the clash report's
/// memory: clash/clash_impl.hpp's ClashWorkspace), freed with the pipeline.
class PassState {
 public:
  virtual ~PassState() = default;
};

class PipelineBackend {
 public:
  virtual ~PipelineBackend()                                             = default;
  virtual void set_model(int index, std::span<const Float3> rest_points) = 0;
  virtual void set_model(int index, const Mesh& mesh, std::span<const Float3> rest_points) = 0;
  virtual void set_model_parts(int index, std::span<const std::uint32_t> parts)            = 0;
  virtual FrameStats run_frame(const PipelineConfig& config,
                               const Grid& grid,
                               double time,
                               const FrameTargets& targets,
                               Stream stream)                                              = 0;
  /// The last frame's key width (32 or 64; 32 before the first frame).
  [[nodiscard]] virtual int key_bits() const = 0;
  /// The last frame's voxels; voxels() throws InvalidInput after a 64-bit frame, voxels64()
  /// after a 32-bit one.
  [[nodiscard]] virtual std::span<const Key> voxels(int index) const        = 0;
  [[nodiscard]] virtual std::span<const Key64> voxels64(int index) const    = 0;
  [[nodiscard]] virtual std::span<const VoxelLabel> labels(int index) const = 0;
  /// The keys the last 32-bit frame's tables were built from (InvalidInput after a 64-bit one).
  [[nodiscard]] virtual std::span<const Key> keys(int index) const                = 0;
  [[nodiscard]] virtual std::span<const Float3> points(int index) const           = 0;
  [[nodiscard]] virtual std::span<const VoxelInstance> instances(int index) const = 0;
  /// Model `index`'s voxels and labels of the last frame sorted by key (on the backend: CUB's
  /// radix sort on CUDA), copied to the host. Synchronous.
  [[nodiscard]] virtual ModelVoxels download(int index) const = 0;
  /// Model `index`'s part pairs of the last frame; `scratch` holds the part ids where they must
  /// be worked out (a mesh's, per voxel its triangles wrote). Synchronous.
  [[nodiscard]] virtual PartPairs part_pairs(int index, Buffer<std::uint32_t>& scratch) const = 0;
  /// Model `index`'s triangles with the last frame's vertices.
  [[nodiscard]] virtual MeshView mesh(int index) const = 0;

  /// The clash pass's memory, kept from one report to the next (a report on a const pipeline
  /// still reuses it; the pipeline is not shared between threads).
  [[nodiscard]] std::unique_ptr<PassState>& clash_state() const { return m_clash_state; }

 private:
  mutable std::unique_ptr<PassState> m_clash_state;
};

/// The backend's PipelineImpl (made in dispatch.cpp); throws InvalidInput for Cuda in a build
/// without CUDA.
[[nodiscard]] std::unique_ptr<PipelineBackend> make_pipeline_backend(Backend backend);

}  // namespace voxhash::detail

namespace voxhash::pipeline {

/// The rigid motion and deformation of model `index` at `time`.
core::MotionParams make_motion(const AnimationParams& animation, int index, double time);

}  // namespace voxhash::pipeline
