// The bound each of the panel's rates is held against, so that a gauge reads a fraction of what
// actually limits it (never above 100 % unless the bound is wrong): the build against the
// primitive the algorithm's build is made of (cuckoo: random 64-bit exchanges; HashGraph: a pair
// sort), the probe against random reads of the table's slot size, each where the table lives (L2
// or DRAM).
#pragma once

#include <voxhash/device_limits.hpp>
#include <voxhash/hash_table.hpp>

#include <cstddef>
#include <string>

namespace voxhash::viewer {

struct RateBound {
  double limit = 0;  // G/s; 0: not measured
  std::string name;  // what the limit is, and where: "random 64-bit exchanges, L2"
};

/// Bytes of a frame's table of `keys` unique voxels built with `kind` and `options` (cuckoo: 8-byte
/// slots, cuckoo_space of them per key; HashGraph: 8 bytes a key and a 4-byte offset per bucket).
[[nodiscard]] std::size_t frame_table_bytes(TableKind kind,
                                            std::size_t keys,
                                            double cuckoo_space,
                                            double load);

/// The build's bound: cuckoo inserts are random 64-bit exchanges (L2 when the table fits in the
/// table the L2 rate was taken on, else DRAM); HashGraph V1 and V2 builds sort pairs.
[[nodiscard]] RateBound build_bound(const DeviceLimits& limits,
                                    TableKind kind,
                                    std::size_t table_bytes);
/// The probe's bound: random reads of the table's slot (8 bytes cuckoo, 4 bytes HashGraph), from
/// L2 when the table fits there, else DRAM; a DRAM-sized table probed faster than DRAM allows is
/// being served by the cache (the frame's keys are spatially coherent), and gets the L2 bound.
[[nodiscard]] RateBound probe_bound(const DeviceLimits& limits,
                                    TableKind kind,
                                    std::size_t table_bytes,
                                    double rate_keys_per_s);

}  // namespace voxhash::viewer
