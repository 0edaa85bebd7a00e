// Resource limits on the CPU backend (label cpu, issue 9): Buffers are accounted and an allocation
// budget makes any allocation fail on demand; a frame's memory is estimated before anything is
// allocated, bounds what a frame really holds, and is checked against free memory; a frame whose
// allocation fails leaves a pipeline that runs the next frame exactly; `bench frame` refuses a run
// that cannot fit at once in one line, reports an allocation failing inside a frame in one line,
// samples memory in a --soak run, and warns once about a model outside the grid.
#include "bench/bench.hpp"
#include "cli/command_line.hpp"
#include "common/pipeline_checks.hpp"

#include <voxhash/buffer.hpp>
#include <voxhash/error.hpp>
#include <voxhash/io.hpp>
#include <voxhash/pipeline.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace voxhash::test {
namespace {

constexpr Backend kCpu     = Backend::Cpu;
constexpr auto kAlgorithms = kTableKinds;

/// Sets the CPU backend's allocation budget for one scope.
class BudgetScope {
 public:
  explicit BudgetScope(std::optional<std::size_t> budget) { set_allocation_budget(kCpu, budget); }
  ~BudgetScope() { set_allocation_budget(kCpu, std::nullopt); }
  BudgetScope(const BudgetScope&)            = delete;
  BudgetScope& operator=(const BudgetScope&) = delete;
};

/// Sets VOXHASH_ALLOC_BUDGET for one scope.
class EnvironmentBudget {
 public:
  explicit EnvironmentBudget(const std::string& value) {
    setenv("VOXHASH_ALLOC_BUDGET", value.c_str(), 1);
  }
  ~EnvironmentBudget() { unsetenv("VOXHASH_ALLOC_BUDGET"); }
  EnvironmentBudget(const EnvironmentBudget&)            = delete;
  EnvironmentBudget& operator=(const EnvironmentBudget&) = delete;
};

struct Models {
  Shape a, b;
};

/// Two overlapping spheres; at resolution 256 nearly every point is a voxel of its own.
Models spheres(std::size_t n) {
  return {sphere({-0.3f, 0, 0}, 0.8f, n, 1), sphere({0.3f, 0, 0}, 0.8f, n, 2)};
}

TEST(Resources, FormatBytes) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(std::size_t{100} << 20), "100 MiB");
  EXPECT_EQ(format_bytes(std::size_t{93} << 30), "93.0 GiB");
}

TEST(Resources, BuffersAreAccounted) {
  const AllocationStats before = allocation_stats(kCpu);
  {
    Buffer<std::uint32_t> buffer(kCpu, 1000);
    const AllocationStats during = allocation_stats(kCpu);
    EXPECT_EQ(during.in_use, before.in_use + 4000);
    EXPECT_GE(during.peak, during.in_use);
    EXPECT_EQ(during.allocations, before.allocations + 1);
    buffer.resize(500);  // keeps its allocation
    EXPECT_EQ(allocation_stats(kCpu).in_use, before.in_use + 4000);
  }
  EXPECT_EQ(allocation_stats(kCpu).in_use, before.in_use);
}

// The peaks a run reports, for a known pattern: 4000 + 8000 bytes held at once, then 4000 freed
// and 3000 pinned; the device's peak is 12000 beyond what was held before, the pinned one 3000,
// the host's (every Cpu Buffer) 12000 as well (8000 + 3000 never passes it).
TEST(Resources, MemoryPeaksOfAKnownPattern) {
  const AllocationStats before = allocation_stats(kCpu);
  const std::size_t pageable   = before.in_use - before.pinned_in_use;
  reset_memory_peaks(kCpu);
  {
    std::optional<Buffer<std::uint32_t>> a(std::in_place, kCpu, 1000);
    const Buffer<std::uint64_t> b(kCpu, 1000);
    a.reset();
    const Buffer<std::uint8_t> pinned = Buffer<std::uint8_t>::pinned_host(3000);
    const MemoryPeaks peaks           = memory_peaks(kCpu);
    EXPECT_EQ(peaks.device, pageable + 12000);
    EXPECT_EQ(peaks.pinned, before.pinned_in_use + 3000);
    EXPECT_EQ(peaks.host, before.in_use + 12000);
  }
  reset_memory_peaks(kCpu);
  const MemoryPeaks after = memory_peaks(kCpu);
  EXPECT_EQ(after.device, pageable) << "a reset starts at the bytes held now";
  EXPECT_EQ(after.pinned, before.pinned_in_use);
  EXPECT_EQ(after.host, before.in_use);
}

