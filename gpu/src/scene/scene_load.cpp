// A parsed Scene made real: units and rotations (Euler angles, quaternions, slerp), keyframe
// interpolation, each model read and placed on the host (oneTBB over its points), the grid fitted
// to everywhere the motion takes the placed models (cubic voxels, the grid's limit of 2^21 voxels
// per axis checked with a suggested voxel size). scene_open.cpp hands them to a Pipeline.
#include "exec/host_parallel.hpp"

#include <voxhash/error.hpp>
#include <voxhash/scene.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <numbers>
#include <string>
#include <vector>

namespace voxhash {
namespace {

struct UnitName {
  LengthUnit unit;
  std::string_view name;
  double meters;
};
constexpr std::array kUnits{UnitName{LengthUnit::Meter, "m", 1.0},
                            UnitName{LengthUnit::Centimeter, "cm", 0.01},
                            UnitName{LengthUnit::Millimeter, "mm", 0.001},
                            UnitName{LengthUnit::Inch, "in", 0.0254},
                            UnitName{LengthUnit::Foot, "ft", 0.3048}};

const UnitName& unit_entry(LengthUnit unit) {
  return *std::find_if(
      kUnits.begin(), kUnits.end(), [&](const UnitName& u) { return u.unit == unit; });
}

Quaternion multiply(const Quaternion& a, const Quaternion& b) {
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
          a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

Quaternion axis_angle(double x, double y, double z, double degrees) {
  const double half = degrees * std::numbers::pi / 360.0;
  const double s    = std::sin(half);
  return {std::cos(half), x * s, y * s, z * s};
}

/// p -> R (scale p) + t in double precision.
struct Placement {
  double r[9]  = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double scale = 1;
  double t[3]  = {0, 0, 0};

  [[nodiscard]] Float3 apply(Float3 p) const {
    const double x = scale * p.x, y = scale * p.y, z = scale * p.z;
    return {static_cast<float>(r[0] * x + r[1] * y + r[2] * z + t[0]),
            static_cast<float>(r[3] * x + r[4] * y + r[5] * z + t[1]),
            static_cast<float>(r[6] * x + r[7] * y + r[8] * z + t[2])};
  }
};

using Matrix3 = std::array<double, 9>;

constexpr Matrix3 kIdentity{1, 0, 0, 0, 1, 0, 0, 0, 1};
/// Z-up axes to Y-up ones: (x, y, z) -> (x, z, -y), a quarter turn about x; and back.
constexpr Matrix3 kZToY{1, 0, 0, 0, 0, 1, 0, -1, 0};
constexpr Matrix3 kYToZ{1, 0, 0, 0, 0, -1, 0, 1, 0};

/// a b; exact where either is a signed permutation (each entry one product, the rest zeros).
Matrix3 multiply(const Matrix3& a, const Matrix3& b) {
  Matrix3 m{};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j)
      m[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
  }
  return m;
}

/// The scene's axes to the world's.
const Matrix3& world_axes(UpAxis scene_up) {
  return scene_up == UpAxis::Z ? kZToY : kIdentity;
}

/// A file's coordinates as its loader returns them to the scene's axes: assimp's IFC importer
/// turns IFC's Z-up coordinates to Y-up ((x, y, z) -> (x, z, -y)), which is undone first, so that
/// the file's own axes are what its "up" speaks of; then those axes turned to the scene's.
Matrix3 file_axes(const Scene& scene, const std::filesystem::path& path, std::optional<UpAxis> up) {
  const bool ifc        = is_ifc_file(path);
  const UpAxis file     = file_up(scene, path, up);
  const UpAxis in_scene = scene_up(scene);
  const Matrix3& turn   = file == in_scene ? kIdentity : (file == UpAxis::Z ? kZToY : kYToZ);
  return ifc ? multiply(turn, kYToZ) : turn;
}

/// `axes_after` R `axes_before` for the pose's rotation R, the translation through `axes_after`.
Placement placement(const Pose& pose,
                    double scale,
                    const Matrix3& axes_after  = kIdentity,
                    const Matrix3& axes_before = kIdentity) {
  Placement p;
  const Matrix3 m = multiply(axes_after, multiply(rotation_matrix(pose.rotate), axes_before));
  std::copy(m.begin(), m.end(), p.r);
  p.scale           = scale;
  const double t[3] = {pose.translate.x, pose.translate.y, pose.translate.z};
  for (int i = 0; i < 3; ++i)
    p.t[i] = axes_after[3 * i] * t[0] + axes_after[3 * i + 1] * t[1] + axes_after[3 * i + 2] * t[2];
  return p;
}

/// `inner` then `outer`, as one placement (scale folded into the matrix).
Placement then(const Placement& inner, const Placement& outer) {
  Placement p;
  p.scale = 1;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      p.r[3 * i + j] = outer.scale * inner.scale *
                       (outer.r[3 * i] * inner.r[j] + outer.r[3 * i + 1] * inner.r[3 + j] +
                        outer.r[3 * i + 2] * inner.r[6 + j]);
    }
    p.t[i] = outer.scale * (outer.r[3 * i] * inner.t[0] + outer.r[3 * i + 1] * inner.t[1] +
                            outer.r[3 * i + 2] * inner.t[2]) +
             outer.t[i];
  }
  return p;
}

/// A keyframed model's pose at `time` in the world's axes (what the pipeline applies), scale 1.
Placement world_pose(const Scene& scene, int index, double time) {
  const bool z_up = scene_up(scene) == UpAxis::Z;
  return placement(
      model_pose(scene, index, time), 1.0, z_up ? kZToY : kIdentity, z_up ? kYToZ : kIdentity);
}

constexpr Bounds kEmptyBounds{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};

void grow(Bounds& b, Float3 p) {
  b.min = {std::min(b.min.x, p.x), std::min(b.min.y, p.y), std::min(b.min.z, p.z)};
  b.max = {std::max(b.max.x, p.x), std::max(b.max.y, p.y), std::max(b.max.z, p.z)};
}

