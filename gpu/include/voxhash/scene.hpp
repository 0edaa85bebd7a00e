// Scene files (the voxhash_scene target; schema in docs/SCENES.md): two models with their files,
// units and placements, the grid (a voxel size or a resolution; bounds fitted to the placed models
// unless given), the motion (none, the demo swing, or keyframes) and the algorithm. Parsing
// validates everything and names the file and the field in each error; loading reads the models
// and applies each placement to the points and mesh on the host, before Pipeline::set_model;
// open_scene is that sequence, memory checked before and after, as every front end runs it.
#pragma once

#include <voxhash/backend.hpp>
#include <voxhash/clash.hpp>
#include <voxhash/geometry.hpp>
#include <voxhash/gpu_budget.hpp>
#include <voxhash/grid.hpp>
#include <voxhash/hash_table.hpp>
#include <voxhash/io.hpp>
#include <voxhash/pipeline.hpp>

#include <array>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace voxhash {

inline constexpr int kSceneVersion = 1;

enum class LengthUnit { Meter, Centimeter, Millimeter, Inch, Foot };

/// Metres in one `unit`.
[[nodiscard]] double meters_per(LengthUnit unit);
/// "m", "cm", "mm", "in", "ft".
[[nodiscard]] std::string_view to_string(LengthUnit unit);
/// The unit named `name` (as to_string writes it), or nothing.
[[nodiscard]] std::optional<LengthUnit> parse_length_unit(std::string_view name);

/// A length written with an optional unit ("25mm", "1 in", "0.3"; no unit: `unit`), in `unit`s;
/// nothing for text that is not a finite length of 0 or more.
[[nodiscard]] std::optional<double> parse_length(std::string_view text, LengthUnit unit);

/// A rotation as a unit quaternion w + xi + yj + zk.
struct Quaternion {
  double w = 1, x = 0, y = 0, z = 0;
};

/// The rotation about x by degrees.x, then about y by degrees.y, then about z by degrees.z (fixed
/// axes, right-handed: R = Rz * Ry * Rx).
[[nodiscard]] Quaternion quaternion_from_euler(double x_degrees,
                                               double y_degrees,
                                               double z_degrees);
/// The row-major rotation matrix of unit quaternion q, in double precision (RigidTransform holds
/// it in float).
[[nodiscard]] std::array<double, 9> rotation_matrix(const Quaternion& q);
/// Spherical linear interpolation along the shorter arc; t = 0 gives a, t = 1 gives b.
[[nodiscard]] Quaternion slerp(const Quaternion& a, const Quaternion& b, double t);

/// Which of a scene's axes points up (a scene file's "up"). The world the pipeline and the viewer
/// work in is Y-up: a Z-up scene is turned into it on load by a quarter turn about x, a point
/// (x, y, z) of the scene landing at (x, z, -y), and every location a report gives is turned back.
enum class UpAxis { Y, Z };
/// "y", "z".
[[nodiscard]] std::string_view to_string(UpAxis up);

/// A point or box in the axes of a scene whose up is `up`, in the world's (Y up), and back: exact
/// (the coordinates are permuted and one negated).
[[nodiscard]] Float3 world_from_scene_axes(UpAxis up, Float3 p);
[[nodiscard]] Float3 scene_axes_from_world(UpAxis up, Float3 p);
[[nodiscard]] Bounds world_from_scene_axes(UpAxis up, const Bounds& box);
[[nodiscard]] Bounds scene_axes_from_world(UpAxis up, const Bounds& box);

/// The grid `world` (Y up) as a grid in the scene's axes: the same box, turned, and its voxels;
/// scene_axes_key maps a voxel's key from one to the other.
[[nodiscard]] GridParams scene_axes_grid(UpAxis up, const GridParams& world);
[[nodiscard]] Key64 scene_axes_key(UpAxis up, const Grid& world, const Grid& scene, Key64 key);
/// Every location of `report` (the clashes' and regions' centroids and boxes, the regions' cells,
/// its grid and voxel keys, the keys kept sorted) turned from the world's axes into the scene's:
/// what a report written for a user gives. Nothing changes for a Y-up scene.
void to_scene_axes(ClashReport& report, UpAxis up);
/// A frame's voxels (`models`' keys in `world`) in the scene's axes: what a voxel export writes.
void to_scene_axes(std::array<ModelVoxels, 2>& models, GridParams& world, UpAxis up);

