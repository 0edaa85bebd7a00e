// Model I/O: OBJ surface sampling (on the surface, area-weighted, seeded, the same in parallel
// whatever the threads), PLY (ASCII and binary in both byte orders) and text point clouds (XYZ,
// PTS, TXT, CSV), non-finite points, every error naming its file, and the bundled assets being
// closed, outward-oriented meshes of the expected size.
#include "io/io_common.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <map>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <sys/stat.h>
#include <tuple>
#include <utility>
#include <vector>

namespace fs = std::filesystem;
using voxhash::Float3;
using voxhash::InvalidInput;
using voxhash::load_obj_mesh;
using voxhash::load_point_cloud;
using voxhash::Mesh;
using voxhash::sample_surface;

namespace {

constexpr char kCubeObj[] =
    "# unit cube centred at the origin, quads\n"
    "v -0.5 -0.5 -0.5\nv 0.5 -0.5 -0.5\nv 0.5 0.5 -0.5\nv -0.5 0.5 -0.5\n"
    "v -0.5 -0.5 0.5\nv 0.5 -0.5 0.5\nv 0.5 0.5 0.5\nv -0.5 0.5 0.5\n"
    "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";

/// Bytes of a binary PLY body, appended value by value, little-endian unless asked otherwise.
class PlyBody {
 public:
  enum class Order { Little, Big };
  explicit PlyBody(Order order = Order::Little) : m_big(order == Order::Big) {}
  PlyBody& f32(float value) { return put(std::bit_cast<std::uint32_t>(value), 4); }
  PlyBody& f64(double value) { return put(std::bit_cast<std::uint64_t>(value), 8); }
  PlyBody& u8(std::uint8_t value) { return put(value, 1); }
  PlyBody& i16(std::int16_t value) { return put(static_cast<std::uint16_t>(value), 2); }
  PlyBody& i32(std::int32_t value) { return put(static_cast<std::uint32_t>(value), 4); }
  [[nodiscard]] const std::string& str() const { return m_bytes; }

 private:
  PlyBody& put(std::uint64_t bits, int bytes) {
    for (int b = 0; b < bytes; ++b) {
      const int shift = 8 * (m_big ? bytes - 1 - b : b);
      m_bytes.push_back(static_cast<char>((bits >> shift) & 0xFF));
    }
    return *this;
  }
  bool m_big;
  std::string m_bytes;
};

class IoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = fs::temp_directory_path() / (std::string("voxhash_test_io_") + info->name() + "_" +
                                         std::to_string(std::random_device{}()));
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  fs::path write(const std::string& name, const std::string& contents) const {
    const fs::path path = m_dir / name;
    std::ofstream(path, std::ios::binary) << contents;
    return path;
  }

  fs::path m_dir;
};

/// The InvalidInput message load_point_cloud throws for `path`; checks it starts with the path.
std::string load_error(const fs::path& path) {
  try {
    (void)load_point_cloud(path, 100);
  } catch (const InvalidInput& error) {
    const std::string message = error.what();
    EXPECT_TRUE(message.starts_with(path.string() + ": ")) << message;
    return message;
  }
  ADD_FAILURE() << "no InvalidInput for " << path;
  return {};
}

bool same_point(Float3 a, Float3 b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}

}  // namespace

TEST_F(IoTest, ObjFacesAreSampledOnTheSurface) {
  const fs::path path = write("cube.obj", kCubeObj);
  const Mesh mesh     = load_obj_mesh(path);
  EXPECT_EQ(mesh.vertices.size(), 8u);
  EXPECT_EQ(mesh.triangles.size(), 12u * 3);

  const voxhash::PointCloud cloud = load_point_cloud(path, 6000, 7);
  ASSERT_EQ(cloud.points.size(), 6000u);
  EXPECT_EQ(cloud.dropped_non_finite, 0u);
  EXPECT_EQ(cloud.source, path.string());
  std::map<std::pair<int, int>, int> per_face;  // (axis, sign) -> samples
  for (const Float3& p : cloud.points) {
    const float extent = std::max({std::abs(p.x), std::abs(p.y), std::abs(p.z)});
    ASSERT_NEAR(extent, 0.5f, 1e-6f) << p.x << " " << p.y << " " << p.z;
    const float c[3] = {p.x, p.y, p.z};
    for (int axis = 0; axis < 3; ++axis) {
      if (std::abs(std::abs(c[axis]) - 0.5f) < 1e-6f) {
        ++per_face[{axis, c[axis] > 0}];
        break;
      }
    }
  }
  ASSERT_EQ(per_face.size(), 6u);
  for (const auto& [face, samples] : per_face)
    EXPECT_NEAR(samples, 1000, 150);

  const voxhash::PointCloud again = load_point_cloud(path, 6000, 7);
  const voxhash::PointCloud other = load_point_cloud(path, 6000, 8);
  EXPECT_TRUE(std::equal(cloud.points.begin(),
                         cloud.points.end(),
                         again.points.begin(),
                         again.points.end(),
                         same_point));
  EXPECT_FALSE(std::equal(cloud.points.begin(),
                          cloud.points.end(),
                          other.points.begin(),
                          other.points.end(),
                          same_point));
}

TEST_F(IoTest, SamplingIsAreaWeighted) {
  // Triangle 0 (area 0.5) at z = 0, triangle 1 (area 1.5) at z = 1.
  Mesh mesh;
  mesh.vertices  = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {3, 0, 1}, {0, 1, 1}};
  mesh.triangles = {0, 1, 2, 3, 4, 5};
  constexpr std::size_t kSamples    = 40000;
  const std::vector<Float3> samples = sample_surface(mesh, kSamples, 42);
  ASSERT_EQ(samples.size(), kSamples);
  std::size_t on_small = 0;
  for (const Float3& p : samples) {
    ASSERT_TRUE(p.z == 0.0f || p.z == 1.0f);
    const float x_limit = p.z == 0.0f ? 1.0f : 3.0f;
    ASSERT_GE(p.x, 0.0f);
    ASSERT_GE(p.y, 0.0f);
    ASSERT_LE(p.x / x_limit + p.y, 1.0f + 1e-6f);
    on_small += p.z == 0.0f ? 1 : 0;
  }
  // Expected 10000; the binomial standard deviation is about 87.
  EXPECT_NEAR(static_cast<double>(on_small), kSamples * 0.25, 450.0);
}

TEST_F(IoTest, ParallelSamplingIsDeterministicAndSkipsZeroAreaTriangles) {
  // Parts 0..3: triangles of area 0.5, 1, 2 and 4; part 4: a zero-area triangle between them.
  Mesh mesh;
  for (int t = 0; t < 5; ++t) {
    const float z     = static_cast<float>(t);
    const float width = t == 4 ? 0.0f : static_cast<float>(1 << t);
    const auto base   = static_cast<std::uint32_t>(mesh.vertices.size());
    mesh.vertices.insert(mesh.vertices.end(), {{0, 0, z}, {width, 0, z}, {0, 1, z}});
    mesh.triangles.insert(mesh.triangles.end(), {base, base + 1, base + 2});
    mesh.triangle_parts.push_back(static_cast<std::uint32_t>(t));
  }
  std::swap(mesh.triangle_parts[2], mesh.triangle_parts[4]);  // the zero-area one in the middle
  for (int i = 0; i < 3; ++i)
    std::swap(mesh.triangles[3 * 2 + i], mesh.triangles[3 * 4 + i]);

  // More samples than one chunk of the parallel loop, so several threads write them.
  constexpr std::size_t kSamples = 300'000;
  std::vector<std::uint32_t> parts, parts_again, prefix_parts;
  const std::vector<Float3> samples = sample_surface(mesh, kSamples, 9, &parts);
  const std::vector<Float3> again   = sample_surface(mesh, kSamples, 9, &parts_again);
  const std::vector<Float3> prefix  = sample_surface(mesh, 1000, 9, &prefix_parts);
  ASSERT_EQ(samples.size(), kSamples);
  ASSERT_EQ(parts.size(), kSamples);
  EXPECT_TRUE(std::equal(samples.begin(), samples.end(), again.begin(), again.end(), same_point));
  EXPECT_EQ(parts, parts_again);
  EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), samples.begin(), same_point))
      << "the first k of n samples are the k samples";
  EXPECT_TRUE(std::equal(prefix_parts.begin(), prefix_parts.end(), parts.begin()));

  std::array<std::size_t, 5> per_part{};
  for (std::size_t i = 0; i < kSamples; ++i) {
    ASSERT_LT(parts[i], 5u);
    ++per_part[parts[i]];
    ASSERT_EQ(samples[i].z, static_cast<float>(parts[i])) << "the sample lies on its part";
  }
  EXPECT_EQ(per_part[4], 0u) << "a zero-area triangle is never sampled";
  for (int t = 0; t < 4; ++t) {  // area share (1 << t) / 15 of the whole; 5 sigma at most 1370
    EXPECT_NEAR(static_cast<double>(per_part[t]), kSamples * (1 << t) / 15.0, 1400.0) << t;
  }
}

TEST_F(IoTest, PolygonsAreFanTriangulated) {
  const fs::path path = write("pentagon.obj",
                              "v 0 0 0\nv 1 0 0\nv 1.5 1 0\nv 0.5 1.6 0\nv -0.5 1 0\n"
                              "f 1 2 3 4 5\n");
  const Mesh mesh     = load_obj_mesh(path);
  EXPECT_EQ(mesh.triangles, (std::vector<std::uint32_t>{0, 1, 2, 0, 2, 3, 0, 3, 4}));
}

TEST_F(IoTest, VertexOnlyObjIsAPointCloud) {
  const fs::path path = write("points.obj", "# no faces\nv 1 2 3\nv -4 5.5 6\nv 0.25 0 -1\n");
  EXPECT_TRUE(load_obj_mesh(path).triangles.empty());
  const voxhash::PointCloud cloud = load_point_cloud(path, 1000);
  ASSERT_EQ(cloud.points.size(), 3u);
  EXPECT_TRUE(same_point(cloud.points[0], {1, 2, 3}));
  EXPECT_TRUE(same_point(cloud.points[1], {-4, 5.5f, 6}));
  EXPECT_TRUE(same_point(cloud.points[2], {0.25f, 0, -1}));
}

TEST_F(IoTest, ZeroAreaMeshIsAnError) {
  const fs::path path = write("flat.obj", "v 0 0 0\nv 1 1 1\nv 2 2 2\nf 1 2 3\nf 1 1 2\n");
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "zero surface area", load_error(path));
  Mesh mesh = load_obj_mesh(path);
  EXPECT_THROW((void)sample_surface(mesh, 10, 1), InvalidInput);
  mesh.triangles.clear();
  EXPECT_THROW((void)sample_surface(mesh, 10, 1), InvalidInput);
}

