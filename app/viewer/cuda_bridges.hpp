// The two CUDA implementations of BufferBridge: CUDA-GL interop and plain device buffers. Plain
// C++ declarations; built only with CUDA.
#pragma once

#include "viewer/buffer_bridge.hpp"
#include "viewer/scene_buffers.hpp"

#include <memory>

namespace voxhash::viewer {

/// Registers nothing yet: the first reserve() registers the scene buffers with CUDA and throws
/// voxhash::CudaError where that is impossible (no CUDA-capable GL context, e.g. Mesa).
[[nodiscard]] std::unique_ptr<BufferBridge> make_cuda_interop_bridge(SceneBuffers& buffers,
                                                                     bool timing);

}  // namespace voxhash::viewer
