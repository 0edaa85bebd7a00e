// The CUDA backend's joins and the partitioned table: JoinEntries instantiated with CudaExec.
#include "backends/join_entries.hpp"
#include "exec/cuda_exec.cuh"

template struct voxhash::backends::JoinEntries<voxhash::CudaExec>;
