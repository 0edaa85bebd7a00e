// Model I/O: OBJ surface sampling (on the surface, area-weighted, seeded), PLY (ASCII and binary
// little-endian) and XYZ point clouds, non-finite points, every error naming its file, and the
// bundled assets being closed, outward-oriented meshes of the expected size.
#include <voxhash/error.hpp>
#include <voxhash/io.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <map>
#include <numbers>
#include <random>
#include <string>
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

/// Bytes of a binary little-endian PLY body, appended value by value.
class LittleEndianBytes {
 public:
  LittleEndianBytes& f32(float value) { return put(std::bit_cast<std::uint32_t>(value), 4); }
  LittleEndianBytes& u8(std::uint8_t value) { return put(value, 1); }
  LittleEndianBytes& i32(std::int32_t value) { return put(static_cast<std::uint32_t>(value), 4); }
  [[nodiscard]] const std::string& str() const { return m_bytes; }

 private:
  LittleEndianBytes& put(std::uint32_t bits, int bytes) {
    for (int b = 0; b < bytes; ++b)
      m_bytes.push_back(static_cast<char>((bits >> (8 * b)) & 0xFF));
    return *this;
  }
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
                                          "element face 1\r\n"
                                          "property list uchar int vertex_indices\r\n"
                                          "end_header\r\n"
                                          "60 2 7 8\r\n"
                                          "0.5 1 2 0 3 255\r\n"
                                          "\r\n"
                                          "0 -1.5 +2.25 2 0.1 0.2 1e-1 7\r\n"
                                          "1 4 5 1 9 6 12\r\n"
                                          "3 0 1 2\r\n");
  const voxhash::PointCloud cloud = load_point_cloud(path, 0);
  ASSERT_EQ(cloud.points.size(), 3u);
  EXPECT_TRUE(same_point(cloud.points[0], {1, 2, 3}));
  EXPECT_TRUE(same_point(cloud.points[1], {-1.5f, 2.25f, 0.1f}));
  EXPECT_TRUE(same_point(cloud.points[2], {4, 5, 6}));
}

TEST_F(IoTest, BinaryLittleEndianPly) {
  LittleEndianBytes body;
  body.i32(99).u8(2).i32(1).i32(2);  // element before the vertices
  body.f32(1.5f).f32(-2.0f).f32(0.0f).u8(10).f32(3.25f).u8(1).u8(2).u8(3);  // vertex 0
  body.f32(1e-3f).f32(7.0f).f32(0.0f).u8(11).f32(-8.0f).u8(4).u8(5).u8(6);  // vertex 1
  body.u8(3).i32(0).i32(1).i32(2);                                          // face element, ignored
  const fs::path path             = write("cloud.ply",
                              "ply\nformat binary_little_endian 1.0\n"
                                          "element group 1\nproperty int id\nproperty list uchar int members\n"
                                          "element vertex 2\n"
                                          "property float x\nproperty float y\nproperty float nx\n"
                                          "property uchar flags\nproperty float z\n"
                                          "property uchar red\nproperty uchar green\nproperty uchar blue\n"
                                          "element face 1\nproperty list uchar int vertex_indices\n"
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

  LittleEndianBytes body;
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

TEST_F(IoTest, MissingFile) {
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "file not found", load_error(m_dir / "absent.ply"));
  EXPECT_THROW((void)load_obj_mesh(m_dir / "absent.obj"), InvalidInput);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "file not found", load_error(m_dir / "absent.obj"));
  fs::create_directory(m_dir / "folder.ply");
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "not a regular file", load_error(m_dir / "folder.ply"));
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
      {"format ascii 1.0\n" + vertex + "property float z\nflavour sweet\nend_header\n",
       "line 7: unknown PLY header keyword 'flavour'"},
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
                      "line 8: expected 3 values for a vertex, found 4",
                      load_error(write("long.ply", header + "1 2 3 4\n4 5 6\n")));
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "line 8: too few values for a vertex",
                      load_error(write("few.ply", header + "1 2\n4 5 6\n\n\n")));
}

TEST_F(IoTest, TruncatedBinaryPly) {
  const std::string header =
      "ply\nformat binary_little_endian 1.0\nelement vertex 3\n"
      "property float x\nproperty float y\nproperty float z\n";
  LittleEndianBytes body;
  body.f32(1).f32(2).f32(3).f32(4).f32(5);  // one and two-thirds of 3 vertices
  EXPECT_PRED_FORMAT2(testing::IsSubstring,
                      "the header promises 3 'vertex' elements of at least 12 bytes each, but only "
                      "20 bytes of data follow the header",
                      load_error(write("cut.ply", header + "end_header\n" + body.str())));
  // With a list the size is known only while reading: the element that runs past the end is named.
  LittleEndianBytes listed;
  listed.f32(1).f32(2).f32(3).u8(0).f32(4).f32(5).f32(6).u8(200).f32(7).f32(8).f32(9).f32(10);
  EXPECT_PRED_FORMAT2(
      testing::IsSubstring,
      "truncated binary data: 'vertex' element 2 of 3 runs past the end",
      load_error(write("list.ply",
                       header + "property list uchar float extra\nend_header\n" + listed.str())));
}

TEST_F(IoTest, PlyCountBeyondTheFileIsAnErrorUpFront) {
  // 149 bytes that used to hang: an element without properties and a count near 2^64 before the
  // vertex element (its items take no bytes, so reading them consumed nothing).
  LittleEndianBytes vertex;
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

TEST_F(IoTest, BigEndianPlyIsUnsupported) {
  const fs::path path       = write("big.ply",
                              "ply\nformat binary_big_endian 1.0\nelement vertex 1\n"
                                    "property float x\nproperty float y\nproperty float z\nend_header\n");
  const std::string message = load_error(path);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "binary_big_endian", message);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "unsupported", message);
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
