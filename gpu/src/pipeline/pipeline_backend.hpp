// The backend-specific half of Pipeline: one implementation per executor (CPU, CUDA), created by
// the factories below; Pipeline (pipeline.cpp) holds one and forwards to it.
#pragma once

#include <voxhash/core/animation.hpp>
#include <voxhash/core/voxel.hpp>
#include <voxhash/io.hpp>
#include <voxhash/pipeline.hpp>

#include <memory>
#include <span>

namespace voxhash::pipeline {

class PipelineBackend {
 public:
  virtual ~PipelineBackend()                                             = default;
  virtual void set_model(int index, std::span<const Float3> rest_points) = 0;
  virtual void set_model(int index, const Mesh& mesh, std::span<const Float3> rest_points) = 0;
  virtual FrameStats run_frame(const PipelineConfig& config,
                               double time,
                               std::array<Float3*, 2> animated_points)                     = 0;
  [[nodiscard]] virtual std::span<const Key> voxels(int index) const                       = 0;
  [[nodiscard]] virtual std::span<const VoxelLabel> labels(int index) const                = 0;
  [[nodiscard]] virtual std::span<const Float3> points(int index) const                    = 0;
};

/// The rigid motion and deformation of model `index` at `time`.
core::MotionParams make_motion(const AnimationParams& animation, int index, double time);

std::unique_ptr<PipelineBackend> make_cpu_pipeline();
#if VOXHASH_HAS_CUDA
std::unique_ptr<PipelineBackend> make_cuda_pipeline();
#endif

}  // namespace voxhash::pipeline