TEST_F(IoTest, ObjFaceIndexOutOfRangeIsAnError) {
  const std::string triangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  // The number in the message is the one in the file, however large (it used to wrap to 32 bits).
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"f 1 2 7\n", "line 4: face refers to vertex 7, but the file has 3 vertices"},
      {"f 1 2 4294967297\n", "line 4: face refers to vertex 4294967297, but the file has 3"},
      {"f 1 2 99999999999999999999999\n",
       "line 4: face refers to vertex 99999999999999999999999, but the file has 3 vertices"},
      {"f 1 -4 2\n", "line 4: face refers to vertex -4, but only 3 vertices precede it"},
      {"f 1 -99999999999999999999999 2\n",
       "line 4: face refers to vertex -99999999999999999999999, but only 3 vertices precede it"},
      {"f 1 0 2\n", "line 4: face refers to vertex 0 (indices start at 1)"},
      {"f 1/1 x/2 3\n", "line 4: face corner 'x/2' does not start with a vertex index"},
      {"f 1 2\n", "line 4: a face needs at least 3 corners, found 2"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const fs::path path = write("bad" + std::to_string(i) + ".obj", triangle + cases[i].first);
    EXPECT_PRED_FORMAT2(testing::IsSubstring, cases[i].second, load_error(path)) << "case " << i;
  }
  // A face may use vertices defined after it; relative indices count back from the face.
  const Mesh forward = load_obj_mesh(write("forward.obj", "f 1 2 3\n" + triangle + "f -1 -2 -3\n"));
  EXPECT_EQ(forward.triangles, (std::vector<std::uint32_t>{0, 1, 2, 2, 1, 0}));
}

TEST_F(IoTest, ObjNonFiniteVerticesAreDroppedAndCounted) {
  // tinyobjloader read "nan" and "inf" as 0: these points used to come back as (0, 0, 0).
  const voxhash::PointCloud points = load_point_cloud(
      write("points.obj", "v nan 0 0\nv 1 2 3\nv 0 -inf 0\nv 1e39 0 0\nv 4 5 6 # comment\n"), 0);
  ASSERT_EQ(points.points.size(), 2u);
  EXPECT_EQ(points.dropped_non_finite, 3u);
  EXPECT_TRUE(same_point(points.points[0], {1, 2, 3}));
  EXPECT_TRUE(same_point(points.points[1], {4, 5, 6}));

  // A triangle with a non-finite corner is dropped, never sampled; the rest of the cube is.
  const fs::path path =
      write("cube.obj", std::string(kCubeObj) + "v inf 0 0\nf 1 2 9\nf 9 3 4 5\n");
  const Mesh mesh = load_obj_mesh(path);
  EXPECT_EQ(mesh.vertices.size(), 9u);
  EXPECT_EQ(mesh.non_finite_vertices, 1u);
  EXPECT_EQ(mesh.dropped_triangles, 3u);
  EXPECT_EQ(mesh.triangles.size(), 12u * 3);
  const voxhash::PointCloud cloud = load_point_cloud(path, 2000);
  ASSERT_EQ(cloud.points.size(), 2000u);
  EXPECT_EQ(cloud.dropped_non_finite, 1u);
  EXPECT_EQ(cloud.dropped_triangles, 3u);
  for (const Float3& p : cloud.points) {
    ASSERT_NEAR(std::max({std::abs(p.x), std::abs(p.y), std::abs(p.z)}), 0.5f, 1e-6f);
  }

  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "every one of its 2 triangles uses a vertex with a NaN / Inf coordinate (1 such vertices)",
      load_error(write("all.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv nan 0 0\nf 1 2 4\nf 4 3 2\n")));
}

TEST_F(IoTest, MalformedObjVertexNamesTheLine) {
  // These used to load as zeros without a word.
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "line 2: a vertex needs 3 coordinates, found 2",
                      load_error(write("short.obj", "v 0 0 0\nv 1 2\n")));
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "line 3: cannot parse '2x' as a number",
                      load_error(write("word.obj", "# two\nv 0 0 0\nv 1 2x 3\n")));
}

TEST_F(IoTest, ObjStatementsTheLoaderIgnoresCannotHurtIt) {
  // tinyobjloader converted this `vw` joint id (inf) to int (undefined behaviour), rejected a
  // negative one, and read `l` indices with atoi (overflow); voxhash reads only `v` and `f`.
  const fs::path path = write("extras.obj",
                              std::string(kCubeObj) +
                                  "vw 0 inf 1\nvw 1 -1 0.5\nl 1 99999999999999999999\n"
                                  "vt 1e999 nan\nvn inf inf inf\np -99999999999\ng part\n"
                                  "usemtl missing\nmtllib /nonexistent.mtl\ns off\n");
  const Mesh mesh     = load_obj_mesh(path);
  EXPECT_EQ(mesh.vertices.size(), 8u);
  EXPECT_EQ(mesh.triangles.size(), 12u * 3);
  EXPECT_EQ(mesh.non_finite_vertices, 0u);
}

TEST_F(IoTest, AsciiPlyWithOtherPropertiesAndElements) {
  const fs::path path             = write("cloud.ply",
                              "ply\r\n"
                                          "format ascii 1.0\r\n"
                                          "comment made by hand\r\n"
                                          "element camera 1\r\n"
                                          "property float fov\r\n"
                                          "property list uchar int ids\r\n"
                                          "element vertex 3\r\n"
                                          "property double nx\r\n"
                                          "property float x\r\n"
                                          "property float y\r\n"
                                          "property list uchar float weights\r\n"
                                          "property float z\r\n"
                                          "property uchar red\r\n"
                                          "element edge 1\r\n"
                                          "property int vertex1\r\n"
                                          "end_header\r\n"
                                          "60 2 7 8\r\n"
                                          "0.5 1 2 0 3 255\r\n"
                                          "\r\n"
                                          "0 -1.5 +2.25 2 0.1 0.2 1e-1 7\r\n"
                                          "1 4 5 1 9 6 12\r\n"
                                          "2\r\n");
  const voxhash::PointCloud cloud = load_point_cloud(path, 0);
  ASSERT_EQ(cloud.points.size(), 3u);
  EXPECT_TRUE(same_point(cloud.points[0], {1, 2, 3}));
  EXPECT_TRUE(same_point(cloud.points[1], {-1.5f, 2.25f, 0.1f}));
  EXPECT_TRUE(same_point(cloud.points[2], {4, 5, 6}));
}

TEST_F(IoTest, BinaryLittleEndianPly) {
  PlyBody body;
  body.i32(99).u8(2).i32(1).i32(2);  // element before the vertices
  body.f32(1.5f).f32(-2.0f).f32(0.0f).u8(10).f32(3.25f).u8(1).u8(2).u8(3);  // vertex 0
  body.f32(1e-3f).f32(7.0f).f32(0.0f).u8(11).f32(-8.0f).u8(4).u8(5).u8(6);  // vertex 1
  body.i32(1);                                                              // edge element, ignored
  const fs::path path             = write("cloud.ply",
                              "ply\nformat binary_little_endian 1.0\n"
                                          "element group 1\nproperty int id\nproperty list uchar int members\n"
                                          "element vertex 2\n"
                                          "property float x\nproperty float y\nproperty float nx\n"
                                          "property uchar flags\nproperty float z\n"
                                          "property uchar red\nproperty uchar green\nproperty uchar blue\n"
                                          "element edge 1\nproperty int vertex1\n"
                                          "end_header\n" +
                                  body.str());
  const voxhash::PointCloud cloud = load_point_cloud(path, 0);
  ASSERT_EQ(cloud.points.size(), 2u);
  EXPECT_TRUE(same_point(cloud.points[0], {1.5f, -2.0f, 3.25f}));
  EXPECT_TRUE(same_point(cloud.points[1], {1e-3f, 7.0f, -8.0f}));
}

TEST_F(IoTest, XyzWithCommentsAndExtraColumns) {
  const fs::path path             = write("cloud.xyz",
                              "# x y z r g b\n"
                                          "\n"
                                          "1 2 3 255 0 0\n"
                                          "  -1.25\t0.5   4e2  # trailing comment\r\n"
                                          "7 8 9 label\n");
  const voxhash::PointCloud cloud = load_point_cloud(path, 0);
  ASSERT_EQ(cloud.points.size(), 3u);
  EXPECT_TRUE(same_point(cloud.points[0], {1, 2, 3}));
  EXPECT_TRUE(same_point(cloud.points[1], {-1.25f, 0.5f, 400}));
  EXPECT_TRUE(same_point(cloud.points[2], {7, 8, 9}));
}

TEST_F(IoTest, NonFinitePointsAreDroppedAndCounted) {
  const fs::path xyz = write("cloud.xyz", "nan 0 0\n1 2 3\n0 -inf 0\n1e400 0 0\n4 5 6\n");
  const voxhash::PointCloud from_xyz = load_point_cloud(xyz, 0);
  ASSERT_EQ(from_xyz.points.size(), 2u);
  EXPECT_EQ(from_xyz.dropped_non_finite, 3u);
  EXPECT_TRUE(same_point(from_xyz.points[1], {4, 5, 6}));

  PlyBody body;
  body.f32(1).f32(2).f32(3).f32(std::nanf("")).f32(0).f32(0).f32(0).f32(INFINITY).f32(0);
  const fs::path ply                 = write("cloud.ply",
                             "ply\nformat binary_little_endian 1.0\nelement vertex 3\n"
                                             "property float x\nproperty float y\nproperty float z\nend_header\n" +
                                 body.str());
  const voxhash::PointCloud from_ply = load_point_cloud(ply, 0);
  ASSERT_EQ(from_ply.points.size(), 1u);
  EXPECT_EQ(from_ply.dropped_non_finite, 2u);

  const fs::path only_nan = write("nan.xyz", "nan nan nan\ninf 0 0\n");
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring, "no points (2 non-finite points dropped)", load_error(only_nan));
}

TEST_F(IoTest, PartNamesWithControlCharactersAreShownSafely) {
  // An `o` name holding a terminal escape and a bell: shown with '?' for each, so a
  // report printed to a terminal cannot clear it or forge a line.
  const Mesh mesh =
      load_obj_mesh(write("escape.obj", std::string("o \x1b[2Jwipe\x07x\n") + kCubeObj));
  ASSERT_EQ(mesh.part_names.size(), 1u);
  EXPECT_EQ(mesh.part_names[0], "?[2Jwipe?x");
}

