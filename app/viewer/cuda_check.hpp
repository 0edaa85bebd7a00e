// check_cuda: the viewer's CUDA bridges (render_buffer_cuda.cpp, splat_drawer.cpp; built only with
// CUDA) turn a failed runtime call into a CudaError naming the call, so the viewer can fall back to
// host uploads or show the message in its panel.
#pragma once

#include <voxhash/error.hpp>

#include <cuda_runtime.h>

#include <string>

namespace voxhash::viewer {

/// Throws CudaError "call: name: description" where status is not cudaSuccess, after clearing
/// the sticky last error.
inline void check_cuda(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();
  throw CudaError(
      std::string(call) + ": " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status),
      static_cast<int>(status));
}

}  // namespace voxhash::viewer
