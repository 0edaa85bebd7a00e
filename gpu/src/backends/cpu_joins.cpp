// The CPU backend's joins and the partitioned table: JoinEntries instantiated with CpuExec.
#include "backends/join_entries.hpp"
#include "exec/cpu_exec.hpp"

template struct voxhash::backends::JoinEntries<voxhash::CpuExec>;
