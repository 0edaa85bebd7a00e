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

Placement placement(const Pose& pose, double scale) {
  Placement p;
  const std::array<double, 9> m = rotation_matrix(pose.rotate);
  std::copy(m.begin(), m.end(), p.r);
  p.scale = scale;
  p.t[0]  = pose.translate.x;
  p.t[1]  = pose.translate.y;
  p.t[2]  = pose.translate.z;
  return p;
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
    const Placement p = placement(model_pose(scene, index, t), 1.0);
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
        (in_file ? "in " + scene.models[i].path.filename().string() : std::string("as placed")) +
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

}  // namespace

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
    box = *g.bounds;
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
    throw InvalidInput(scene.file + ": " + field + ": voxels of " + number_text(voxel) + " " +
                       unit + " need a " + std::to_string(r[0]) + " x " + std::to_string(r[1]) +
                       " x " + std::to_string(r[2]) + " grid (at most " +
                       std::to_string(kMaxGridResolution) +
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
  const SceneModel& model = scene.models[index];
  LoadOptions options{.files_outside_folder = model.files_outside_folder};
  if (model.unit) options.meters_per_unit = meters_per(*model.unit);
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
    options.deflection = voxel / 4 * meters_per(scene.unit) / model.scale;
  } else if (resolution > 0) {
    options.relative_deflection = 1.0 / (4.0 * resolution);
  }
  return options;
}

LoadedScene load_scene_models(const Scene& scene, const SceneDefaults& defaults) {
  LoadedScene loaded;
  loaded.scene = scene;
  std::array<double, 2> file_spacing{};  // float spacing of each file's coordinates, scene units
  for (int i = 0; i < 2; ++i) {
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
    if (placed.cloud.dropped_non_finite || placed.cloud.dropped_triangles) {
      loaded.warnings.push_back(
          scene.file + ": model '" + model.name + "' (" + model.path.filename().string() +
          "): " + std::to_string(placed.cloud.dropped_non_finite) +
          (placed.cloud.mesh.triangles.empty() ? " points" : " vertices") +
          " with a NaN or infinite coordinate dropped" +
          (placed.cloud.dropped_triangles
               ? ", and the " + std::to_string(placed.cloud.dropped_triangles) +
                     " triangles that used them"
               : std::string()));
    }
    for (const std::string& warning : placed.cloud.warnings)
      loaded.warnings.push_back(scene.file + ": model '" + model.name + "': " + warning);
    if (model.as == ModelAs::Points) placed.cloud.mesh = Mesh{};  // its samples only
    const double file_unit = model.unit                         ? meters_per(*model.unit)
                             : placed.cloud.meters_per_unit > 0 ? placed.cloud.meters_per_unit
                                                                : meters_per(scene.unit);
    const double scale     = model.scale * file_unit / meters_per(scene.unit);
    // Keyframed models are posed by the pipeline every frame; the host only scales them.
    const float read =
        place(placed,
              scene.motion.kind == MotionKind::Keyframes ? placement({}, scale)
                                                         : placement(model.pose, scale));
    file_spacing[i] = float_spacing(read) * scale;
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
                                 ? placement(model_pose(scene, i, scene.time), 1.0)
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