TEST_F(IoTest, ObjObjectsAndGroupsAreParts) {
  // Two cubes a unit apart: `o a` and `o b`; the samples carry their triangle's part.
  const std::string cube_b =
      "v 1.5 -0.5 -0.5\nv 2.5 -0.5 -0.5\nv 2.5 0.5 -0.5\nv 1.5 0.5 -0.5\n"
      "v 1.5 -0.5 0.5\nv 2.5 -0.5 0.5\nv 2.5 0.5 0.5\nv 1.5 0.5 0.5\n"
      "f -8 -5 -6 -7\nf -4 -3 -2 -1\nf -8 -7 -3 -4\nf -7 -6 -2 -3\nf -6 -5 -1 -2\nf -5 -8 -4 -1\n";
  const fs::path path = write("two.obj", std::string("o a\n") + kCubeObj + "o   b  \n" + cube_b);
  const Mesh mesh     = load_obj_mesh(path);
  EXPECT_EQ(mesh.vertices.size(), 16u);
  ASSERT_EQ(mesh.triangles.size(), 24u * 3);
  EXPECT_EQ(mesh.part_names, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(mesh.triangle_parts.size(), 24u);
  for (std::size_t t = 0; t < 24; ++t) {
    EXPECT_EQ(mesh.triangle_parts[t], t < 12 ? 0u : 1u) << t;
    EXPECT_EQ(mesh.triangles[3 * t] >= 8, t >= 12) << t;
  }

  const voxhash::PointCloud cloud = load_point_cloud(path, 4000, 3);
  ASSERT_EQ(cloud.points.size(), 4000u);
  ASSERT_EQ(cloud.point_parts.size(), 4000u);
  EXPECT_EQ(cloud.part_names, mesh.part_names);
  std::size_t in_b = 0;
  for (std::size_t i = 0; i < cloud.points.size(); ++i) {
    ASSERT_EQ(cloud.point_parts[i], cloud.points[i].x > 1.0f ? 1u : 0u) << cloud.points[i].x;
    in_b += cloud.point_parts[i];
  }
  EXPECT_NEAR(static_cast<double>(in_b), 2000.0, 150.0);

  // `g` names too; a name used again is the same part; faces before any name are part "".
  const Mesh groups = load_obj_mesh(
      write("groups.obj",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\ng left side\nf 1 2 3\ng right\nf 1 2 3\n"
            "g left side\nf 1 2 3\no\tlid\nf 1 2 3\n"));
  EXPECT_EQ(groups.part_names, (std::vector<std::string>{"", "left side", "right", "lid"}));
  EXPECT_EQ(groups.triangle_parts, (std::vector<std::uint32_t>{0, 1, 2, 1, 3}));

  // One part: names kept, no per-triangle ids (all part 0), no per-point ids.
  const voxhash::PointCloud single =
      load_point_cloud(write("one.obj", "o box\n" + std::string(kCubeObj)), 100);
  EXPECT_EQ(single.mesh.part_names, (std::vector<std::string>{"box"}));
  EXPECT_TRUE(single.mesh.triangle_parts.empty());
  EXPECT_TRUE(single.point_parts.empty());
  EXPECT_EQ(single.part_names, (std::vector<std::string>{"box"}));
}

TEST_F(IoTest, ObjGuardRejectsWhatTinyobjloaderMisreads) {
  const std::string triangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
  // Each of these reached undefined behaviour (atoi overflow, an int overflow in tinyobjloader's
  // exponent parser) or a silent misreading (a fourth part read as the next corner).
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"f 1/99999999999/1 2 3\n",
       "line 4: face corner '1/99999999999/1': index 99999999999 is out"},
      {"f 1//2147483648 2 3\n", "line 4: face corner '1//2147483648': index 2147483648 is out"},
      {"f 1/1/1/1 2 3\n", "line 4: face corner '1/1/1/1' has more than 3 parts"},
      {"v 1e2147483649 0 0\n", "line 4: the exponent of '1e2147483649' is out of range"},
      {"v 0 0 0 1e-2147483648\n", "line 4: the exponent of '1e-2147483648' is out of range"},
      {"vn 0 1E+99999999999 0\n", "line 4: the exponent of '1E+99999999999' is out of range"},
      {"vt 0.5 5e2147483648\n", "line 4: the exponent of '5e2147483648' is out of range"},
      {"f 1 2\n", "line 4: a face needs at least 3 corners, found 2"},
      {"f\t \n", "line 4: a face needs at least 3 corners, found 0"},
      {"f 1 2 3x\n", "line 4: face corner '3x' does not start with a vertex index"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const fs::path path = write("bad" + std::to_string(i) + ".obj", triangle + cases[i].first);
    EXPECT_PRED_FORMAT2(testing::IsSubstring, cases[i].second, load_error(path)) << "case " << i;
  }
  // Statements as tinyobjloader recognizes them: "\r" alone ends a line, a NUL ends its content,
  // and a keyword must be followed by a space or a tab ("v\v1 2 3" is no vertex).
  const std::string text =
      std::string("v 0 0 0\rv 1 0 0\r\nv 0 1 0") + '\0' + " junk\nv\v1 2 3\n\t f 1 2 3\n";
  const Mesh mesh = load_obj_mesh(write("lines.obj", text));
  EXPECT_EQ(mesh.vertices.size(), 3u);
  EXPECT_EQ(mesh.triangles, (std::vector<std::uint32_t>{0, 1, 2}));
}

namespace {

/// An axis-aligned unit cube centred at `centre`, as 12 outward triangles (corner coordinates).
std::vector<std::array<Float3, 3>> cube_triangles(Float3 centre) {
  const Mesh cube = [] {
    Mesh mesh;
    for (int v = 0; v < 8; ++v) {
      mesh.vertices.push_back(
          {(v & 1) ? 0.5f : -0.5f, (v & 2) ? 0.5f : -0.5f, (v & 4) ? 0.5f : -0.5f});
    }
    // Quads (x-, x+, y-, y+, z-, z+) wound outward, fanned.
    const int quads[6][4] = {
        {0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    for (const auto& q : quads) {
      mesh.triangles.insert(mesh.triangles.end(),
                            {std::uint32_t(q[0]),
                             std::uint32_t(q[1]),
                             std::uint32_t(q[2]),
                             std::uint32_t(q[0]),
                             std::uint32_t(q[2]),
                             std::uint32_t(q[3])});
    }
    return mesh;
  }();
  std::vector<std::array<Float3, 3>> triangles;
  for (std::size_t t = 0; t < cube.triangles.size(); t += 3) {
    std::array<Float3, 3> corners;
    for (int k = 0; k < 3; ++k) {
      const Float3 v = cube.vertices[cube.triangles[t + k]];
      corners[k]     = {v.x + centre.x, v.y + centre.y, v.z + centre.z};
    }
    triangles.push_back(corners);
  }
  return triangles;
}

std::string ascii_stl(const std::string& name, const std::vector<std::array<Float3, 3>>& tris) {
  std::string text = "solid " + name + "\n";
  for (const auto& t : tris) {
    text += "  facet normal 0 0 0\n    outer loop\n";
    for (const Float3& v : t) {
      text += "      vertex " + std::to_string(v.x) + " " + std::to_string(v.y) + " " +
              std::to_string(v.z) + "\n";
    }
    text += "    endloop\n  endfacet\n";
  }
  return text + "endsolid " + name + "\n";
}

std::string binary_stl(const std::vector<std::array<Float3, 3>>& tris, std::uint32_t count) {
  PlyBody bytes;
  const std::string header(80, ' ');
  bytes.i32(static_cast<std::int32_t>(count));
  for (const auto& t : tris) {
    bytes.f32(0).f32(0).f32(0);
    for (const Float3& v : t)
      bytes.f32(v.x).f32(v.y).f32(v.z);
    bytes.u8(0).u8(0);
  }
  return header + bytes.str();
}

std::string base64(const std::string& bytes) {
  constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t chunk = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      chunk = chunk << 8 | (i + k < bytes.size() ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    }
    for (std::size_t k = 0; k < 4; ++k) {
      out += i + k <= bytes.size() + (k == 0 ? 1 : 0) && k <= bytes.size() - i
                 ? kDigits[(chunk >> (18 - 6 * k)) & 63]
                 : '=';
    }
  }
  return out;
}

/// A glTF 2.0 document with one unit cube mesh (8 positions, 36 uint16 indices) and two named
/// nodes placing it at x = -2 and x = +2; `buffer` is the buffer object's JSON.
std::string cube_gltf_json(const std::string& buffer) {
  return R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 1]}],
  "nodes": [{"name": "left", "mesh": 0, "translation": [-2, 0, 0]},
            {"name": "right", "mesh": 0, "translation": [2, 0, 0]}],
  "meshes": [{"name": "cube", "primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
  "buffers": [)" +
         buffer + R"(],
  "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 96},
                  {"buffer": 0, "byteOffset": 96, "byteLength": 72}],
  "accessors": [{"bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3",
                 "min": [-0.5, -0.5, -0.5], "max": [0.5, 0.5, 0.5]},
                {"bufferView": 1, "componentType": 5123, "count": 36, "type": "SCALAR"}]})";
}

/// The cube's buffer: 8 float positions, then 36 uint16 indices (168 bytes).
std::string cube_gltf_buffer() {
  PlyBody bytes;
  for (int v = 0; v < 8; ++v) {
    bytes.f32((v & 1) ? 0.5f : -0.5f).f32((v & 2) ? 0.5f : -0.5f).f32((v & 4) ? 0.5f : -0.5f);
  }
  const int quads[6][4] = {
      {0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  std::string indices;
  for (const auto& q : quads) {
    for (const int i : {q[0], q[1], q[2], q[0], q[2], q[3]}) {
      indices += static_cast<char>(i);
      indices += '\0';
    }
  }
  return bytes.str() + indices;
}

std::string glb(const std::string& json, const std::string& bin) {
  std::string padded_json = json;
  while (padded_json.size() % 4 != 0)
    padded_json += ' ';
  std::string padded_bin = bin;
  while (padded_bin.size() % 4 != 0)
    padded_bin += '\0';
  PlyBody header;
  header.i32(0x46546C67)
      .i32(2)
      .i32(static_cast<std::int32_t>(12 + 8 + padded_json.size() + 8 + padded_bin.size()));
  header.i32(static_cast<std::int32_t>(padded_json.size())).i32(0x4E4F534A);
  PlyBody bin_header;
  bin_header.i32(static_cast<std::int32_t>(padded_bin.size())).i32(0x004E4942);
  return header.str() + padded_json + bin_header.str() + padded_bin;
}

/// Distinct voxels the points fall in, on a 64^3 grid over [-4, 4]^3 (voxels of 1/8).
std::size_t voxel_count(const std::vector<Float3>& points) {
  voxhash::GridParams grid;
  grid.resolution = {64, 64, 64};
  grid.bounds     = {{-4, -4, -4}, {4, 4, 4}};
  std::vector<voxhash::Key> keys;
  for (const Float3& p : points)
    keys.push_back(voxhash::voxel_key(grid, p));
  std::sort(keys.begin(), keys.end());
  return static_cast<std::size_t>(std::unique(keys.begin(), keys.end()) - keys.begin());
}

/// Every point lies on the surface of the unit cube centred at (cx, 0, 0).
bool on_cube(Float3 p, float cx) {
  const float extent = std::max({std::abs(p.x - cx), std::abs(p.y), std::abs(p.z)});
  return std::abs(extent - 0.5f) < 1e-5f;
}

}  // namespace

TEST_F(IoTest, PlyMeshIsSampledOnItsFaces) {
  // A cube PLY used to come back as its 8 corners (8 voxels); its faces are sampled now. The header
  // carries the comments and obj_info lines exporters write.
  const std::string header =
      "ply\nformat ascii 1.0\ncomment Created by Blender 3.6.0 - www.blender.org\n"
      "comment\nobj_info generated for voxhash tests\nelement vertex 8\n"
      "property float x\nproperty float y\nproperty float z\nproperty uchar red\n"
      "element face 6\ncomment faces follow\nproperty list uchar uint vertex_indices\nend_header\n";
  std::string body;
  for (int v = 0; v < 8; ++v) {
    body += std::string((v & 1) ? "0.5" : "-0.5") + " " + ((v & 2) ? "0.5" : "-0.5") + " " +
            ((v & 4) ? "0.5" : "-0.5") + " 200\n";
  }
  body += "4 0 4 6 2\n4 1 3 7 5\n4 0 1 5 4\n4 2 6 7 3\n4 0 2 3 1\n4 4 5 7 6\n";
  const voxhash::PointCloud cloud = load_point_cloud(write("cube.ply", header + body), 5000);
  ASSERT_EQ(cloud.points.size(), 5000u);
  EXPECT_EQ(cloud.mesh.vertices.size(), 8u);
  EXPECT_EQ(cloud.mesh.triangles.size(), 12u * 3);
  for (const Float3& p : cloud.points)
    ASSERT_TRUE(on_cube(p, 0)) << p.x << " " << p.y << " " << p.z;
  EXPECT_GT(voxel_count(cloud.points), 200u);  // the 8 corners were 8 voxels

  // The same in binary, with a comment; and a vertex-only PLY stays a point cloud.
  PlyBody binary;
  for (int v = 0; v < 8; ++v)
    binary.f32((v & 1) ? 0.5f : -0.5f).f32((v & 2) ? 0.5f : -0.5f).f32((v & 4) ? 0.5f : -0.5f);
  for (const auto& q : {std::array<int, 4>{0, 4, 6, 2},
                        {1, 3, 7, 5},
                        {0, 1, 5, 4},
                        {2, 6, 7, 3},
                        {0, 2, 3, 1},
                        {4, 5, 7, 6}}) {
    binary.u8(4);
    for (const int i : q)
      binary.i32(i);
  }
  const voxhash::PointCloud from_binary = load_point_cloud(
      write("binary.ply",
            "ply\nformat binary_little_endian 1.0\ncomment made by voxhash's tests\n"
            "element vertex 8\nproperty float x\nproperty float y\nproperty float z\n"
            "element face 6\nproperty list uchar int vertex_indices\nend_header\n" +
                binary.str()),
      1000);
  EXPECT_EQ(from_binary.mesh.triangles.size(), 12u * 3);
  EXPECT_EQ(from_binary.points.size(), 1000u);

  const voxhash::PointCloud points = load_point_cloud(
      write("points.ply",
            "ply\nformat ascii 1.0\ncomment scanned\nelement vertex 2\nproperty float x\n"
            "property float y\nproperty float z\nelement face 0\n"
            "property list uchar int vertex_indices\nend_header\n1 2 3\n4 5 6\n"),
      1000);
  ASSERT_EQ(points.points.size(), 2u);
  EXPECT_TRUE(points.mesh.triangles.empty());

  // A face count beyond the file is an error up front, before assimp reserves for it (found by
  // fuzz_mesh: 64294967295 faces in a 400-byte file made it ask for 66 GB).
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "the header promises 64294967295 'face' elements of at least 2 bytes each",
      load_error(write("many_faces.ply",
                       "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                       "property float y\nproperty float z\nelement face 64294967295\n"
                       "property list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n"
                       "0 1 0\n3 0 1 2\n")));

  // A face that refers past the vertices.
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "bad_face.ply: 'face' element 1 refers to vertex 7, but the file has 3 vertices",
      load_error(write("bad_face.ply",
                       "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                       "property float y\nproperty float z\nelement face 1\n"
                       "property list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n"
                       "0 1 0\n3 0 1 7\n")));
}

