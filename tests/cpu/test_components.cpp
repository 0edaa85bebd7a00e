// The flood fill's union-find (pipeline::connect_components) on the CPU executor, with Afforest's
// skip forced on (skip_min_voxels 0: the common root searched for, the voxels outside it listed
// and looking both ways) and off: every voxel's parent is its component's voxel of smallest hook
// rank, and the components are those of a breadth-first search over the 26-neighbourhood of the
// non-barrier voxels — on shapes with one dominant component, several, and diagonal-only links.
#include "exec/cpu_exec.hpp"
#include "pipeline/frame_steps.hpp"
#include "pipeline/voxel_list.hpp"
#include "tables/slot_table_impl.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <limits>
#include <queue>
#include <vector>

namespace voxhash::test {
namespace {

constexpr int kSide = 64;

Grid grid() {
  GridParams p;
  p.resolution = {kSide, kSide, kSide};
  p.bounds     = {{0, 0, 0}, {kSide, kSide, kSide}};
  return Grid(p);
}

/// Cells on a sphere shell of radius r around c, `thickness` voxels thick (one voxel: connected
/// through edges and corners too; two: through faces, so the first union round joins it).
std::vector<Int3> shell(Int3 c, float r, float thickness = 1) {
  std::vector<Int3> out;
  for (int z = 0; z < kSide; ++z)
    for (int y = 0; y < kSide; ++y)
      for (int x = 0; x < kSide; ++x) {
        const float dx = x - c.x, dy = y - c.y, dz = z - c.z;
        const float d = std::sqrt(dx * dx + dy * dy + dz * dz);
        if (d >= r - 0.5f * thickness && d < r + 0.5f * thickness) out.push_back({x, y, z});
      }
  return out;
}

struct Components {
  std::vector<std::uint32_t> parent;
  std::uint32_t common = kNotFound;
};

/// Runs connect_components over the cells (barrier: cells whose z is in [barrier_lo, barrier_hi])
/// and checks it against a breadth-first search.
Components check(const std::vector<Int3>& cells,
                 int barrier_lo,
                 int barrier_hi,
                 std::uint32_t skip_min_voxels) {
  const Grid g = grid();
  // Numbered as the frame numbers them (VoxelList): ids are ranks in key order, each voxel's rank
  // its value in the table.
  std::vector<Key> sorted;
  for (const Int3& c : cells)
    sorted.push_back(g.key_as<Key>(c));
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  BuildOptions options;
  options.unique_ids     = false;  // the value is the input index: the rank
  options.multiplicities = false;
  tables::CuckooTableImpl<CpuExec, Key> table(options);
  table.build(sorted.data(), nullptr, sorted.size(), nullptr);
  const auto n      = static_cast<std::uint32_t>(sorted.size());
  const Key* voxels = sorted.data();
  const pipeline::VoxelIdRef<decltype(table.ref())> ref{table.ref()};
  std::vector<std::uint8_t> state(n);
  for (std::uint32_t id = 0; id < n; ++id) {
    const int z = g.cell(voxels[id]).z;
    state[id]   = z >= barrier_lo && z <= barrier_hi ? core::kStateNear : 0;
  }
  Components out;
  out.parent.assign(n, 0);
  std::vector<std::uint32_t> common(2), scratch(n);
  CpuExec exec;
  pipeline::connect_components(exec,
                               ref,
                               g,
                               voxels,
                               n,
                               state.data(),
                               out.parent.data(),
                               common.data(),
                               scratch.data(),
                               skip_min_voxels);
  out.common = skip_min_voxels == 0 ? common[0] : kNotFound;

  // Breadth-first search: each component's root, its voxel of smallest hook rank.
  std::vector<std::uint32_t> smallest(n, kNotFound);
  const auto before = [](std::uint32_t a, std::uint32_t b) {
    return core::hook_rank(a) < core::hook_rank(b);
  };
  for (std::uint32_t start = 0; start < n; ++start) {
    if (state[start] != 0 || smallest[start] != kNotFound) continue;
    std::vector<std::uint32_t> members{start};
    std::queue<std::uint32_t> queue;
    queue.push(start);
    smallest[start]  = start;
    std::uint32_t lo = start;
    while (!queue.empty()) {
      const Int3 c = g.cell(voxels[queue.front()]);
      queue.pop();
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const Int3 nc = {c.x + dx, c.y + dy, c.z + dz};
            if (!g.in_grid(nc)) continue;
            const std::uint32_t id = ref.find_id(g.key_as<Key>(nc));
            if (id == kNotFound || state[id] != 0 || smallest[id] != kNotFound) continue;
            smallest[id] = start;
            lo           = std::min(lo, id, before);
            members.push_back(id);
            queue.push(id);
          }
    }
    for (const std::uint32_t id : members)
      smallest[id] = lo;
  }
  for (std::uint32_t id = 0; id < n; ++id) {
    if (state[id] != 0) continue;
    EXPECT_EQ(out.parent[id], smallest[id]) << "voxel " << id;
  }
  return out;
}

TEST(Components, OneShellWithTheSkipAndWithout) {
  const std::vector<Int3> cells = shell({32, 32, 32}, 20, 2);
  const Components skip         = check(cells, -1, -1, 0);
  EXPECT_NE(skip.common, kNotFound) << "one component: the skip must be taken";
  check(cells, -1, -1, std::numeric_limits<std::uint32_t>::max());
}

TEST(Components, ChainJoinedToTheDominantShellThroughACorner) {
  // The shell is one tree after the face round and holds nearly every sample; the chain's voxels
  // are each their own tree, and the chain's first voxel is the +x+y+z corner neighbour of a
  // shell voxel: a forward edge of a skipped voxel, which only the chain's backward round joins.
  std::vector<Int3> cells = shell({32, 32, 32}, 20, 2);
  for (int i = 45; i < 56; ++i)
    cells.push_back({i, i, i});
  const Components skip = check(cells, -1, -1, 0);
  EXPECT_NE(skip.common, kNotFound);
}

TEST(Components, ShellCutByABarrierIntoTwoCaps) {
  const std::vector<Int3> cells = shell({32, 32, 32}, 20, 2);
  for (const std::uint32_t skip : {0u, std::numeric_limits<std::uint32_t>::max()}) {
    check(cells, 40, 41, skip);  // a small cap and the rest (the rest dominates)
    check(cells, 31, 32, skip);  // two halves (no root holds three in four)
  }
}

TEST(Components, SeveralShellsAndDiagonalChains) {
  std::vector<Int3> cells = shell({20, 20, 20}, 12);  // thin: many face-connected pieces
  for (const Int3& c : shell({48, 48, 48}, 6))
    cells.push_back(c);
  for (int i = 2; i < 60; ++i) {  // linked through corners only (26- but not 6-connected)
    cells.push_back({i, 61 - i, i});
    cells.push_back({i, i, 62 - (i % 3)});
  }
  for (const std::uint32_t skip : {0u, std::numeric_limits<std::uint32_t>::max()})
    check(cells, 20, 20, skip);
}

}  // namespace
}  // namespace voxhash::test