bool finite(Float3 p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
}

/// Points per chunk of the parallel loops over a model's points.
constexpr std::size_t kGrain = std::size_t{1} << 16;

/// Places the model's points and mesh vertices, and measures them (in parallel: a cloud can hold
/// hundreds of millions of points; the bounds and radius are the same whatever the chunks).
/// Returns the largest |x|, |y| or |z| of the finite points and vertices as they were read.
float place(PlacedModel& model, const Placement& p) {
  model.bounds  = kEmptyBounds;
  model.radius  = 0;
  float largest = 0;
  std::mutex mutex;
  for (std::vector<Float3>* points : {&model.cloud.points, &model.cloud.mesh.vertices}) {
    parallel_chunks(points->size(), kGrain, [&](std::size_t begin, std::size_t end) {
      Bounds bounds = kEmptyBounds;
      float radius = 0, read = 0;
      for (std::size_t i = begin; i < end; ++i) {
        Float3& v = (*points)[i];
        if (finite(v)) read = std::max({read, std::fabs(v.x), std::fabs(v.y), std::fabs(v.z)});
        v = p.apply(v);
        if (!finite(v)) continue;
        grow(bounds, v);
        radius = std::max(radius, std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z));
      }
      const std::lock_guard lock(mutex);
      model.bounds.min = {std::min(model.bounds.min.x, bounds.min.x),
                          std::min(model.bounds.min.y, bounds.min.y),
                          std::min(model.bounds.min.z, bounds.min.z)};
      model.bounds.max = {std::max(model.bounds.max.x, bounds.max.x),
                          std::max(model.bounds.max.y, bounds.max.y),
                          std::max(model.bounds.max.z, bounds.max.z)};
      model.radius     = std::max(model.radius, radius);
      largest          = std::max(largest, read);
    });
  }
  return largest;
}

/// The gap between neighbouring 32-bit floats at magnitude `x`: how finely a coordinate that far
/// from the origin is kept.
double float_spacing(double x) {
  const float f = static_cast<float>(std::fabs(x));
  return static_cast<double>(std::nextafter(f, INFINITY)) - f;
}

/// The box `model` can reach under the scene's motion (its placed bounds for a static scene).
Bounds reach(const Scene& scene, int index, const PlacedModel& model) {
  const SceneMotion& motion = scene.motion;
  if (motion.kind == MotionKind::Swing) {
    // The swing turns each model about the origin and moves it up to `separation` along x and
    // 0.15 along y; a deformation grows the radius by at most amount/2 (wobble) or amount r^2
    // (bend).
    const float a = motion.deformation == Deformation::None ? 0.0f : std::fabs(motion.amount);
    const float r = model.radius * (1 + a / 2) + a * model.radius * model.radius;
    const float s = std::fabs(motion.separation);
    return {{-s - r, -0.15f - r, -r}, {s + r, 0.15f + r, r}};
  }
  if (motion.kind == MotionKind::None) return model.bounds;
  // Keyframes: the rest box's corners under poses sampled densely over the keyframes.
  const std::vector<Keyframe>& keys = scene.models[index].keyframes;
  std::vector<double> times{scene.time};
  if (!keys.empty()) {
    constexpr int kSamples = 256;
    const double t0 = keys.front().time, t1 = keys.back().time;
    for (int s = 0; s <= kSamples; ++s)
      times.push_back(t0 + (t1 - t0) * s / kSamples);
    for (const Keyframe& k : keys)
      times.push_back(k.time);
  }
  Bounds out = kEmptyBounds;
  for (const double t : times) {
    const Placement p = world_pose(scene, index, t);
    for (int c = 0; c < 8; ++c) {
      grow(out,
           p.apply({c & 1 ? model.bounds.max.x : model.bounds.min.x,
                    c & 2 ? model.bounds.max.y : model.bounds.min.y,
                    c & 4 ? model.bounds.max.z : model.bounds.min.z}));
    }
  }
  return out;
}

std::array<std::int64_t, 3> cells(const std::array<double, 3>& side, double voxel) {
  std::array<std::int64_t, 3> r{};
  for (int a = 0; a < 3; ++a) {
    const double n = std::ceil(side[a] / voxel - 1e-6);
    r[a]           = !(n <= 1e12) ? std::int64_t{1'000'000'000'000}  // NaN and infinity too
                                  : std::max<std::int64_t>(1, static_cast<std::int64_t>(n));
  }
  return r;
}

/// Whether a grid of r voxels per axis is one Grid accepts (at most kMaxGridResolution an axis;
/// beyond 31 key bits it runs on 64-bit keys).
bool fits(const std::array<std::int64_t, 3>& r) {
  return std::max({r[0], r[1], r[2]}) <= kMaxGridResolution;
}

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

/// The smallest voxel size (rounded up to 2 significant digits) whose grid fits.
double smallest_voxel(const std::array<double, 3>& side, double voxel) {
  double lo = voxel, hi = std::max({side[0], side[1], side[2]}) * 2;
  for (int i = 0; i < 200; ++i) {
    const double mid                   = std::sqrt(lo * hi);
    (fits(cells(side, mid)) ? hi : lo) = mid;
  }
  const double digits = std::pow(10.0, std::floor(std::log10(hi)) - 1);
  double rounded      = std::ceil(hi / digits) * digits;
  while (!fits(cells(side, rounded)))
    rounded += digits;
  return rounded;
}

