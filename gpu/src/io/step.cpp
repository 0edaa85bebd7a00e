// STEP models (AP203, AP214, AP242) through OpenCASCADE: the file is read into an XCAF document
// (STEPCAFControl_Reader), whose assembly tree gives the parts - each leaf shape instance one part,
// placed by the locations along its path and named as the CAD tool shows it - and each distinct
// shape is tessellated once (BRepMesh_IncrementalMesh) at the deflection the caller asks for.
#include "io/io_common.hpp"

#include <voxhash/error.hpp>

#include <BRepBndLib.hxx>
#include <BRepMesh_IncrementalMesh.hxx>
#include <BRep_Tool.hxx>
#include <Bnd_Box.hxx>
#include <IFSelect_ReturnStatus.hxx>
#include <Interface_Check.hxx>
#include <Interface_CheckIterator.hxx>
#include <Interface_InterfaceModel.hxx>
#include <Message.hxx>
#include <Message_Messenger.hxx>
#include <Message_PrinterOStream.hxx>
#include <Poly_Triangulation.hxx>
#include <STEPCAFControl_Reader.hxx>
#include <STEPConstruct_ExternRefs.hxx>
#include <STEPControl_Reader.hxx>
#include <Standard_Failure.hxx>
#include <TColStd_SequenceOfAsciiString.hxx>
#include <TCollection_AsciiString.hxx>
#include <TCollection_HAsciiString.hxx>
#include <TDF_Label.hxx>
#include <TDF_LabelSequence.hxx>
#include <TDataStd_Name.hxx>
#include <TDocStd_Document.hxx>
#include <TopExp_Explorer.hxx>
#include <TopLoc_Location.hxx>
#include <TopTools_MapOfShape.hxx>
#include <TopoDS.hxx>
#include <TopoDS_Face.hxx>
#include <TopoDS_Shape.hxx>
#include <XCAFApp_Application.hxx>
#include <XCAFDoc_DocumentTool.hxx>
#include <XCAFDoc_ShapeTool.hxx>
#include <XSControl_WorkSession.hxx>
#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

namespace voxhash::io {
namespace {

/// The largest angle, in radians, between the normals of a face's adjacent triangles: curved
/// surfaces small beside the voxel still get a few triangles around.
constexpr double kAngularDeflection = 0.5;
/// Assemblies nested deeper than this are refused (the tree is the file's to decide).
constexpr int kMaxAssemblyDepth = 256;
/// Parts named in a warning about faces left out.
constexpr std::size_t kNamedParts = 5;

/// OpenCASCADE's reader, its messenger (which prints parse errors and statistics on stdout) and
/// its parameters are process-wide: one STEP file is read at a time, silently.
std::mutex& occt_mutex() {
  static std::mutex mutex;
  return mutex;
}

void silence_occt() {
  static std::once_flag once;
  std::call_once(once, [] {
    Message::DefaultMessenger()->RemovePrinters(STANDARD_TYPE(Message_PrinterOStream));
  });
}

/// Metres in the length unit OpenCASCADE names (STEPControl_Reader::FileUnits: an SI unit with
/// its prefix, "millimetre", or a conversion-based unit's own name, "INCH"); 0 for one it does
/// not know.
double meters_in_unit(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) {
    return static_cast<char>(std::tolower(c));
  });
  if (name.ends_with("meter")) name.replace(name.size() - 5, 5, "metre");
  if (name.ends_with("metre")) {
    static const std::map<std::string, double, std::less<>> kPrefixes = {{"", 1},
                                                                         {"kilo", 1e3},
                                                                         {"hecto", 1e2},
                                                                         {"deca", 1e1},
                                                                         {"deci", 1e-1},
                                                                         {"centi", 1e-2},
                                                                         {"milli", 1e-3},
                                                                         {"micro", 1e-6},
                                                                         {"nano", 1e-9}};
    const auto prefix = kPrefixes.find(std::string_view(name).substr(0, name.size() - 5));
    return prefix == kPrefixes.end() ? 0 : prefix->second;
  }
  static const std::map<std::string, double, std::less<>> kConverted = {
      {"inch", 0.0254}, {"foot", 0.3048}, {"feet", 0.3048}, {"yard", 0.9144}, {"mile", 1609.344}};
  const auto unit = kConverted.find(name);
  return unit == kConverted.end() ? 0 : unit->second;
}

/// A label's name in UTF-8 (empty when it has none).
std::string label_name(const TDF_Label& label) {
  Handle(TDataStd_Name) name;
  if (!label.FindAttribute(TDataStd_Name::GetID(), name)) return {};
  return TCollection_AsciiString(name->Get()).ToCString();
}

