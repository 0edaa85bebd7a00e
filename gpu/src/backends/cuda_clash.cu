// The CUDA backend's clash pass: ClashEntries instantiated with CudaExec.
#include "backends/clash_entries.hpp"
#include "exec/cuda_exec.cuh"

template struct voxhash::backends::ClashEntries<voxhash::CudaExec>;