/// Two models whose sizes (bounding-box diagonals, as placed) differ by more than
/// kModelSizeRatioWarning: most often one file is in another unit than the scene assumes.
void warn_about_sizes(const Scene& scene, LoadedScene& loaded) {
  std::array<double, 2> diagonal{};
  for (int i = 0; i < 2; ++i) {
    const Bounds& b = loaded.models[i].bounds;
    const double d[3]{
        double(b.max.x) - b.min.x, double(b.max.y) - b.min.y, double(b.max.z) - b.min.z};
    diagonal[i] = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  }
  const int big = diagonal[1] > diagonal[0] ? 1 : 0;
  if (!(diagonal[1 - big] > 0) || !std::isfinite(diagonal[big]) ||
      diagonal[big] <= kModelSizeRatioWarning * diagonal[1 - big])
    return;
  const std::string unit(to_string(scene.unit));
  loaded.warnings.push_back(
      scene.file + ": model '" + loaded.models[big].name + "' is " +
      std::to_string(std::llround(diagonal[big] / diagonal[1 - big])) + "x model '" +
      loaded.models[1 - big].name + "' (bounding-box diagonals " + number_text(diagonal[big]) +
      " and " + number_text(diagonal[1 - big]) + " " + unit +
      "): a unit missing? (each model's \"unit\" and its transform's \"scale\")");
}

/// The model's file name, or its set's file names joined by ", ".
std::string file_names(const SceneModel& model) {
  if (!model.is_set()) return model.path.filename().string();
  std::string out;
  for (const SceneFile& file : model.files)
    out += (out.empty() ? "" : ", ") + file.path.filename().string();
  return out;
}

/// Points are kept as 32-bit floats, in the file (as read) and in the scene (as placed). Far from
/// the origin, as in georeferenced scans (UTM: millions of metres), floats are coarse: 0.5 m apart
/// at 4.5e6. Where that spacing passes 1/16 of a voxel a point lands in a wrong voxel often enough
/// to matter, and the scene gets a warning naming the model, the spacing and the way out.
void warn_about_precision(const Scene& scene,
                          LoadedScene& loaded,
                          const std::array<double, 2>& file_spacing) {
  const GridParams& g = loaded.config.grid;
  const Grid grid(g);
  // The voxel the scene asks for, else the grid's (whose float bounds far out are rounded).
  const double voxel     = scene.grid.voxel_size > 0
                               ? scene.grid.voxel_size
                               : std::min({grid.voxel_size.x, grid.voxel_size.y, grid.voxel_size.z});
  const double scene_far = std::max({std::fabs(g.bounds.min.x),
                                     std::fabs(g.bounds.min.y),
                                     std::fabs(g.bounds.min.z),
                                     std::fabs(g.bounds.max.x),
                                     std::fabs(g.bounds.max.y),
                                     std::fabs(g.bounds.max.z)});
  const std::string unit(to_string(scene.unit));
  for (int i = 0; i < 2; ++i) {
    const double spacing = std::max(file_spacing[i], float_spacing(scene_far));
    if (!(spacing > voxel / 16)) continue;
    const bool in_file = file_spacing[i] >= float_spacing(scene_far);
    loaded.warnings.push_back(
        scene.file + ": model '" + loaded.models[i].name + "': its coordinates " +
        (in_file ? "in " + file_names(scene.models[i]) : std::string("as placed")) +
        " lie so far from the origin that 32-bit floats there are " + number_text(spacing) + " " +
        unit + " apart, more than 1/16 of the " + number_text(voxel) + " " + unit +
        " voxels: its voxels are unreliable. " +
        (in_file ? "Move the model near the origin in its file (e.g. subtract a fixed offset from "
                   "every coordinate of both files)"
                 : "Place the models near the origin (their transforms' translate)") +
        "; voxhash keeps coordinates as 32-bit floats");
  }
}

/// What the scene says of its frames' configuration: the motion at rest, the algorithm and the GPU
/// budget (the grid is fitted apart).
PipelineConfig scene_config(const Scene& scene) {
  PipelineConfig config;
  config.animation  = scene_animation(scene.motion);
  config.algorithm  = scene.algorithm.value_or(TableKind::Cuckoo);
  config.gpu_budget = scene.gpu_budget.value_or(GpuBudget{});
  return config;
}

constexpr std::uint32_t kNoPart = std::numeric_limits<std::uint32_t>::max();

/// How a file is read: its files_outside_folder, its unit (empty: the file's own), and the
/// deflection exact geometry (STEP) is tessellated at, a quarter of a voxel of a file placed at
/// `scale`.
LoadOptions file_load_options(const Scene& scene,
                              const SceneDefaults& defaults,
                              bool files_outside_folder,
                              const std::optional<LengthUnit>& unit,
                              double scale) {
  LoadOptions options{.files_outside_folder = files_outside_folder};
  if (unit) options.meters_per_unit = meters_per(*unit);
  // A quarter of a voxel: from the voxel size where it is known before the models are (given, or
  // given bounds over a resolution), else a quarter of the resolution's share of the model's own
  // size (the grid's longest side is at least the model's).
  const int resolution = scene.grid.resolution > 0 ? scene.grid.resolution : defaults.resolution;
  double voxel         = scene.grid.voxel_size;
  if (voxel <= 0 && scene.grid.bounds && resolution > 0) {
    const Bounds& b = *scene.grid.bounds;
    voxel           = std::max(
                {double{b.max.x} - b.min.x, double{b.max.y} - b.min.y, double{b.max.z} - b.min.z}) /
            resolution;
  }
  if (voxel > 0) {
    options.deflection = voxel / 4 * meters_per(scene.unit) / scale;
  } else if (resolution > 0) {
    options.relative_deflection = 1.0 / (4.0 * resolution);
  }
  return options;
}

/// Metres in one of a file's coordinate units: its entry's unit, else the unit the file declares,
/// else the scene's.
double file_meters_per_unit(const Scene& scene,
                            const std::optional<LengthUnit>& unit,
                            const PointCloud& cloud) {
  return unit                        ? meters_per(*unit)
         : cloud.meters_per_unit > 0 ? cloud.meters_per_unit
                                     : meters_per(scene.unit);
}

