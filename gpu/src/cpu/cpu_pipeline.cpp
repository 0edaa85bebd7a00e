// CPU backend: the frame pipeline instantiated with CpuExec.
#include "exec/cpu_exec.hpp"
#include "pipeline/pipeline_impl.hpp"

namespace voxhash::pipeline {

std::unique_ptr<PipelineBackend> make_cpu_pipeline() {
  return std::make_unique<PipelineImpl<CpuExec>>();
}

}  // namespace voxhash::pipeline
