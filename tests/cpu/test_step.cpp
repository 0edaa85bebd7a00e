// STEP models through OpenCASCADE (label cpu): files written here by OpenCASCADE's own writer (a
// box, a cylinder, an assembly with a sub-assembly and repeated parts) read back by voxhash's
// loader and checked against exact geometry - volumes by the divergence theorem, bounds, part
// names, units, the deflection - malformed files refused in one line naming the file, a scene that
// takes the file's unit, a selection set of a STEP file's parts by name in its unit, and `voxhash
// clash` of a STEP model in millimetres against an OBJ in metres, its overlap against the exact
// one. A build without OpenCASCADE checks the line it gives.
#include "cli/clash_command.hpp"
#include "cli/command_line.hpp"
#include "io/io_common.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>
#include <voxhash/scene.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <numbers>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#if VOXHASH_HAS_STEP
#include <BRepBuilderAPI_MakeEdge.hxx>
#include <BRepBuilderAPI_MakeFace.hxx>
#include <BRepPrimAPI_MakeBox.hxx>
#include <BRepPrimAPI_MakeCylinder.hxx>
#include <IFSelect_ReturnStatus.hxx>
#include <Message.hxx>
#include <Message_Messenger.hxx>
#include <Message_PrinterOStream.hxx>
#include <STEPCAFControl_Writer.hxx>
#include <TDF_Label.hxx>
#include <TDataStd_Name.hxx>
#include <TDocStd_Document.hxx>
#include <TopLoc_Location.hxx>
#include <XCAFApp_Application.hxx>
#include <XCAFDoc_DocumentTool.hxx>
#include <XCAFDoc_ShapeTool.hxx>
#include <gp_Pln.hxx>
#include <gp_Pnt.hxx>
#include <gp_Trsf.hxx>
#include <gp_Vec.hxx>
#endif

