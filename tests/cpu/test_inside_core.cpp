// Unit tests (label cpu) of the per-element logic behind trustworthy inside / outside labels:
// the conservative triangle voxelizer (no holes in a closed mesh's surface), the exact integer DDA
// and its segmented walk, the region vote, the winding number against open meshes, the point-cloud
// coverage estimate, and the exact reference of tests/common/exact_geometry.hpp itself.
#include "common/exact_geometry.hpp"
#include "core/inside_test.hpp"
#include "core/triangle_voxelizer.hpp"
#include "core/winding.hpp"
#include "exec/cpu_exec.hpp"
#include "pipeline/inside_steps.hpp"

#include <voxhash/pipeline.hpp>

#include <gtest/gtest.h>
#include <queue>
#include <random>
#include <set>
#include <tuple>
#include <unordered_set>

namespace voxhash::test {
namespace {

Grid cubic_grid(int res, float half) {
  GridParams p;
  p.resolution = {res, res, res};
  p.bounds     = {{-half, -half, -half}, {half, half, half}};
  return Grid(p);
}

std::vector<Key> voxelize(const Grid& g, const Mesh& m) {
  CpuExec exec;
  pipeline::VoxelizeBuffers b(Backend::Cpu);
  Buffer<Key> keys(Backend::Cpu, 0);
  const auto vertices  = Buffer<Float3>::from_host(Backend::Cpu, m.vertices);
  const auto triangles = Buffer<std::uint32_t>::from_host(Backend::Cpu, m.triangles);
  const std::size_t n =
      pipeline::voxelize_triangles(exec,
                                   g,
                                   vertices.data(),
                                   triangles.data(),
                                   static_cast<std::uint32_t>(m.triangles.size() / 3),
                                   b,
                                   keys);
  std::vector<Key> out(keys.data(), keys.data() + n);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

TEST(TriangleVoxelizer, OverlapIsConservativeAndSeparates) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  std::size_t missed = 0, overlaps = 0, tested = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const core::Vec3f a{u(rng), u(rng), u(rng)}, b{u(rng), u(rng), u(rng)},
        c{u(rng), u(rng), u(rng)};
    for (int z = -2; z < 2; ++z)
      for (int y = -2; y < 2; ++y)
        for (int x = -2; x < 2; ++x) {
          const bool sat = core::triangle_box_overlap(
              {x + 0.5f, y + 0.5f, z + 0.5f}, {0.5f, 0.5f, 0.5f}, a, b, c);
          overlaps += sat;
          ++tested;
          // Any sampled triangle point inside the box demands an overlap.
          bool hit = false;
          for (int i = 0; i <= 40 && !hit; ++i)
            for (int j = 0; i + j <= 40 && !hit; ++j) {
              const float s = i / 40.f, t = j / 40.f, r = 1 - s - t;
              const float px = r * a.x + s * b.x + t * c.x, py = r * a.y + s * b.y + t * c.y,
                          pz = r * a.z + s * b.z + t * c.z;
              hit = px >= x && px <= x + 1 && py >= y && py <= y + 1 && pz >= z && pz <= z + 1;
            }
          missed += hit && !sat;
        }
  }
  EXPECT_EQ(missed, 0u);
  EXPECT_LT(overlaps, tested);  // the test does separate
  EXPECT_FALSE(
      core::triangle_box_overlap({5, 5, 5}, {0.5f, 0.5f, 0.5f}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}));
  // A triangle exactly on a voxel face touches both voxels.
  EXPECT_TRUE(core::triangle_box_overlap(
      {0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}));
  EXPECT_TRUE(core::triangle_box_overlap(
      {0.5f, 0.5f, 1.5f}, {0.5f, 0.5f, 0.5f}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}));
}

/// Every cell the 6-connected empty space can reach from the grid border, as a dense mask.
std::vector<char> outside_reach(const Grid& g, const std::vector<Key>& surface) {
  const int n = g.resolution.x;
  std::vector<char> seen(static_cast<std::size_t>(n) * n * n, 0);
  std::unordered_set<Key> occupied(surface.begin(), surface.end());
  std::queue<Int3> q;
  auto push = [&](Int3 c) {
    if (!g.in_grid(c)) return;
    const std::size_t i = (static_cast<std::size_t>(c.z) * n + c.y) * n + c.x;
    if (seen[i] || occupied.count(g.key(c))) return;
    seen[i] = 1;
    q.push(c);
  };
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      for (const Int3 c : {Int3{0, a, b},
                           Int3{n - 1, a, b},
                           Int3{a, 0, b},
                           Int3{a, n - 1, b},
                           Int3{a, b, 0},
                           Int3{a, b, n - 1}})
        push(c);
    }
  while (!q.empty()) {
    const Int3 c = q.front();
    q.pop();
    push({c.x + 1, c.y, c.z});
    push({c.x - 1, c.y, c.z});
    push({c.x, c.y + 1, c.z});
    push({c.x, c.y - 1, c.z});
    push({c.x, c.y, c.z + 1});
    push({c.x, c.y, c.z - 1});
  }
  return seen;
}