/// The warning of a model file whose loader dropped non-finite points or vertices, and the
/// loader's own warnings.
void warn_about_dropped(const Scene& scene,
                        const std::string& name,
                        const std::filesystem::path& path,
                        const PointCloud& cloud,
                        LoadedScene& loaded) {
  if (cloud.dropped_non_finite || cloud.dropped_triangles) {
    loaded.warnings.push_back(
        scene.file + ": model '" + name + "' (" + path.filename().string() +
        "): " + std::to_string(cloud.dropped_non_finite) +
        (cloud.mesh.triangles.empty() ? " points" : " vertices") +
        " with a NaN or infinite coordinate dropped" +
        (cloud.dropped_triangles
             ? ", and the " + std::to_string(cloud.dropped_triangles) + " triangles that used them"
             : std::string()));
  }
  for (const std::string& warning : cloud.warnings)
    loaded.warnings.push_back(scene.file + ": model '" + name + "': " + warning);
}

/// Reads and places model `index` of a scene of two model files; returns the float spacing of its
/// coordinates as read, in scene units.
double load_model(const Scene& scene, int i, const SceneDefaults& defaults, LoadedScene& loaded) {
  const SceneModel& model  = scene.models[i];
  const std::string field  = "models[" + std::to_string(i) + "]";
  PlacedModel& placed      = loaded.models[i];
  placed.name              = model.name;
  const std::size_t points = scene_model_points(scene, i, defaults);
  try {
    placed.cloud = load_point_cloud(
        model.path, points, static_cast<std::uint64_t>(i) + 1, load_options(scene, i, defaults));
  } catch (const InvalidInput& e) {
    throw InvalidInput(scene.file + ": " + field + ".path: " + e.what());
  }
  if (model.as == ModelAs::Mesh && placed.cloud.mesh.triangles.empty()) {
    throw InvalidInput(scene.file + ": " + field + ".as: \"mesh\", but " + model.path.string() +
                       " is a point cloud (it has no faces); leave \"as\" out");
  }
  warn_about_dropped(scene, model.name, model.path, placed.cloud, loaded);
  if (model.as == ModelAs::Points) placed.cloud.mesh = Mesh{};  // its samples only
  const double scale =
      model.scale * file_meters_per_unit(scene, model.unit, placed.cloud) / meters_per(scene.unit);
  const Matrix3& world = world_axes(scene_up(scene));
  const Matrix3 file   = file_axes(scene, model.path, model.up);
  // Keyframed models are posed by the pipeline every frame; the host only scales them (and turns
  // them into the world's axes).
  const float read =
      place(placed,
            scene.motion.kind == MotionKind::Keyframes ? placement({}, scale, world, file)
                                                       : placement(model.pose, scale, world, file));
  return float_spacing(read) * scale;
}

/// A selection set's file, read once whichever sets list it: its cloud (a mesh file's triangles;
/// the few samples read with them are not used) and which set each of its parts is in.
struct SetSource {
  const SceneFile* file = nullptr;  // the first entry naming it
  std::string field;                // "set_a.files[0]", for errors
  PointCloud cloud;
  std::vector<std::string> part_names;  // at least one ("" for a file without part names)
  std::vector<int> set_of_part;         // 0 (set A), 1 (set B) or -1 (neither)
  float read = 0;                       // the largest |coordinate| as read
};

bool is_mesh(const SetSource& source) {
  return !source.cloud.mesh.triangles.empty();
}

/// Part `part` of a source holds triangle / point `i` (a file without part ids is one part).
std::uint32_t part_of(const std::vector<std::uint32_t>& parts, std::size_t i) {
  return parts.empty() ? 0 : parts[i];
}

/// Quoted, ", "-joined: the set's patterns or the first names of a list.
std::string quoted_list(const std::vector<std::string>& names, std::size_t most) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < most; ++i)
    out += (i ? ", '" : "'") + names[i] + "'";
  if (names.size() > most) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

