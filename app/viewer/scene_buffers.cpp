// SceneBuffers: allocation of the per-model point and voxel-instance GL buffers (the voxel buffer
// keeps a mesh's larger size across re-samplings).
#include "viewer/scene_buffers.hpp"

#include <voxhash/geometry.hpp>

namespace voxhash::viewer {

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

}  // namespace voxhash::viewer