// A first allocation is exact; a buffer that outgrows its allocation takes an eighth more, so a
// size creeping up frame by frame reallocates once in a while; without the eighth where it would
// not fit.
TEST(Resources, BufferThatOutgrowsItsAllocationTakesAnEighthMore) {
  const AllocationStats before = allocation_stats(kCpu);
  Buffer<std::uint32_t> buffer(kCpu, 1000);
  EXPECT_EQ(buffer.bytes(), 4000u);
  buffer.resize(1001);
  EXPECT_EQ(buffer.bytes(), 4u * (1001 + 125));
  buffer.resize(1126);
  EXPECT_EQ(allocation_stats(kCpu).allocations, before.allocations + 2);  // no third
  EXPECT_EQ(buffer.size(), 1126u);
  {
    const BudgetScope budget(before.in_use + 4 * 2100);  // 2000 elements fit, 2250 do not
    buffer.resize(2000);
    EXPECT_EQ(buffer.bytes(), 8000u);
    EXPECT_EQ(allocation_stats(kCpu).failures, before.failures + 1);
  }
  EXPECT_EQ(allocation_stats(kCpu).in_use, before.in_use + 8000);
}

TEST(Resources, BudgetRefusesAllocationsBeyondIt) {
  const BudgetScope budget(allocation_stats(kCpu).in_use + 4096);
  Buffer<std::uint32_t> fits(kCpu, 1000);
  const std::size_t failures = allocation_stats(kCpu).failures;
  try {
    Buffer<std::uint32_t> beyond(kCpu, 100);
    FAIL() << "an allocation beyond the budget succeeded";
  } catch (const OutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("allocation budget 4."), std::string::npos) << e.what();
  }
  EXPECT_EQ(allocation_stats(kCpu).failures, failures + 1);
  set_allocation_budget(kCpu, std::nullopt);
  EXPECT_NO_THROW(Buffer<std::uint32_t>(kCpu, 100));
}

TEST(Resources, EnvironmentBudgetIsReadAtEveryAllocation) {
  {
    const EnvironmentBudget env(std::to_string(allocation_stats(kCpu).in_use + 2048));
    EXPECT_THROW(Buffer<std::uint32_t>(kCpu, 1024), OutOfMemory);
    EXPECT_NO_THROW(Buffer<std::uint32_t>(kCpu, 256));
    const BudgetScope larger(std::size_t{1} << 30);  // the function's budget comes first
    EXPECT_NO_THROW(Buffer<std::uint32_t>(kCpu, 1024));
  }
  {
    const EnvironmentBudget env("1G");
    EXPECT_EQ(allocation_budget(kCpu), std::size_t{1} << 30);
  }
  for (const char* bad : {"lots", "12X", "-5", "99999999999999999999"}) {
    const EnvironmentBudget env(bad);
    EXPECT_THROW(Buffer<std::uint32_t>(kCpu, 1), InvalidInput) << bad;
  }
  EXPECT_EQ(allocation_budget(kCpu), std::nullopt);
}

