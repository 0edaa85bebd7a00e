// host_free_memory: /proc/meminfo, the process's rlimits against its /proc/self/status sizes, and
// the cgroup v2 memory.max against memory.current.
#include "host_memory.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <sys/resource.h>
#include <unistd.h>

namespace voxhash::detail {
namespace {

/// MemAvailable from /proc/meminfo, else the free pages sysconf reports.
std::size_t system_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.starts_with("MemAvailable:")) {
      std::istringstream fields(line.substr(13));
      std::size_t kib = 0;
      if (fields >> kib) return kib * 1024;
    }
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long size  = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(size)
                               : 0;
}

/// A "Key:   N kB" line of /proc/self/status, in KiB (0 when absent).
std::size_t status_kib(std::string_view key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with(key)) {
      std::istringstream fields(line.substr(key.size()));
      std::size_t kib = 0;
      if (fields >> kib) return kib;
    }
  }
  return 0;
}

/// The number a one-number file holds ("max" or anything else: none).
std::optional<std::size_t> read_number(const char* path) {
  std::ifstream in(path);
  std::size_t value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

}  // namespace

std::size_t host_free_memory() {
  std::size_t free   = system_available();
  const auto tighten = [&](std::size_t limit, std::size_t used) {
    free = std::min(free, limit > used ? limit - used : 0);
  };
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    tighten(limit.rlim_cur, status_kib("VmSize:") * 1024);
  }
  if (getrlimit(RLIMIT_DATA, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    tighten(limit.rlim_cur, status_kib("VmData:") * 1024);
  }
  const std::optional<std::size_t> cgroup_max = read_number("/sys/fs/cgroup/memory.max");
  const std::optional<std::size_t> cgroup_now = read_number("/sys/fs/cgroup/memory.current");
  if (cgroup_max && cgroup_now) tighten(*cgroup_max, *cgroup_now);
  return free;
}

}  // namespace voxhash::detail
