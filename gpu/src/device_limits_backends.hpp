// The per-backend device-limit measurements behind measure_device_limits(), declared as plain C++
// so the backend-neutral dispatcher needs no CUDA header. The CUDA one exists only when
// VOXHASH_HAS_CUDA is set.
#pragma once

#include <voxhash/device_limits.hpp>

namespace voxhash {
namespace cpu {
DeviceLimits measure_device_limits(bool quick);
}  // namespace cpu

#if VOXHASH_HAS_CUDA
namespace cuda {
DeviceLimits measure_device_limits(bool quick);
}  // namespace cuda
#endif
}  // namespace voxhash
