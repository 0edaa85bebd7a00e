// VOXHASH_HD marks per-element functions that both backends call: __host__ __device__ under nvcc,
// nothing in plain C++ (in the spirit of tiny-cuda-nn's common.h). A detail of the public device
// refs (cuCollections keeps such things in cuco/detail/), not API of its own.
#pragma once

#if defined(__CUDACC__)
#define VOXHASH_HD __host__ __device__ __forceinline__
#else
#define VOXHASH_HD inline
#endif

// Marks a lambda handed to an executor's for_each: a device lambda under nvcc (--extended-lambda).
#if defined(__CUDACC__)
#define VOXHASH_LAMBDA __host__ __device__
#else
#define VOXHASH_LAMBDA
#endif

// Loop unrolling hint for device code; nothing for the host compiler.
#if defined(__CUDA_ARCH__)
#define VOXHASH_UNROLL _Pragma("unroll")
#else
#define VOXHASH_UNROLL
#endif
