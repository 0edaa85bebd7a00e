// HostUploadBridge: the pipeline runs into its own buffers; its points and voxel instances are
// uploaded as they are. Staging vectors keep their capacity, so steady frames do not allocate.
#include "viewer/host_upload_bridge.hpp"
#include "viewer/stopwatch.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>

#include <algorithm>

namespace voxhash::viewer {

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
  Stopwatch watch;
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

}  // namespace voxhash::viewer
