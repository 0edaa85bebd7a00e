// The tile a bucketed lookup or insertion runs on: the lanes that share one key and together hold
// one bucket. SerialTile is one thread holding the whole bucket (the CPU backend, and any device
// code that probes on its own); the CUDA executor's tile (exec/cuda_tile.cuh) spreads a bucket over
// a cooperative group. Both offer the same four operations, so per-element logic is written once.
#pragma once

#include <voxhash/detail/host_device.hpp>

#include <cstdint>

namespace voxhash::detail {

struct SerialTile {
  static constexpr int kSize = 1;

  VOXHASH_HD int rank() const { return 0; }
  /// The OR of every lane's value.
  VOXHASH_HD std::uint32_t reduce_or(std::uint32_t value) const { return value; }
  /// `value` as lane `source` holds it.
  template <class T>
  VOXHASH_HD T shfl(T value, int /*source*/) const {
    return value;
  }
};

}  // namespace voxhash::detail