TEST(Resources, FrameThatCannotFitIsRefusedNamingTheSizes) {
  const PipelineConfig config = static_config(512, TableKind::Cuckoo);
  const std::size_t huge      = std::size_t{1} << 30;  // ~275 GB in all: more than any test host
  try {
    check_frame_memory(kCpu, config, {huge, huge});
    FAIL() << "a frame of 2 x 2^30 points fits";
  } catch (const OutOfMemory& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("2 x 1073741824 points"), std::string::npos) << message;
    EXPECT_NE(message.find("GiB of host memory"), std::string::npos) << message;
    EXPECT_NE(message.find("is available"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_NO_THROW(check_frame_memory(kCpu, config, {1000, 1000}));
  const MemoryEstimate small = estimate_frame_bytes(config, {1000, 1000});
  const MemoryEstimate large = estimate_frame_bytes(config, {2000, 1000});
  EXPECT_GT(large.backend_bytes, small.backend_bytes);
  EXPECT_EQ(small.host_bytes, 2 * 1000 * sizeof(Float3));
}

/// The estimate is an upper bound of the bytes a frame's Buffers take, and not a loose one where
/// points are mostly distinct voxels.
TEST(Resources, EstimateBoundsWhatAFrameHolds) {
  const Models models = spheres(20000);
  for (const TableKind kind : kAlgorithms) {
    for (const int resolution : {256, 48}) {
      const PipelineConfig config = static_config(resolution, kind);
      const std::size_t base      = allocation_stats(kCpu).in_use;
      reset_allocation_peak(kCpu);
      {
        Pipeline pipeline(kCpu, config);
        pipeline.set_model(0, models.a.points);
        pipeline.set_model(1, models.b.points);
        pipeline.run_frame(0.0);
        pipeline.run_frame(0.0, {.write_instances = false});
      }
      const std::size_t held = allocation_stats(kCpu).peak - base;
      const std::size_t need =
          estimate_frame_bytes(config, {models.a.points.size(), models.b.points.size()})
              .backend_bytes;
      EXPECT_LE(held, need) << to_string(kind) << " at " << resolution;
      if (resolution == 256) {
        EXPECT_LE(need, 2 * held) << to_string(kind) << ": too loose";
      }
    }
  }
}

/// Without a budget a frame's cuckoo tables take kFrameCuckooSpace slots a voxel; under one they
/// take BuildOptions' space (memory is what a budget asks to save), whatever the budget's size.
TEST(Resources, FrameTablesTakeMoreSpaceOnlyWithoutABudget) {
  constexpr std::size_t kPoints = 100000;
  for (const TableKind kind : {TableKind::Cuckoo, TableKind::BucketedCuckoo}) {
    PipelineConfig config = static_config(256, kind);
    EXPECT_EQ(config.table_options.cuckoo_space, kFrameCuckooSpace);
    EXPECT_EQ(frame_table_options(config).cuckoo_space, kFrameCuckooSpace);
    const std::size_t roomy = estimate_frame_bytes(config, {kPoints, kPoints}).backend_bytes;
    PipelineConfig budget   = config;
    budget.gpu_budget       = std::size_t{1} << 40;  // never reached: flat tables
    EXPECT_EQ(frame_table_options(budget).cuckoo_space, BuildOptions{}.cuckoo_space);
    PipelineConfig tight             = budget;
    tight.table_options.cuckoo_space = 1.1;
    EXPECT_EQ(frame_table_options(tight).cuckoo_space, 1.1) << "less space is kept";
    const std::size_t lean = estimate_frame_bytes(budget, {kPoints, kPoints}).backend_bytes;
    PipelineConfig asked   = config;
    asked.table_options.cuckoo_space = BuildOptions{}.cuckoo_space;
    const std::size_t as_asked = estimate_frame_bytes(asked, {kPoints, kPoints}).backend_bytes;
    EXPECT_EQ(lean, as_asked) << to_string(kind);
    // Two tables of at most kPoints voxels each, 8-byte slots: 0.75 slots a voxel more.
    EXPECT_GT(roomy, lean) << to_string(kind);
    EXPECT_LE(roomy - lean, std::size_t{2 * 8 * 3 * kPoints / 4 + 2 * 64}) << to_string(kind);
  }
}

/// Budgets from nothing to the whole estimate make the frame's allocations fail one stage after
/// another; each failed frame leaves an empty frame behind, and the same pipeline's next frame,
/// without a budget, is exactly the frame a fresh pipeline computes.
TEST(Resources, AllocationFailingInsideAFrameLeavesAUsablePipeline) {
  const Models models = spheres(4000);
  for (const TableKind kind : kAlgorithms) {
    const PipelineConfig config = static_config(64, kind);
    const SceneResult expected  = run_scene(kCpu, config, models.a, models.b);
    const std::size_t need =
        estimate_frame_bytes(config, {models.a.points.size(), models.b.points.size()})
            .backend_bytes;
    int failed = 0;
    for (std::size_t slack = 0; slack <= need; slack += need / 32) {
      Pipeline pipeline(kCpu, config);
      pipeline.set_model(0, models.a.points);
      pipeline.set_model(1, models.b.points);
      bool ran = false;
      {
        const BudgetScope budget(allocation_stats(kCpu).in_use + slack);
        try {
          pipeline.run_frame(0.0);
          ran = true;
        } catch (const OutOfMemory& e) {
          ++failed;
          EXPECT_NE(std::string(e.what()).find("allocation budget"), std::string::npos);
        }
      }
      if (!ran) {
        EXPECT_TRUE(pipeline.voxels(0).empty());
        EXPECT_TRUE(pipeline.labels(1).empty());
        EXPECT_TRUE(pipeline.instances(0).empty());
        EXPECT_TRUE(pipeline.download(0).keys.empty());
      }
      const FrameStats stats = pipeline.run_frame(0.0);
      EXPECT_EQ(stats.model[0].voxels, expected.stats.model[0].voxels);
      for (int m = 0; m < 2; ++m) {
        const ModelVoxels voxels = pipeline.download(m);
        EXPECT_EQ(voxels.keys, expected.voxels[m].keys) << to_string(kind) << " slack " << slack;
        EXPECT_TRUE(voxels.labels == expected.voxels[m].labels) << to_string(kind);
      }
      if (ran) break;
    }
    EXPECT_GE(failed, 4) << to_string(kind)
                         << ": the budgets should stop the frame at several "
                            "allocations";
  }
}

TEST(Resources, SetModelThatCannotAllocateKeepsThePreviousModel) {
  const Models models = spheres(4000);
  Pipeline pipeline(kCpu, static_config(64, TableKind::Cuckoo));
  pipeline.set_model(0, models.a.points);
  pipeline.set_model(1, models.b.points);
  const FrameStats before = pipeline.run_frame(0.0);
  const std::vector<Float3> larger(40000, Float3{0.1f, 0.2f, 0.3f});
  {
    const BudgetScope budget(allocation_stats(kCpu).in_use + 100000);  // rest fits, animated not
    EXPECT_THROW(pipeline.set_model(0, larger), OutOfMemory);
  }
  EXPECT_EQ(pipeline.points(0).size(), models.a.points.size());
  EXPECT_EQ(pipeline.run_frame(0.0).model[0].voxels, before.model[0].voxels);
}

// `voxhash bench frame` through the command line, in this process.

struct CliResult {
  int code = 0;
  std::string out, err;
};

CliResult run_voxhash(std::vector<std::string> args) {
  args.insert(args.begin(), "voxhash");
  std::vector<const char*> argv;
  for (const std::string& a : args)
    argv.push_back(a.c_str());
  const cli::FrontEnds front_ends{.view =
                                      [](const viewer::ViewerOptions&) {
                                        ADD_FAILURE() << "the viewer started";
                                        return 0;
                                      },
                                  .bench = bench::run,
                                  .clash = cli::run_clash};
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  CliResult r;
  r.code = cli::run(static_cast<int>(argv.size()), argv.data(), front_ends);
  r.out  = testing::internal::GetCapturedStdout();
  r.err  = testing::internal::GetCapturedStderr();
  return r;
}

/// The lines of `text` that contain `needle`.
std::vector<std::string> lines_with(const std::string& text, const std::string& needle) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) lines.push_back(line);
  }
  return lines;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("voxhash_test_resources_" + std::to_string(getpid()) + "_" + name))
      .string();
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  nlohmann::json json = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  return json;
}