/// Reads a scene of selection sets: each file once, each part assigned to the set whose pattern
/// matches its name (both: an error), every set's parts placed and joined into one model (a mesh
/// of their triangles, sampled into the set's points; or a cloud of their points).
void load_sets(const Scene& scene,
               const SceneDefaults& defaults,
               LoadedScene& loaded,
               std::array<double, 2>& file_spacing) {
  const char* const keys[2] = {"set_a", "set_b"};
  std::vector<SetSource> sources;
  std::array<std::vector<std::size_t>, 2> source_of;          // per set, per file entry
  std::map<std::filesystem::path, std::size_t> source_index;  // by absolute path, normalized
  for (int i = 0; i < 2; ++i) {
    const std::vector<SceneFile>& files = scene.models[i].files;
    for (std::size_t j = 0; j < files.size(); ++j) {
      const auto [found, added] = source_index.emplace(
          std::filesystem::absolute(files[j].path).lexically_normal(), sources.size());
      source_of[i].push_back(found->second);
      if (!added) continue;
      SetSource source;
      source.file  = &files[j];
      source.field = std::string(keys[i]) + ".files[" + std::to_string(j) + "]";
      try {
        source.cloud = load_point_cloud(files[j].path, 1, 1, load_options(scene, i, j, defaults));
      } catch (const InvalidInput& e) {
        throw InvalidInput(scene.file + ": " + source.field + ": " + e.what());
      }
      if (files[j].as == ModelAs::Mesh && !is_mesh(source)) {
        throw InvalidInput(scene.file + ": " + source.field + ".as: \"mesh\", but " +
                           files[j].path.string() +
                           " is a point cloud (it has no faces); leave \"as\" out");
      }
      warn_about_dropped(scene, scene.models[i].name, files[j].path, source.cloud, loaded);
      source.part_names = is_mesh(source) ? source.cloud.mesh.part_names : source.cloud.part_names;
      if (source.part_names.empty()) source.part_names.emplace_back();
      source.set_of_part.assign(source.part_names.size(), -1);
      for (const std::vector<Float3>* points :
           {&source.cloud.points, &source.cloud.mesh.vertices}) {
        for (const Float3 v : *points) {
          if (finite(v))
            source.read = std::max({source.read, std::fabs(v.x), std::fabs(v.y), std::fabs(v.z)});
        }
      }
      sources.push_back(std::move(source));
    }
  }

  // The patterns each set applies to each of its files: the set's, or the file entry's own.
  struct PatternList {
    std::string field;  // "set_a.parts", "set_a.files[1].parts"
    const std::vector<std::string>* patterns = nullptr;
    std::vector<std::size_t> matches;  // parts each pattern took
  };
  std::array<std::vector<PatternList>, 2> lists;
  std::array<std::vector<std::size_t>, 2> list_of;  // per set, per file entry
  for (int i = 0; i < 2; ++i) {
    const SceneModel& set = scene.models[i];
    lists[i].push_back({std::string(keys[i]) + ".parts", &set.parts, {}});
    for (std::size_t j = 0; j < set.files.size(); ++j) {
      if (set.files[j].parts.empty()) {
        list_of[i].push_back(0);
        continue;
      }
      list_of[i].push_back(lists[i].size());
      lists[i].push_back({std::string(keys[i]) + ".files[" + std::to_string(j) + "].parts",
                          &set.files[j].parts,
                          {}});
    }
    for (PatternList& list : lists[i])
      list.matches.assign(list.patterns->size(), 0);
  }
  // Each set's entry for each file (SIZE_MAX: the set does not list it).
  std::array<std::vector<std::size_t>, 2> entry_of;
  for (int i = 0; i < 2; ++i) {
    entry_of[i].assign(sources.size(), SIZE_MAX);
    for (std::size_t j = 0; j < source_of[i].size(); ++j)
      entry_of[i][source_of[i][j]] = j;
  }
  // Each part into the set whose pattern its name matches (the first that does), counted.
  std::array<std::size_t, 2> set_parts{};
  std::size_t neither = 0;
  for (std::size_t s = 0; s < sources.size(); ++s) {
    SetSource& source = sources[s];
    for (std::size_t p = 0; p < source.part_names.size(); ++p) {
      const std::string& name = source.part_names[p];
      std::array<PatternList*, 2> list{};
      std::array<std::size_t, 2> pattern{SIZE_MAX, SIZE_MAX};
      for (int i = 0; i < 2; ++i) {
        if (entry_of[i][s] == SIZE_MAX) continue;
        list[i]                                  = &lists[i][list_of[i][entry_of[i][s]]];
        const std::vector<std::string>& patterns = *list[i]->patterns;
        for (std::size_t k = 0; k < patterns.size() && pattern[i] == SIZE_MAX; ++k) {
          if (part_matches(patterns[k], name)) pattern[i] = k;
        }
      }
      if (pattern[0] != SIZE_MAX && pattern[1] != SIZE_MAX) {
        throw InvalidInput(
            scene.file + ": part '" + name + "' of " + source.file->path.filename().string() +
            " is in both sets: " + list[0]->field + "[" + std::to_string(pattern[0]) + "] '" +
            (*list[0]->patterns)[pattern[0]] + "' and " + list[1]->field + "[" +
            std::to_string(pattern[1]) + "] '" + (*list[1]->patterns)[pattern[1]] +
            "' match it (a part is checked in one set)");
      }
      for (int i = 0; i < 2; ++i) {
        if (pattern[i] == SIZE_MAX) continue;
        source.set_of_part[p] = i;
        ++list[i]->matches[pattern[i]];
        ++set_parts[i];
      }
      if (source.set_of_part[p] < 0) ++neither;
    }
  }
  for (int i = 0; i < 2; ++i) {
    const SceneModel& set = scene.models[i];
    if (set_parts[i] == 0) {
      std::vector<std::string> names, patterns;
      for (const std::size_t s : source_of[i]) {
        for (const std::string& name : sources[s].part_names)
          names.push_back(name);
      }
      for (const PatternList& list : lists[i])
        patterns.insert(patterns.end(), list.patterns->begin(), list.patterns->end());
      throw InvalidInput(scene.file + ": " + (lists[i].size() == 1 ? lists[i][0].field : keys[i]) +
                         ": no part of " + model_files(set) + " matches " +
                         quoted_list(patterns, patterns.size()) +
                         " (its parts: " + quoted_list(names, 8) + ")");
    }
    for (const PatternList& list : lists[i]) {
      for (std::size_t k = 0; k < list.patterns->size(); ++k) {
        if (list.matches[k] > 0) continue;
        loaded.warnings.push_back(scene.file + ": " + list.field + "[" + std::to_string(k) +
                                  "]: '" + (*list.patterns)[k] + "' matches no part of " +
                                  model_files(set) + " that is not matched before it");
      }
    }
  }
  const auto parts = [](std::size_t n) {
    return std::to_string(n) + (n == 1 ? " part" : " parts");
  };
  loaded.notes.push_back(scene.file + ": set A '" + scene.models[0].name + "' holds " +
                         parts(set_parts[0]) + ", set B '" + scene.models[1].name + "' " +
                         parts(set_parts[1]) + "; " + parts(neither) + " in neither set, left out");

  const Matrix3& world = world_axes(scene_up(scene));
  for (int i = 0; i < 2; ++i) {
    const SceneModel& set = scene.models[i];
    PlacedModel& placed   = loaded.models[i];
    placed.name           = set.name;
    // The set as the files' placements put it, then the set's own: in keyframed scenes only its
    // scale (the pipeline poses it every frame); turned into the world's axes last.
    const Placement outer = scene.motion.kind == MotionKind::Keyframes
                                ? placement({}, set.scale, world)
                                : placement(set.pose, set.scale, world);
    int meshes = -1, clouds = -1;  // a file entry of each kind
    Mesh mesh, sampled;            // the set's triangles; those of files read "as" points
    PointCloud& cloud = placed.cloud;
    for (std::size_t j = 0; j < set.files.size(); ++j) {
      const SceneFile& file       = set.files[j];
      const SetSource& source     = sources[source_of[i][j]];
      const bool as_mesh          = is_mesh(source) && file.as != ModelAs::Points;
      (as_mesh ? meshes : clouds) = static_cast<int>(j);
      const double scale = file.scale * file_meters_per_unit(scene, file.unit, source.cloud) /
                           meters_per(scene.unit);
      const Placement p =
          then(placement(file.pose, scale, kIdentity, file_axes(scene, file.path, file.up)), outer);
      file_spacing[i] = std::max(file_spacing[i], float_spacing(source.read) * scale);
      // Part ids in the set: this file's selected parts numbered after those before it.
      std::vector<std::uint32_t> part_id(source.part_names.size(), kNoPart);
      for (std::size_t q = 0; q < source.part_names.size(); ++q) {
        if (source.set_of_part[q] != i) continue;
        part_id[q] = static_cast<std::uint32_t>(cloud.part_names.size());
        cloud.part_names.push_back(source.part_names[q]);
      }
      if (!is_mesh(source)) {
        for (std::size_t k = 0; k < source.cloud.points.size(); ++k) {
          const std::uint32_t id = part_id[part_of(source.cloud.point_parts, k)];
          if (id == kNoPart) continue;
          cloud.points.push_back(p.apply(source.cloud.points[k]));
          cloud.point_parts.push_back(id);
        }
        continue;
      }
      Mesh& into       = as_mesh ? mesh : sampled;
      const Mesh& from = source.cloud.mesh;
      std::vector<std::uint32_t> index(from.vertices.size(), kNoPart);
      for (std::size_t t = 0; t < from.triangles.size() / 3; ++t) {
        const std::uint32_t id = part_id[part_of(from.triangle_parts, t)];
        if (id == kNoPart) continue;
        for (int c = 0; c < 3; ++c) {
          std::uint32_t& v = index[from.triangles[3 * t + c]];
          if (v == kNoPart) {
            v = static_cast<std::uint32_t>(into.vertices.size());
            into.vertices.push_back(p.apply(from.vertices[from.triangles[3 * t + c]]));
          }
          into.triangles.push_back(v);
        }
        into.triangle_parts.push_back(id);
      }
    }
    if (meshes >= 0 && clouds >= 0) {
      throw InvalidInput(scene.file + ": " + keys[i] + ": mixes meshes (" +
                         set.files[meshes].path.filename().string() + ") and point clouds (" +
                         set.files[clouds].path.filename().string() +
                         "): a set is one or the other; give the mesh files \"as\": \"points\" "
                         "to check them as points");
    }
    const std::size_t count = scene_model_points(scene, i, defaults);
    const auto sample       = [&](const Mesh& m) {
      std::vector<std::uint32_t> parts;
      std::vector<Float3> points =
          sample_surface(m, count, static_cast<std::uint64_t>(i) + 1, &parts);
      cloud.points.insert(cloud.points.end(), points.begin(), points.end());
      cloud.point_parts.insert(cloud.point_parts.end(), parts.begin(), parts.end());
    };
    try {
      if (!mesh.triangles.empty()) sample(mesh);
      if (!sampled.triangles.empty()) sample(sampled);
    } catch (const InvalidInput& e) {
      throw InvalidInput(scene.file + ": " + keys[i] + ": " + e.what());
    }
    if (cloud.points.empty()) {
      throw InvalidInput(scene.file + ": " + keys[i] + ": its parts hold no points");
    }
    mesh.part_names = cloud.part_names;
    cloud.mesh      = std::move(mesh);
    cloud.source    = model_files(set);
    // Bounds and radius of the placed points (placed already: the identity leaves them).
    place(placed, Placement{});
  }
}

}  // namespace