TEST_F(IoTest, PlyMeshWithItsFacesBeforeItsVerticesIsAMesh) {
  // Legal PLY, rare in the wild: faces (and another element) before the vertices, or an element
  // between the vertices and the faces. The first came back as its 4 corners (the faces silently
  // ignored), the second as assimp's "index out of range"; assimp now gets vertices, then faces.
  const auto check = [&](const std::string& name, const std::string& file) {
    const voxhash::PointCloud cloud = load_point_cloud(write(name, file), 2000);
    EXPECT_EQ(cloud.mesh.vertices.size(), 4u) << name;
    EXPECT_EQ(cloud.mesh.triangles.size(), 4u * 3) << name;
    EXPECT_EQ(cloud.points.size(), 2000u) << name;
  };
  const std::string elements =
      "element note 1\nproperty list uchar int ids\n"
      "element face 4\nproperty list uchar int vertex_indices\n"
      "element vertex 4\nproperty float x\nproperty float y\nproperty float z\n";
  check("between.ply",
        "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
        "property float z\nelement note 1\nproperty list uchar int ids\nelement face 4\n"
        "property list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n2 5 6\n"
        "3 0 1 2\n3 0 1 3\n3 0 2 3\n3 1 2 3\n");
  check("first.ply",
        "ply\nformat ascii 1.0\n" + elements +
            "end_header\n2 5 6\n3 0 1 2\n3 0 1 3\n3 0 2 3\n3 1 2 3\n0 0 0\n1 0 0\n0 1 0\n0 0 1");
  for (const PlyBody::Order order : {PlyBody::Order::Little, PlyBody::Order::Big}) {
    PlyBody body(order);
    body.u8(2).i32(5).i32(6);
    for (const auto& f : {std::array<int, 3>{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}}) {
      body.u8(3).i32(f[0]).i32(f[1]).i32(f[2]);
    }
    for (int v = 0; v < 4; ++v)
      body.f32(v == 1 ? 1.0f : 0.0f).f32(v == 2 ? 1.0f : 0.0f).f32(v == 3 ? 1.0f : 0.0f);
    const bool big = order == PlyBody::Order::Big;
    check(big ? "first_big.ply" : "first_little.ply",
          std::string("ply\nformat ") + (big ? "binary_big_endian" : "binary_little_endian") +
              " 1.0\n" + elements + "end_header\n" + body.str());
  }
  // Data that ends inside an element before the vertices: one line naming the element.
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "truncated data: the file ends inside 'face' element 2 of 4",
      load_error(write("cut.ply",
                       "ply\nformat binary_little_endian 1.0\nelement face 4\n"
                       "property list uchar int vertex_indices\nelement vertex 1\n"
                       "property float x\nproperty float y\nproperty float z\nend_header\n" +
                           PlyBody().u8(3).i32(0).i32(0).i32(0).u8(200).str() +
                           std::string(20, '\0'))));
}

TEST_F(IoTest, MeshFormatsThroughAssimp) {
  const auto cube = cube_triangles({0, 0, 0});

  // ASCII STL: 36 corners welded to 8 vertices; the solid's name is the part.
  const voxhash::PointCloud ascii =
      load_point_cloud(write("cube.stl", ascii_stl("box", cube)), 2000);
  EXPECT_EQ(ascii.mesh.vertices.size(), 8u);
  EXPECT_EQ(ascii.mesh.triangles.size(), 12u * 3);
  EXPECT_EQ(ascii.part_names, (std::vector<std::string>{"box"}));
  ASSERT_EQ(ascii.points.size(), 2000u);
  for (const Float3& p : ascii.points)
    ASSERT_TRUE(on_cube(p, 0));

  // Binary STL (any extension case).
  const voxhash::PointCloud binary = load_point_cloud(write("CUBE.STL", binary_stl(cube, 12)), 500);
  EXPECT_EQ(binary.mesh.vertices.size(), 8u);
  EXPECT_EQ(binary.mesh.triangles.size(), 12u * 3);
  EXPECT_EQ(binary.points.size(), 500u);

  // A NaN corner: the vertex and its triangle are dropped and counted, as for OBJ.
  auto with_nan  = cube;
  with_nan[0][1] = {std::nanf(""), 0, 0};
  const voxhash::PointCloud dropped =
      load_point_cloud(write("nan.stl", binary_stl(with_nan, 12)), 100);
  EXPECT_EQ(dropped.mesh.non_finite_vertices, 1u);
  EXPECT_EQ(dropped.dropped_triangles, 1u);
  EXPECT_EQ(dropped.mesh.triangles.size(), 11u * 3);

  // glTF (JSON with the buffer as a base64 data URI) and GLB: two named nodes are two parts, each
  // cube placed by its node's translation.
  const std::string buffer = cube_gltf_buffer();
  const std::string gltf =
      cube_gltf_json(R"({"byteLength": 168, "uri": "data:application/octet-stream;base64,)" +
                     base64(buffer) + R"("})");
  for (const fs::path& path :
       {write("two.gltf", gltf),
        write("two.glb", glb(cube_gltf_json(R"({"byteLength": 168})"), buffer))}) {
    SCOPED_TRACE(path.filename().string());
    const voxhash::PointCloud cloud = load_point_cloud(path, 3000);
    EXPECT_EQ(cloud.mesh.vertices.size(), 16u);
    EXPECT_EQ(cloud.mesh.triangles.size(), 24u * 3);
    EXPECT_EQ(cloud.part_names, (std::vector<std::string>{"left", "right"}));
    ASSERT_EQ(cloud.point_parts.size(), 3000u);
    for (std::size_t i = 0; i < cloud.points.size(); ++i) {
      const float cx = cloud.point_parts[i] == 0 ? -2.0f : 2.0f;
      ASSERT_TRUE(on_cube(cloud.points[i], cx)) << cloud.points[i].x;
    }
  }

  // A glTF whose buffer is a file beside it.
  write("cube.bin", buffer);
  const voxhash::PointCloud external = load_point_cloud(
      write("external.gltf", cube_gltf_json(R"({"byteLength": 168, "uri": "cube.bin"})")), 10);
  EXPECT_EQ(external.mesh.triangles.size(), 24u * 3);

  // Another format assimp reads, dispatched by its extension: OFF.
  const voxhash::PointCloud off = load_point_cloud(
      write("tetra.off",
            "OFF\n4 4 6\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n"),
      100);
  EXPECT_EQ(off.mesh.triangles.size(), 4u * 3);
  EXPECT_EQ(off.points.size(), 100u);
}

TEST_F(IoTest, MalformedMeshFilesNameTheFile) {
  const auto cube          = cube_triangles({0, 0, 0});
  const std::string buffer = cube_gltf_buffer();
  const std::string json   = cube_gltf_json(R"({"byteLength": 168})");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"empty.stl", ""},
      {"words.stl", "solid x\n"},
      {"cut.stl", ascii_stl("cut", cube).substr(0, 300)},
      {"short.stl", binary_stl(cube, 12).substr(0, 84 + 50 * 5)},
      {"count.stl", binary_stl(cube, 1000)},
      {"syntax.gltf", "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{]}"},
      {"nobuffer.gltf", cube_gltf_json(R"({"byteLength": 168, "uri": "missing.bin"})")},
      {"cut.glb", glb(json, buffer).substr(0, 100)},
      {"text.glb", "glTF but not really"},
  };
  for (const auto& [name, contents] : cases) {
    SCOPED_TRACE(name);
    const std::string message = load_error(write(name, contents));
    EXPECT_GT(message.size(), (m_dir / name).string().size() + 10) << message;
  }
  // A broken binary PLY named .gltf: assimp used to sniff it, and its PLY reader crashed (found by
  // fuzz_mesh); only the glTF readers may read a .gltf now.
  const std::string sniffed(
      "ply\nformat binary_little_endian 1.0\ncomment po\x01\x00\x00\x00\x00\x00\x00\x00"
      "rtr \x00\x00\x00\x00\x00\x00\x00\xacproperty float z\nelement face 6\n"
      "property list uchar int ver\xbf\x00\x00\x00?\x00\x00\x00?\x00\x00\x01\x00\x00"
      "\x00\x05\x00\x00\x00\x04\x00\x00\x00\x04\x02\x00\x00ggggggggggggg\x00\x00\x06"
      "\x00\x00\x00",
      171);
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "not a valid glTF: its JSON is broken (parse error at line 1, column 1",
                      load_error(write("sniffed.gltf", sniffed)));
  // Broken JSON, a truncated GLB and a GLB whose first chunk is not JSON: each says what it is
  // (all were assimp's "No suitable reader found").
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "not a valid glTF: its JSON is broken (parse error at line 1, column 42",
      load_error(write("syntax2.gltf", "{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{]}")));
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "its GLB header gives a length of 920 bytes, but the file holds 16",
                      load_error(write("cut2.glb", glb(json, buffer).substr(0, 16))));
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "not a GLB: it does not start with a 20-byte header and 'glTF'",
                      load_error(write("text2.glb", "a GLB in name only, not in its bytes")));
  std::string not_json = glb(json, buffer);
  not_json[16]         = 'X';
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "not a valid GLB: its first chunk is not JSON",
                      load_error(write("notjson.glb", not_json)));
  // A buffer that is a FIFO or a device is never opened: an error, not a reader blocked for ever.
  ASSERT_EQ(::mkfifo((m_dir / "pipe.bin").c_str(), 0600), 0);
  for (const std::string uri : {"pipe.bin", "/dev/zero", "."}) {
    SCOPED_TRACE(uri);
    (void)load_error(
        write("special.gltf", cube_gltf_json(R"({"byteLength": 168, "uri": ")" + uri + R"("})")));
  }
}