TEST(TriangleVoxelizer, ClosedMeshesGiveSurfacesWithoutHoles) {
  const Grid g                                           = cubic_grid(48, 1.2f);
  const std::vector<std::pair<const char*, Mesh>> meshes = {
      {"uv sphere", uv_sphere(0.8)},
      {"torus", torus_mesh(0.7, 0.25)},
      {"thin cup", cup(0.8, 0.9, 0.03, 64)},  // walls under one voxel (0.05)
      {"rotated box", placed(box({-0.6, -0.5, -0.4}, {0.6, 0.5, 0.4}), {1, {1, 2, 3}, 0.7, {}})},
      {"blob", blob(0.9)}};
  for (const auto& [name, mesh] : meshes) {
    const std::vector<Key> surface = voxelize(g, mesh);
    const std::vector<char> reach  = outside_reach(g, surface);
    const ExactMesh exact(mesh);
    // Every sampled surface point's voxel is in the voxelization.
    std::size_t missing = 0;
    for (const Float3 p : sample_surface(mesh, 20000, 3))
      missing += !std::binary_search(surface.begin(), surface.end(), g.voxelize(p));
    EXPECT_EQ(missing, 0u) << name;
    // The empty space reached from the border never gets inside.
    std::size_t leaked = 0, interior = 0;
    for (std::size_t i = 0; i < reach.size(); ++i) {
      const Key k = g.key(
          {static_cast<int>(i % 48), static_cast<int>(i / 48 % 48), static_cast<int>(i / 2304)});
      const Float3 c = g.center(k);
      if (std::binary_search(surface.begin(), surface.end(), k) || !exact.inside(to_d3(c)))
        continue;
      ++interior;
      leaked += reach[i];
    }
    EXPECT_EQ(leaked, 0u) << name << ": " << interior << " interior cells";
    // Conservative, not bloated: every voxel is within half a diagonal of the surface.
    const double half_diagonal = 0.5 * std::sqrt(3.0) * g.voxel_size.x * 1.01;
    std::size_t far            = 0;
    for (const Key k : surface)
      far += exact.distance(to_d3(g.center(k))) > half_diagonal;
    EXPECT_EQ(far, 0u) << name;
  }
}

TEST(TriangleVoxelizer, LargeTrianglesAndTrianglesOutsideTheGrid) {
  const Grid g = cubic_grid(32, 1.0f);
  Mesh m;
  m.vertices  = {{-5, -5, 0.01f}, {5, -5, 0.01f}, {0, 5, 0.01f}, {9, 9, 9}, {9, 10, 9}, {10, 9, 9}};
  m.triangles = {0, 1, 2, 3, 4, 5};
  const std::vector<Key> surface = voxelize(g, m);
  EXPECT_EQ(surface.size(), 32u * 32u);  // the plane z = 0.01 crosses one layer of the whole grid
  for (const Key k : surface)
    EXPECT_EQ(g.cell(k).z, 16);
}

// The voxelization is sized by the room the last one left: a bigger mesh overflows it (the pass
// runs again with more), a smaller one shrinks it, a like one fits the first time; the keys are
// the same as with fresh buffers and the room past them holds sentinels.
TEST(TriangleVoxelizer, RoomFromTheLastMeshGrowsAndShrinks) {
  const Grid g = cubic_grid(64, 1.2f);
  CpuExec exec;
  pipeline::VoxelizeBuffers b(Backend::Cpu);
  Buffer<Key> keys(Backend::Cpu, 0);
  const double radius[]   = {0.2, 1.0, 1.0, 0.2};
  const bool fits_first[] = {false, false, true, true};  // no room yet; too small; then enough
  for (int pass = 0; pass < 4; ++pass) {
    const Mesh m         = uv_sphere(radius[pass]);
    const auto vertices  = Buffer<Float3>::from_host(Backend::Cpu, m.vertices);
    const auto triangles = Buffer<std::uint32_t>::from_host(Backend::Cpu, m.triangles);
    const auto t         = static_cast<std::uint32_t>(m.triangles.size() / 3);
    pipeline::voxelize_triangles_async(exec, g, vertices.data(), triangles.data(), t, b, keys);
    EXPECT_EQ(b.fits(b.sizes.data()[0], b.sizes.data()[1]), fits_first[pass]) << "pass " << pass;
    const std::size_t n =
        pipeline::voxelize_triangles(exec, g, vertices.data(), triangles.data(), t, b, keys);
    std::vector<Key> got(keys.data(), keys.data() + n);
    std::sort(got.begin(), got.end());
    got.erase(std::unique(got.begin(), got.end()), got.end());
    EXPECT_EQ(got, voxelize(g, m)) << "pass " << pass;
    ASSERT_GE(b.key_room, n);
    for (std::size_t i = n; i < b.key_room; ++i)
      ASSERT_EQ(keys.data()[i], kEmptyKey) << "pass " << pass << ", word " << i;
    EXPECT_LE(b.key_room, n + n / 8 + 256) << "pass " << pass << ": the room shrinks to the keys";
  }
}

