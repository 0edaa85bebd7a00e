// The loops of routing keys to partitions, over the executor (thin loops calling
// detail::partition_of): destinations, the bounds of each destination's run after the sort by
// destination, and the gathers and scatters through the sort's permutation.
#pragma once

#include "core/atomics.hpp"

#include <voxhash/detail/host_device.hpp>
#include <voxhash/detail/partition.hpp>
#include <voxhash/types.hpp>

#include <cstddef>
#include <cstdint>

namespace voxhash::multi {

/// One thread per key: dest[i] = its partition, order[i] = i; *sentinel = 1 if a key is kEmptyKey.
template <class Exec>
void assign_destinations(Exec& exec,
                         const Key* keys,
                         std::size_t n,
                         std::uint32_t parts,
                         std::uint32_t* dest,
                         std::uint32_t* order,
                         std::uint32_t* sentinel) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    const Key key = keys[i];
    if (key == kEmptyKey) core::atomic_store(sentinel, 1u);
    dest[i]  = detail::partition_of(key, parts);
    order[i] = i;
  });
}

/// One thread per destination g in [0, parts]: bounds[g] = the first index of sorted[0..n) holding
/// a destination >= g (binary search), so destination g's run is [bounds[g], bounds[g + 1]).
template <class Exec>
void destination_bounds(Exec& exec,
                        const std::uint32_t* sorted,
                        std::size_t n,
                        std::uint32_t parts,
                        std::uint32_t* bounds) {
  exec.for_each(parts + 1, [=] VOXHASH_LAMBDA(std::uint32_t g) {
    std::size_t lo = 0, hi = n;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (sorted[mid] < g) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    bounds[g] = static_cast<std::uint32_t>(lo);
  });
}

/// One thread per element: out[i] = in[perm[i]] (what is sent, grouped by destination).
template <class Exec, class T>
void gather(Exec& exec, const T* in, const std::uint32_t* perm, std::size_t n, T* out) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) { out[i] = in[perm[i]]; });
}

/// One thread per element: out[i] = values[perm[i]], or base + perm[i] without values (the key's
/// index in all shards concatenated).
template <class Exec>
void gather_values(Exec& exec,
                   const Value* values,
                   const std::uint32_t* perm,
                   std::size_t n,
                   Value base,
                   Value* out) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) {
    out[i] = values ? values[perm[i]] : base + perm[i];
  });
}

/// One thread per element: out[perm[i]] = in[i] (answers back in the caller's order).
template <class Exec, class T>
void scatter(Exec& exec, const T* in, const std::uint32_t* perm, std::size_t n, T* out) {
  exec.for_each(n, [=] VOXHASH_LAMBDA(std::uint32_t i) { out[perm[i]] = in[i]; });
}

}  // namespace voxhash::multi