const std::vector<std::string> kTinyFrame = {
    "bench", "frame", "--backend", "cpu", "--points", "2000", "--res", "32"};

std::vector<std::string> tiny_frame(std::vector<std::string> more) {
  std::vector<std::string> args = kTinyFrame;
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(BenchResources, RunThatCannotFitFailsAtOnceInOneLine) {
  const auto start  = std::chrono::steady_clock::now();
  const CliResult r = run_voxhash({"bench", "frame", "--backend", "cpu", "--points", "2^30"});
  const double spent =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.code, 1);
  EXPECT_LT(spent, 10.0) << "the check must come before models are loaded or limits measured";
  const auto errors = lines_with(r.err, "voxhash: error:");
  ASSERT_EQ(errors.size(), 1u) << r.err;
  EXPECT_NE(errors[0].find("2 x 1073741824 points"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("GiB of host memory"), std::string::npos) << errors[0];
  EXPECT_TRUE(lines_with(r.err, "measuring device limits").empty()) << r.err;
}

TEST(BenchResources, AllocationFailingInsideAFrameIsOneLineAndExitOne) {
  // The models' points and animated copies (4 x 12 bytes a point) and their per-model set-up
  // (samples of the inside test, about 280 KiB here) fit; the frame's keys do not.
  const EnvironmentBudget env(std::to_string(48 * 2000 + 300 * 1024));
  const CliResult r = run_voxhash(tiny_frame({"--frames", "2", "--warmup", "0"}));
  EXPECT_EQ(r.code, 1);
  const auto errors = lines_with(r.err, "voxhash: error:");
  ASSERT_EQ(errors.size(), 1u) << r.err;
  EXPECT_NE(errors[0].find("frame 0 (cuckoo): host out of memory"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("allocation budget"), std::string::npos) << errors[0];
}

TEST(BenchResources, SoakSamplesMemoryAtTheStartEveryIntervalAndTheEnd) {
  const std::string json_path = temp_path("soak.json");
  const CliResult r =
      run_voxhash(tiny_frame({"--soak", "0.04", "--soak-every", "0.5", "--json", json_path}));
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json json = read_json(json_path);
  ASSERT_TRUE(json.contains("soak")) << json.dump(2);
  const nlohmann::json& soak = json["soak"];
  EXPECT_DOUBLE_EQ(soak["minutes"].get<double>(), 0.04);
  const nlohmann::json& samples = soak["samples"];
  ASSERT_GE(samples.size(), 3u) << soak.dump(2);
  std::uint64_t frames = 0;
  for (const auto& sample : samples) {
    EXPECT_GT(sample["host_rss_bytes"].get<std::uint64_t>(), 0u);
    EXPECT_GT(sample["buffers_bytes"].get<std::uint64_t>(), 0u);
    EXPECT_GE(sample["frames"].get<std::uint64_t>(), frames);
    frames = sample["frames"].get<std::uint64_t>();
    for (const char* field : {"seconds", "backend_free_bytes", "backend_used_delta_bytes"})
      EXPECT_TRUE(sample.contains(field)) << field;
  }
  EXPECT_GT(frames, 0u);
  EXPECT_EQ(soak["frames"].get<std::uint64_t>(), frames);
  EXPECT_GE(samples.back()["seconds"].get<double>(), 0.04 * 60);
  for (const char* field :
       {"host_rss_growth_bytes", "backend_used_growth_bytes", "buffers_growth_bytes"})
    EXPECT_TRUE(soak.contains(field)) << field;
  EXPECT_EQ(lines_with(r.err, "[soak]").size(), samples.size()) << r.err;
  EXPECT_FALSE(lines_with(r.out, "soak: ").empty()) << r.out;
  EXPECT_FALSE(lines_with(r.out, "growth start to end").empty()) << r.out;
}

TEST(BenchResources, ModelOutsideTheGridIsWarnedOnceAndFlagged) {
  // A scene with given grid bounds (models on the command line would get a fitted grid).
  const std::string near  = temp_path("near.xyz");
  const std::string far   = temp_path("far.xyz");
  const std::string scene = temp_path("outside_scene.json");
  {
    std::ofstream near_out(near), far_out(far);
    for (int i = 0; i < 500; ++i) {
      near_out << std::cos(i * 0.0125) << " " << std::sin(i * 0.0125) << " 0\n";
      far_out << 10 + i * 1e-3 << " 10 10\n";  // far beyond the grid's +-2.4
    }
    std::ofstream(scene) << R"({"voxhash_scene": 1, "models": [{"path": ")" << near
                         << R"("}, {"path": ")" << far
                         << R"("}], "grid": {"bounds": {"min": [-2.4, -2.4, -2.4], )"
                         << R"("max": [2.4, 2.4, 2.4]}}})";
  }
  const std::string json_path = temp_path("outside.json");
  const CliResult r           = run_voxhash(
      tiny_frame({"--scene", scene, "--frames", "3", "--warmup", "0", "--json", json_path}));
  for (const std::string& path : {near, far, scene})
    std::filesystem::remove(path);
  ASSERT_EQ(r.code, 0) << r.err;
  // One per-frame line (the scene's own check says "lie outside grid.bounds" before the frames).
  const auto warnings = lines_with(r.err, "points are outside the grid");
  ASSERT_EQ(warnings.size(), 1u) << r.err;
  EXPECT_NE(warnings[0].find("warning: model b (" + far + "): 100.0 %"), std::string::npos)
      << warnings[0];
  const nlohmann::json json = read_json(json_path);
  // The scene's own warning first (kind "scene"), then the frames'.
  ASSERT_EQ(json["warnings"].size(), 2u) << json["warnings"].dump(2);
  EXPECT_EQ(json["warnings"][0]["kind"], "scene");
  EXPECT_NE(json["warnings"][0]["message"].get<std::string>().find("outside grid.bounds"),
            std::string::npos)
      << json["warnings"][0];
  const nlohmann::json& w = json["warnings"][1];
  EXPECT_EQ(w["kind"], "outside_grid");
  EXPECT_EQ(w["model"], "b");
  EXPECT_EQ(w["path"], far);
  EXPECT_DOUBLE_EQ(w["max_outside_fraction"].get<double>(), 1.0);
  EXPECT_EQ(w["frames_over"], 3);
  EXPECT_EQ(w["frames"], 3);

  const std::string inside_path = temp_path("inside.json");
  const CliResult inside =
      run_voxhash(tiny_frame({"--frames", "3", "--warmup", "0", "--json", inside_path}));
  ASSERT_EQ(inside.code, 0) << inside.err;
  EXPECT_TRUE(lines_with(inside.err, "warning").empty()) << inside.err;
  EXPECT_TRUE(read_json(inside_path)["warnings"].empty());
}