/// A rigid placement in scene units: rotate about the model's origin, then translate.
struct Pose {
  Float3 translate{};
  Quaternion rotate{};
};
[[nodiscard]] RigidTransform to_rigid_transform(const Pose& pose);

struct Keyframe {
  double time = 0;  // seconds
  Pose pose;
};

enum class MotionKind { None, Swing, Keyframes };

/// How a model's file enters the frame (a scene file's `"as"`).
enum class ModelAs {
  File,    // as the file is: a file with faces a mesh, a point-cloud file its points (the default)
  Mesh,    // a mesh, voxelized from its triangles (a point-cloud file is an error)
  Points,  // points only: a mesh file's `points` surface samples without its triangles, what a
           // scan of the design would give (and how a benchmark makes huge clouds of a small mesh)
};

/// A file a selection set draws its parts from, placed as a model's file is (an entry of a
/// scene's "set_a" / "set_b" "files"). A file in both sets is read once, with one placement.
struct SceneFile {
  std::filesystem::path path;  // a relative path in a scene file is relative to the file's folder
  /// The file's length unit, converted to the scene's; empty: the unit the file declares (a STEP
  /// file's, PointCloud::meters_per_unit), else the scene's.
  std::optional<LengthUnit> unit;
  std::optional<UpAxis> up;  // the file's up axis; empty: file_up's default
  Pose pose;                 // transform: scene units and axes
  double scale              = 1;
  ModelAs as                = ModelAs::File;
  bool files_outside_folder = false;
  std::vector<std::string> parts;  // this file's part patterns; empty: the set's
};

struct SceneModel {
  std::string name;            // "name", else the file's stem (a set: "set_a" / "set_b")
  std::filesystem::path path;  // a relative path in a scene file is relative to the file's folder
  /// The file's length unit, converted to the scene's; empty: the unit the file declares (a STEP
  /// file's, PointCloud::meters_per_unit), else the scene's.
  std::optional<LengthUnit> unit;
  std::optional<UpAxis> up;            // the file's up axis; empty: file_up's default
  Pose pose;                           // transform.translate and .rotate / .quaternion
  double scale       = 1;              // transform.scale: uniform, > 0
  std::size_t points = 0;              // surface samples; 0: the scene's (or front end's) count
  ModelAs as         = ModelAs::File;  // "as": "mesh" or "points"
  std::vector<Keyframe> keyframes;     // MotionKind::Keyframes: poses by increasing time
  bool files_outside_folder = false;   // the file may refer to files outside its folder
  /// A selection set (set_a / set_b; `path` empty): the model is the parts of `files` whose names
  /// match one of the glob patterns `parts` (or the file entry's own; part_matches), each file
  /// placed by its entry, then all by the set's own pose and scale. A scene's two models are both
  /// sets or neither.
  std::vector<SceneFile> files;
  std::vector<std::string> parts;

  [[nodiscard]] bool is_set() const { return !files.empty(); }
};

/// Whether part name `name` matches glob `pattern`: `*` any run of characters (none too), `?` one
/// character (a UTF-8 sequence counts as one), ASCII letters compared without their case.
[[nodiscard]] bool part_matches(std::string_view pattern, std::string_view name);

/// The files a model is read from, as reports name it: its path, or a set's paths joined by ", ".
[[nodiscard]] std::string model_files(const SceneModel& model);

struct SceneGrid {
  double voxel_size = 0;         // cubic voxels of this size in scene units; 0: from resolution
  int resolution    = 0;         // voxels along the longest axis; 0: the front end's default
  std::optional<Bounds> bounds;  // in scene units; empty: fitted to the placed models
  double margin = 0.05;          // fitted bounds grow by this fraction of their largest side
};

struct SceneMotion {
  MotionKind kind = MotionKind::None;
  // MotionKind::Swing: the demo's motion (AnimationParams' fields).
  float speed             = 1.0f;
  float separation        = 1.2f;
  Deformation deformation = Deformation::None;
  float amount            = 0.1f;
};