bool part_matches(std::string_view pattern, std::string_view name) {
  // One character: a byte, with the UTF-8 continuation bytes after it.
  const auto next = [](std::string_view text, std::size_t i) {
    ++i;
    while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80)
      ++i;
    return i;
  };
  const auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  // Greedy matching with one backtrack point, the last '*': linear in practice, never exponential.
  std::size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star   = p++;
      resume = n;
    } else if (p < pattern.size() && pattern[p] == '?') {
      ++p;
      n = next(name, n);
    } else if (p < pattern.size() && lower(pattern[p]) == lower(name[n])) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p      = star + 1;
      resume = next(name, resume);
      n      = resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

std::string model_files(const SceneModel& model) {
  if (!model.is_set()) return model.path.string();
  std::string out;
  for (const SceneFile& file : model.files)
    out += (out.empty() ? "" : ", ") + file.path.string();
  return out;
}

double meters_per(LengthUnit unit) {
  return unit_entry(unit).meters;
}

std::string_view to_string(LengthUnit unit) {
  return unit_entry(unit).name;
}

std::optional<LengthUnit> parse_length_unit(std::string_view name) {
  for (const UnitName& u : kUnits) {
    if (u.name == name) return u.unit;
  }
  return std::nullopt;
}

std::optional<double> parse_length(std::string_view text, LengthUnit unit) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && blank(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && blank(text.back()))
    text.remove_suffix(1);
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.' ||
          text[digits] == 'e' || text[digits] == 'E' || text[digits] == '+' ||
          text[digits] == '-')) {
    // an exponent's 'e' only when a digit follows it, so "1em" is not read as 1e...
    if ((text[digits] == 'e' || text[digits] == 'E') &&
        !(digits + 1 < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits + 1])) ||
                                       text[digits + 1] == '-' || text[digits + 1] == '+'))) {
      break;
    }
    ++digits;
  }
  double value            = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + digits, value);
  if (error != std::errc{} || end != text.data() + digits || digits == 0) return std::nullopt;
  std::string_view rest = text.substr(digits);
  while (!rest.empty() && blank(rest.front()))
    rest.remove_prefix(1);
  double factor = 1;
  if (!rest.empty()) {
    const std::optional<LengthUnit> given = parse_length_unit(rest);
    if (!given) return std::nullopt;
    factor = meters_per(*given) / meters_per(unit);
  }
  value *= factor;
  if (!(value >= 0) || !std::isfinite(value)) return std::nullopt;
  return value;
}

