// The render buffer's GL side: allocating the scene buffers (a mesh's voxel buffer grows when a
// frame needs more), the host-upload bridge (staging vectors keep their capacity, so steady frames
// do not allocate), and choosing the bridge: interop where the backend and the GL context allow it,
// the host upload otherwise (with the reason, for the panel).
#include "viewer/render_buffer.hpp"
#include "viewer/splat_drawer.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>

#include <algorithm>

namespace voxhash::viewer {

#if VOXHASH_HAS_CUDA
// render_buffer_cuda.cpp: registers nothing yet; the first reserve() registers the scene buffers
// with CUDA and throws voxhash::CudaError where that is impossible (e.g. Mesa's GL).
std::unique_ptr<BufferBridge> make_cuda_interop_bridge(SceneBuffers& buffers, bool timing);
#else
std::unique_ptr<BufferBridge> make_plain_device_bridge(bool) {
  throw Error("plain device buffers need a build with CUDA");
}

std::unique_ptr<ViewDrawer> make_cuda_drawer() {
  throw Error("drawing with CUDA needs a build with CUDA");
}
#endif

bool SceneBuffers::reserve(const std::array<std::size_t, 2>& points) {
  bool changed = false;
  for (int i = 0; i < 2; ++i) {
    if (m_points[i].id() && points[i] <= m_capacity[i]) continue;
    m_points[i]    = make_buffer(points[i] * sizeof(Float3));
    m_capacity[i]  = points[i];
    point_count[i] = 0;
    changed        = true;
    if (points[i] > m_voxel_capacity[i] || !m_voxels[i].id()) {
      m_voxels[i]         = make_buffer(points[i] * sizeof(VoxelInstance));
      m_voxel_capacity[i] = points[i];
      voxel_ranges[i]     = {};
    }
  }
  return changed;
}

bool SceneBuffers::reserve_voxels(int model, std::size_t voxels) {
  if (m_voxels[model].id() && voxels <= m_voxel_capacity[model]) return false;
  const std::size_t room  = voxels + voxels / 4;
  m_voxels[model]         = make_buffer(room * sizeof(VoxelInstance));
  m_voxel_capacity[model] = room;
  voxel_ranges[model]     = {};
  return true;
}

void HostUploadBridge::reserve(const std::array<std::size_t, 2>& points) {
  m_buffers.reserve(points);
  const std::size_t most = std::max(points[0], points[1]);
  m_instances.reserve(most);
  m_points.reserve(most);
}

template <class T>
std::span<const T> HostUploadBridge::on_host(std::span<const T> span,
                                             Backend backend,
                                             std::vector<T>& staging) {
  if (backend == Backend::Cpu) return span;
  staging.resize(span.size());
  copy_bytes(staging.data(), Backend::Cpu, span.data(), backend, span.size_bytes());
  return staging;
}

FrameStats HostUploadBridge::run_frame(Pipeline& pipeline, double time) {
  LapClock watch;
  const FrameStats stats = pipeline.run_frame(time);
  m_times                = {};
  m_times.pipeline       = watch.lap();

  const Backend backend = pipeline.backend();
  for (int i = 0; i < 2; ++i) {
    const auto points    = on_host(pipeline.points(i), backend, m_points);
    const auto instances = on_host(pipeline.instances(i), backend, m_instances);
    m_times.upload += watch.lap();
    if (points.size() > m_buffers.capacity(i)) {
      throw Error("viewer: model " + std::to_string(i) + " has " + std::to_string(points.size()) +
                  " points but its buffers were sized for " +
                  std::to_string(m_buffers.capacity(i)));
    }
    m_buffers.reserve_voxels(i, instances.size());  // a mesh's voxels can outnumber its points
    glNamedBufferSubData(m_buffers.points_buffer(i), 0, points.size_bytes(), points.data());
    glNamedBufferSubData(m_buffers.voxels_buffer(i), 0, instances.size_bytes(), instances.data());
    m_buffers.point_count[i]  = points.size();
    m_buffers.voxel_ranges[i] = stats.model[i].ranges;
    m_times.upload += watch.lap();
  }
  return stats;
}

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

}  // namespace voxhash::viewer