// The tile's set-up-once test (core::tile_voxels) marks the voxels the per-voxel test
// (triangle_box_overlap at the same half-size) accepts: the same voxels but for rounding at the
// boundary, and never one outside the slack's band. Triangles near the origin and ~1000 voxels
// from it, small and long.
TEST(TriangleVoxelizer, TileTestMatchesThePerVoxelTest) {
  GridParams p;
  p.resolution = {2048, 2048, 2048};
  p.bounds     = {{0, 0, 0}, {2048, 2048, 2048}};  // world units are voxel units
  const Grid g(p);
  std::mt19937_64 rng(7);
  const float s      = 0.5f + core::kOverlapSlack;
  std::size_t voxels = 0, marked = 0, differ = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const float base = trial % 2 ? 1000.f : 3.f;
    const float size = trial % 3 == 0 ? 20.f : 3.f;
    std::uniform_real_distribution<float> u(base, base + size);
    const core::Vec3f a{u(rng), u(rng), u(rng)}, b{u(rng), u(rng), u(rng)},
        c{u(rng), u(rng), u(rng)};
    const core::CellRange r = core::triangle_cells(g, a, b, c);
    for (std::uint32_t tile = 0; tile < core::triangle_tile_count(r); ++tile) {
      const core::TileVoxels v = core::tile_voxels(r, tile, a, b, c);
      for (int bit = 0; bit < 64; ++bit) {
        const Int3 cell = core::tile_voxel(v.first, bit);
        if (cell.x > r.hi.x || cell.y > r.hi.y || cell.z > r.hi.z) {
          ASSERT_EQ((v.mask >> bit) & 1, 0u) << "a voxel past the triangle's cells";
          continue;
        }
        const core::Vec3f centre{cell.x + 0.5f, cell.y + 0.5f, cell.z + 0.5f};
        const bool tile_says  = (v.mask >> bit) & 1;
        const bool voxel_says = core::triangle_box_overlap(centre, {s, s, s}, a, b, c);
        ++voxels;
        marked += tile_says;
        if (tile_says == voxel_says) continue;
        ++differ;
        // A difference is rounding at the boundary: within the slack's band on either side.
        const float h = tile_says ? 0.5f + 2 * core::kOverlapSlack : 0.5f;
        EXPECT_EQ(core::triangle_box_overlap(centre, {h, h, h}, a, b, c), tile_says)
            << "trial " << trial << " cell " << cell.x << " " << cell.y << " " << cell.z;
      }
    }
  }
  EXPECT_GT(marked, 1000u);
  EXPECT_LE(differ * 10000, voxels) << differ << " of " << voxels << " voxels differ";
}

TEST(TriangleVoxelizer, SegmentOfFindsTheOwningTriangle) {
  const std::uint32_t offsets[] = {0, 3, 3, 3, 7, 8};  // triangles 1, 2 have no tiles
  EXPECT_EQ(core::segment_of(offsets, 5, 0), 0u);
  EXPECT_EQ(core::segment_of(offsets, 5, 2), 0u);
  EXPECT_EQ(core::segment_of(offsets, 5, 3), 3u);
  EXPECT_EQ(core::segment_of(offsets, 5, 6), 3u);
  EXPECT_EQ(core::segment_of(offsets, 5, 7), 4u);
}