namespace voxhash::test {
namespace {

namespace fs = std::filesystem;

/// A folder of this test's own: CTest runs the tests in processes side by side, and two of them
/// writing block.step in one folder read each other's files.
fs::path temp_folder() {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path folder           = fs::path(::testing::TempDir()) / "voxhash_step" /
                          (std::string(test->test_suite_name()) + "." + test->name());
  fs::create_directories(folder);
  return folder;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The message of the InvalidInput that loading `path` throws (empty when it loads).
std::string load_error(const fs::path& path, const LoadOptions& options = {}) {
  try {
    (void)load_point_cloud(path, 1000, 1, options);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return {};
}

/// One line that starts with the file's path and says `what`.
void expect_refused(const fs::path& path, const std::string& what) {
  const std::string message = load_error(path);
  EXPECT_TRUE(message.starts_with(path.string() + ": ")) << message;
  EXPECT_NE(message.find(what), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

#if VOXHASH_HAS_STEP

/// An XCAF document in millimetres, written as STEP AP214 by OpenCASCADE's writer.
class StepDocument {
 public:
  StepDocument() {
    static const bool silenced = [] {
      Message::DefaultMessenger()->RemovePrinters(STANDARD_TYPE(Message_PrinterOStream));
      return true;
    }();
    (void)silenced;
    m_application->NewDocument("MDTV-XCAF", m_document);
    XCAFDoc_DocumentTool::SetLengthUnit(m_document, 0.001);
    m_tool = XCAFDoc_DocumentTool::ShapeTool(m_document->Main());
  }
  ~StepDocument() { m_application->Close(m_document); }
  StepDocument(const StepDocument&)            = delete;
  StepDocument& operator=(const StepDocument&) = delete;

  TDF_Label shape(const TopoDS_Shape& shape, const char* name) {
    const TDF_Label label = m_tool->AddShape(shape, false);
    TDataStd_Name::Set(label, name);
    return label;
  }
  TDF_Label assembly(const char* name) {
    const TDF_Label label = m_tool->NewShape();
    TDataStd_Name::Set(label, name);
    return label;
  }
  /// `part` placed in `assembly` at `offset`, its instance named `name` unless empty.
  void component(const TDF_Label& assembly,
                 const TDF_Label& part,
                 const gp_Vec& offset,
                 const char* name = "") {
    gp_Trsf move;
    move.SetTranslation(offset);
    const TDF_Label instance = m_tool->AddComponent(assembly, part, TopLoc_Location(move));
    if (name[0] != '\0') TDataStd_Name::Set(instance, name);
  }
  /// With `multi_file`, each part goes to a file of its own beside `path`, named with that
  /// prefix, and `path` refers to them.
  void write(const fs::path& path, const char* multi_file = nullptr) {
    m_tool->UpdateAssemblies();
    STEPCAFControl_Writer writer;
    writer.SetNameMode(true);
    ASSERT_TRUE(writer.Transfer(m_document, STEPControl_AsIs, multi_file));
    ASSERT_EQ(writer.Write(path.c_str()), IFSelect_RetDone);
  }

 private:
  Handle(XCAFApp_Application) m_application = XCAFApp_Application::GetApplication();
  Handle(TDocStd_Document) m_document;
  Handle(XCAFDoc_ShapeTool) m_tool;
};

constexpr double kRadius = 5, kHeight = 40;  // the pin, millimetres

/// A 10 x 20 x 30 mm box from (1, 2, 3), alone.
fs::path block_file() {
  const fs::path path = temp_folder() / "block.step";
  StepDocument doc;
  doc.shape(BRepPrimAPI_MakeBox(gp_Pnt(1, 2, 3), 10, 20, 30).Shape(), "block");
  doc.write(path);
  return path;
}

/// The rig: a block at the origin; a pin at x = 100 in it, and two more in its sub-assembly
/// "arm" (at y = 100), one instance named "left pin"; so two leaves are "pin" by product.
fs::path rig_file() {
  const fs::path path = temp_folder() / "rig.step";
  StepDocument doc;
  const TDF_Label block = doc.shape(BRepPrimAPI_MakeBox(10, 20, 30).Shape(), "block");
  const TDF_Label pin   = doc.shape(BRepPrimAPI_MakeCylinder(kRadius, kHeight).Shape(), "pin");
  const TDF_Label rig   = doc.assembly("rig");
  const TDF_Label arm   = doc.assembly("arm");
  doc.component(arm, pin, gp_Vec(0, 0, 0), "left pin");
  doc.component(arm, pin, gp_Vec(50, 0, 0));
  doc.component(rig, block, gp_Vec(0, 0, 0));
  doc.component(rig, pin, gp_Vec(100, 0, 0));
  doc.component(rig, arm, gp_Vec(0, 100, 0));
  doc.write(path);
  return path;
}

/// The volume the triangles enclose (divergence theorem), of part `part` or of all.
double volume(const Mesh& mesh, std::optional<std::uint32_t> part = {}) {
  double sum = 0;
  for (std::size_t t = 0; t < mesh.triangles.size() / 3; ++t) {
    if (part && !mesh.triangle_parts.empty() && mesh.triangle_parts[t] != *part) continue;
    const Float3 a = mesh.vertices[mesh.triangles[3 * t]];
    const Float3 b = mesh.vertices[mesh.triangles[3 * t + 1]];
    const Float3 c = mesh.vertices[mesh.triangles[3 * t + 2]];
    sum += double{a.x} * (double{b.y} * c.z - double{b.z} * c.y) +
           double{a.y} * (double{b.z} * c.x - double{b.x} * c.z) +
           double{a.z} * (double{b.x} * c.y - double{b.y} * c.x);
  }
  return sum / 6;
}

/// The x of the centre of part `part`'s vertices' box.
double centre_x(const Mesh& mesh, std::uint32_t part) {
  double lo = INFINITY, hi = -INFINITY;
  for (std::size_t t = 0; t < mesh.triangle_parts.size(); ++t) {
    if (mesh.triangle_parts[t] != part) continue;
    for (int k = 0; k < 3; ++k) {
      lo = std::min(lo, double{mesh.vertices[mesh.triangles[3 * t + k]].x});
      hi = std::max(hi, double{mesh.vertices[mesh.triangles[3 * t + k]].x});
    }
  }
  return (lo + hi) / 2;
}

TEST(Step, ABoxKeepsItsExactVolumeBoundsNameAndUnit) {
  const PointCloud cloud = load_point_cloud(block_file(), 1000);
  const Mesh& mesh       = cloud.mesh;
  EXPECT_EQ(mesh.triangles.size(), 12u * 3) << "two triangles a face";
  EXPECT_EQ(mesh.vertices.size(), 8u) << "the corners the faces share are welded";
  EXPECT_NEAR(volume(mesh), 6000.0, 6.0);  // 0.1 %
  Float3 lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
  for (const Float3 v : mesh.vertices) {
    lo = {std::min(lo.x, v.x), std::min(lo.y, v.y), std::min(lo.z, v.z)};
    hi = {std::max(hi.x, v.x), std::max(hi.y, v.y), std::max(hi.z, v.z)};
  }
  EXPECT_NEAR(lo.x, 1, 1e-5);
  EXPECT_NEAR(lo.y, 2, 1e-5);
  EXPECT_NEAR(lo.z, 3, 1e-5);
  EXPECT_NEAR(hi.x, 11, 1e-5);
  EXPECT_NEAR(hi.y, 22, 1e-5);
  EXPECT_NEAR(hi.z, 33, 1e-5);
  EXPECT_EQ(cloud.part_names, std::vector<std::string>{"block"});
  EXPECT_EQ(cloud.meters_per_unit, 0.001) << "the file is in millimetres";
  EXPECT_EQ(cloud.points.size(), 1000u);
  EXPECT_TRUE(cloud.warnings.empty());
}

TEST(Step, ACylinderIsWithinTheDeflectionOfItsExactVolume) {
  const fs::path path = temp_folder() / "pin.stp";
  {
    StepDocument doc;
    doc.shape(BRepPrimAPI_MakeCylinder(kRadius, kHeight).Shape(), "pin");
    doc.write(path);
  }
  const double exact           = std::numbers::pi * kRadius * kRadius * kHeight;
  std::size_t coarse_triangles = 0;
  for (const double deflection : {0.5, 0.02}) {  // millimetres
    SCOPED_TRACE("deflection " + std::to_string(deflection) + " mm");
    // Every edge of the tessellation is a chord within `deflection` of the circle: the polygon
    // lies between the circles of radius r - deflection and r.
    const Mesh mesh = load_point_cloud(path, 100, 1, {.deflection = deflection * 1e-3}).mesh;
    ASSERT_GT(mesh.triangles.size(), 0u);
    const double v = volume(mesh);
    EXPECT_LE(v, exact * (1 + 1e-6));
    EXPECT_GE(v, std::numbers::pi * (kRadius - deflection) * (kRadius - deflection) * kHeight);
    if (coarse_triangles == 0) {
      coarse_triangles = mesh.triangles.size();
      EXPECT_LT(v, exact * (1 - 1e-3)) << "a coarse deflection is visibly coarse";
    } else {
      EXPECT_GT(2 * mesh.triangles.size(), 3 * coarse_triangles)
          << "a finer deflection, more triangles";
    }
  }
}

TEST(Step, AssemblyLeavesArePartsNamedByTheTreeAndPlaced) {
  const PointCloud cloud                  = load_point_cloud(rig_file(), 4000);
  const std::vector<std::string> expected = {"block", "rig/pin", "left pin", "rig/arm/pin"};
  std::vector<std::string> sorted_names = cloud.part_names, sorted_expected = expected;
  std::sort(sorted_names.begin(), sorted_names.end());
  std::sort(sorted_expected.begin(), sorted_expected.end());
  ASSERT_EQ(sorted_names, sorted_expected);
  const Mesh& mesh = cloud.mesh;
  ASSERT_EQ(mesh.triangle_parts.size(), mesh.triangles.size() / 3);
  const auto id = [&](const std::string& name) {
    return static_cast<std::uint32_t>(
        std::find(cloud.part_names.begin(), cloud.part_names.end(), name) -
        cloud.part_names.begin());
  };
  const double pin        = std::numbers::pi * kRadius * kRadius * kHeight;
  const double deflection = 111.0 / 1024;  // the default: of the rig's longest side, 110 mm
  EXPECT_NEAR(volume(mesh, id("block")), 6000.0, 6.0);
  for (const char* name : {"rig/pin", "left pin", "rig/arm/pin"}) {
    SCOPED_TRACE(name);
    EXPECT_LE(volume(mesh, id(name)), pin * (1 + 1e-6));
    EXPECT_GE(volume(mesh, id(name)),
              std::numbers::pi * (kRadius - deflection) * (kRadius - deflection) * kHeight);
  }
  EXPECT_NEAR(centre_x(mesh, id("block")), 5, 1e-4);
  EXPECT_NEAR(centre_x(mesh, id("rig/pin")), 100, 1e-3);
  EXPECT_NEAR(centre_x(mesh, id("left pin")), 0, 1e-3);
  EXPECT_NEAR(centre_x(mesh, id("rig/arm/pin")), 50, 1e-3);
  double parts = 0;
  for (const char* name : {"block", "rig/pin", "left pin", "rig/arm/pin"})
    parts += volume(mesh, id(name));
  EXPECT_NEAR(volume(mesh), parts, 1e-9 * parts) << "every triangle is in one of the parts";
}

TEST(Step, RepeatedPathsAreNumbered) {
  const fs::path path = temp_folder() / "pins.step";
  {
    StepDocument doc;
    const TDF_Label pin  = doc.shape(BRepPrimAPI_MakeCylinder(kRadius, kHeight).Shape(), "pin");
    const TDF_Label rack = doc.assembly("rack");
    doc.component(rack, pin, gp_Vec(0, 0, 0));
    doc.component(rack, pin, gp_Vec(20, 0, 0));
    doc.write(path);
  }
  const PointCloud cloud = load_point_cloud(path, 100);
  EXPECT_EQ(cloud.part_names, (std::vector<std::string>{"rack/pin #1", "rack/pin #2"}));
}

TEST(Step, TheCoordinatesAreInTheUnitTheFileDeclares) {
  const fs::path mm            = block_file();
  const fs::path m             = temp_folder() / "block_m.step";
  std::string text             = read_text(mm);
  const std::string millimetre = "SI_UNIT(.MILLI.,.METRE.)";
  ASSERT_NE(text.find(millimetre), std::string::npos);
  for (std::size_t at = text.find(millimetre); at != std::string::npos; at = text.find(millimetre))
    text.replace(at, millimetre.size(), "SI_UNIT($,.METRE.)");
  write_text(m, text);
  // Inches: a conversion-based unit, 25.4 of the millimetre the file defines beside it.
  const fs::path in             = temp_folder() / "block_in.step";
  text                          = read_text(mm);
  const std::string length_unit = "( LENGTH_UNIT() NAMED_UNIT(*) SI_UNIT(.MILLI.,.METRE.) )";
  ASSERT_NE(text.find(length_unit), std::string::npos);
  for (std::size_t at = text.find(length_unit); at != std::string::npos;
       at             = text.find(length_unit))
    text.replace(at,
                 length_unit.size(),
                 "( CONVERSION_BASED_UNIT('INCH',#9001) LENGTH_UNIT() "
                             "NAMED_UNIT(#9002) )");
  const std::size_t end = text.rfind("ENDSEC;");
  ASSERT_NE(end, std::string::npos);
  text.insert(end,
              "#9001 = LENGTH_MEASURE_WITH_UNIT(LENGTH_MEASURE(25.4),#9003);\n"
              "#9002 = DIMENSIONAL_EXPONENTS(1.,0.,0.,0.,0.,0.,0.);\n"
              "#9003 = " +
                  length_unit + ";\n");
  write_text(in, text);
  const PointCloud in_mm     = load_point_cloud(mm, 100);
  const PointCloud in_m      = load_point_cloud(m, 100);
  const PointCloud in_inches = load_point_cloud(in, 100);
  EXPECT_EQ(in_mm.meters_per_unit, 0.001);
  EXPECT_EQ(in_m.meters_per_unit, 1.0);
  EXPECT_EQ(in_inches.meters_per_unit, 0.0254);
  // The same numbers, each in its file's unit (not converted to OpenCASCADE's millimetres).
  EXPECT_NEAR(volume(in_m.mesh), 6000.0, 6.0);
  EXPECT_NEAR(volume(in_mm.mesh), 6000.0, 6.0);
  EXPECT_NEAR(volume(in_inches.mesh), 6000.0, 6.0);
}

TEST(Step, MalformedFilesAreRefusedInOneLineNamingThem) {
  const fs::path folder  = temp_folder();
  const std::string good = read_text(block_file());
  write_text(folder / "empty.step", "");
  expect_refused(folder / "empty.step", "the file is empty");
  write_text(folder / "truncated.step", good.substr(0, good.size() / 2));
  expect_refused(folder / "truncated.step", "not a valid STEP file");
  write_text(folder / "text.step", "solid cube\nfacet normal 0 0 1\n");
  expect_refused(folder / "text.step", "not a valid STEP file");
  // An entity of an unknown type where a point must be (OpenCASCADE 7.6's transfer crashed on it).
  std::string broken      = good;
  const std::size_t point = broken.find("CARTESIAN_POINT");
  ASSERT_NE(point, std::string::npos);
  broken.replace(point, 15, "CARTESIAN_PNT");
  write_text(folder / "broken.step", broken);
  expect_refused(folder / "broken.step", "not a valid STEP file: entity #");
  write_text(folder / "noshape.step",
             "ISO-10303-21;\nHEADER;\nFILE_DESCRIPTION((''),'2;1');\n"
             "FILE_NAME('','',(''),(''),'','','');\nFILE_SCHEMA(('AUTOMOTIVE_DESIGN'));\n"
             "ENDSEC;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n");
  expect_refused(folder / "noshape.step", "the file holds no shapes");
  expect_refused(folder / "missing.step", "file not found");
  // The extension in any case.
  write_text(folder / "BLOCK.STP", good);
  EXPECT_EQ(load_error(folder / "BLOCK.STP"), "");
}

/// An assembly of one block written as two files, `folder`/main.step referring to
/// `folder`/extblock.stp (OpenCASCADE's multi-file mode); returns main.step.
fs::path external_reference_files(const fs::path& folder) {
  fs::create_directories(folder);
  StepDocument doc;
  const TDF_Label block = doc.shape(BRepPrimAPI_MakeBox(10, 20, 30).Shape(), "block");
  const TDF_Label rig   = doc.assembly("rig");
  doc.component(rig, block, gp_Vec(0, 0, 0));
  doc.write(folder / "main.step", "ext");
  return folder / "main.step";
}

TEST(Step, ReferencedFilesAreReadOnlyInsideTheModelsFolder) {
  const fs::path folder = temp_folder() / "references";
  fs::remove_all(folder);
  const fs::path main = external_reference_files(folder / "model");
  ASSERT_TRUE(fs::is_regular_file(folder / "model" / "extblock.stp"));
  const PointCloud cloud = load_point_cloud(main, 100);
  EXPECT_NEAR(volume(cloud.mesh), 6000.0, 6.0) << "the block comes from the referenced file";

  // The same reference, to a folder beside the model's.
  fs::create_directories(folder / "outside");
  fs::rename(folder / "model" / "extblock.stp", folder / "outside" / "extblock.stp");
  std::string text = read_text(main);
  for (std::size_t at = text.find("'extblock.stp'"); at != std::string::npos;
       at             = text.find("'extblock.stp'", at + 10))
    text.replace(at, 14, "'../outside/extblock.stp'");
  write_text(main, text);
  expect_refused(main,
                 "it refers to '../outside/extblock.stp', which is outside the model's folder");
  const PointCloud allowed = load_point_cloud(main, 100, 1, {.files_outside_folder = true});
  EXPECT_NEAR(volume(allowed.mesh), 6000.0, 6.0);

  fs::remove(folder / "outside" / "extblock.stp");
  const std::string missing = load_error(main, {.files_outside_folder = true});
  EXPECT_NE(missing.find("it refers to '../outside/extblock.stp', which cannot be read"),
            std::string::npos)
      << missing;
}

TEST(Step, PartsWithoutFacesAreCountedAndWarned) {
  const fs::path path = temp_folder() / "odd.step";
  {
    StepDocument doc;
    doc.shape(BRepPrimAPI_MakeBox(10, 20, 30).Shape(), "block");
    // An unbounded plane, which comes back from the file without faces, and a wireframe.
    doc.shape(BRepBuilderAPI_MakeFace(gp_Pln()).Face(), "plane");
    doc.shape(BRepBuilderAPI_MakeEdge(gp_Pnt(0, 0, 0), gp_Pnt(10, 0, 0)).Edge(), "axis");
    doc.write(path);
  }
  const PointCloud cloud = load_point_cloud(path, 100);
  EXPECT_EQ(cloud.part_names, std::vector<std::string>{"block"});
  EXPECT_NEAR(volume(cloud.mesh), 6000.0, 6.0);
  EXPECT_EQ(cloud.warnings,
            std::vector<std::string>{path.string() +
                                     ": 2 of its 3 parts have no faces (empty, or only points and "
                                     "curves) and are left out: 'plane', 'axis'"});
  // A file of nothing but such shapes is an error.
  const fs::path wire = temp_folder() / "wire.step";
  {
    StepDocument doc;
    doc.shape(BRepBuilderAPI_MakeEdge(gp_Pnt(0, 0, 0), gp_Pnt(10, 0, 0)).Edge(), "axis");
    doc.write(wire);
  }
  expect_refused(wire, "its shapes have no faces to tessellate");
}

TEST(Step, ASceneTakesTheFilesUnitUnlessItGivesOne) {
  const fs::path block = block_file();
  const fs::path scene = temp_folder() / "units.json";
  const auto load      = [&](const std::string& unit) {
    write_text(scene,
               R"({"voxhash_scene": 1, "models": [{"path": "block.step")" + unit +
                   R"(}, {"path": "block.step", "unit": "mm"}], "grid": {"voxel_size": 0.0005}})");
    return load_scene_models(load_scene(scene), {.points = 100});
  };
  const LoadedScene own = load({});
  EXPECT_NEAR(own.models[0].bounds.min.x, 0.001, 1e-7) << "millimetres, read into metres";
  EXPECT_NEAR(own.models[0].bounds.max.z, 0.033, 1e-7);
  EXPECT_NEAR(own.models[1].bounds.max.z, 0.033, 1e-7);
  const LoadedScene told = load(R"(, "unit": "m")");
  EXPECT_NEAR(told.models[0].bounds.max.z, 33, 1e-4) << "the scene's unit wins";
  // A quarter of the scene's voxel, in metres.
  EXPECT_DOUBLE_EQ(load_options(own.scene, 0, {}).deflection, 0.0005 / 4);
  Scene by_resolution           = own.scene;
  by_resolution.grid.voxel_size = 0;
  by_resolution.grid.resolution = 200;
  const LoadOptions relative    = load_options(by_resolution, 0, {});
  EXPECT_EQ(relative.deflection, 0);
  EXPECT_DOUBLE_EQ(relative.relative_deflection, 1.0 / 800);
}

TEST(Step, ASelectionSetReadsAStepFileInItsUnitAndMatchesItsPartsByName) {
  (void)rig_file();    // millimetres: the block, and three pins
  (void)block_file();  // millimetres: 1..11 x 2..22 x 3..33
  const fs::path scene = temp_folder() / "sets.json";
  write_text(scene, R"({"voxhash_scene": 1,
    "set_a": {"name": "pins", "files": ["rig.step"], "parts": ["*pin"]},
    "set_b": {"files": [{"path": "block.step", "unit": "cm", "parts": ["block"]}]},
    "grid": {"voxel_size": 0.0005}})");
  const LoadedScene loaded      = load_scene_models(load_scene(scene), {.points = 2000});
  std::vector<std::string> pins = loaded.models[0].cloud.part_names;
  std::sort(pins.begin(), pins.end());
  EXPECT_EQ(pins, (std::vector<std::string>{"left pin", "rig/arm/pin", "rig/pin"}));
  EXPECT_EQ(loaded.models[1].cloud.part_names, std::vector<std::string>{"block"});
  ASSERT_EQ(loaded.notes.size(), 1u);
  EXPECT_NE(loaded.notes[0].find("set A 'pins' holds 3 parts, set B 'set_b' 1 part; 1 part in "
                                 "neither set"),
            std::string::npos)
      << loaded.notes[0];
  // The pins (radius 5 mm, 40 mm long) at x = 100 mm, and at x = 0 and 50 mm, y = 100 mm: in
  // metres, to the tessellation's quarter voxel.
  const Bounds& a = loaded.models[0].bounds;
  EXPECT_NEAR(a.min.x, -0.005, 2e-4);
  EXPECT_NEAR(a.max.x, 0.105, 2e-4);
  EXPECT_NEAR(a.max.y, 0.105, 2e-4);
  EXPECT_NEAR(a.min.z, 0, 1e-6);
  EXPECT_NEAR(a.max.z, 0.040, 1e-6);
  // The entry's unit wins over the file's: the block's 33 read as centimetres.
  EXPECT_NEAR(loaded.models[1].bounds.min.x, 0.01, 1e-6);
  EXPECT_NEAR(loaded.models[1].bounds.max.z, 0.33, 1e-5);
  // Each set file tessellated at a quarter of the voxel, its own unit for the entry that gives one.
  EXPECT_DOUBLE_EQ(load_options(loaded.scene, 0, 0, {}).deflection, 0.0005 / 4);
  EXPECT_EQ(load_options(loaded.scene, 0, 0, {}).meters_per_unit, 0);
  EXPECT_DOUBLE_EQ(load_options(loaded.scene, 1, 0, {}).meters_per_unit, 0.01);
}

struct Outcome {
  int exit_code = -1;
  std::string out, err;
};

/// `voxhash args...` with the real clash command, stdout and stderr captured.
Outcome run(std::vector<std::string> args) {
  args.insert(args.begin(), "voxhash");
  std::vector<const char*> argv;
  for (const std::string& a : args)
    argv.push_back(a.c_str());
  const cli::FrontEnds front_ends{.view  = [](const viewer::ViewerOptions&) { return 1; },
                                  .bench = [](const bench::Options&) { return 1; },
                                  .clash = cli::run_clash};
  Outcome outcome;
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  outcome.exit_code = cli::run(static_cast<int>(argv.size()), argv.data(), front_ends);
  outcome.out       = ::testing::internal::GetCapturedStdout();
  outcome.err       = ::testing::internal::GetCapturedStderr();
  return outcome;
}

TEST(Step, ClashOfAStepModelInMillimetresWithAnObjInMetres) {
  (void)block_file();  // 1..11 x 2..22 x 3..33 mm
  const fs::path folder = temp_folder();
  // A cube of 20 mm from (6, 12, 18) mm, in metres.
  write_text(folder / "cube.obj",
             "o cube\n"
             "v 0.006 0.012 0.018\nv 0.026 0.012 0.018\nv 0.026 0.032 0.018\nv 0.006 0.032 0.018\n"
             "v 0.006 0.012 0.038\nv 0.026 0.012 0.038\nv 0.026 0.032 0.038\nv 0.006 0.032 0.038\n"
             "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 4 8 7 3\nf 1 5 8 4\nf 2 3 7 6\n");
  const fs::path scene = folder / "clash.json";
  write_text(scene,
             R"({"voxhash_scene": 1, "models": [{"path": "block.step"}, {"path": "cube.obj"}],
                 "grid": {"voxel_size": 0.0005}})");
  const fs::path json = folder / "clash_report.json";
  const Outcome r     = run(
      {"clash", scene.string(), "--backend", "cpu", "--points", "20000", "--json", json.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report   = nlohmann::json::parse(read_text(json));
  const nlohmann::json& clashes = report["clashes"];
  ASSERT_EQ(clashes.size(), 1u) << clashes.dump(2);
  EXPECT_EQ(clashes[0]["kind"], "hard");
  EXPECT_EQ(clashes[0]["part_a"], "block");
  EXPECT_EQ(clashes[0]["part_b"], "cube");
  const double exact = 0.005 * 0.010 * 0.015;  // m^3: the boxes overlap by 5 x 10 x 15 mm
  EXPECT_NEAR(clashes[0]["volume"].get<double>(), exact, 0.02 * exact);
  EXPECT_NEAR(clashes[0]["depth"].get<double>(), 0.005, 0.0005);
}

#else

TEST(Step, WithoutOpenCascadeAStepFileIsRefusedInOneLine) {
  const fs::path path = temp_folder() / "model.step";
  write_text(path, "ISO-10303-21;\n");
  expect_refused(path, "STEP support not built");
}

#endif

}  // namespace
}  // namespace voxhash::test
