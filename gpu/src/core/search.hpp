// Binary search over a sorted device or host array, one spelling for both backends: the sorted
// array's lookups and the clash pass's column ranges use it.
#pragma once

#include <voxhash/detail/host_device.hpp>

#include <cstdint>

namespace voxhash::core {

/// The first index in keys[lo, hi) whose key is at least `key` (hi when none is).
template <class K>
VOXHASH_HD std::uint32_t lower_bound(const K* keys, std::uint32_t lo, std::uint32_t hi, K key) {
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace voxhash::core