TEST(InsideTest, DdaIsSixConnectedAndMeetsTheCentres) {
  const Int3 o{10, 20, 30};
  for (int i = 0; i < core::kRayDirectionCount; ++i) {
    const Int3 d = core::ray_direction(i);
    EXPECT_TRUE(d.x != 0 && d.y != 0 && d.z != 0);
    EXPECT_EQ(std::abs(d.x) + std::abs(d.y) + std::abs(d.z), 6);
    Int3 c = o;
    for (int t = 1; t <= 5; ++t) {
      for (int s = 0; s < 6; ++s) {
        const Int3 n = core::dda_step(o, d, c);
        EXPECT_EQ(std::abs(n.x - c.x) + std::abs(n.y - c.y) + std::abs(n.z - c.z), 1);
        c = n;
      }
      EXPECT_EQ(c.x, o.x + t * d.x);
      EXPECT_EQ(c.y, o.y + t * d.y);
      EXPECT_EQ(c.z, o.z + t * d.z);
    }
  }
  // All 24 directions are distinct.
  std::set<std::tuple<int, int, int>> seen;
  for (int i = 0; i < core::kRayDirectionCount; ++i) {
    const Int3 d = core::ray_direction(i);
    seen.insert({d.x, d.y, d.z});
  }
  EXPECT_EQ(seen.size(), 24u);
}

/// A table of voxels for the walk tests: a set behind the view interface.
struct SetView {
  const std::unordered_set<Key>* keys;
  bool contains(Key k) const { return keys->count(k) != 0; }
};

struct AllBlocks {
  std::vector<std::uint32_t> words;
  core::BlockMask mask;
  explicit AllBlocks(const Grid& g) {
    mask.blocks = {(g.resolution.x + 3) / 4, (g.resolution.y + 3) / 4, (g.resolution.z + 3) / 4};
    words.assign(
        (static_cast<std::size_t>(mask.blocks.x) * mask.blocks.y * mask.blocks.z + 31) / 32, ~0u);
    mask.words = words.data();
  }
};

TEST(InsideTest, SegmentedWalkCountsCrossingsOfASphereShell) {
  const Grid g                   = cubic_grid(64, 1.0f);
  const std::vector<Key> surface = voxelize(g, uv_sphere(0.7));
  const std::unordered_set<Key> set(surface.begin(), surface.end());
  const SetView view{&set};
  const AllBlocks blocks(g);
  const std::uint32_t segments = core::segments_per_ray(g);
  auto crossings               = [&](Int3 o, int dir, bool& grazing) {
    std::uint32_t n = 0;
    grazing         = false;
    for (std::uint32_t s = 0; s < segments; ++s) {
      const core::RayWalk w =
          core::walk_ray_segment(view, blocks.mask, g, o, core::ray_direction(dir), s, false);
      n += w.crossings;
      grazing |= w.grazing;
    }
    return n;
  };
  for (int dir = 0; dir < core::kRayDirectionCount; ++dir) {
    bool grazing = false;
    EXPECT_EQ(crossings({32, 32, 32}, dir, grazing), 1u) << dir;  // the centre
    EXPECT_FALSE(grazing);
    const std::uint32_t n = crossings({2, 3, 4}, dir, grazing);  // a corner: 0 or 2
    EXPECT_TRUE(grazing || n % 2 == 0) << dir;
  }
}

TEST(InsideTest, SegmentedWalkMatchesOneSerialWalk) {
  const Grid g = cubic_grid(40, 1.0f);
  std::mt19937_64 rng(7);
  std::unordered_set<Key> set;
  for (int i = 0; i < 6000; ++i)  // random clutter: clusters of every length and gap
    set.insert(g.key({static_cast<int>(rng() % 40),
                      static_cast<int>(rng() % 40),
                      static_cast<int>(rng() % 40)}));
  const SetView view{&set};
  const AllBlocks blocks(g);
  for (int trial = 0; trial < 200; ++trial) {
    const Int3 o{
        static_cast<int>(rng() % 40), static_cast<int>(rng() % 40), static_cast<int>(rng() % 40)};
    const Int3 d = core::ray_direction(trial % core::kRayDirectionCount);
    // Serial reference: clusters of occupied steps (gaps <= kRunGap) after the origin.
    std::vector<int> occupied_steps;
    Int3 c = o;
    for (int i = 1;; ++i) {
      c = core::dda_step(o, d, c);
      if (!g.in_grid(c)) break;
      if (set.count(g.key(c))) occupied_steps.push_back(i);
    }
    const bool origin_occupied = set.count(g.key(o)) != 0;
    std::uint32_t clusters     = 0;
    bool grazing               = false;
    // The origin's own cluster (first = 0) is neither counted nor measured.
    int previous = origin_occupied ? 0 : -100, first = 0;
    for (const int s : occupied_steps) {
      if (s - previous - 1 > static_cast<int>(core::kRunGap)) {
        ++clusters;
        first = s;
      }
      if (first > 0 && s - first + 1 > static_cast<int>(core::kMaxRunSteps)) grazing = true;
      previous = s;
    }
    // Whatever the segments' span (few subjects walk shorter ones), the same count.
    for (const std::int32_t span : {core::kSegmentSpan, core::kFewSubjectsSegmentSpan, 3}) {
      std::uint32_t segmented = 0;
      bool segmented_grazing  = false;
      for (std::uint32_t k = 0; k < core::segments_per_ray(g, span); ++k) {
        const core::RayWalk w = core::walk_ray_segment(view, blocks.mask, g, o, d, k, false, span);
        segmented += w.crossings;
        segmented_grazing |= w.grazing;
      }
      EXPECT_EQ(segmented_grazing, grazing) << trial << " span " << span;
      if (!grazing) {
        EXPECT_EQ(segmented, clusters) << trial << " span " << span;
      }
    }
  }
}

