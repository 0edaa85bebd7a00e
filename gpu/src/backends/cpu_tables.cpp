// The CPU backend's hash tables, the sorted array and key generation: TableEntries instantiated
// with CpuExec.
#include "backends/table_entries.hpp"
#include "exec/cpu_exec.hpp"

template struct voxhash::backends::TableEntries<voxhash::CpuExec>;