TEST(BenchResources, PointsDroppedForNaNAreInTheReportsWarnings) {
  // Found by a hostile-input audit: bench frame printed the points dropped for NaN on stderr, but
  // its JSON said "warnings": [] (a report read without the terminal hid the loss).
  const std::string cloud = temp_path("nan_cloud.xyz");
  {
    std::ofstream out(cloud);
    for (int i = 0; i < 200; ++i)
      out << std::cos(i * 0.05) << " " << std::sin(i * 0.05) << " 0\n";
    out << "nan 0 0\n0 inf 0\n";
  }
  const std::string json_path = temp_path("nan_cloud.json");
  const CliResult r           = run_voxhash(
      tiny_frame({"--model-a", cloud, "--frames", "1", "--warmup", "0", "--json", json_path}));
  std::filesystem::remove(cloud);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::filesystem::path file = std::filesystem::path(cloud).filename();
  const std::string said           = "model '" + file.stem().string() + "' (" + file.string() +
                           "): 2 points with a NaN or infinite coordinate dropped";
  ASSERT_EQ(lines_with(r.err, said).size(), 1u) << r.err;
  const nlohmann::json warnings = read_json(json_path)["warnings"];
  const auto found = std::find_if(warnings.begin(), warnings.end(), [&](const nlohmann::json& w) {
    return w["kind"] == "scene" && w["message"].get<std::string>().find(said) != std::string::npos;
  });
  EXPECT_NE(found, warnings.end()) << warnings.dump(2);
}