// The walk probes the table only where the other model's mask is set: with the model's own mask
// (clear away from its voxels) every segment, dilated or not, counts what it counts with every bit
// set (the mask never hides a surface cell).
TEST(InsideTest, SegmentedWalkWithTheModelsMaskMatchesEveryBitSet) {
  const Grid g = cubic_grid(40, 1.0f);
  std::mt19937_64 rng(11);
  std::unordered_set<Key> set;
  for (int i = 0; i < 1500; ++i)  // clutter in a box: the mask is clear around it
    set.insert(g.key({10 + static_cast<int>(rng() % 14),
                      12 + static_cast<int>(rng() % 12),
                      8 + static_cast<int>(rng() % 16)}));
  const SetView view{&set};
  const AllBlocks all(g);
  AllBlocks own(g);
  std::fill(own.words.begin(), own.words.end(), 0u);
  for (const Key k : set)
    own.mask.mark_around(g.cell(k));
  for (int trial = 0; trial < 300; ++trial) {
    const Int3 o{
        static_cast<int>(rng() % 40), static_cast<int>(rng() % 40), static_cast<int>(rng() % 40)};
    const Int3 d = core::ray_direction(trial % core::kRayDirectionCount);
    for (std::uint32_t k = 0; k < core::segments_per_ray(g); ++k) {
      for (const bool dilate : {false, true}) {
        const core::RayWalk a = core::walk_ray_segment(view, own.mask, g, o, d, k, dilate);
        const core::RayWalk b = core::walk_ray_segment(view, all.mask, g, o, d, k, dilate);
        EXPECT_EQ(a.crossings, b.crossings) << trial << " segment " << k;
        EXPECT_EQ(a.grazing, b.grazing) << trial << " segment " << k;
      }
    }
  }
}

// The frame's queued test (sized by a room past its subjects' count, which it reads where it runs;
// round 0 queued, the number of subjects wanting more rays read later, their rounds after) labels
// and flags every subject as the test that waits after each round. In random clutter the rays of
// many subjects disagree, so the later rounds run.
TEST(InsideTest, QueuedTestMatchesTheOneThatWaits) {
  const Grid g = cubic_grid(40, 1.0f);
  std::mt19937_64 rng(13);
  std::unordered_set<Key> set;
  for (int i = 0; i < 4000; ++i)
    set.insert(g.key({static_cast<int>(rng() % 40),
                      static_cast<int>(rng() % 40),
                      static_cast<int>(rng() % 40)}));
  const SetView view{&set};
  const AllBlocks blocks(g);
  CpuExec exec;
  constexpr int S           = core::kSamplesPerRegion;
  const std::uint32_t count = 200;
  std::vector<Key> samples(std::size_t{count} * S, kEmptyKey);
  for (std::uint32_t r = 0; r < count; ++r) {
    const std::uint32_t filled = 1 + r % S;  // regions with 1..8 samples
    for (std::uint32_t k = 0; k < filled; ++k) {
      samples[r * S + k] = g.key({static_cast<int>(rng() % 40),
                                  static_cast<int>(rng() % 40),
                                  static_cast<int>(rng() % 40)});
    }
  }
  pipeline::InsideBuffers waiting(Backend::Cpu), queued(Backend::Cpu);
  for (pipeline::InsideBuffers* b : {&waiting, &queued}) {
    b->sample_key.resize(samples.size());
    std::copy(samples.begin(), samples.end(), b->sample_key.data());
  }
  const pipeline::OtherSurface<SetView, decltype(blocks.mask)> surface{view, blocks.mask, g, false};
  pipeline::robust_inside_test(exec, surface, count, S, waiting);
  // The queued test's buffers and launches sized by a room past the count, read where it runs.
  const pipeline::Counted all{count + 56, &count};
  std::uint32_t more = 0;
  pipeline::start_inside_test(exec, surface, all, S, queued, &more);
  EXPECT_GT(more, 0u) << "no subject wanted more rays: the later rounds did not run";
  pipeline::finish_inside_test(exec, surface, all, S, more, queued);
  for (std::uint32_t r = 0; r < count; ++r) {
    EXPECT_EQ(queued.label.data()[r], waiting.label.data()[r]) << r;
    EXPECT_EQ(queued.flags.data()[r], waiting.flags.data()[r]) << r;
  }
}

