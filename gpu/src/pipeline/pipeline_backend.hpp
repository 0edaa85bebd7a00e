// The one virtual seam of the pipeline: Pipeline (pipeline.cpp) holds a PipelineBackend made by
// the chosen backend, which is PipelineImpl<Exec> for that backend's executor.
#pragma once

#include "core/animation.hpp"

#include <voxhash/grid.hpp>
#include <voxhash/pipeline.hpp>

#include <memory>
#include <span>

namespace voxhash::detail {

class PipelineBackend {
 public:
  virtual ~PipelineBackend()                                             = default;
  virtual void set_model(int index, std::span<const Float3> rest_points) = 0;
  virtual void set_model(int index, const Mesh& mesh, std::span<const Float3> rest_points) = 0;
  virtual FrameStats run_frame(const PipelineConfig& config,
                               const Grid& grid,
                               double time,
                               const FrameTargets& targets,
                               Stream stream)                                              = 0;
  [[nodiscard]] virtual std::span<const Key> voxels(int index) const                       = 0;
  [[nodiscard]] virtual std::span<const VoxelLabel> labels(int index) const                = 0;
  [[nodiscard]] virtual std::span<const Float3> points(int index) const                    = 0;
  [[nodiscard]] virtual std::span<const VoxelInstance> instances(int index) const          = 0;
};

/// The backend's PipelineImpl (made in dispatch.cpp); throws InvalidInput for Cuda in a build
/// without CUDA.
[[nodiscard]] std::unique_ptr<PipelineBackend> make_pipeline_backend(Backend backend);

}  // namespace voxhash::detail

namespace voxhash::pipeline {

/// The rigid motion and deformation of model `index` at `time`.
core::MotionParams make_motion(const AnimationParams& animation, int index, double time);

}  // namespace voxhash::pipeline
