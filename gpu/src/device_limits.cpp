// measure_device_limits(): dispatches to the CPU measurement or, when compiled in, the CUDA one.
#include "device_limits_backends.hpp"

#include <voxhash/device_limits.hpp>
#include <voxhash/error.hpp>

namespace voxhash {

DeviceLimits measure_device_limits(Backend backend, bool quick) {
#if VOXHASH_HAS_CUDA
  if (backend == Backend::Cuda) return cuda::measure_device_limits(quick);
#endif
  if (backend == Backend::Cuda) throw InvalidInput(cuda_unavailable_reason());
  return cpu::measure_device_limits(quick);
}

}  // namespace voxhash