TEST(InsideTest, RegionVotes) {
  std::uint32_t cross[core::kRaysPerRound] = {}, graze[core::kRaysPerRound] = {};
  std::uint32_t in[8] = {}, out[8] = {};
  VoxelLabel label = VoxelLabel::Outside;
  // All rays odd: inside, confident.
  for (auto& c : cross)
    c = 1;
  EXPECT_EQ(core::tally_region(cross, graze, false, 8, 8, in, out, &label), 0);
  EXPECT_EQ(label, VoxelLabel::Inside);
  // A tie after the first round casts more rays; in the last round it is low confidence.
  std::fill(in, in + 8, 0u);
  std::fill(out, out + 8, 0u);
  for (int j = 0; j < core::kRaysPerRound; ++j)
    cross[j] = j % 2;
  EXPECT_EQ(core::tally_region(cross, graze, false, 8, 8, in, out, &label), core::kRegionMoreRays);
  EXPECT_NE(
      core::tally_region(cross, graze, true, 8, 8, in, out, &label) & core::kRegionLowConfidence,
      0);
  // Half the samples sure of inside, half of outside: a thin feature.
  std::fill(in, in + 8, 0u);
  std::fill(out, out + 8, 0u);
  for (int j = 0; j < core::kRaysPerRound; ++j)
    cross[j] = core::plan_ray(0, j, 8, 8).slot < 4;
  const std::uint8_t f = core::tally_region(cross, graze, true, 8, 8, in, out, &label);
  EXPECT_NE(f & core::kRegionThinFeature, 0);
  EXPECT_NE(f & core::kRegionLowConfidence, 0);
  // Grazing rays do not vote; too few valid votes are not confident.
  std::fill(in, in + 8, 0u);
  std::fill(out, out + 8, 0u);
  for (int j = 0; j < core::kRaysPerRound; ++j) {
    cross[j] = 1;
    graze[j] = j >= 4;
  }
  EXPECT_NE(
      core::tally_region(cross, graze, true, 8, 8, in, out, &label) & core::kRegionLowConfidence,
      0);
  EXPECT_EQ(label, VoxelLabel::Inside);
}

// The tally counts each ray for the sample slot plan_ray gives it, in every round, for any number
// of slots and of filled ones.
TEST(InsideTest, TallyCountsEachRayForItsPlannedSlot) {
  std::mt19937_64 rng(3);
  for (const int samples : {1, 5, 8}) {
    for (int filled = 0; filled <= samples; ++filled) {
      for (int round = 0; round < core::kInsideRounds; ++round) {
        std::uint32_t cross[core::kRaysPerRound], graze[core::kRaysPerRound];
        for (int j = 0; j < core::kRaysPerRound; ++j) {
          cross[j] = static_cast<std::uint32_t>(rng() % 4);
          graze[j] = rng() % 5 == 0;
        }
        std::uint32_t in[8] = {}, out[8] = {}, want_in[8] = {}, want_out[8] = {};
        for (int j = 0; j < core::kRaysPerRound && filled > 0; ++j) {
          if (graze[j]) continue;
          const int slot = core::plan_ray(round, j, samples, filled).slot;
          ++(cross[j] & 1u ? want_in : want_out)[slot];
        }
        VoxelLabel label;
        core::tally_region(cross, graze, false, samples, filled, in, out, &label);
        for (int s = 0; s < 8; ++s) {
          EXPECT_EQ(in[s], want_in[s]) << samples << " " << filled << " " << round << " " << s;
          EXPECT_EQ(out[s], want_out[s]) << samples << " " << filled << " " << round << " " << s;
        }
      }
    }
  }
}

