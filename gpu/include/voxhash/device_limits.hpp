// The ceilings no hash table on a device can beat (random reads, random 64-bit exchanges,
// streaming copy, radix sort of pairs, pinned host<->device copies for tables that page), measured
// on the spot so that benchmark figures and the viewer's panel can be given as fractions of limits
// taken in the same run (PERFORMANCE.md).
#pragma once

#include <voxhash/backend.hpp>

#include <string>

namespace voxhash {

/// Rates are in G (10^9) operations per second at uniformly random addresses unless said.
struct DeviceLimits {
  std::string device;     // describe_device(backend)
  double read4_dram = 0;  // 4-byte reads from a table of dram_table_gib (far larger than caches)
  double read8_dram = 0;  // 8-byte reads, same table
  double read4_l2   = 0;  // 4-byte reads from a table of l2_table_mib (cache-resident)
  double read8_l2   = 0;  // 8-byte reads, same table
  double exch8_dram = 0;  // 64-bit atomic exchanges (value used), DRAM table
  double exch8_l2   = 0;  // 64-bit atomic exchanges, cache-resident table
  double copy_gbs   = 0;  // device-to-device copy in GB/s, bytes read and written both counted
  double sort_pairs = 0;  // u32 key-value pairs sorted by all 32 key bits (CUB DeviceRadixSort on
                          // CUDA, the CPU backend's own pair sort on the CPU)
  double h2d_gbs        = 0;  // pinned host-to-device copy in GB/s (on the CPU: a host copy)
  double d2h_gbs        = 0;  // device-to-pinned-host copy in GB/s
  double dram_table_gib = 0;  // size of the large table the *_dram rates were taken on
  double l2_table_mib   = 0;  // size of the small table the *_l2 rates were taken on
};

/// Measures `backend`'s limits: about a second on a GPU (a DRAM table of 2 GiB when free memory
/// allows, else 1 GiB; 32 MiB for L2; 2^26 pairs sorted; 256 MiB copied each way between pinned
/// host and device memory), a few seconds on the CPU (256 MiB and a table half the L2 size).
/// `quick` takes smaller sizes and fewer repetitions. Each rate is the best of several timed
/// repetitions after a warm-up. Synchronizes the device, allocates and frees its own memory; throws
/// OutOfMemory if even the smallest sizes do not fit.
[[nodiscard]] DeviceLimits measure_device_limits(Backend backend, bool quick = false);

}  // namespace voxhash
