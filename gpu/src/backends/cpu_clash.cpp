// The CPU backend's clash pass: ClashEntries instantiated with CpuExec.
#include "backends/clash_entries.hpp"
#include "exec/cpu_exec.hpp"

template struct voxhash::backends::ClashEntries<voxhash::CpuExec>;
