// The render buffer's CUDA bridges (built only with CUDA): CUDA-GL interop (cuda-samples' simpleGL
// pattern: register the GL buffers once, then per frame map all four in ONE call on the bridge's
// stream, let the pipeline write its points and voxel instances into them on that stream, unmap on
// it: no wait on the host; with a DeviceDrawer attached its target is mapped in the same call and
// drawn before the unmap) and the same frame into plain device buffers, which --timing compares.
#include "viewer/cuda_check.hpp"
#include "viewer/render_buffer.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <string>

namespace voxhash::viewer {
namespace {

/// A non-blocking stream owned by a bridge.
class OwnedStream {
 public:
  OwnedStream() {
    check_cuda(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking), "stream");
  }
  OwnedStream(const OwnedStream&)            = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  ~OwnedStream() { cudaStreamDestroy(m_stream); }
  [[nodiscard]] cudaStream_t get() const { return m_stream; }
  [[nodiscard]] Stream handle() const { return reinterpret_cast<Stream>(m_stream); }

 private:
  cudaStream_t m_stream = nullptr;
};

class CudaInteropBridge final : public BufferBridge {
 public:
  CudaInteropBridge(SceneBuffers& buffers, bool timing) : m_buffers(buffers), m_timing(timing) {}
  CudaInteropBridge(const CudaInteropBridge&)            = delete;
  CudaInteropBridge& operator=(const CudaInteropBridge&) = delete;
  ~CudaInteropBridge() override { unregister(); }

  [[nodiscard]] std::string_view name() const override { return "CUDA-GL interop"; }
  [[nodiscard]] const TransferTimes& times() const override { return m_times; }

  bool attach(DeviceDrawer* drawer) override {
    m_drawer = drawer;
    return true;
  }

  void redraw() override {
    if (!m_drawer || !m_registered) return;
    const std::array<void*, kResources> mapped = map();
    try {
      draw(mapped);
    } catch (...) {
      unmap();
      throw;
    }
    check_cuda(unmap(), "cudaGraphicsUnmapResources");
  }

  void reserve(const std::array<std::size_t, 2>& points) override {
    if (!m_buffers.reserve(points) && m_registered) return;
    register_buffers();
  }

  FrameStats run_frame(Pipeline& pipeline, double time) override {
    const FrameStats stats = run_mapped(pipeline, time);
    bool grew              = false;
    for (int i = 0; i < 2; ++i)
      grew |= m_buffers.reserve_voxels(i, stats.model[i].voxels);
    if (!grew) return stats;
    // A mesh's voxels outgrew its instance buffer (the frame wrote none for it): register the
    // larger buffer and run the frame again.
    register_buffers();
    return run_mapped(pipeline, time);
  }

 private:
  static constexpr int kResources = 4;  // points of models 0 and 1, then their voxels

  void register_buffers() {
    unregister();
    for (int i = 0; i < 2; ++i) {
      check_cuda(
          cudaGraphicsGLRegisterBuffer(
              &m_resources[i], m_buffers.points_buffer(i), cudaGraphicsRegisterFlagsWriteDiscard),
          "cudaGraphicsGLRegisterBuffer (points)");
      check_cuda(cudaGraphicsGLRegisterBuffer(&m_resources[2 + i],
                                              m_buffers.voxels_buffer(i),
                                              cudaGraphicsRegisterFlagsWriteDiscard),
                 "cudaGraphicsGLRegisterBuffer (voxels)");
    }
    m_registered = true;
  }

  /// Maps the buffers, and the drawer's target when there is one, in one call on the stream; the
  /// buffers' device pointers.
  std::array<void*, kResources> map() {
    m_mapped[kResources] =
        m_drawer ? static_cast<cudaGraphicsResource_t>(m_drawer->resource()) : nullptr;
    m_mapped_count = m_drawer ? kResources + 1 : kResources;
    std::copy(m_resources, m_resources + kResources, m_mapped);
    check_cuda(cudaGraphicsMapResources(m_mapped_count, m_mapped, m_stream.get()),
               "cudaGraphicsMapResources");
    std::array<void*, kResources> mapped{};
    try {
      for (int r = 0; r < kResources; ++r) {
        std::size_t bytes = 0;
        check_cuda(cudaGraphicsResourceGetMappedPointer(&mapped[r], &bytes, m_resources[r]),
                   "cudaGraphicsResourceGetMappedPointer");
      }
    } catch (...) {
      unmap();
      throw;
    }
    return mapped;
  }

  cudaError_t unmap() {
    return cudaGraphicsUnmapResources(m_mapped_count, m_mapped, m_stream.get());
  }

  /// The attached drawer's picture of the mapped buffers.
  void draw(const std::array<void*, kResources>& mapped) {
    if (!m_drawer) return;
    m_drawer->draw({static_cast<const Float3*>(mapped[0]), static_cast<const Float3*>(mapped[1])},
                   {static_cast<const VoxelInstance*>(mapped[2]),
                    static_cast<const VoxelInstance*>(mapped[3])},
                   m_buffers,
                   m_stream.get());
  }

