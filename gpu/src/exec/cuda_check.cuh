// VOXHASH_CUDA_TRY: turns a failed CUDA runtime call into a voxhash::CudaError carrying file, line,
// the error's name and the call (cuco's CUCO_CUDA_TRY in spirit). Never exits.
#pragma once

#include <voxhash/error.hpp>

#include <cuda_runtime.h>

#include <string>

namespace voxhash::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t code,
                                          const char* call,
                                          const char* file,
                                          int line) {
  std::string message = std::string(file) + ":" + std::to_string(line) + ": " +
                        cudaGetErrorName(code) + ": " + cudaGetErrorString(code) + " (" + call +
                        ")";
  if (code == cudaErrorMemoryAllocation) throw OutOfMemory(message);
  throw CudaError(message, static_cast<int>(code));
}

}  // namespace voxhash::cuda

#define VOXHASH_CUDA_TRY(call)                                                       \
  do {                                                                               \
    const cudaError_t voxhash_status_ = (call);                                      \
    if (voxhash_status_ != cudaSuccess) {                                            \
      (void)cudaGetLastError();                                                      \
      ::voxhash::cuda::throw_cuda_error(voxhash_status_, #call, __FILE__, __LINE__); \
    }                                                                                \
  } while (0)

/// Checks the launch that just happened (configuration errors surface here, faults later).
#define VOXHASH_CUDA_CHECK_LAUNCH() VOXHASH_CUDA_TRY(cudaGetLastError())
