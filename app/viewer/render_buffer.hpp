// The viewer's render buffer, in one place (instant-ngp's render_buffer shape): the GL buffers the
// renderer draws from (SceneBuffers), and how a frame's results reach them (BufferBridge): CUDA-GL
// interop maps the GL buffers once per frame and the pipeline writes into them on the bridge's
// stream; the host upload copies results through host memory (CPU backend, or where interop cannot
// work); plain device buffers (--timing only) skip GL. The CUDA bridges are in
// render_buffer_cuda.cpp.
#pragma once

#include "viewer/gl.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/geometry.hpp>
#include <voxhash/pipeline.hpp>
#include <voxhash/timer.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace voxhash::viewer {

/// Wall-clock laps on the library's Timer (the steady clock of the CPU backend).
class LapClock {
 public:
  LapClock() { m_timer.record(Mark::Last); }
  /// Milliseconds since construction or the previous lap.
  double lap() {
    m_timer.record(Mark::Now);
    const double ms = m_timer.elapsed_ms(Mark::Last, Mark::Now);
    m_timer.record(Mark::Last);
    return ms;
  }

 private:
  enum class Mark { Last, Now, Count };
  Timer<Mark> m_timer{Backend::Cpu};
};

/// The GL buffers the renderer draws from: per model, its animated points (voxhash::Float3) and its
/// labelled voxels (VoxelInstance). Sized by point count (a point cloud has at most one voxel per
/// point); a mesh's voxels can outnumber its points, and its voxel buffer grows, with headroom, the
/// first time a frame needs more. Never reallocated per frame in steady state.
class SceneBuffers {
 public:
  /// Makes room for `points[i]` points and voxels of model i (growing only). Returns true when
  /// buffers were (re)created, which invalidates their contents and any CUDA registration of them.
  bool reserve(const std::array<std::size_t, 2>& points);
  /// Makes room for `voxels` voxel instances of `model` (growing only, with a quarter of headroom).
  /// Returns true when the buffer was recreated (as reserve does).
  bool reserve_voxels(int model, std::size_t voxels);

  [[nodiscard]] GLuint points_buffer(int model) const { return m_points[model].id(); }
  [[nodiscard]] GLuint voxels_buffer(int model) const { return m_voxels[model].id(); }
  [[nodiscard]] std::size_t capacity(int model) const { return m_capacity[model]; }
  [[nodiscard]] std::size_t voxel_capacity(int model) const { return m_voxel_capacity[model]; }

  /// What the last frame wrote: each model's number of points and its voxel instances per label.
  std::array<std::size_t, 2> point_count{};
  std::array<LabelRanges, 2> voxel_ranges{};

 private:
  std::array<GlBuffer, 2> m_points;
  std::array<GlBuffer, 2> m_voxels;
  std::array<std::size_t, 2> m_capacity{}, m_voxel_capacity{};
};

/// Wall-clock milliseconds of one frame's steps. Without timing mode the GPU steps are only
/// launched, so their times are host-side costs; with it each step is synchronized first.
struct TransferTimes {
  double map       = 0;  // cudaGraphicsMapResources (interop)
  double pipeline  = 0;  // Pipeline::run_frame
  double instances = 0;  // waiting for the frame's voxel instances (interop, plain buffers)
  double unmap     = 0;  // cudaGraphicsUnmapResources (interop)
  double upload    = 0;  // device-to-host copies and glBufferSubData (host upload)
};

/// Draws the frame on the device while a bridge has the GL buffers mapped (the CUDA drawing path):
/// the bridge maps the drawer's target together with its buffers, in the frame's one map / unmap.
class DeviceDrawer {
 public:
  virtual ~DeviceDrawer() = default;
  /// The CUDA registration of the drawer's target (a cudaGraphicsResource_t).
  [[nodiscard]] virtual void* resource() = 0;
  /// Draws model i's points[i] (buffers.point_count[i] of them) and its voxel instances
  /// (buffers.voxel_ranges[i]), mapped device memory, into the mapped target on `stream` (a
  /// cudaStream_t).
  virtual void draw(const std::array<const Float3*, 2>& points,
                    const std::array<const VoxelInstance*, 2>& voxels,
                    const SceneBuffers& buffers,
                    void* stream) = 0;
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

  /// Draws every frame from now on through `drawer` too (null: no more), while the buffers are
  /// mapped. Only the interop bridge can; the others return false.
  virtual bool attach(DeviceDrawer*) { return false; }
  /// Draws the last frame again through the attached drawer, in one map / unmap (the camera moved
  /// and no frame ran).
  virtual void redraw() {}
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

/// The host upload: the pipeline writes its own buffers; its points and voxel instances reach GL
/// through host memory (directly on the CPU backend, through reused staging vectors on CUDA).
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