/// Whether `name` is what OpenCASCADE calls an instance the file left unnamed ("=>[0:1:1:2]"):
/// its product's name says more.
bool is_placeholder_instance_name(std::string_view name) {
  return name.empty() || (name.starts_with("=>[") && name.ends_with("]"));
}

/// Whether `file` lies inside the folder of `model` (as given or, for a link, of its target).
bool inside_model_folder(const std::filesystem::path& model, const std::filesystem::path& file) {
  std::error_code error;
  const std::filesystem::path given = std::filesystem::absolute(model, error);
  const std::filesystem::path real =
      std::filesystem::weakly_canonical(std::filesystem::absolute(file, error), error);
  for (const std::filesystem::path& folder :
       {std::filesystem::weakly_canonical(given.parent_path(), error),
        std::filesystem::weakly_canonical(given, error).parent_path()}) {
    const std::filesystem::path relative = real.lexically_relative(folder);
    if (!error && !relative.empty() && *relative.begin() != "..") return true;
  }
  return false;
}

/// The files the model's assembly refers to (AP203 / AP214 external references, which the reader
/// would open), checked before it does: inside the model's folder unless `anywhere`, and regular
/// files (a FIFO would block the reader).
void check_external_references(const std::filesystem::path& path,
                               const Handle(XSControl_WorkSession) & session,
                               bool anywhere) {
  STEPConstruct_ExternRefs references(session);
  references.LoadExternRefs();
  for (Standard_Integer i = 1; i <= references.NbExternRefs(); ++i) {
    const Handle(TCollection_HAsciiString) format = references.Format(i);
    if (!format.IsNull() &&
        !format->IsSameString(new TCollection_HAsciiString("STEP AP203"), false) &&
        !format->IsSameString(new TCollection_HAsciiString("STEP AP214"), false)) {
      continue;  // a document of another kind: the reader leaves it alone
    }
    const Standard_CString name = references.FileName(i);
    if (name == nullptr || name[0] == '\0') continue;
    const std::filesystem::path referred = std::filesystem::path(name).is_absolute()
                                               ? std::filesystem::path(name)
                                               : path.parent_path() / name;
    if (!anywhere && !inside_model_folder(path, referred)) {
      fail(path,
           "it refers to '" + printable_name(name) +
               "', which is outside the model's folder: voxhash reads only files in the folder of "
               "the model (allow others with --files-outside-folder, or the scene model's "
               "\"files_outside_folder\": true)");
    }
    try {
      (void)open_input(referred);
    } catch (const InvalidInput& e) {
      fail(path,
           "it refers to '" + printable_name(name) + "', which cannot be read (" + e.what() + ")");
    }
  }
}

/// The first failure the reader recorded while loading the file's entities (a reference to an
/// entity of the wrong type, a missing parameter), which OpenCASCADE 7.6's transfer would
/// dereference as a null entity; empty when there is none.
std::string first_load_failure(const STEPControl_Reader& reader) {
  const Handle(XSControl_WorkSession)& session = reader.WS();
  Interface_CheckIterator checks               = session->ModelCheckList(false);
  for (checks.Start(); checks.More(); checks.Next()) {
    const Handle(Interface_Check)& check = checks.Value();
    if (check.IsNull() || check->NbFails() == 0) continue;
    std::string where                            = "the file";
    const Handle(Interface_InterfaceModel) model = reader.Model();
    if (checks.Number() > 0 && !model.IsNull() && checks.Number() <= model->NbEntities()) {
      const Handle(Standard_Transient) entity      = model->Value(checks.Number());
      const Handle(TCollection_HAsciiString) label = model->StringLabel(entity);
      where = "entity " + std::string(label.IsNull() ? "?" : label->ToCString()) + " (" +
              model->TypeName(entity, false) + ")";
    }
    return where + ": " + printable_name(check->CFail(1));
  }
  return {};
}

/// A leaf of the assembly tree: its shape placed where its instance puts it.
struct Leaf {
  std::vector<std::string> path;  // names from the root down to the leaf
  TopoDS_Shape shape;
};

class AssemblyWalk {
 public:
  AssemblyWalk(const std::filesystem::path& path, const Handle(XCAFDoc_ShapeTool) & tool)
      : m_path(path), m_tool(tool) {}

  void add_root(const TDF_Label& root) {
    std::vector<std::string> names{label_name(root)};
    walk(root, TopLoc_Location(), names, 0);
  }

