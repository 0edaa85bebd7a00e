// SceneBuffers: allocation of the per-model point and voxel-instance GL buffers.
#include "viewer/scene_buffers.hpp"

#include <voxhash/geometry.hpp>

namespace voxhash::viewer {

bool SceneBuffers::reserve(const std::array<std::size_t, 2>& points) {
  bool changed = false;
  for (int i = 0; i < 2; ++i) {
    if (m_points[i].id() && points[i] <= m_capacity[i]) continue;
    m_points[i]     = make_buffer(points[i] * sizeof(Float3));
    m_voxels[i]     = make_buffer(points[i] * sizeof(VoxelInstance));
    m_capacity[i]   = points[i];
    point_count[i]  = 0;
    voxel_ranges[i] = {};
    changed         = true;
  }
  return changed;
}

}  // namespace voxhash::viewer
