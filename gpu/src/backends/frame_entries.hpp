// FrameEntries<Exec> defined (see entry_points.hpp): the voxel pipeline. Included only by
// cpu_frame.cpp and cuda_frame.cu.
#pragma once

#include "backends/entry_points.hpp"
#include "pipeline/pipeline_impl.hpp"

namespace voxhash::backends {

template <class Exec>
std::unique_ptr<detail::PipelineBackend> FrameEntries<Exec>::make_pipeline() {
  return std::make_unique<pipeline::PipelineImpl<Exec>>();
}

}  // namespace voxhash::backends