  [[nodiscard]] std::vector<Leaf>& leaves() { return m_leaves; }

 private:
  void walk(const TDF_Label& label,
            const TopLoc_Location& location,
            std::vector<std::string>& names,
            int depth) {
    if (depth > kMaxAssemblyDepth) {
      fail(m_path,
           "its assembly tree is more than " + std::to_string(kMaxAssemblyDepth) + " levels deep");
    }
    if (m_tool->IsReference(label)) {
      TDF_Label referred;
      if (m_tool->GetReferredShape(label, referred)) {
        walk(referred, location * m_tool->GetLocation(label), names, depth + 1);
      }
      return;
    }
    if (m_tool->IsAssembly(label)) {
      TDF_LabelSequence components;
      m_tool->GetComponents(label, components, false);
      for (const TDF_Label& component : components) {
        TDF_Label referred;
        if (!m_tool->GetReferredShape(component, referred)) continue;
        std::string name = label_name(component);
        if (is_placeholder_instance_name(name)) name = label_name(referred);
        names.push_back(std::move(name));
        walk(referred, location * m_tool->GetLocation(component), names, depth + 1);
        names.pop_back();
      }
      return;
    }
    const TopoDS_Shape shape = XCAFDoc_ShapeTool::GetShape(label);
    if (!shape.IsNull()) m_leaves.push_back({names, shape.Moved(location)});
  }

  const std::filesystem::path& m_path;
  Handle(XCAFDoc_ShapeTool) m_tool;
  std::vector<Leaf> m_leaves;
};

/// Each leaf's part name: its own name where no other leaf has it, else its assembly path
/// ("rig/arm/pin"), numbered where even paths repeat ("rig/pin #2"); control characters as '?'.
std::vector<std::string> part_names(const std::vector<Leaf>& leaves) {
  std::vector<std::string> names;
  std::map<std::string, std::size_t> count;
  for (const Leaf& leaf : leaves)
    ++count[leaf.path.back()];
  for (const Leaf& leaf : leaves) {
    std::string name = leaf.path.back();
    if (count[name] > 1) {
      name.clear();
      for (const std::string& step : leaf.path) {
        if (step.empty()) continue;
        name += (name.empty() ? "" : "/") + step;
      }
    }
    names.push_back(printable_name(name.empty() ? "unnamed" : name));
  }
  std::map<std::string, std::size_t> repeats, seen;
  for (const std::string& name : names)
    ++repeats[name];
  for (std::string& name : names) {
    if (repeats[name] > 1) name += " #" + std::to_string(++seen[name]);
  }
  return names;
}

/// A position's bit pattern, with -0 as +0, for welding the corners faces share.
struct PositionKey {
  std::uint32_t x, y, z;
  bool operator==(const PositionKey&) const = default;
};