struct Scene {
  std::string file;  // what errors name: the scene file, or "command line"
  std::string name;
  LengthUnit unit = LengthUnit::Meter;  // the scene's unit: translations, the grid, reports
  /// The scene's up axis ("up"): its transforms, grid bounds and reports are in these axes;
  /// empty: scene_up's default.
  std::optional<UpAxis> up;
  /// Model A and model B; or, in a scene of selection sets ("set_a" / "set_b"), the two sets.
  std::array<SceneModel, 2> models;
  SceneGrid grid;
  SceneMotion motion;
  std::optional<TableKind> algorithm;
  std::size_t points = 0;  // per model; 0: the front end's default
  double time        = 0;  // seconds: the pose `voxhash clash` checks
  /// Backend memory the two models' tables may take (PipelineConfig::gpu_budget; a scene file's
  /// "gpu_budget", front ends' --gpu-budget); empty: the scene gives none.
  std::optional<GpuBudget> gpu_budget;
  /// The clash check (scene units; files give a number in the scene's unit or a string with a
  /// unit, "25mm"): penetrations up to `tolerance` are touching, gaps under `clearance` clashes.
  double tolerance = 0;
  double clearance = 0;
};

/// Parses and validates a scene. `file` names it in errors and anchors relative model paths.
/// Throws InvalidInput with one line "FILE: FIELD: what is wrong" (e.g.
/// "s.json: models[1].transform.scale: must be > 0").
[[nodiscard]] Scene parse_scene(std::string_view json_text, const std::filesystem::path& file);
/// Reads and parses a scene file; a missing or unreadable file throws InvalidInput naming it.
[[nodiscard]] Scene load_scene(const std::filesystem::path& file);
/// The scene as a scene file that parse_scene reads back to the same scene (every field, numbers
/// with full precision, rotations as quaternions); model paths relative to `folder`, the folder
/// the file will be in. What the viewer's "save scene" writes.
[[nodiscard]] std::string scene_to_json(const Scene& scene, const std::filesystem::path& folder);
/// Writes scene_to_json(scene, file's folder) to `file`; throws Error when it cannot be written.
void save_scene(const Scene& scene, const std::filesystem::path& file);
/// Model `index` read from `path` instead (--model-a, a file loaded in the viewer): its name the
/// file's stem, its placement kept, its "mesh" and "up" dropped (they were about the old file); in
/// a scene of selection sets, the set becomes all the parts of `path`.
void set_model_file(Scene& scene, int index, const std::filesystem::path& path);
/// The scene of two model files given without a scene file: in place, no motion, fitted grid.
[[nodiscard]] Scene scene_of_models(const std::filesystem::path& model_a,
                                    const std::filesystem::path& model_b);

/// The scene's up axis: its "up"; else Z when every file of the scene is Z-up by its own "up" or
/// its format (IFC), so that a scene of IFC files reports in the IFC's axes; else Y.
[[nodiscard]] UpAxis scene_up(const Scene& scene);
/// The up axis of the coordinates in file `path` whose scene entry gives `given`: `given`; else
/// the format's (IFC files are Z-up); else the scene's.
[[nodiscard]] UpAxis file_up(const Scene& scene,
                             const std::filesystem::path& path,
                             std::optional<UpAxis> given);

/// Whether file `path` is an IFC (.ifc, .ifczip, any case): Z-up by the standard, and read through
/// assimp's IFC importer, which turns its coordinates Y-up ((x, y, z) -> (x, z, -y)).
[[nodiscard]] bool is_ifc_file(const std::filesystem::path& path);

/// Model `index`'s pose at `time`: its keyframes interpolated (translation linearly, rotation by
/// slerp, held before the first and after the last), else its transform.
[[nodiscard]] Pose model_pose(const Scene& scene, int index, double time);

/// What a front end supplies where the scene is silent.
struct SceneDefaults {
  std::size_t points = 200'000;  // per model
  int resolution     = 256;      // voxels along the grid's longest axis
};

/// The points model `index` is sampled into: its own count, else the scene's, else the default.
/// (A point-cloud file keeps its own count.)
[[nodiscard]] std::size_t scene_model_points(const Scene& scene,
                                             int index,
                                             const SceneDefaults& defaults);