TEST(InsideTest, RaysOfOneSampleTakeDistinctDirections) {
  for (int slot = 0; slot < core::kSamplesPerRegion; ++slot) {
    std::set<int> dirs;
    for (int round = 0; round < core::kInsideRounds; ++round)
      for (int j = 0; j < core::kRaysPerRound; ++j) {
        const core::RayPlan p = core::plan_ray(round, j, core::kSamplesPerRegion, 8);
        if (p.slot == slot) dirs.insert(p.direction);
      }
    EXPECT_EQ(dirs.size(), static_cast<std::size_t>(core::kInsideRounds * 3)) << slot;
  }
}

TEST(InsideTest, NoRaySegmentStartsInTheGridPastTheBound) {
  for (const Int3 res : {Int3{40, 40, 40}, Int3{37, 90, 12}, Int3{256, 256, 256}}) {
    GridParams p;
    p.resolution = res;
    p.bounds     = {{0, 0, 0}, {1, 1, 1}};
    const Grid g(p);
    for (const std::int32_t span : {core::kSegmentSpan, core::kFewSubjectsSegmentSpan}) {
      const std::int32_t t = static_cast<std::int32_t>(core::segments_per_ray(g, span)) * span;
      for (int dir = 0; dir < core::kRayDirectionCount; ++dir) {
        const Int3 d = core::ray_direction(dir);
        for (int corner = 0; corner < 8; ++corner) {
          const Int3 o = {
              corner & 1 ? res.x - 1 : 0, corner & 2 ? res.y - 1 : 0, corner & 4 ? res.z - 1 : 0};
          EXPECT_FALSE(g.in_grid({o.x + t * d.x, o.y + t * d.y, o.z + t * d.z}))
              << dir << " span " << span;
        }
      }
    }
  }
}

/// The bottom-k sketch filled by many threads at once keeps exactly the k smallest, in order.
TEST(InsideTest, BottomKSketchKeepsTheSmallestInOrder) {
  CpuExec exec;
  std::mt19937_64 rng(9);
  for (const std::size_t n : {3u, 8u, 100u, 200000u}) {
    std::vector<std::uint64_t> entries(n);
    for (auto& e : entries)
      e = rng() >> 1;
    const std::uint32_t groups = 5;
    std::vector<std::uint64_t> slots(groups * core::kSamplesPerRegion, core::kNoSample);
    std::uint64_t* s        = slots.data();
    const std::uint64_t* in = entries.data();
    exec.for_each(n, [=](std::uint32_t i) {
      core::insert_bottom_k(
          &s[(i % groups) * core::kSamplesPerRegion], core::kSamplesPerRegion, in[i]);
    });
    for (std::uint32_t grp = 0; grp < groups; ++grp) {
      std::vector<std::uint64_t> expected;
      for (std::size_t i = grp; i < n; i += groups)
        expected.push_back(entries[i]);
      std::sort(expected.begin(), expected.end());
      expected.resize(core::kSamplesPerRegion, core::kNoSample);
      EXPECT_EQ(std::vector<std::uint64_t>(s + grp * core::kSamplesPerRegion,
                                           s + (grp + 1) * core::kSamplesPerRegion),
                expected)
          << n << " entries, group " << grp;
    }
  }
}

/// The winding number of mesh m at p, summed in chunks as the frame does.
double winding_at(const Mesh& m, D3 p) {
  const double q[3] = {p.x, p.y, p.z};
  const auto n      = static_cast<std::uint32_t>(m.triangles.size() / 3);
  std::vector<double> chunks;
  for (std::uint32_t first = 0; first < n; first += core::kWindingChunk) {
    chunks.push_back(core::winding_part(
        m.vertices.data(), m.triangles.data(), first, std::min(core::kWindingChunk, n - first), q));
  }
  return core::winding_number(chunks.data(), static_cast<std::uint32_t>(chunks.size()));
}

TEST(Winding, ClosedMeshWindsOnceAroundItsInsideAndNotAroundTheOutside) {
  const Mesh sphere = uv_sphere(0.4, 24, 48);
  EXPECT_NEAR(winding_at(sphere, {0, 0, 0}), 1.0, 1e-9);
  EXPECT_NEAR(winding_at(sphere, {0.1, -0.2, 0.25}), 1.0, 1e-9);
  EXPECT_NEAR(winding_at(sphere, {0.5, 0, 0}), 0.0, 1e-9);
  EXPECT_NEAR(winding_at(sphere, {3, -2, 7}), 0.0, 1e-9);
  // Faces turned inwards wind -1: still inside by its magnitude.
  Mesh inward = sphere;
  for (std::size_t t = 0; t < inward.triangles.size(); t += 3)
    std::swap(inward.triangles[t + 1], inward.triangles[t + 2]);
  EXPECT_NEAR(winding_at(inward, {0, 0, 0}), -1.0, 1e-9);
  const double w[1] = {-1.0};
  VoxelLabel label  = VoxelLabel::Outside;
  EXPECT_EQ(core::tally_winding(w, 1, &label), 0);
  EXPECT_EQ(label, VoxelLabel::Inside);
}