TEST_F(IoTest, FilesAModelRefersToStayInItsFolder) {
  // A glTF whose buffer is a valid file one folder up, reached by ../, by a deeper ../../..
  // chain, and by a link inside the folder: each refused, naming what it referred to.
  const std::string buffer = cube_gltf_buffer();
  write("outside.bin", buffer);
  fs::create_directories(m_dir / "model");
  fs::create_symlink(m_dir / "outside.bin", m_dir / "model" / "link.bin");
  const std::string chain = "../../../../../../../../.." + m_dir.string() + "/outside.bin";
  for (const std::string& uri : {std::string("../outside.bin"), chain, std::string("link.bin")}) {
    SCOPED_TRACE(uri);
    std::ofstream(m_dir / "model" / "escape.gltf")
        << cube_gltf_json(R"({"byteLength": 168, "uri": ")" + uri + R"("})");
    const std::string message = load_error(m_dir / "model" / "escape.gltf");
    EXPECT_PRED_FORMAT2(testing::IsSubstring, "outside the model's folder", message);
    EXPECT_PRED_FORMAT2(testing::IsSubstring, "escape.gltf", message);
  }
  // The same buffer inside the folder, and through a link to the model file itself, loads.
  write("model/inside.bin", buffer);
  std::ofstream(m_dir / "model" / "inside.gltf")
      << cube_gltf_json(R"({"byteLength": 168, "uri": "inside.bin"})");
  EXPECT_EQ(load_point_cloud(m_dir / "model" / "inside.gltf", 10).mesh.triangles.size(), 24u * 3);
  fs::create_symlink(m_dir / "model" / "inside.gltf", m_dir / "model" / "again.gltf");
  EXPECT_EQ(load_point_cloud(m_dir / "model" / "again.gltf", 10).mesh.triangles.size(), 24u * 3);
  // Asked for (--files-outside-folder, a scene model's "files_outside_folder"), ../ is followed;
  // the message says how to ask.
  std::ofstream(m_dir / "model" / "up.gltf")
      << cube_gltf_json(R"({"byteLength": 168, "uri": "../outside.bin"})");
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "allow others with --files-outside-folder",
                      load_error(m_dir / "model" / "up.gltf"));
  EXPECT_EQ(load_point_cloud(m_dir / "model" / "up.gltf", 10, 1, {.files_outside_folder = true})
                .mesh.triangles.size(),
            24u * 3);
}

TEST_F(IoTest, WriteFileIsWholeOrNothing) {
  // Written, and replacing an older file, with no temporary left beside it.
  const fs::path path = m_dir / "out.txt";
  voxhash::write_file(path, "first");
  voxhash::write_file(path, "second, longer");
  std::ifstream in(path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "second, longer");
  EXPECT_EQ(std::distance(fs::directory_iterator(m_dir), fs::directory_iterator()), 1);
  // A full disk: an error naming the file and the reason, and the old file untouched.
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring, "/dev/full: cannot write it: No space left on device", [&] {
        try {
          voxhash::write_file("/dev/full", std::string(1 << 16, 'x'));
        } catch (const InvalidInput& e) {
          return std::string(e.what());
        }
        return std::string("no error");
      }());
  // A folder that does not exist, and a folder in the file's place.
  EXPECT_THROW(voxhash::write_file(m_dir / "absent" / "x.txt", "x"), InvalidInput);
  fs::create_directory(m_dir / "folder");
  EXPECT_THROW(voxhash::write_file(m_dir / "folder", "x"), InvalidInput);
  EXPECT_EQ(std::distance(fs::directory_iterator(m_dir), fs::directory_iterator()), 2);
}

TEST_F(IoTest, MissingFile) {
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "file not found", load_error(m_dir / "absent.ply"));
  EXPECT_THROW((void)load_obj_mesh(m_dir / "absent.obj"), InvalidInput);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "file not found", load_error(m_dir / "absent.obj"));
  fs::create_directory(m_dir / "folder.ply");
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "not a regular file", load_error(m_dir / "folder.ply"));
  // A folder or a missing file without an extension: what the path names, not the extension.
  fs::create_directory(m_dir / "folder");
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "not a regular file", load_error(m_dir / "folder"));
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "file not found", load_error(m_dir / "absent"));
}

TEST_F(IoTest, SymlinkLoopAndBrokenSymlinkSayWhatTheyAre) {
  // Both used to be reported as "file not found".
  fs::create_symlink(m_dir / "b.ply", m_dir / "a.ply");
  fs::create_symlink(m_dir / "a.ply", m_dir / "b.ply");
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "symbolic link loop", load_error(m_dir / "a.ply"));
  fs::create_symlink(m_dir / "gone.xyz", m_dir / "dangling.xyz");
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "broken symbolic link (to '" + (m_dir / "gone.xyz").string() + "'",
                      load_error(m_dir / "dangling.xyz"));
}

TEST_F(IoTest, EmptyFiles) {
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "no points", load_error(write("empty.xyz", "")));
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "no points", load_error(write("empty.obj", "")));
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "not a PLY file", load_error(write("empty.ply", "")));
}

TEST_F(IoTest, UnknownExtension) {
  // .stl used to be the example; it is read through assimp now (MeshFormatsThroughAssimp).
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "unsupported file extension '.vox1'",
                      load_error(write("model.vox1", "solid x\n")));
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring, "unsupported file extension ''", load_error(write("model", "1 2 3\n")));
}

TEST_F(IoTest, MalformedPlyHeaders) {
  const std::string vertex = "element vertex 1\nproperty float x\nproperty float y\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"format ascii 1.0\n" + vertex + "property float z\n", "no end_header"},
      {vertex + "property float z\nend_header\n0 0 0\n", "no format line"},
      {"format ascii 1.0\n" + vertex + "property half z\nend_header\n",
       "line 6: unknown PLY property type 'half'"},
      {"format ascii 1.0\nproperty float x\nend_header\n", "line 3: property before any element"},
      {"format ascii 1.0\nelement vertex many\nend_header\n", "line 3: element count 'many'"},
      {"format ascii 1.0\n" + vertex + "end_header\n0 0\n", "no 'z' property"},
      {"format ascii 1.0\nelement point 1\nproperty float x\nend_header\n0\n",
       "no 'vertex' element"},
      {"format utf8 1.0\n" + vertex + "property float z\nend_header\n",
       "unknown PLY format 'utf8'"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const fs::path path = write("bad" + std::to_string(i) + ".ply", "ply\n" + cases[i].first);
    EXPECT_PRED_FORMAT2(testing::IsSubstring, cases[i].second, load_error(path)) << "case " << i;
  }
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "not a PLY",
                      load_error(write("magic.ply", "plyx\nformat ascii 1.0\n")));
}

TEST_F(IoTest, MalformedAsciiPlyData) {
  const std::string header =
      "ply\nformat ascii 1.0\nelement vertex 2\n"
      "property float x\nproperty float y\nproperty float z\nend_header\n";
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "truncated data: the file ends after 1 of 2 'vertex' elements",
                      load_error(write("short.ply", header + "1 2 3\n\n\n\n\n\n\n")));
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "line 9: cannot parse 'five' as a number",
                      load_error(write("word.ply", header + "1 2 3\n4 five 6\n")));
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "line 8: expected 3 values for a 'vertex' element, found 4",
                      load_error(write("long.ply", header + "1 2 3 4\n4 5 6\n")));
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "line 8: too few values for a 'vertex' element",
                      load_error(write("few.ply", header + "1 2\n4 5 6\n\n\n")));
}

TEST_F(IoTest, TruncatedBinaryPly) {
  const std::string header =
      "ply\nformat binary_little_endian 1.0\nelement vertex 3\n"
      "property float x\nproperty float y\nproperty float z\n";
  PlyBody body;
  body.f32(1).f32(2).f32(3).f32(4).f32(5);  // one and two-thirds of 3 vertices
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "the header promises 3 'vertex' elements of at least 12 bytes each, but only "
                      "20 bytes of data follow the header",
                      load_error(write("cut.ply", header + "end_header\n" + body.str())));
  // With a list the size is known only while reading: the element that runs past the end is named.
  PlyBody listed;
  listed.f32(1).f32(2).f32(3).u8(0).f32(4).f32(5).f32(6).u8(200).f32(7).f32(8).f32(9).f32(10);
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "truncated data: the file ends inside 'vertex' element 2 of 3",
      load_error(write("list.ply",
                       header + "property list uchar float extra\nend_header\n" + listed.str())));
}

TEST_F(IoTest, PlyFaceListLongerThanTheFileIsAnErrorUpFront) {
  // A binary PLY of about 200 bytes whose one face claims 2^30 indices: assimp reserved 8.4 GB
  // before it said "File corrupted". The list is checked against the bytes left first.
  PlyBody body;
  for (int v = 0; v < 3; ++v)
    body.f32(static_cast<float>(v == 1)).f32(static_cast<float>(v == 2)).f32(0);
  body.i32(1 << 30).i32(0).i32(1).i32(2);
  const std::string xyz = "property float x\nproperty float y\nproperty float z\n";
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "truncated data: the file ends inside 'face' element 1 of 1",
      load_error(write("long_list.ply",
                       "ply\nformat binary_little_endian 1.0\nelement vertex 3\n" + xyz +
                           "element face 1\nproperty list int int vertex_indices\nend_header\n" +
                           body.str())));
  // The same in ASCII: the list's length against the values on its line.
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "'face' element 1: its list of 1073741824 values holds only 3 on its line",
      load_error(write("long_list_ascii.ply",
                       "ply\nformat ascii 1.0\nelement vertex 3\n" + xyz +
                           "element face 1\nproperty list int int vertex_indices\nend_header\n"
                           "0 0 0\n1 0 0\n0 1 0\n1073741824 0 1 2\n")));
}

TEST_F(IoTest, GltfNodesWithoutNamesTakeTheirMeshesNames) {
  // Nodes without a name came out as assimp's placeholders ("nodes[1]") although their meshes
  // are named; a named node keeps its own name.
  std::string json =
      cube_gltf_json(R"({"byteLength": 168, "uri": "data:application/octet-stream;base64,)" +
                     base64(cube_gltf_buffer()) + R"("})");
  const std::string named = R"({"name": "right", "mesh": 0)";
  json.replace(json.find(named), named.size(), R"({"mesh": 0)");
  const voxhash::PointCloud cloud = load_point_cloud(write("unnamed.gltf", json), 100);
  EXPECT_EQ(cloud.part_names, (std::vector<std::string>{"left", "cube"}));
}