/// The configuration to check memory with before the models are read (estimate_frame_bytes,
/// check_frame_memory): the scene's algorithm and GPU budget, and a grid with at least as many
/// cells as the one fitted to the models can have (given bounds: that grid; a resolution: its cube;
/// a voxel size without bounds: 1024^3), so the estimate bounds the frame's from above. Front ends
/// check the real configuration again once the models are loaded.
[[nodiscard]] PipelineConfig scene_memory_config(const Scene& scene, const SceneDefaults& defaults);

/// The rigid transform the pipeline applies for `pose` (scene units and axes), in the world's axes
/// (Pipeline::set_model_transform): the pose turned by the scene's up axis.
[[nodiscard]] RigidTransform world_transform(UpAxis up, const Pose& pose);

/// A model read and placed in scene units, in the world's axes (Y up): for MotionKind::Keyframes
/// scaled only (the pipeline applies each frame's pose), otherwise scaled, rotated and translated.
struct PlacedModel {
  std::string name;
  PointCloud cloud;
  Bounds bounds;                 // of its points and finite mesh vertices
  float radius             = 0;  // largest distance of a point or vertex from the origin
  std::size_t outside_grid = 0;  // points outside the scene's grid at the scene's pose
};

struct LoadedScene {
  Scene scene;
  std::array<PlacedModel, 2> models;
  PipelineConfig config;              // grid, animation, algorithm and GPU budget of the scene
  std::vector<std::string> warnings;  // one line each, e.g. a grid that does not hold a model
  /// One line each: what loading did that is not wrong but a user should see (a selection set's
  /// parts, and those in neither set, left out).
  std::vector<std::string> notes;

  /// Each model's points as read (a point-cloud file's own count, else the samples).
  [[nodiscard]] std::array<std::size_t, 2> point_counts() const {
    return {models[0].cloud.points.size(), models[1].cloud.points.size()};
  }
};

/// How model `index` is read: its files_outside_folder, its unit, and the deflection exact geometry
/// (STEP) is tessellated at, a quarter of a voxel (docs/SCENES.md).
[[nodiscard]] LoadOptions load_options(const Scene& scene,
                                       int index,
                                       const SceneDefaults& defaults);

/// Two models' sizes (bounding-box diagonals) differing by more than this give a warning.
inline constexpr double kModelSizeRatioWarning = 100;

/// How file entry `file` of selection set `index` is read: as load_options above, with the entry's
/// files_outside_folder and unit, the deflection a quarter of a voxel of the file as the entry's
/// and the set's scales place it.
[[nodiscard]] LoadOptions load_options(const Scene& scene,
                                       int index,
                                       std::size_t file,
                                       const SceneDefaults& defaults);

/// Reads both models and places them (a selection set: its files, each once, and their parts in
/// the set's patterns; a part in both sets, or a set whose patterns match no part, is an error),
/// fits the grid and checks that it holds each model (more than 1 % of a model's points outside
/// gives a warning; so do two models whose sizes differ by more than kModelSizeRatioWarning,
/// "model 'A' is 1000x model 'B' ...: a unit missing?"). A model `as` ModelAs::Points keeps no
/// mesh. Throws InvalidInput naming the scene file and the field (or the model file) on failure,
/// e.g. a grid beyond the 2^21 voxels an axis allows, or "as": "mesh" on a point-cloud file.
[[nodiscard]] LoadedScene load_scene_models(const Scene& scene, const SceneDefaults& defaults);

/// The grid of `scene` for models placed as `models` are (bounds given or fitted over the whole
/// motion, cubic voxels). Throws InvalidInput for a grid of more than kMaxGridResolution voxels
/// on an axis (21 key bits an axis: what 64-bit keys address), suggesting the smallest voxel size
/// that fits.
[[nodiscard]] GridParams fit_grid(const Scene& scene,
                                  const std::array<PlacedModel, 2>& models,
                                  int default_resolution);

/// The pipeline animation of the scene's motion at rest (no deformation unless a swing asks).
[[nodiscard]] AnimationParams scene_animation(const SceneMotion& motion);