TEST(Winding, AHoleLowersTheWindingNumberSmoothlyAndTheTallySaysWhereItIsInDoubt) {
  // The sphere's top cap (polar angle under 45 degrees) removed: a bowl.
  Mesh bowl = uv_sphere(0.4, 24, 48);
  bowl.triangles.resize(bowl.triangles.size() - 3 * (48 + 5 * 96));
  const double deep = winding_at(bowl, {0, 0, -0.25});  // the opening is a small solid angle away
  EXPECT_GT(deep, 0.85);
  EXPECT_LT(deep, 1.0);
  const double mouth = winding_at(bowl, {0, 0, 0.283});  // in the opening's plane
  EXPECT_GT(mouth, 0.3);
  EXPECT_LT(mouth, 0.7);
  EXPECT_NEAR(winding_at(bowl, {0, 0, 2}), 0.0, 0.05);  // far above it
  const double samples[3] = {deep, deep, mouth};
  VoxelLabel label        = VoxelLabel::Outside;
  EXPECT_EQ(core::tally_winding(samples, 3, &label), core::kRegionLowConfidence);
  EXPECT_EQ(label, VoxelLabel::Inside);
  EXPECT_EQ(core::tally_winding(samples, 2, &label), 0) << "two deep samples: sure";
  EXPECT_EQ(core::tally_winding(samples, 0, &label), core::kRegionLowConfidence);
  EXPECT_EQ(label, VoxelLabel::Outside) << "no sample";
}

TEST(PointCoverage, ChaoEstimateTracksPoissonSampling) {
  std::mt19937_64 rng(5);
  for (const double lambda : {0.5, 1.0, 2.0, 6.0}) {
    const int voxels = 200000;
    std::poisson_distribution<int> poisson(lambda);
    double points = 0, occupied = 0, f1 = 0, f2 = 0;
    for (int v = 0; v < voxels; ++v) {
      const int k = poisson(rng);
      points += k;
      occupied += k > 0;
      f1 += k == 1;
      f2 += k == 2;
    }
    const core::Coverage c = core::estimate_coverage(points, occupied, f1, f2);
    EXPECT_NEAR(c.fraction, occupied / voxels, 0.03) << lambda;
    EXPECT_NEAR(c.recommended_points / (core::kRecommendedPointsPerVoxel * voxels), 1.0, 0.05);
  }
}

TEST(ExactGeometry, ParityAgreesWithWindingNumberAndDistanceIsExact) {
  const Mesh sphere = placed(uv_sphere(0.5), {1, {0, 1, 0}, 0.3, {0.1, 0, 0}});
  const ExactMesh s(sphere);
  const ExactMesh t(torus_mesh(0.7, 0.3));
  const ExactMesh c(cup(0.6, 0.8, 0.1));
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-1.1, 1.1);
  for (int i = 0; i < 400; ++i) {
    const D3 p{u(rng), u(rng), u(rng)};
    for (const ExactMesh* m : {&s, &t, &c})
      EXPECT_EQ(m->inside(p), m->winding_number(p) > 0.5);
  }
  EXPECT_EQ(s.disagreed + t.disagreed + c.disagreed, 0u);
  // Distances against the analytic shapes (within the tessellation's error).
  EXPECT_NEAR(t.distance({0.7, 0, 0}), 0.3, 0.01);
  EXPECT_NEAR(t.distance({0, 0, 0}), 0.4, 0.01);
  EXPECT_NEAR(s.distance({0.1, 0, 0}), 0.5, 0.01);
  EXPECT_TRUE(c.inside({0, 0, 0.05}));    // the floor
  EXPECT_FALSE(c.inside({0, 0, 0.5}));    // the cavity
  EXPECT_TRUE(c.inside({0.55, 0, 0.5}));  // the wall
  // A ray through a vertex is re-cast: the pole of the sphere lies on the z axis.
  EXPECT_TRUE(ExactMesh(uv_sphere(1.0)).inside({0, 0, 0}));
  EXPECT_FALSE(ExactMesh(uv_sphere(1.0)).inside({0, 0, 1.5}));
}

}  // namespace
}  // namespace voxhash::test
