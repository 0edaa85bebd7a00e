// How a frame's results reach the buffers the renderer draws (instant-ngp's render_buffer pattern):
// one interface, three ways. CUDA-GL interop maps the GL buffers once per frame and lets the
// pipeline and a kernel write them; the host upload copies the results through host memory (CPU
// backend, or where interop cannot work); plain device buffers (timing only) skip GL entirely.
#pragma once

#include "viewer/scene_buffers.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/pipeline.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace voxhash::viewer {

/// Wall-clock milliseconds of one frame's steps. Without timing mode the GPU steps are only
/// launched, so their times are host-side costs; with it each step is synchronized first.
struct TransferTimes {
  double map       = 0;  // cudaGraphicsMapResources (interop)
  double pipeline  = 0;  // Pipeline::run_frame
  double instances = 0;  // waiting for the frame's voxel instances (interop, plain buffers)
  double unmap     = 0;  // cudaGraphicsUnmapResources (interop)
  double upload    = 0;  // device-to-host copies and glBufferSubData (host upload)
};

class BufferBridge {
 public:
  virtual ~BufferBridge() = default;

  /// What the panel shows as the active path ("CUDA-GL interop", "host upload", ...).
  [[nodiscard]] virtual std::string_view name() const = 0;

  /// Makes room for models of `points[i]` points. Cheap when nothing changed; reallocates (and
  /// re-registers with CUDA) when a model grew.
  virtual void reserve(const std::array<std::size_t, 2>& points) = 0;

  /// Runs the pipeline's frame at `time` and leaves its animated points and labelled voxels where
  /// the renderer draws from (the scene buffers' counts are updated). If the frame throws, nothing
  /// stays mapped and the counts stay the previous frame's (interop buffers may hold part of the
  /// failed frame).
  virtual FrameStats run_frame(Pipeline& pipeline, double time) = 0;

  [[nodiscard]] virtual const TransferTimes& times() const = 0;
};

struct BridgeChoice {
  std::unique_ptr<BufferBridge> bridge;
  std::string fallback_reason;  // why interop is not used; empty when it is
};

/// The interop bridge when `backend` is CUDA, `allow_interop` is set and registering the scene
/// buffers with CUDA works (it does not under Mesa, for instance); the host upload otherwise.
/// `timing` synchronizes each step so that times() are per-step. Needs a current GL context.
[[nodiscard]] BridgeChoice make_buffer_bridge(Backend backend,
                                              SceneBuffers& buffers,
                                              bool allow_interop,
                                              bool timing);

/// Plain device buffers instead of GL ones, for the --timing comparison; draws nothing. Throws
/// voxhash::Error on builds without CUDA.
[[nodiscard]] std::unique_ptr<BufferBridge> make_plain_device_bridge(bool timing);

}  // namespace voxhash::viewer
