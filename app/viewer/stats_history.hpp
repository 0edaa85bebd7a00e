// Fixed-size scrolling histories of the per-frame rates and times for the panel's plots
// (ImGui::PlotLines with a ring offset); pushing never allocates.
#pragma once

#include <voxhash/pipeline.hpp>

#include <array>

namespace voxhash::viewer {

class StatsHistory {
 public:
  static constexpr int kSize = 240;

  void push(const FrameStats& stats) {
    m_build[m_next]    = static_cast<float>(stats.build_keys_per_s * 1e-9);
    m_probe[m_next]    = static_cast<float>(stats.probe_keys_per_s * 1e-9);
    m_total_ms[m_next] = static_cast<float>(stats.ms.total);
    m_next             = (m_next + 1) % kSize;
  }

  /// G keys/s per frame, oldest first from offset().
  [[nodiscard]] const float* build_rate() const { return m_build.data(); }
  [[nodiscard]] const float* probe_rate() const { return m_probe.data(); }
  [[nodiscard]] const float* total_ms() const { return m_total_ms.data(); }
  [[nodiscard]] int offset() const { return m_next; }

 private:
  std::array<float, kSize> m_build{};
  std::array<float, kSize> m_probe{};
  std::array<float, kSize> m_total_ms{};
  int m_next = 0;
};

}  // namespace voxhash::viewer
