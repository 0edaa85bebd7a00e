// GpuBudget: the backend memory a set of tables may take; tables that need more are paged
// (Starfish pages in pinned host memory, streamed through the budget). One type for every budget
// the API carries — a frame's two voxel tables, a join's build table, the clash report's join —
// with the one rule for when tables are paged and how a frame splits its budget between models.
#pragma once

#include <cstddef>

namespace voxhash {

class GpuBudget {
 public:
  /// A budget of `bytes` bytes; 0 is no budget (tables are never paged). Implicit: a byte count
  /// is a budget (scene files and the front ends' --gpu-budget give one).
  constexpr GpuBudget(std::size_t bytes = 0) noexcept : m_bytes(bytes) {}

  [[nodiscard]] constexpr std::size_t bytes() const noexcept { return m_bytes; }
  /// Whether there is a budget at all.
  [[nodiscard]] constexpr bool limited() const noexcept { return m_bytes != 0; }

  /// Whether tables that need `need` bytes are paged under this budget: with a budget, and only
  /// beyond it (tables that need exactly the budget fit).
  [[nodiscard]] constexpr bool pages(std::size_t need) const noexcept {
    return limited() && need > m_bytes;
  }

  /// What each of a frame's two models' paged tables may take of the frame's budget: half of it,
  /// rounded down.
  [[nodiscard]] constexpr GpuBudget per_model() const noexcept { return GpuBudget{m_bytes / 2}; }

  constexpr bool operator==(const GpuBudget&) const noexcept = default;

 private:
  std::size_t m_bytes = 0;
};

}  // namespace voxhash