/// Hands both placed models to `pipeline` (meshes through the mesh overload, with their triangles'
/// part ids; point clouds, and meshes read `as` points, with their points' part ids) and poses
/// them at `time`.
void set_scene_models(Pipeline& pipeline, const LoadedScene& scene, double time);
/// Sets each model's keyframed pose at `time` (MotionKind::Keyframes; otherwise does nothing).
void pose_scene(Pipeline& pipeline, const Scene& scene, double time);

/// What a front end changes in a scene's configuration for the pipelines it runs.
struct SceneTables {
  /// One pipeline per algorithm, all held at once (bench frame --all-algos); empty: one of the
  /// scene's algorithm.
  std::vector<TableKind> algorithms{};
  std::optional<double> cuckoo_space{};  // the frame's BuildOptions::cuckoo_space; empty: its own
  std::optional<double> load{};  // the frame's BuildOptions::load (HashGraph); empty: its own
};

/// The configurations of the pipelines `tables` asks for, from the scene's `config`: one per
/// algorithm (at least one), each with the table options `tables` gives.
[[nodiscard]] std::vector<PipelineConfig> scene_configs(const PipelineConfig& config,
                                                        const SceneTables& tables);

/// Checks that pipelines of `configs`, held at once, fit in memory with models of `points` points;
/// throws OutOfMemory (require_memory) when they do not.
using SceneMemoryCheck = std::function<void(const std::vector<PipelineConfig>& configs,
                                            std::array<std::size_t, 2> points)>;

struct OpenSceneOptions {
  Backend backend = Backend::Cpu;
  SceneDefaults defaults{};  // what the front end supplies where the scene is silent
  SceneTables tables{};      // the front end's pipelines
  /// How memory is checked; empty: check_frame_memory on `backend` for each configuration.
  SceneMemoryCheck check_memory{};
};

/// A scene opened for a front end: what its pipelines are made from.
struct OpenScene {
  LoadedScene loaded{};                   // the placed models, the scene's configuration, warnings
  std::vector<PipelineConfig> configs{};  // scene_configs of loaded.config: one per pipeline
};

/// Surface voxels the conservative voxelizer is expected to give `mesh` at `voxel_size` (its
/// units): 2 voxels per voxel_size^2 of the triangles' total area (a plane crosses up to sqrt(3)
/// per voxel_size^2; the rest for the triangles' edges), plus one per triangle; at most 2^50. 0 for
/// no triangles.
[[nodiscard]] std::size_t estimate_surface_voxels(const Mesh& mesh, double voxel_size);

/// The up-front check for meshes, before any voxelization: the frames of `configs` (held at once)
/// with each mesh model's keys taken as its estimate_surface_voxels at the grid's voxel size.
/// Throws OutOfMemory, one line naming the scene file, the model with the most surface voxels,
/// their estimate, the voxel size, the bytes needed and free, and the smallest voxel size that
/// fits ("scene.json: model 'A': ~3.1e+10 surface voxels at 0.0001 m need ~900 GiB; the host has
/// 24 GiB free; use --voxel-size >= 0.002 m (grid.voxel_size)"). Does nothing without meshes.
void check_mesh_memory(Backend backend,
                       const std::vector<PipelineConfig>& configs,
                       const LoadedScene& loaded);

/// Opens a scene the way every front end does (viewer, bench frame, clash): memory checked before
/// any model file is read (scene_memory_config, scene_model_points), the models read and placed
/// and the grid fitted (load_scene_models), meshes checked for their surface voxels
/// (check_mesh_memory, always on `backend`), memory checked again for the fitted grid and the
/// models' own point counts. Throws InvalidInput naming the scene file and the field (or the
/// model file), or OutOfMemory; nothing is kept on failure.
[[nodiscard]] OpenScene open_scene(const Scene& scene, const OpenSceneOptions& options);

/// A pipeline of `config` on `backend` holding the scene's models, posed at `time`
/// (set_scene_models). Throws what Pipeline's constructor and set_model throw.
[[nodiscard]] std::unique_ptr<Pipeline> make_scene_pipeline(Backend backend,
                                                            const PipelineConfig& config,
                                                            const LoadedScene& scene,
                                                            double time);

}  // namespace voxhash