TEST(Resources, HostMemoryCheckHonoursTheProcessLimit) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's shadow memory does not fit an address-space limit";
#else
  // Under ulimit -v the up-front check read MemAvailable only, and a big cloud ended in
  // std::bad_alloc naming nothing. In a child process with 512 MiB of address space to spare:
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::ifstream status("/proc/self/status");
    std::string line;
    std::size_t vm_kib = 0;
    while (std::getline(status, line)) {
      if (line.starts_with("VmSize:")) vm_kib = std::stoull(line.substr(7));
    }
    constexpr std::size_t kSpare = std::size_t{512} << 20;
    const rlimit limit{vm_kib * 1024 + kSpare, vm_kib * 1024 + kSpare};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(10);
    const std::size_t free = free_memory(Backend::Cpu);
    if (free > kSpare) ::_exit(11);
    try {
      require_memory(Backend::Cpu, {.backend_bytes = std::size_t{1} << 30}, "a 1 GiB cloud");
      ::_exit(12);
    } catch (const OutOfMemory& e) {
      ::_exit(std::string(e.what()).starts_with("a 1 GiB cloud needs 1.00 GiB") ? 0 : 13);
    }
  }
  int code = 0;
  ASSERT_EQ(::waitpid(child, &code, 0), child);
  ASSERT_TRUE(WIFEXITED(code));
  EXPECT_EQ(WEXITSTATUS(code), 0) << "10: setrlimit, 11: free memory above the limit, 12: no "
                                     "error, 13: another message";
#endif
}

