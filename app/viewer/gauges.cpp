// Bounds for the panel's gauges from the measured DeviceLimits and the size of the frame's table.
#include "viewer/gauges.hpp"

#include <cmath>

namespace voxhash::viewer {
namespace {

/// Slot tables (cuckoo and bucketed cuckoo; their traits' slot_table): slots of 8-byte pairs
/// filled by 64-bit atomics.
bool slotted(TableKind kind) {
  return visit_table(kind, [](auto traits) { return traits.slot_table; });
}

bool fits_l2(const DeviceLimits& limits, std::size_t table_bytes) {
  return static_cast<double>(table_bytes) <= limits.l2_table_mib * 1024.0 * 1024.0;
}

}  // namespace

std::size_t frame_table_bytes(TableKind kind, std::size_t keys, double cuckoo_space, double load) {
  const double n = static_cast<double>(keys);
  if (slotted(kind)) return static_cast<std::size_t>(std::ceil(n * cuckoo_space * 8));
  return static_cast<std::size_t>(std::ceil(n * 8 + n / load * 4));
}

RateBound build_bound(const DeviceLimits& limits, TableKind kind, std::size_t table_bytes) {
  if (!slotted(kind)) return {limits.sort_pairs, "pair sort (HashGraph builds by sorting)"};
  if (fits_l2(limits, table_bytes)) return {limits.exch8_l2, "random 64-bit exchanges, L2"};
  return {limits.exch8_dram, "random 64-bit exchanges, DRAM"};
}

RateBound probe_bound(const DeviceLimits& limits,
                      TableKind kind,
                      std::size_t table_bytes,
                      double rate_keys_per_s) {
  const bool cuckoo = slotted(kind);  // a bcht bucket read is one random 64-byte access
  const double l2   = cuckoo ? limits.read8_l2 : limits.read4_l2;
  const double dram = cuckoo ? limits.read8_dram : limits.read4_dram;
  const char* reads = cuckoo ? "random 8-byte reads" : "random 4-byte reads";
  if (fits_l2(limits, table_bytes)) return {l2, std::string(reads) + ", L2"};
  if (rate_keys_per_s * 1e-9 > dram) {
    return {l2, std::string(reads) + ", L2 (coherent keys: the DRAM table is served from cache)"};
  }
  return {dram, std::string(reads) + ", DRAM"};
}

}  // namespace voxhash::viewer
