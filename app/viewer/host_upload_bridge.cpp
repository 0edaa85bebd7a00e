// HostUploadBridge: the pipeline runs into its own buffers; points are uploaded as they are and
// voxels are turned into instances on the host. Staging vectors keep their capacity, so steady
// frames do not allocate.
#include "viewer/host_upload_bridge.hpp"
#include "viewer/stopwatch.hpp"
#include "viewer/voxel_instances.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>

#include <algorithm>

namespace voxhash::viewer {

void HostUploadBridge::reserve(const std::array<std::size_t, 2>& points) {
  m_buffers.reserve(points);
  const std::size_t most = std::max(points[0], points[1]);
  m_instances.reserve(most);
  m_points.reserve(most);
  m_keys.reserve(most);
  m_labels.reserve(most);
}

template <class T>
std::span<const T> HostUploadBridge::on_host(std::span<const T> span,
                                             Backend backend,
                                             std::vector<T>& staging) {
  if (backend == Backend::Cpu) return span;
  staging.resize(span.size());
  voxhash::detail::copy_bytes(
      staging.data(), Backend::Cpu, span.data(), backend, span.size_bytes());
  return staging;
}

FrameStats HostUploadBridge::run_frame(Pipeline& pipeline, double time) {
  Stopwatch watch;
  const FrameStats stats = pipeline.run_frame(time);
  m_times                = {};
  m_times.pipeline       = watch.lap();

  const Backend backend     = pipeline.backend();
  const core::GridView grid = grid_view(pipeline.config().grid);
  for (int i = 0; i < 2; ++i) {
    const auto points = on_host(pipeline.points(i), backend, m_points);
    const auto keys   = on_host(pipeline.voxels(i), backend, m_keys);
    const auto labels = on_host(pipeline.labels(i), backend, m_labels);
    m_times.upload += watch.lap();
    if (points.size() > m_buffers.capacity(i) || keys.size() > m_buffers.capacity(i)) {
      throw Error("viewer: model " + std::to_string(i) + " has " + std::to_string(points.size()) +
                  " points but its buffers were sized for " +
                  std::to_string(m_buffers.capacity(i)));
    }

    const LabelRanges ranges = label_ranges(stats.model[i]);
    m_instances.resize(keys.size());
    write_voxel_instances(grid, keys, labels, ranges, m_instances.data());
    m_times.instances += watch.lap();

    glNamedBufferSubData(m_buffers.points_buffer(i), 0, points.size_bytes(), points.data());
    glNamedBufferSubData(
        m_buffers.voxels_buffer(i), 0, keys.size() * sizeof(VoxelInstance), m_instances.data());
    m_buffers.point_count[i]  = points.size();
    m_buffers.voxel_ranges[i] = ranges;
    m_times.upload += watch.lap();
  }
  return stats;
}

}  // namespace voxhash::viewer