TEST_F(IoTest, OffFaceIndexPastTheVerticesIsAnError) {
  // assimp's OFF reader clamped vertex 7 of a 4-vertex file to vertex 3: a wrong mesh, no error.
  const std::string message =
      load_error(write("bad.off",
                       "OFF\n# a tetrahedron\n4 4 6\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n"
                       "3 0 3 7\n3 1 2 3\n"));
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "line 10: face refers to vertex 7, but the file has 4 vertices",
                      message);
  // Found by fuzz_mesh: a 53-byte OFF claiming 4294967295 vertices made assimp ask for 51 GB.
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "bomb.off: line 2: the header promises 4294967295 vertices and 4 faces, but only 34 bytes "
      "follow it (a vertex or a face takes at least 2)",
      load_error(
          write("bomb.off", "OFF\n4294967295 4 6\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 0 1 2\n")));
  // And a count that is not a number as a whole (assimp read its leading digits, wrapped: 64 GB),
  // also in a file without the OFF keyword, whose counts assimp reads across lines (8.4 GB).
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "word.off: line 2: the face count '22222222222222222222222222str' is not a count",
      load_error(write("word.off", "OFF\n4 22222222222222222222222222str 6\n0 0 0\n1 0 0\n")));
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "bare.off: line 3: the face count '04294967295429294967295' is not a count",
      load_error(write("bare.off", "\r\n60\r\n04294967295429294967295\nformaemees\r\n")));
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "bare_counts.off: line 1: the header promises 4000 vertices and 1 faces, but only 12 bytes",
      load_error(write("bare_counts.off", "4000 1 0\n0 0 0\n1 0 0\n")));
}

TEST_F(IoTest, GlbChunkLongerThanTheFileIsAnErrorUpFront) {
  // A GLB whose JSON chunk claims 0xFFFFFFF0 bytes: assimp took 4.2 GB, then "No suitable reader
  // found". Its lengths are checked against the file first.
  std::string file = glb(cube_gltf_json(R"({"byteLength": 168})"), cube_gltf_buffer());
  for (int b = 0; b < 4; ++b)
    file[12 + b] = static_cast<char>(b == 0 ? 0xF0 : 0xFF);
  const std::string message = load_error(write("huge_chunk.glb", file));
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "GLB chunk 0 claims 4294967280 bytes", message);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "huge_chunk.glb", message);
  // A total length beyond the file.
  std::string longer = glb(cube_gltf_json(R"({"byteLength": 168})"), cube_gltf_buffer());
  longer[8]          = static_cast<char>(0xFF);
  longer[9]          = static_cast<char>(0xFF);
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "its GLB header gives a length of",
                      load_error(write("long.glb", longer)));
}

TEST_F(IoTest, PlyCountBeyondTheFileIsAnErrorUpFront) {
  // 149 bytes that used to hang: an element without properties and a count near 2^64 before the
  // vertex element (its items take no bytes, so reading them consumed nothing).
  PlyBody vertex;
  vertex.f32(1).f32(2).f32(3);
  const std::string xyz = "property float x\nproperty float y\nproperty float z\n";
  const fs::path empty_items =
      write("empty.ply",
            "ply\nformat binary_little_endian 1.0\nelement nothing 18446744073709551615\n"
            "element vertex 1\n" +
                xyz + "end_header\n" + vertex.str());
  const voxhash::PointCloud cloud = load_point_cloud(empty_items, 0);
  ASSERT_EQ(cloud.points.size(), 1u);
  EXPECT_TRUE(same_point(cloud.points[0], {1, 2, 3}));

  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "the header promises 18446744073709551615 'vertex' elements of at least 12 bytes each, but "
      "only 12 bytes of data follow the header",
      load_error(
          write("huge.ply",
                "ply\nformat binary_little_endian 1.0\nelement vertex 18446744073709551615\n" +
                    xyz + "end_header\n" + vertex.str())));
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "the header promises 1000000 'vertex' elements of at least 6 bytes each, but only 6 bytes",
      load_error(
          write("ascii.ply",
                "ply\nformat ascii 1.0\nelement vertex 1000000\n" + xyz + "end_header\n1 2 3\n")));
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "'vertex' elements of at least 12 bytes each, but only 16 bytes of data follow the header "
      "(after the elements before it)",
      load_error(write("before.ply",
                       "ply\nformat binary_little_endian 1.0\nelement pad 4\nproperty uchar p\n"
                       "element vertex 2\n" +
                           xyz + "end_header\n" + std::string(4, '\0') + vertex.str())));
}

TEST_F(IoTest, BigEndianPlyReadsLikeLittleEndian) {
  // The same cloud in both byte orders: a list element before the vertices, then vertices of
  // double x, short y (an integer coordinate), float z and a uchar; the two must read the same.
  const std::string header_rest =
      " 1.0\nelement group 1\nproperty list uchar int members\n"
      "element vertex 2\nproperty double x\nproperty short y\nproperty float z\n"
      "property uchar red\nend_header\n";
  std::array<voxhash::PointCloud, 2> clouds;
  for (const PlyBody::Order order : {PlyBody::Order::Little, PlyBody::Order::Big}) {
    PlyBody body(order);
    body.u8(2).i32(7).i32(-9);                      // group: members 7, -9
    body.f64(1.5e3).i16(-300).f32(0.25f).u8(200);   // vertex 0
    body.f64(-2.0 / 3.0).i16(12).f32(-8.5f).u8(1);  // vertex 1
    const bool big = order == PlyBody::Order::Big;
    const fs::path ply =
        write(big ? "big.ply" : "little.ply",
              std::string("ply\nformat ") + (big ? "binary_big_endian" : "binary_little_endian") +
                  header_rest + body.str());
    clouds[big ? 1 : 0] = load_point_cloud(ply, 0);
  }
  for (const voxhash::PointCloud& cloud : clouds) {
    ASSERT_EQ(cloud.points.size(), 2u);
    EXPECT_TRUE(same_point(cloud.points[0], {1.5e3f, -300, 0.25f}));
    EXPECT_TRUE(same_point(cloud.points[1], {static_cast<float>(-2.0 / 3.0), 12, -8.5f}));
  }
}

TEST_F(IoTest, TextCloudsInTheirCommonShapes) {
  const auto points = [&](const std::string& name, const std::string& text) {
    return load_point_cloud(write(name, text), 0).points;
  };
  // CSV with a header row, ", " separators, quoted fields and colour columns.
  const std::vector<Float3> csv =
      points("scan.CSV", "X,Y,Z,R,G,B\r\n1.5, -2, 3e1,10,20,30\r\n\"4\",\"5\",\"6\",,,\r\n");
  ASSERT_EQ(csv.size(), 2u);
  EXPECT_TRUE(same_point(csv[0], {1.5f, -2, 30}));
  EXPECT_TRUE(same_point(csv[1], {4, 5, 6}));
  // A spreadsheet's CSV with semicolons between values and decimal commas (it gave "no points").
  const std::vector<Float3> semicolons =
      points("excel.csv", "X;Y;Z\r\n1,5;-2;3\r\n\"4,25\";5;6;7\r\n");
  ASSERT_EQ(semicolons.size(), 2u);
  EXPECT_TRUE(same_point(semicolons[0], {1.5f, -2, 3}));
  EXPECT_TRUE(same_point(semicolons[1], {4.25f, 5, 6}));
  // CloudCompare's header comment, a column-name line, tabs.
  const std::vector<Float3> txt =
      points("export.txt", "//X Y Z Intensity\nx y z i\n1\t2\t3\t0.5\n4 5 6 0.25\n");
  ASSERT_EQ(txt.size(), 2u);
  EXPECT_TRUE(same_point(txt[1], {4, 5, 6}));
  // Leica PTS: two scans, each behind its count line, x y z intensity r g b.
  const std::vector<Float3> pts =
      points("site.pts", "2\n1 2 3 -1200 10 20 30\n4 5 6 -1100 10 20 30\n1\n7 8 9 0 0 0 0\n");
  ASSERT_EQ(pts.size(), 3u);
  EXPECT_TRUE(same_point(pts[2], {7, 8, 9}));
  // Open3D's .xyzn / .xyzrgb: extra columns.
  EXPECT_EQ(points("cloud.xyzrgb", "1 2 3 0.1 0.2 0.3\n").size(), 1u);
  EXPECT_EQ(points("cloud.xyzn", "1 2 3 0 0 1\n").size(), 1u);
}

TEST_F(IoTest, TextCloudErrorsNameTheLineAndTheCause) {
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "line 1: the count line announces 3 points, but 2 follow it",
                      load_error(write("short.pts", "3\n1 2 3\n4 5 6\n")));
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "line 2: the count line announces 5 points, but 1 follow it",
                      load_error(write("stray.xyz", "1 2 3\n5\n4 5 6\n")));
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "line 1: expected 3 numbers (x y z), found '1,5 2,5 3,5' (commas and spaces "
                      "both separate values here: decimal commas are not read",
                      load_error(write("comma.txt", "1,5 2,5 3,5\n")));
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "line 2: binary data (a NUL byte), not a text point cloud",
                      load_error(write("binary.xyz", std::string("1 2 3\nab\0cd\n", 13))));
  // Up to 8 header lines before the data; a 9th line of words is an error, not "no points".
  std::string words;
  for (int i = 0; i < 9; ++i)
    words += "not a number " + std::to_string(i) + "\n";
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring, "line 9: expected 3 numbers", load_error(write("words.txt", words)));
  EXPECT_EQ(load_point_cloud(
                write("eight.txt", words.substr(words.find("not a number 1")) + "1 2 3\n"), 0)
                .points.size(),
            1u);
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring, "no points", load_error(write("header.csv", "x,y,z\n")));
  // A long bad line is cut in the message.
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "found '" + std::string(60, '7') + "...'",
                      load_error(write("long.xyz", "1 2 3\n" + std::string(500, '7') + "\n")));
}

TEST_F(IoTest, TextCloudsAreReadInPiecesWithTheSamePointsAndLineNumbers) {
  // A header, CRLF endings, comments, empty lines, PTS blocks and no final line break, read whole
  // and in pieces of every small size: the same points; an error names the same line.
  const std::string text = "x y z\r\n# comment\n2\n1 2 3\r\n\n4 5 6\n1\n7,8,9";
  const fs::path path    = write("pieces.pts", text);
  voxhash::PointCloud whole;
  voxhash::io::parse_xyz_points(path, text, whole);
  ASSERT_EQ(whole.points.size(), 3u);
  const std::string bad   = "1 2 3\n4 5 6\n\n7 8\n";
  const fs::path bad_path = write("pieces_bad.xyz", bad);
  for (const std::size_t chunk : {1, 2, 3, 5, 7, 64, 1 << 20}) {
    voxhash::PointCloud pieces;
    voxhash::io::load_xyz_points(path, pieces, chunk);
    ASSERT_EQ(pieces.points.size(), whole.points.size()) << chunk;
    for (std::size_t i = 0; i < whole.points.size(); ++i)
      EXPECT_TRUE(same_point(pieces.points[i], whole.points[i])) << chunk;
    voxhash::PointCloud none;
    try {
      voxhash::io::load_xyz_points(bad_path, none, chunk);
      ADD_FAILURE() << "a bad line read in pieces of " << chunk;
    } catch (const InvalidInput& e) {
      EXPECT_PRED_FORMAT2(testing::IsSubstring, "line 4: expected 3 numbers", e.what()) << chunk;
    }
  }
  // A file with no line break in its first megabyte is refused, not read whole.
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "line 1: longer than 1 MiB: not a text point cloud",
                      load_error(write("one_line.xyz", std::string((1 << 20) + 4096, '7'))));
}