  /// One frame into the mapped GL buffers (and the drawer's picture of it).
  FrameStats run_mapped(Pipeline& pipeline, double time) {
    LapClock watch;
    m_times                                    = {};
    const std::array<void*, kResources> mapped = map();
    m_times.map                                = watch.lap();
    FrameStats stats;
    try {
      FrameTargets targets;
      for (int i = 0; i < 2; ++i) {
        targets.points[i]            = static_cast<Float3*>(mapped[i]);
        targets.instances[i]         = static_cast<VoxelInstance*>(mapped[2 + i]);
        targets.instance_capacity[i] = m_buffers.voxel_capacity(i);
      }
      stats            = pipeline.run_frame(time, targets, m_stream.handle());
      m_times.pipeline = watch.lap();
      for (int i = 0; i < 2; ++i) {
        m_buffers.point_count[i]  = pipeline.points(i).size();
        m_buffers.voxel_ranges[i] = stats.model[i].ranges;
      }
      draw(mapped);
      if (m_timing) check_cuda(cudaStreamSynchronize(m_stream.get()), "cudaStreamSynchronize");
      m_times.instances = watch.lap();
    } catch (...) {
      unmap();
      throw;
    }
    check_cuda(unmap(), "cudaGraphicsUnmapResources");
    if (m_timing) check_cuda(cudaStreamSynchronize(m_stream.get()), "cudaStreamSynchronize");
    m_times.unmap = watch.lap();
    return stats;
  }

  void unregister() noexcept {
    for (auto*& resource : m_resources) {
      if (resource) cudaGraphicsUnregisterResource(resource);
      resource = nullptr;
    }
    m_registered = false;
  }

  SceneBuffers& m_buffers;
  bool m_timing;
  bool m_registered = false;
  OwnedStream m_stream;
  cudaGraphicsResource_t m_resources[kResources]  = {};
  cudaGraphicsResource_t m_mapped[kResources + 1] = {};  // the buffers, then the drawer's target
  int m_mapped_count                              = kResources;
  DeviceDrawer* m_drawer                          = nullptr;
  TransferTimes m_times;
};

class PlainDeviceBridge final : public BufferBridge {
 public:
  explicit PlainDeviceBridge(bool timing) : m_timing(timing) {}

  [[nodiscard]] std::string_view name() const override { return "plain device buffers"; }
  [[nodiscard]] const TransferTimes& times() const override { return m_times; }

  void reserve(const std::array<std::size_t, 2>& points) override {
    for (int i = 0; i < 2; ++i) {
      m_points[i].resize(points[i]);
      if (m_instances[i].size() < points[i]) m_instances[i].resize(points[i]);
    }
  }

  FrameStats run_frame(Pipeline& pipeline, double time) override {
    FrameStats stats = run_once(pipeline, time);
    bool grew        = false;
    for (int i = 0; i < 2; ++i) {
      const std::size_t voxels = stats.model[i].voxels;
      if (voxels <= m_instances[i].size()) continue;
      m_instances[i].resize(voxels + voxels / 4);  // a mesh: more voxels than points
      grew = true;
    }
    return grew ? run_once(pipeline, time) : stats;
  }

 private:
  FrameStats run_once(Pipeline& pipeline, double time) {
    LapClock watch;
    m_times = {};
    FrameTargets targets;
    for (int i = 0; i < 2; ++i) {
      targets.points[i]            = m_points[i].data();
      targets.instances[i]         = m_instances[i].data();
      targets.instance_capacity[i] = m_instances[i].size();
    }
    const FrameStats stats = pipeline.run_frame(time, targets, m_stream.handle());
    m_times.pipeline       = watch.lap();
    if (m_timing) check_cuda(cudaStreamSynchronize(m_stream.get()), "cudaStreamSynchronize");
    m_times.instances = watch.lap();
    return stats;
  }

  bool m_timing;
  OwnedStream m_stream;
  std::array<Buffer<Float3>, 2> m_points{Buffer<Float3>(Backend::Cuda, 0),
                                         Buffer<Float3>(Backend::Cuda, 0)};
  std::array<Buffer<VoxelInstance>, 2> m_instances{Buffer<VoxelInstance>(Backend::Cuda, 0),
                                                   Buffer<VoxelInstance>(Backend::Cuda, 0)};
  TransferTimes m_times;
};

}  // namespace

std::unique_ptr<BufferBridge> make_cuda_interop_bridge(SceneBuffers& buffers, bool timing) {
  return std::make_unique<CudaInteropBridge>(buffers, timing);
}

std::unique_ptr<BufferBridge> make_plain_device_bridge(bool timing) {
  return std::make_unique<PlainDeviceBridge>(timing);
}

}  // namespace voxhash::viewer
