// Choosing the bridge: interop where the backend and the GL context allow it, the host upload
// otherwise (with the reason, for the panel).
#include "viewer/buffer_bridge.hpp"
#include "viewer/host_upload_bridge.hpp"
#if VOXHASH_HAS_CUDA
#include "viewer/cuda_bridges.hpp"
#endif

#include <voxhash/error.hpp>

namespace voxhash::viewer {

BridgeChoice make_buffer_bridge(Backend backend,
                                SceneBuffers& buffers,
                                bool allow_interop,
                                [[maybe_unused]] bool timing) {
  BridgeChoice choice;
  if (backend != Backend::Cuda) {
    choice.fallback_reason = "CPU backend";
  } else if (!allow_interop) {
    choice.fallback_reason = "--no-interop";
  } else {
#if VOXHASH_HAS_CUDA
    try {
      auto interop = make_cuda_interop_bridge(buffers, timing);
      interop->reserve({1, 1});
      return {std::move(interop), {}};
    } catch (const Error& e) {
      choice.fallback_reason = std::string("CUDA-GL registration failed: ") + e.what();
    }
#endif
  }
  choice.bridge = std::make_unique<HostUploadBridge>(buffers);
  return choice;
}

#if !VOXHASH_HAS_CUDA
std::unique_ptr<BufferBridge> make_plain_device_bridge(bool) {
  throw Error("plain device buffers need a build with CUDA");
}
#endif

}  // namespace voxhash::viewer