/// What a PLY read gives, or the message it fails with, to compare reads of one file.
struct PlyRead {
  bool is_mesh = false;
  std::vector<Float3> points;  // the cloud's points, or the mesh's vertices
  std::vector<std::uint32_t> triangles;
  std::size_t non_finite = 0, dropped_triangles = 0;
  std::string error;

  bool operator==(const PlyRead& other) const {
    const auto same = [](const std::vector<Float3>& a, const std::vector<Float3>& b) {
      return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](Float3 p, Float3 q) {
        return std::bit_cast<std::array<std::uint32_t, 3>>(p) ==
               std::bit_cast<std::array<std::uint32_t, 3>>(q);
      });
    };
    return is_mesh == other.is_mesh && same(points, other.points) && triangles == other.triangles &&
           non_finite == other.non_finite && dropped_triangles == other.dropped_triangles &&
           error == other.error;
  }
};

PlyRead read_ply_in(const fs::path& path,
                    const std::string& bytes,
                    std::vector<std::size_t> pieces) {
  PlyRead read;
  try {
    const voxhash::io::PlyModel model = voxhash::io::parse_ply(path, bytes, pieces);
    read.is_mesh                      = model.is_mesh;
    read.points                       = model.is_mesh ? model.mesh.vertices : model.cloud.points;
    read.triangles                    = model.mesh.triangles;
    read.non_finite =
        model.is_mesh ? model.mesh.non_finite_vertices : model.cloud.dropped_non_finite;
    read.dropped_triangles = model.mesh.dropped_triangles;
  } catch (const InvalidInput& e) {
    read.error = e.what();
  }
  return read;
}

TEST_F(IoTest, PlyReadInPiecesOfAnySizeGivesTheSameModel) {
  // PLY is read a piece at a time, never whole. Files of every shape — ASCII with CRLF and blank
  // lines, binary in both byte orders with the faces before the vertices, a strip, a NaN vertex,
  // faults at the end — cut into pieces of many sizes, regular and not: the same model or error.
  std::vector<std::pair<std::string, std::string>> files;
  files.emplace_back("ascii.ply",
                     "ply\r\nformat ascii 1.0\r\ncomment c\r\nelement vertex 5\r\n"
                     "property float x\r\nproperty float y\r\nproperty float z\r\n"
                     "element face 2\r\nproperty list uchar int vertex_indices\r\n"
                     "end_header\r\n0 0 0\r\n1 0 0\r\n\r\n1 1 0\r\n0 1 0\r\nnan 0 1\r\n"
                     "4 0 1 2 3\r\n3 0 1 4");
  for (const PlyBody::Order order : {PlyBody::Order::Little, PlyBody::Order::Big}) {
    PlyBody body(order);
    body.u8(5).i32(0).i32(1).i32(2).i32(3).i32(4);  // a pentagon first: 3 triangles
    for (int v = 0; v < 5; ++v)
      body.f32(static_cast<float>(v)).f32(static_cast<float>(v * v)).f32(0.5f).u8(7);
    const bool big = order == PlyBody::Order::Big;
    files.emplace_back(big ? "big.ply" : "little.ply",
                       std::string("ply\nformat ") +
                           (big ? "binary_big_endian" : "binary_little_endian") +
                           " 1.0\nelement face 1\nproperty list uchar int vertex_indices\n"
                           "element vertex 5\nproperty float x\nproperty float y\n"
                           "property float z\nproperty uchar red\nend_header\n" +
                           body.str());
  }
  PlyBody strip;
  for (int v = 0; v < 6; ++v)
    strip.f32(static_cast<float>(v / 2)).f32(static_cast<float>(v % 2)).f32(0);
  strip.i32(8).i32(0).i32(1).i32(2).i32(3).i32(-1).i32(2).i32(3).i32(4);
  files.emplace_back("strip.ply",
                     "ply\nformat binary_little_endian 1.0\nelement vertex 6\n"
                     "property float x\nproperty float y\nproperty float z\n"
                     "element tristrips 1\nproperty list int int vertex_indices\nend_header\n" +
                         strip.str());
  files.emplace_back("cloud.ply",
                     "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                     "property float y\nproperty float z\nend_header\n1 2 3\n4 5 6\n7 8 9\n");
  files.emplace_back("bad_line.ply",
                     "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                     "property float y\nproperty float z\nend_header\n1 2 3\n4 5 6\n7 8 9 10\n");
  files.emplace_back("cut.ply",
                     "ply\nformat binary_little_endian 1.0\nelement vertex 1\n"
                     "property float x\nproperty float y\nproperty float z\nelement face 1\n"
                     "property list uchar int vertex_indices\nend_header\n" +
                         PlyBody().f32(0).f32(0).f32(0).u8(3).i32(0).i32(0).str());

  const std::vector<std::vector<std::size_t>> cuts = {
      {}, {1}, {2}, {3}, {5}, {7}, {3, 1, 4, 1, 5, 9, 2, 6}, {64}, {1, 1000}, {1 << 20}};
  std::map<std::string, PlyRead> whole;
  for (const auto& [name, bytes] : files) {
    const fs::path path = write(name, bytes);
    whole[name]         = read_ply_in(path, bytes, {});
    for (const std::vector<std::size_t>& pieces : cuts) {
      EXPECT_EQ(read_ply_in(path, bytes, pieces), whole[name]) << name << ", " << pieces.size();
    }
    for (const std::size_t piece : {1, 2, 7, 4096}) {
      PlyRead file;
      try {
        const voxhash::io::PlyModel model = voxhash::io::load_ply(path, piece);
        file.is_mesh                      = model.is_mesh;
        file.points    = model.is_mesh ? model.mesh.vertices : model.cloud.points;
        file.triangles = model.mesh.triangles;
        file.non_finite =
            model.is_mesh ? model.mesh.non_finite_vertices : model.cloud.dropped_non_finite;
        file.dropped_triangles = model.mesh.dropped_triangles;
      } catch (const InvalidInput& e) {
        file.error = e.what();
      }
      EXPECT_EQ(file, whole[name]) << name << " from the file in pieces of " << piece;
    }
  }
  // And what was read is right. The quad is fanned, the triangle on the NaN vertex dropped:
  const PlyRead& ascii = whole["ascii.ply"];
  EXPECT_TRUE(ascii.error.empty()) << ascii.error;
  EXPECT_EQ(ascii.triangles, (std::vector<std::uint32_t>{0, 1, 2, 0, 2, 3}));
  EXPECT_EQ(ascii.non_finite, 1u);
  EXPECT_EQ(ascii.dropped_triangles, 1u);
  // The pentagon, read before its vertices, in both byte orders:
  for (const char* name : {"little.ply", "big.ply"}) {
    const PlyRead& read = whole[name];
    EXPECT_TRUE(read.error.empty()) << read.error;
    EXPECT_EQ(read.triangles, (std::vector<std::uint32_t>{0, 1, 2, 0, 2, 3, 0, 3, 4})) << name;
    ASSERT_EQ(read.points.size(), 5u);
    EXPECT_TRUE(same_point(read.points[4], {4, 16, 0.5f}));
  }
  // The strip 0 1 2 3, then (after -1) 2 3 4: every other triangle turned to keep the winding.
  EXPECT_EQ(whole["strip.ply"].triangles, (std::vector<std::uint32_t>{0, 1, 2, 2, 1, 3, 2, 3, 4}));
  EXPECT_FALSE(whole["cloud.ply"].is_mesh);
  EXPECT_EQ(whole["cloud.ply"].points.size(), 3u);
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "line 10: expected 3 values for a 'vertex' element, found 4",
                      whole["bad_line.ply"].error);
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "truncated data: the file ends inside 'face' element 1 of 1",
                      whole["cut.ply"].error);
  // A line of more than 1 MiB is refused, not held.
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "line 8: longer than 1 MiB",
                      load_error(write("long_line.ply",
                                       "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
                                       "property float y\nproperty float z\nend_header\n" +
                                           std::string((1 << 20) + 10, '1'))));
}

TEST_F(IoTest, PlyHeaderLinesOfExportersAreSkippedAsAssimpSkipsThem) {
  // Blender's exporters write "comment Created by Blender ..."; files passed through other tools
  // carry the line without "comment" (issue 37: "a Blender PLY header with `Created` is rejected
  // though assimp reads it"). assimp skips a header line it does not know; so does voxhash. The
  // cube as Blender writes it, 4 vertices per face (with their normals), welded to 8 corners.
  std::string body;
  const std::array<std::array<int, 3>, 6> normals{
      {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}}};
  for (const auto& n : normals) {
    const int axis = n[0] != 0 ? 0 : n[1] != 0 ? 1 : 2;
    const int u = (axis + 1) % 3, w = (axis + 2) % 3;
    for (const auto& [a, b] : {std::pair{0, 0}, {1, 0}, {1, 1}, {0, 1}}) {
      std::array<float, 3> p{};
      p[axis] = 0.5f * static_cast<float>(n[axis]);
      p[u]    = a ? 0.5f : -0.5f;
      p[w]    = b ? 0.5f : -0.5f;
      body += std::to_string(p[0]) + " " + std::to_string(p[1]) + " " + std::to_string(p[2]) + " " +
              std::to_string(n[0]) + " " + std::to_string(n[1]) + " " + std::to_string(n[2]) + "\n";
    }
  }
  for (int f = 0; f < 6; ++f) {
    body += "4 " + std::to_string(4 * f) + " " + std::to_string(4 * f + 1) + " " +
            std::to_string(4 * f + 2) + " " + std::to_string(4 * f + 3) + "\n";
  }
  const std::string elements =
      "element vertex 24\nproperty float x\nproperty float y\nproperty float z\n"
      "property float nx\nproperty float ny\nproperty float nz\nelement face 6\n"
      "property list uchar uint vertex_indices\nend_header\n";
  for (const std::string& created :
       {std::string("comment Created by Blender 2.79 (sub 0) - www.blender.org, source file: "
                    "'cube.blend'\n"),
        std::string("Created by Blender 2.79 (sub 0) - www.blender.org, source file: "
                    "'cube.blend'\n"),
        std::string("comment Created in Blender version 4.0.2\nobj_info exported\n")}) {
    const voxhash::PointCloud cloud = load_point_cloud(
        write("blender.ply", "ply\nformat ascii 1.0\n" + created + elements + body), 3000);
    EXPECT_EQ(cloud.mesh.vertices.size(), 8u) << created;
    EXPECT_EQ(cloud.mesh.triangles.size(), 12u * 3) << created;
    EXPECT_EQ(cloud.mesh.part_names, (std::vector<std::string>{""}));
    ASSERT_EQ(cloud.points.size(), 3000u);
    for (const Float3& p : cloud.points)
      ASSERT_TRUE(on_cube(p, 0)) << p.x << " " << p.y << " " << p.z;
  }
}

