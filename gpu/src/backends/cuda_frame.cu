// The CUDA backend's voxel pipeline: FrameEntries instantiated with CudaExec.
#include "backends/frame_entries.hpp"
#include "exec/cuda_exec.cuh"

template struct voxhash::backends::FrameEntries<voxhash::CudaExec>;
