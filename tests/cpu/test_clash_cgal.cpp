// Part-pair overlap volumes of non-convex meshes against an exact reference: CGAL's corefinement
// (Polygon_mesh_processing::corefine_and_compute_intersection on exact constructions) of the very
// triangles voxhash reads, and the volume of the result. In tests only (Debian's libcgal-dev).
#include "common/solid_checks.hpp"

#include <CGAL/Exact_predicates_exact_constructions_kernel.h>
#include <CGAL/Polygon_mesh_processing/corefinement.h>
#include <CGAL/Polygon_mesh_processing/measure.h>
#include <CGAL/Surface_mesh.h>
#include <gtest/gtest.h>

namespace voxhash::test {
namespace {

using Kernel  = CGAL::Exact_predicates_exact_constructions_kernel;
using Surface = CGAL::Surface_mesh<Kernel::Point_3>;

Surface to_surface(const Mesh& m) {
  Surface s;
  std::vector<Surface::Vertex_index> v;
  for (const Float3& p : m.vertices)
    v.push_back(s.add_vertex(Kernel::Point_3(p.x, p.y, p.z)));
  for (std::size_t t = 0; t < m.triangles.size(); t += 3)
    s.add_face(v[m.triangles[t]], v[m.triangles[t + 1]], v[m.triangles[t + 2]]);
  return s;
}

/// |a ∩ b| exactly (for the meshes' own triangles).
double exact_overlap(const Mesh& a, const Mesh& b) {
  Surface sa = to_surface(a), sb = to_surface(b), out;
  EXPECT_TRUE(CGAL::Polygon_mesh_processing::corefine_and_compute_intersection(sa, sb, out));
  return CGAL::to_double(CGAL::Polygon_mesh_processing::volume(out));
}

/// The one clash of a and b (both placed by `pose`) on the CPU backend against CGAL's volume.
void expect_cgal_volume(const Mesh& a, const Mesh& b, const Placement& pose, const char* what) {
  SCOPED_TRACE(what);
  const Mesh pa = placed(a, pose), pb = placed(b, pose);
  const double exact     = exact_overlap(pa, pb);
  const ClashScene scene = solid_scene({pa}, {pb}, {});
  const ClashReport r    = run_clash(Backend::Cpu, scene);
  ASSERT_EQ(r.clashes.size(), 1u);
  EXPECT_TRUE(r.open_parts[0].empty() && r.open_parts[1].empty());
  EXPECT_NEAR(r.clashes[0].volume, exact, 0.02 * exact) << "exact " << exact;
}

TEST(ClashCgal, ATorusThroughARotatedBoxOverlapsAsCorefinementSays) {
  expect_cgal_volume(torus_mesh(0.7, 0.25, 48, 96),
                     box({-0.3, -1.0, -0.45}, {0.35, 1.0, 0.4}),
                     {1, {0.3, 1, 0.2}, 0.6, {0.02, -0.01, 0.03}},
                     "torus and box");
}

TEST(ClashCgal, ALumpyBlobAgainstASphereOverlapsAsCorefinementSays) {
  expect_cgal_volume(blob(0.8),
                     placed(uv_sphere(0.6, 48, 96), {1, {0, 0, 1}, 0, {0.55, 0.2, 0.1}}),
                     {1, {1, -1, 0.5}, 1.1, {}},
                     "blob and sphere");
}

TEST(ClashCgal, ACupAroundABarOverlapsAsCorefinementSays) {
  // A non-convex cup and a bar through its wall and floor.
  expect_cgal_volume(cup(0.7, 1.0, 0.2, 96),
                     box({-0.9, -0.15, 0.1}, {0.9, 0.15, 0.5}),
                     {1, {0, 1, 0}, 0.4, {0, 0, -0.5}},
                     "cup and bar");
}

}  // namespace
}  // namespace voxhash::test
