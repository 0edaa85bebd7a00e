// The viewer's colours (linear RGB in [0, 1]), shared by the renderer, the panel's legend and the
// screenshot tests, which look for the models' point colours and the panel background.
#pragma once

#include <array>

namespace voxhash::viewer::palette {

using Rgb = std::array<float, 3>;

inline constexpr Rgb kBackground{0.16f, 0.17f, 0.20f};
inline constexpr std::array<Rgb, 2> kPoints{{{1.00f, 0.55f, 0.10f}, {0.20f, 0.65f, 1.00f}}};
/// Surface voxels outside the other model, per model.
inline constexpr std::array<Rgb, 2> kOutside{{{0.62f, 0.62f, 0.62f}, {0.25f, 0.35f, 0.85f}}};
inline constexpr Rgb kInside{0.90f, 0.15f, 0.15f};
inline constexpr Rgb kIntersection{1.00f, 0.90f, 0.10f};
/// The panel's window background (opaque, so screenshots show it exactly).
inline constexpr Rgb kPanel{0.06f, 0.06f, 0.06f};

}  // namespace voxhash::viewer::palette
