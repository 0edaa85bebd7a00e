// The CPU backend's voxel pipeline: FrameEntries instantiated with CpuExec.
#include "backends/frame_entries.hpp"
#include "exec/cpu_exec.hpp"

template struct voxhash::backends::FrameEntries<voxhash::CpuExec>;
