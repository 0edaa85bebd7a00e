// The host-upload path: the pipeline writes its own buffers; its points and voxel instances reach
// GL through host memory (directly on the CPU backend, through reused staging vectors on CUDA).
#pragma once

#include "viewer/buffer_bridge.hpp"
#include "viewer/scene_buffers.hpp"

#include <voxhash/geometry.hpp>
#include <voxhash/pipeline.hpp>

#include <array>
#include <span>
#include <vector>

namespace voxhash::viewer {

class HostUploadBridge final : public BufferBridge {
 public:
  explicit HostUploadBridge(SceneBuffers& buffers) : m_buffers(buffers) {}

  [[nodiscard]] std::string_view name() const override { return "host upload"; }
  void reserve(const std::array<std::size_t, 2>& points) override;
  FrameStats run_frame(Pipeline& pipeline, double time) override;
  [[nodiscard]] const TransferTimes& times() const override { return m_times; }

 private:
  /// `span` in host memory: itself on the CPU backend, else a copy in `staging`.
  template <class T>
  std::span<const T> on_host(std::span<const T> span, Backend backend, std::vector<T>& staging);

  SceneBuffers& m_buffers;
  TransferTimes m_times;
  std::vector<Float3> m_points;
  std::vector<VoxelInstance> m_instances;
};

}  // namespace voxhash::viewer