Quaternion quaternion_from_euler(double x_degrees, double y_degrees, double z_degrees) {
  return multiply(axis_angle(0, 0, 1, z_degrees),
                  multiply(axis_angle(0, 1, 0, y_degrees), axis_angle(1, 0, 0, x_degrees)));
}

std::array<double, 9> rotation_matrix(const Quaternion& q) {
  return {1 - 2 * (q.y * q.y + q.z * q.z),
          2 * (q.x * q.y - q.w * q.z),
          2 * (q.x * q.z + q.w * q.y),
          2 * (q.x * q.y + q.w * q.z),
          1 - 2 * (q.x * q.x + q.z * q.z),
          2 * (q.y * q.z - q.w * q.x),
          2 * (q.x * q.z - q.w * q.y),
          2 * (q.y * q.z + q.w * q.x),
          1 - 2 * (q.x * q.x + q.y * q.y)};
}

Quaternion slerp(const Quaternion& a, const Quaternion& b_in, double t) {
  Quaternion b = b_in;
  double dot   = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
  if (dot < 0) {  // the shorter arc
    b   = {-b.w, -b.x, -b.y, -b.z};
    dot = -dot;
  }
  double wa = 1 - t, wb = t;
  if (dot < 0.9995) {
    const double angle = std::acos(std::min(dot, 1.0));
    wa                 = std::sin((1 - t) * angle) / std::sin(angle);
    wb                 = std::sin(t * angle) / std::sin(angle);
  }
  Quaternion q{wa * a.w + wb * b.w, wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z};
  const double norm = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  return {q.w / norm, q.x / norm, q.y / norm, q.z / norm};
}

RigidTransform to_rigid_transform(const Pose& pose) {
  RigidTransform t;
  const std::array<double, 9> m = rotation_matrix(pose.rotate);
  for (int i = 0; i < 9; ++i)
    t.rotation[i] = static_cast<float>(m[i]);
  t.translation = pose.translate;
  return t;
}

Pose model_pose(const Scene& scene, int index, double time) {
  const SceneModel& model = scene.models[index];
  const auto& keys        = model.keyframes;
  if (scene.motion.kind != MotionKind::Keyframes || keys.empty()) return model.pose;
  if (!std::isfinite(time)) {
    throw InvalidInput("scene time " + std::to_string(time) + " is not finite");
  }
  if (time <= keys.front().time) return keys.front().pose;
  if (time >= keys.back().time) return keys.back().pose;
  const auto next = std::upper_bound(
      keys.begin(), keys.end(), time, [](double t, const Keyframe& k) { return t < k.time; });
  const Keyframe& a = *(next - 1);
  const Keyframe& b = *next;
  const double s    = (time - a.time) / (b.time - a.time);
  const auto lerp   = [&](float x, float y) { return static_cast<float>(x + (y - x) * s); };
  return {{lerp(a.pose.translate.x, b.pose.translate.x),
           lerp(a.pose.translate.y, b.pose.translate.y),
           lerp(a.pose.translate.z, b.pose.translate.z)},
          slerp(a.pose.rotate, b.pose.rotate, s)};
}

AnimationParams scene_animation(const SceneMotion& motion) {
  AnimationParams a;
  a.animate     = motion.kind == MotionKind::Swing;
  a.deformation = a.animate ? motion.deformation : Deformation::None;
  a.speed       = motion.speed;
  a.separation  = motion.separation;
  a.amount      = motion.amount;
  return a;
}

GridParams fit_grid(const Scene& scene,
                    const std::array<PlacedModel, 2>& models,
                    int default_resolution) {
  const SceneGrid& g = scene.grid;
  Bounds box;
  if (g.bounds) {
    box = world_from_scene_axes(scene_up(scene), *g.bounds);
  } else {
    box = kEmptyBounds;
    for (int i = 0; i < 2; ++i) {
      const Bounds r = reach(scene, i, models[i]);
      grow(box, r.min);
      grow(box, r.max);
    }
    if (!finite(box.min) || !finite(box.max)) {
      throw InvalidInput(scene.file + ": the models have no finite points to fit a grid to");
    }
    const double largest =
        std::max({box.max.x - box.min.x, box.max.y - box.min.y, box.max.z - box.min.z});
    const double margin =
        largest > 0 ? g.margin * largest : (g.voxel_size > 0 ? g.voxel_size : 0.5);
    box.min = {static_cast<float>(box.min.x - margin),
               static_cast<float>(box.min.y - margin),
               static_cast<float>(box.min.z - margin)};
    box.max = {static_cast<float>(box.max.x + margin),
               static_cast<float>(box.max.y + margin),
               static_cast<float>(box.max.z + margin)};
    if (!finite(box.min) || !finite(box.max)) {
      throw InvalidInput(scene.file +
                         ": grid: the grid around the models as placed, with its margin, "
                         "reaches beyond +-3.4e38 (32-bit floats): the models' translate, scale "
                         "or unit, or the margin, are too large");
    }
  }
  const std::array<double, 3> side{static_cast<double>(box.max.x) - box.min.x,
                                   static_cast<double>(box.max.y) - box.min.y,
                                   static_cast<double>(box.max.z) - box.min.z};
  const int resolution = g.resolution > 0 ? g.resolution : default_resolution;
  const double voxel =
      g.voxel_size > 0 ? g.voxel_size : std::max({side[0], side[1], side[2]}) / resolution;
  const std::array<std::int64_t, 3> r = cells(side, voxel);
  if (!fits(r)) {
    const std::string unit(to_string(scene.unit));
    const std::string field = g.voxel_size > 0 ? "grid.voxel_size" : "grid.resolution";
    const bool z_up         = scene_up(scene) == UpAxis::Z;  // the grid's sides in its axes
    throw InvalidInput(scene.file + ": " + field + ": voxels of " + number_text(voxel) + " " +
                       unit + " need a " + std::to_string(r[0]) + " x " +
                       std::to_string(r[z_up ? 2 : 1]) + " x " + std::to_string(r[z_up ? 1 : 2]) +
                       " grid (at most " + std::to_string(kMaxGridResolution) +
                       " voxels per axis fit): use a voxel size of at least " +
                       number_text(smallest_voxel(side, voxel)) + " " + unit);
  }
  GridParams params;
  params.resolution  = {static_cast<std::int32_t>(r[0]),
                        static_cast<std::int32_t>(r[1]),
                        static_cast<std::int32_t>(r[2])};
  const double lo[3] = {box.min.x, box.min.y, box.min.z};
  float* out_min[3]  = {&params.bounds.min.x, &params.bounds.min.y, &params.bounds.min.z};
  float* out_max[3]  = {&params.bounds.max.x, &params.bounds.max.y, &params.bounds.max.z};
  for (int a = 0; a < 3; ++a) {
    const double centre = lo[a] + side[a] / 2, half = static_cast<double>(r[a]) * voxel / 2;
    *out_min[a] = static_cast<float>(centre - half);
    *out_max[a] = static_cast<float>(centre + half);
    if (!std::isfinite(*out_max[a] - *out_min[a])) {
      throw InvalidInput(
          scene.file + ": " + (g.voxel_size > 0 ? "grid.voxel_size" : std::string("grid")) +
          ": the grid around the models as placed spans more than 3.4e38 (a 32-bit float): the "
          "models' translate, scale or unit are too large, or the voxels");
    }
  }
  return params;
}

