// The CUDA backend's hash tables, the sorted array and key generation: TableEntries instantiated
// with CudaExec.
#include "backends/table_entries.hpp"
#include "exec/cuda_exec.cuh"

template struct voxhash::backends::TableEntries<voxhash::CudaExec>;