/// Runs load_point_cloud(path) in a child process with `spare` bytes of address space; its
/// exit code: 0 when it threw OutOfMemory starting with `expected`, else what went wrong (10:
/// setrlimit, 12: no error, 13: another message, 14: another exception).
int load_under_a_memory_limit(const std::filesystem::path& path,
                              const std::string& expected,
                              std::size_t spare = std::size_t{512} << 20) {
  const pid_t child = ::fork();
  if (child < 0) return -1;
  if (child == 0) {
    std::ifstream status("/proc/self/status");
    std::string line;
    std::size_t vm_kib = 0;
    while (std::getline(status, line)) {
      if (line.starts_with("VmSize:")) vm_kib = std::stoull(line.substr(7));
    }
    const rlimit limit{vm_kib * 1024 + spare, vm_kib * 1024 + spare};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(10);
    try {
      (void)load_point_cloud(path, 0);
      ::_exit(12);
    } catch (const OutOfMemory& e) {
      ::_exit(std::string(e.what()).starts_with(expected) ? 0 : 13);
    } catch (...) {
      ::_exit(14);
    }
  }
  int code = 0;
  if (::waitpid(child, &code, 0) != child || !WIFEXITED(code)) return -1;
  return WEXITSTATUS(code);
}

TEST(Resources, ModelsBeyondTheProcessLimitFailNamingTheFile) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's shadow memory does not fit an address-space limit";
#else
  // Files whose counts fit their size (sparse files: gigabytes that take no disk) but whose points
  // do not fit the memory the process may take: refused from their headers, naming the file,
  // before their data is read or anything allocated for it. A PLY used to be read into one string
  // first; under ulimit -v both ended in std::bad_alloc naming nothing.
  const std::string stem          = "voxhash_test_sparse_" + std::to_string(::getpid());
  const std::filesystem::path ply = std::filesystem::temp_directory_path() / (stem + ".ply");
  const std::string ply_header =
      "ply\nformat binary_little_endian 1.0\nelement vertex 1073741824\nproperty char x\n"
      "property char y\nproperty char z\nend_header\n";
  std::ofstream(ply, std::ios::binary) << ply_header;
  std::filesystem::resize_file(ply, ply_header.size() + (std::uint64_t{3} << 30));
  EXPECT_EQ(load_under_a_memory_limit(
                ply, ply.string() + ": its 1073741824 vertices need 12.0 GiB of host memory; "),
            0);
  std::filesystem::remove(ply);

  // LAS 1.2, point format 0 (20-byte records), 2^30 points.
  const std::filesystem::path las = std::filesystem::temp_directory_path() / (stem + ".las");
  std::string las_header(227, '\0');
  const auto put = [&](std::size_t at, auto value) {
    std::memcpy(las_header.data() + at, &value, sizeof value);
  };
  las_header.replace(0, 4, "LASF");
  las_header[24] = 1;
  las_header[25] = 2;
  put(94, std::uint16_t{227});
  put(96, std::uint32_t{227});
  put(105, std::uint16_t{20});
  put(107, std::uint32_t{1} << 30);
  for (int a = 0; a < 3; ++a)
    put(131 + 8 * a, 0.01);
  std::ofstream(las, std::ios::binary) << las_header;
  std::filesystem::resize_file(las, 227 + (std::uint64_t{20} << 30));
  EXPECT_EQ(load_under_a_memory_limit(
                las, las.string() + ": its 1073741824 points need 16.0 GiB of host memory; "),
            0);
  std::filesystem::remove(las);

  // A text cloud's count is known only at its end: running out of memory while reading it names
  // the file (4M points, 24 MB of text, 48 MB of points, with 32 MiB to spare).
  const std::filesystem::path xyz = std::filesystem::temp_directory_path() / (stem + ".xyz");
  {
    std::ofstream out(xyz, std::ios::binary);
    const std::string lines = [] {
      std::string block;
      for (int i = 0; i < 4096; ++i)
        block += "0 0 0\n";
      return block;
    }();
    for (int i = 0; i < 1024; ++i)
      out << lines;
  }
  EXPECT_EQ(load_under_a_memory_limit(
                xyz, xyz.string() + ": out of host memory after ", std::size_t{32} << 20),
            0);
  std::filesystem::remove(xyz);
#endif
}

}  // namespace
}  // namespace voxhash::test