/// A LAS 1.minor file of point format `format` holding `points` (x, y, z integers and a class);
/// `count`: the header's point count when it is not theirs.
std::string las_file(int minor,
                     int format,
                     const std::vector<std::array<std::int32_t, 4>>& points,
                     double scale                       = 0.01,
                     std::array<double, 3> offset       = {0, 0, 0},
                     std::optional<std::uint64_t> count = std::nullopt,
                     std::uint16_t record               = 0) {
  constexpr std::array<std::uint16_t, 11> kRecord{20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67};
  record                     = record ? record : kRecord[format & 0x3F];
  const std::uint16_t header = minor >= 4 ? 375 : minor == 3 ? 235 : 227;
  const std::uint64_t n      = count.value_or(points.size());
  std::string out(header, '\0');
  const auto put = [&](std::size_t at, auto value) {
    std::memcpy(out.data() + at, &value, sizeof value);
  };
  out.replace(0, 4, "LASF");
  out[24] = 1;
  out[25] = static_cast<char>(minor);
  put(94, header);
  put(96, std::uint32_t{header});
  out[104] = static_cast<char>(format);
  put(105, record);
  put(107, static_cast<std::uint32_t>(minor >= 4 ? 0 : n));
  for (int a = 0; a < 3; ++a) {
    put(131 + 8 * a, scale);
    put(155 + 8 * a, offset[a]);
  }
  if (minor >= 4) put(247, n);
  for (const auto& [x, y, z, c] : points) {
    std::string r(record, '\0');
    std::memcpy(r.data(), &x, 4);
    std::memcpy(r.data() + 4, &y, 4);
    std::memcpy(r.data() + 8, &z, 4);
    r[(format & 0x3F) >= 6 ? 16 : 15] = static_cast<char>(c);
    out += r;
  }
  return out;
}

TEST_F(IoTest, LasFilesGiveTheirScaledPointsWithTheirClassesAsParts) {
  const std::vector<std::array<std::int32_t, 4>> points{
      {100, 200, 300, 2}, {-5, 7, 9, 6}, {0, 0, 1, 2}};
  // LAS 1.2, format 1 (GPS time): scale 0.01, an offset; ground and building parts.
  const voxhash::PointCloud v12 =
      load_point_cloud(write("site.las", las_file(2, 1, points, 0.01, {10, 20, 30})), 0);
  ASSERT_EQ(v12.points.size(), 3u);
  EXPECT_TRUE(same_point(v12.points[0], {11, 22, 33}));
  EXPECT_TRUE(same_point(v12.points[1], {9.95f, 20.07f, 30.09f}));
  EXPECT_EQ(v12.part_names, (std::vector<std::string>{"Ground", "Building"}));
  EXPECT_EQ(v12.point_parts, (std::vector<std::uint32_t>{0, 1, 0}));
  // LAS 1.4, format 6: the 64-bit count (the legacy one 0), the class a byte of its own; and a
  // record longer than its format's (extra bytes), upper-case extension.
  const voxhash::PointCloud v14 =
      load_point_cloud(write("scan.LAS", las_file(4, 6, points, 0.001, {}, {}, 40)), 0);
  ASSERT_EQ(v14.points.size(), 3u);
  EXPECT_TRUE(same_point(v14.points[2], {0, 0, 0.001f}));
  EXPECT_EQ(v14.point_parts, v12.point_parts);
  // One class: a cloud without parts.
  EXPECT_TRUE(
      load_point_cloud(write("one.las", las_file(3, 3, {{1, 2, 3, 2}})), 0).point_parts.empty());
  // What is refused, each naming the file and what is wrong.
  for (const auto& [name, bytes, expected] :
       {std::tuple<std::string, std::string, std::string>{
            "laz.las", las_file(2, 0x83, points), "compressed LAS (LAZ) is not supported"},
        {"short.las",
         las_file(2, 1, points, 0.01, {}, 1000),
         "the header gives 1000 points of 28 bytes from byte 227, but the file holds 311 bytes"},
        {"huge.las",
         las_file(4, 6, points, 0.01, {}, std::uint64_t{1} << 40),
         "but the file holds"},
        {"record.las",
         las_file(2, 1, points, 0.01, {}, {}, 20),
         "point data record length 20 is shorter than format 1's 28 bytes"},
        {"scale.las", las_file(2, 1, points, 0.0), "scale factor and offset"},
        {"format.las", las_file(2, 11, points, 0.01, {}, {}, 80), "point data record format 11"},
        {"stub.las", std::string("LASF", 4), "too short for a LAS header"},
        {"ply.las", "ply\nformat ascii 1.0\n" + std::string(300, ' '), "no \"LASF\" signature"},
        {"scan.laz", las_file(2, 1, points), "compressed LAS (LAZ) is not supported"},
        {"scan.e57", "ASTM-E57", "E57 scans are not supported"}}) {
    SCOPED_TRACE(name);
    EXPECT_PRED_FORMAT2(testing::IsSubstring, expected, load_error(write(name, bytes)));
  }
}

TEST_F(IoTest, BadXyzLineNamesTheLine) {
  const fs::path path       = write("bad.xyz", "# header\n1 2 3\n4 5\n");
  const std::string message = load_error(path);
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring, path.string() + ": line 3: expected 3 numbers", message);
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring, ": line 3: ", load_error(write("word.xyz", "1 2 3\n\n1 2 x3 4\n")));
}

TEST_F(IoTest, ExportedVoxelsReadBackWithTheirColours) {
  using voxhash::VoxelLabel;
  voxhash::GridParams grid;
  grid.resolution                 = {8, 8, 8};
  grid.bounds                     = {{-1, -1, -1}, {1, 1, 1}};
  const std::vector<Float3> spots = {
      {-0.9f, -0.9f, -0.9f}, {0.1f, 0.3f, -0.6f}, {0.8f, 0.1f, 0.4f}};
  std::array<voxhash::ModelVoxels, 2> models;
  for (const Float3& p : spots)
    models[0].keys.push_back(voxhash::voxel_key(grid, p));
  models[0].labels = {VoxelLabel::Outside, VoxelLabel::Inside, VoxelLabel::Intersection};
  models[1].keys   = {models[0].keys[2], models[0].keys[0]};
  models[1].labels = {VoxelLabel::Intersection, VoxelLabel::Outside};

  const fs::path path = m_dir / "voxels.ply";
  voxhash::export_voxels_ply(path.string(), grid, models);
  const voxhash::PointCloud cloud = load_point_cloud(path, 0);
  ASSERT_EQ(cloud.points.size(), 5u);
  for (std::size_t i = 0; i < spots.size(); ++i) {
    const Float3 centre = voxhash::voxel_center(grid, models[0].keys[i]);
    EXPECT_TRUE(same_point(cloud.points[i], centre));
    EXPECT_NEAR(centre.x, spots[i].x, 0.125f);
    EXPECT_NEAR(centre.y, spots[i].y, 0.125f);
    EXPECT_NEAR(centre.z, spots[i].z, 0.125f);
  }
  EXPECT_TRUE(same_point(cloud.points[3], cloud.points[2]));
  EXPECT_TRUE(same_point(cloud.points[4], cloud.points[0]));

  // Colours follow x y z (3 floats) in each 15-byte record after the header.
  std::ifstream in(path, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::size_t body = bytes.find("end_header\n") + 11;
  ASSERT_EQ(bytes.size(), body + 5 * 15);
  std::vector<std::array<int, 3>> rgb;
  for (std::size_t v = 0; v < 5; ++v) {
    const auto* c = reinterpret_cast<const unsigned char*>(bytes.data() + body + 15 * v + 12);
    rgb.push_back({c[0], c[1], c[2]});
  }
  const auto is_grey = [](std::array<int, 3> c) { return c[0] == c[1] && c[1] == c[2]; };
  const auto is_red  = [](std::array<int, 3> c) { return c[0] > 150 && c[1] < 100 && c[2] < 100; };
  const auto is_yellow = [](std::array<int, 3> c) {
    return c[0] > 150 && c[1] > 150 && c[2] < 100;
  };
  const auto is_blue = [](std::array<int, 3> c) { return c[2] > c[0] + 50 && c[2] > c[1] + 50; };
  EXPECT_TRUE(is_grey(rgb[0]));
  EXPECT_TRUE(is_red(rgb[1]));
  EXPECT_TRUE(is_yellow(rgb[2]));
  EXPECT_TRUE(is_yellow(rgb[3]));
  EXPECT_TRUE(is_blue(rgb[4]));

  models[1].labels.pop_back();
  EXPECT_THROW(voxhash::export_voxels_ply((m_dir / "mismatch.ply").string(), grid, models),
               InvalidInput);
  models[1].labels.push_back(VoxelLabel::Outside);
  const std::string unwritable = (m_dir / "no_such_dir" / "voxels.ply").string();
  try {
    voxhash::export_voxels_ply(unwritable, grid, models);
    ADD_FAILURE() << "no InvalidInput for " << unwritable;
  } catch (const InvalidInput& error) {
    EXPECT_TRUE(std::string(error.what()).starts_with(unwritable + ": ")) << error.what();
  }
}

// Each bundled asset is a closed, consistently outward-oriented mesh: every directed edge occurs
// once and its reverse once (so every edge is shared by exactly two triangles), and the enclosed
// volume is positive. Extents and, for the analytic shapes, volumes match their construction.
TEST(IoAssets, BundledModelsAreClosedAndSensible) {
  struct Asset {
    const char* name;
    double max_extent;  // largest |coordinate|
    double volume;      // expected enclosed volume, 0 where there is no closed form
  };
  const Asset assets[] = {
      {"sphere", 1.0, 4.0 / 3.0 * std::numbers::pi},
      {"torus", 1.0, 2 * std::numbers::pi * std::numbers::pi * 0.7 * 0.3 * 0.3},
      {"knot", 1.0, 0},
      {"blob", 0.96, 0},
  };
  for (const Asset& asset : assets) {
    SCOPED_TRACE(asset.name);
    const fs::path path =
        fs::path(VOXHASH_SOURCE_DIR) / "assets" / (std::string(asset.name) + ".obj");
    const Mesh mesh                  = load_obj_mesh(path);
    const std::size_t triangle_count = mesh.triangles.size() / 3;
    EXPECT_GE(triangle_count, 2000u);
    EXPECT_LE(triangle_count, 10000u);
    EXPECT_LT(fs::file_size(path), 400u * 1024);

    std::map<std::pair<std::uint32_t, std::uint32_t>, int> directed_edges;
    double volume = 0;
    for (std::size_t t = 0; t < triangle_count; ++t) {
      const std::uint32_t* corner = &mesh.triangles[3 * t];
      for (int k = 0; k < 3; ++k)
        ++directed_edges[{corner[k], corner[(k + 1) % 3]}];
      const Float3 a = mesh.vertices[corner[0]];
      const Float3 b = mesh.vertices[corner[1]];
      const Float3 c = mesh.vertices[corner[2]];
      volume += (double{a.x} * (double{b.y} * c.z - double{b.z} * c.y) +
                 double{a.y} * (double{b.z} * c.x - double{b.x} * c.z) +
                 double{a.z} * (double{b.x} * c.y - double{b.y} * c.x)) /
                6;
    }
    std::size_t bad_edges = 0;
    for (const auto& [edge, uses] : directed_edges) {
      const auto reverse = directed_edges.find({edge.second, edge.first});
      if (uses != 1 || reverse == directed_edges.end() || reverse->second != 1) ++bad_edges;
    }
    EXPECT_EQ(bad_edges, 0u);
    EXPECT_GT(volume, 0);
    if (asset.volume > 0) {
      EXPECT_NEAR(volume, asset.volume, 0.01 * asset.volume);
    }

    double extent = 0;
    for (const Float3& v : mesh.vertices) {
      extent =
          std::max({extent, double{std::abs(v.x)}, double{std::abs(v.y)}, double{std::abs(v.z)}});
    }
    EXPECT_NEAR(extent, asset.max_extent, 0.01);

    const voxhash::PointCloud cloud = load_point_cloud(path, 20000);
    EXPECT_EQ(cloud.points.size(), 20000u);
    EXPECT_EQ(cloud.dropped_non_finite, 0u);
  }
}
