// CUDA backend: the frame pipeline instantiated with CudaExec.
#include "exec/cuda_exec.cuh"
#include "pipeline/pipeline_impl.hpp"

namespace voxhash::pipeline {

std::unique_ptr<PipelineBackend> make_cuda_pipeline() {
  return std::make_unique<PipelineImpl<CudaExec>>();
}

}  // namespace voxhash::pipeline