struct PositionKeyHash {
  std::size_t operator()(const PositionKey& key) const {
    std::uint64_t h = key.x;
    h               = h * 0x9E3779B97F4A7C15ull ^ key.y;
    h               = h * 0x9E3779B97F4A7C15ull ^ key.z;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

std::uint32_t bits(float value) {
  return std::bit_cast<std::uint32_t>(value == 0.0f ? 0.0f : value);
}

/// The tessellated leaves as one mesh, a part per leaf that has triangles.
class MeshBuilder {
 public:
  explicit MeshBuilder(const std::filesystem::path& path) : m_path(path) {}

  /// Appends the triangles of `shape`'s faces as part `name`; returns how many faces had no
  /// triangulation.
  std::size_t add_part(const TopoDS_Shape& shape, const std::string& name, std::size_t& faces) {
    std::size_t untessellated = 0;
    std::optional<std::uint32_t> part;
    for (TopExp_Explorer explorer(shape, TopAbs_FACE); explorer.More(); explorer.Next()) {
      const TopoDS_Face& face = TopoDS::Face(explorer.Current());
      ++faces;
      TopLoc_Location where;
      const Handle(Poly_Triangulation)& triangulation = BRep_Tool::Triangulation(face, where);
      if (triangulation.IsNull() || triangulation->NbTriangles() == 0) {
        ++untessellated;
        continue;
      }
      if (!part) {
        part = static_cast<std::uint32_t>(m_mesh.part_names.size());
        m_mesh.part_names.push_back(name);
      }
      const gp_Trsf transform = where.Transformation();
      // A reversed face, or a mirroring placement, turns the triangles' winding over.
      const bool flip = (face.Orientation() == TopAbs_REVERSED) != transform.IsNegative();
      m_local.resize(static_cast<std::size_t>(triangulation->NbNodes()));
      for (Standard_Integer n = 1; n <= triangulation->NbNodes(); ++n)
        m_local[static_cast<std::size_t>(n - 1)] =
            add_vertex(triangulation->Node(n).Transformed(transform));
      for (Standard_Integer t = 1; t <= triangulation->NbTriangles(); ++t) {
        Standard_Integer a = 0, b = 0, c = 0;
        triangulation->Triangle(t).Get(a, b, c);
        if (flip) std::swap(b, c);
        const std::array<std::uint32_t, 3> corner = {m_local[static_cast<std::size_t>(a - 1)],
                                                     m_local[static_cast<std::size_t>(b - 1)],
                                                     m_local[static_cast<std::size_t>(c - 1)]};
        if (!m_finite[corner[0]] || !m_finite[corner[1]] || !m_finite[corner[2]]) {
          ++m_mesh.dropped_triangles;
          continue;
        }
        m_mesh.triangles.insert(m_mesh.triangles.end(), corner.begin(), corner.end());
        m_triangle_parts.push_back(*part);
      }
    }
    return untessellated;
  }

  Mesh finish() {
    if (m_mesh.part_names.size() > 1) m_mesh.triangle_parts = std::move(m_triangle_parts);
    return std::move(m_mesh);
  }

 private:
  std::uint32_t add_vertex(const gp_Pnt& position) {
    const Float3 p{static_cast<float>(position.X()),
                   static_cast<float>(position.Y()),
                   static_cast<float>(position.Z())};
    const auto next = static_cast<std::uint32_t>(m_mesh.vertices.size());
    if (m_mesh.vertices.size() == std::numeric_limits<std::uint32_t>::max()) {
      fail(m_path, "more than 2^32 - 1 vertices");
    }
    const bool finite = std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
    if (finite) {
      const auto [found, added] =
          m_welded.try_emplace(PositionKey{bits(p.x), bits(p.y), bits(p.z)}, next);
      if (!added) return found->second;
    } else {
      ++m_mesh.non_finite_vertices;
    }
    m_mesh.vertices.push_back(p);
    m_finite.push_back(finite);
    return next;
  }

  const std::filesystem::path& m_path;
  Mesh m_mesh;
  std::vector<std::uint32_t> m_triangle_parts;
  std::vector<std::uint32_t> m_local;  // the current face's nodes in m_mesh
  std::vector<bool> m_finite;          // per vertex of m_mesh
  std::unordered_map<PositionKey, std::uint32_t, PositionKeyHash> m_welded;
};

/// Up to kNamedParts names, quoted, and how many more there are.
std::string quoted_names(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < std::min(names.size(), kNamedParts); ++i)
    text += (i ? ", '" : "'") + names[i] + "'";
  if (names.size() > kNamedParts)
    text += " and " + std::to_string(names.size() - kNamedParts) + " more";
  return text;
}

/// Closes the document however the read ends.
struct OpenDocument {
  Handle(XCAFApp_Application) application = XCAFApp_Application::GetApplication();
  Handle(TDocStd_Document) document;
  OpenDocument() { application->NewDocument("MDTV-XCAF", document); }
  ~OpenDocument() {
    if (!document.IsNull() && document->IsOpened()) application->Close(document);
  }
  OpenDocument(const OpenDocument&)            = delete;
  OpenDocument& operator=(const OpenDocument&) = delete;
};

StepMesh read_step(const std::filesystem::path& path, const LoadOptions& options) {
  STEPCAFControl_Reader reader;
  reader.SetNameMode(true);
  reader.SetColorMode(false);
  reader.SetLayerMode(false);
  reader.SetPropsMode(false);
  reader.SetGDTMode(false);
  reader.SetMatMode(false);
  reader.SetViewMode(false);
  if (reader.ReadFile(path.c_str()) != IFSelect_RetDone) {
    fail(path, "not a valid STEP file (OpenCASCADE cannot parse it: empty, truncated or not STEP)");
  }
  STEPControl_Reader& step = reader.ChangeReader();
  if (step.NbRootsForTransfer() == 0) fail(path, "the file holds no shapes");
  if (const std::string failure = first_load_failure(step); !failure.empty()) {
    fail(path, "not a valid STEP file: " + failure);
  }
  check_external_references(path, step.WS(), options.files_outside_folder);

  // The coordinates in the unit the file declares, where it declares one OpenCASCADE names (else
  // in millimetres, OpenCASCADE's own, into which it converts every representation's unit).
  StepMesh out;
  TColStd_SequenceOfAsciiString lengths, angles, solid_angles;
  step.FileUnits(lengths, angles, solid_angles);
  if (lengths.Length() == 1) {
    const double meters = meters_in_unit(lengths.First().ToCString());
    if (meters > 0) out.meters_per_unit = meters;
  }
  OpenDocument open;
  XCAFDoc_DocumentTool::SetLengthUnit(open.document, out.meters_per_unit);
  if (!reader.Transfer(open.document))
    fail(path, "OpenCASCADE could not transfer any shape from it");

  const Handle(XCAFDoc_ShapeTool) tool = XCAFDoc_DocumentTool::ShapeTool(open.document->Main());
  TDF_LabelSequence roots;
  tool->GetFreeShapes(roots);
  AssemblyWalk walk(path, tool);
  for (const TDF_Label& root : roots)
    walk.add_root(root);
  std::vector<Leaf>& leaves = walk.leaves();
  if (leaves.empty()) fail(path, "the file holds no shapes");

  Bnd_Box box;
  for (const Leaf& leaf : leaves)
    BRepBndLib::Add(leaf.shape, box, false);
  if (box.IsVoid()) fail(path, "its shapes hold no geometry");
  double x0 = 0, y0 = 0, z0 = 0, x1 = 0, y1 = 0, z1 = 0;
  box.Get(x0, y0, z0, x1, y1, z1);
  const double longest = std::max({x1 - x0, y1 - y0, z1 - z0});
  const double unit = options.meters_per_unit > 0 ? options.meters_per_unit : out.meters_per_unit;
  const double deflection =
      options.deflection > 0 ? options.deflection / unit : options.relative_deflection * longest;
  if (!(deflection > 0) || !std::isfinite(deflection)) {
    fail(path,
         "its shapes have no extent to tessellate (bounding box " + std::to_string(longest) + ")");
  }

  // Each distinct shape once: its instances share its faces, and so their triangulation.
  TopTools_MapOfShape meshed;
  for (const Leaf& leaf : leaves) {
    TopoDS_Shape prototype = leaf.shape.Located(TopLoc_Location());
    prototype.Orientation(TopAbs_FORWARD);
    if (!meshed.Add(prototype)) continue;
    try {
      BRepMesh_IncrementalMesh mesher(prototype, deflection, false, kAngularDeflection, false);
    } catch (const Standard_Failure&) {
      // Its faces stay without triangles, and are counted below.
    }
  }

  const std::vector<std::string> names = part_names(leaves);
  MeshBuilder builder(path);
  std::size_t faces = 0, untessellated = 0;
  std::vector<std::string> failed_parts, faceless_parts;
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    const std::size_t before = faces;
    const std::size_t failed = builder.add_part(leaves[i].shape, names[i], faces);
    untessellated += failed;
    if (failed > 0) failed_parts.push_back(names[i]);
    if (faces == before) faceless_parts.push_back(names[i]);
  }
  out.mesh = builder.finish();
  if (faces == 0) {
    fail(path, "its shapes have no faces to tessellate (only points, curves or wireframes)");
  }
  if (out.mesh.triangles.empty() && out.mesh.dropped_triangles == 0) {
    fail(path, "none of its " + std::to_string(faces) + " faces could be tessellated");
  }
  if (untessellated > 0) {
    out.warnings.push_back(
        path.string() + ": " + std::to_string(untessellated) + " of its " + std::to_string(faces) +
        " faces could not be tessellated and are left out (in " + quoted_names(failed_parts) + ")");
  }
  if (!faceless_parts.empty()) {
    // Wireframes, and shapes OpenCASCADE could not translate (an unbounded face comes back empty).
    out.warnings.push_back(path.string() + ": " + std::to_string(faceless_parts.size()) +
                           " of its " + std::to_string(leaves.size()) +
                           " parts have no faces (empty, or only points and curves) and are left "
                           "out: " +
                           quoted_names(faceless_parts));
  }
  return out;
}

}  // namespace

StepMesh load_step_mesh(const std::filesystem::path& path, const LoadOptions& options) {
  (void)open_input(path);  // the same messages as every loader for missing or unreadable files
  std::error_code error;
  if (std::filesystem::file_size(path, error) == 0 && !error) fail(path, "the file is empty");
  const std::lock_guard lock(occt_mutex());
  silence_occt();
  try {
    return read_step(path, options);
  } catch (const Standard_Failure& e) {
    fail(path,
         std::string("OpenCASCADE failed reading it: ") + e.DynamicType()->Name() + ": " +
             printable_name(e.GetMessageString()));
  }
}

}  // namespace voxhash::io