std::size_t scene_model_points(const Scene& scene, int index, const SceneDefaults& defaults) {
  const std::size_t own = scene.models[static_cast<std::size_t>(index)].points;
  return own > 0 ? own : (scene.points > 0 ? scene.points : defaults.points);
}

PipelineConfig scene_memory_config(const Scene& scene, const SceneDefaults& defaults) {
  PipelineConfig config = scene_config(scene);
  if (scene.grid.bounds) {
    config.grid = fit_grid(scene, {}, defaults.resolution);
  } else {
    constexpr int kLargestCube = 1024;
    const int r                = scene.grid.voxel_size > 0   ? kLargestCube
                                 : scene.grid.resolution > 0 ? scene.grid.resolution
                                                             : defaults.resolution;
    config.grid.resolution     = {r, r, r};
  }
  return config;
}

LoadOptions load_options(const Scene& scene, int index, const SceneDefaults& defaults) {
  const SceneModel& model = scene.models[static_cast<std::size_t>(index)];
  return file_load_options(scene, defaults, model.files_outside_folder, model.unit, model.scale);
}

LoadOptions load_options(const Scene& scene,
                         int index,
                         std::size_t file,
                         const SceneDefaults& defaults) {
  const SceneModel& set  = scene.models[static_cast<std::size_t>(index)];
  const SceneFile& entry = set.files.at(file);
  return file_load_options(
      scene, defaults, entry.files_outside_folder, entry.unit, set.scale * entry.scale);
}

LoadedScene load_scene_models(const Scene& scene, const SceneDefaults& defaults) {
  LoadedScene loaded;
  loaded.scene = scene;
  std::array<double, 2> file_spacing{};  // float spacing of each file's coordinates, scene units
  if (scene.models[0].is_set() != scene.models[1].is_set()) {
    throw InvalidInput(scene.file + ": a scene's two models are both selection sets or neither");
  }
  if (scene.models[0].is_set()) {
    load_sets(scene, defaults, loaded, file_spacing);
  } else {
    for (int i = 0; i < 2; ++i)
      file_spacing[i] = load_model(scene, i, defaults, loaded);
  }

  warn_about_sizes(scene, loaded);
  loaded.config      = scene_config(scene);
  loaded.config.grid = fit_grid(scene, loaded.models, defaults.resolution);
  warn_about_precision(scene, loaded, file_spacing);

  // The scene-level check: does the grid hold each model where the scene puts it? (The swing
  // moves the models every frame; the frame's own outside-grid count covers it.)
  if (scene.motion.kind != MotionKind::Swing) {
    const Grid grid(loaded.config.grid);
    for (int i = 0; i < 2; ++i) {
      PlacedModel& model   = loaded.models[i];
      const Placement pose = scene.motion.kind == MotionKind::Keyframes
                                 ? world_pose(scene, i, scene.time)
                                 : Placement{};
      std::atomic<std::size_t> outside{0};
      parallel_chunks(model.cloud.points.size(), kGrain, [&](std::size_t begin, std::size_t end) {
        outside += static_cast<std::size_t>(
            std::count_if(model.cloud.points.begin() + static_cast<std::ptrdiff_t>(begin),
                          model.cloud.points.begin() + static_cast<std::ptrdiff_t>(end),
                          [&](Float3 p) {
                            return !grid.in_grid(grid.cell_of(pose.apply(p)));  // either key width
                          }));
      });
      model.outside_grid      = outside;
      const std::size_t total = model.cloud.points.size();
      if (model.outside_grid * 100 > total) {
        loaded.warnings.push_back(scene.file + ": the grid does not hold model '" + model.name +
                                  "': " + std::to_string(model.outside_grid) + " of its " +
                                  std::to_string(total) + " points (" +
                                  number_text(100.0 * model.outside_grid / total) +
                                  " %) lie outside grid.bounds; they are left out");
      }
    }
  }
  return loaded;
}

}  // namespace voxhash
