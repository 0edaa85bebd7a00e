// The host memory a process can still take: the tightest of the system's available memory, the
// process's limits and its cgroup's (voxhash_base: the CPU backend's free_memory and the loaders'
// checks before they allocate share it).
#pragma once

#include <cstddef>

namespace voxhash::detail {

/// The tightest of: MemAvailable from /proc/meminfo (else the free pages sysconf reports), what
/// the process's address-space and data limits leave (ulimit -v, -d), and what its cgroup's
/// memory.max leaves (a container's limit, which MemAvailable does not show).
[[nodiscard]] std::size_t host_free_memory();

}  // namespace voxhash::detail
