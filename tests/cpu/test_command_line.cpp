// The one command line (label cpu), with front ends that only record what they were given: --help
// of each subcommand, usage errors as exit code 2 and one line naming the flag (viewer and bench
// alike), the checks the subcommands share (counts with suffixes, --points 1 legal and 0 not, empty
// paths, output folders that must exist before anything runs), the defaults set by the backend and
// --gpu-budget overriding a scene's.
#include "cli/command_line.hpp"

#include <algorithm>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace voxhash::test {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string out, err;
  std::optional<viewer::ViewerOptions> view;  // what the viewer was started with
  std::optional<bench::Options> bench;        // what the benchmarks were started with
  std::optional<cli::ClashCommand> clash;     // what the clash command was started with
};

/// `voxhash args...`, stdout and stderr captured.
Outcome run(std::vector<std::string> args) {
  args.insert(args.begin(), "voxhash");
  std::vector<const char*> argv;
  for (const std::string& a : args)
    argv.push_back(a.c_str());
  Outcome outcome;
  const cli::FrontEnds front_ends{.view =
                                      [&](const viewer::ViewerOptions& o) {
                                        outcome.view = o;
                                        return 0;
                                      },
                                  .bench =
                                      [&](const bench::Options& o) {
                                        outcome.bench = o;
                                        return 0;
                                      },
                                  .clash =
                                      [&](const cli::ClashCommand& c) {
                                        outcome.clash = c;
                                        return 0;
                                      }};
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  outcome.exit_code = cli::run(static_cast<int>(argv.size()), argv.data(), front_ends);
  outcome.out       = ::testing::internal::GetCapturedStdout();
  outcome.err       = ::testing::internal::GetCapturedStderr();
  return outcome;
}

std::string joined(const std::vector<std::string>& args) {
  std::string text = "voxhash";
  for (const std::string& a : args)
    text += " " + a;
  return text;
}

/// A usage error: exit code 2, nothing started, one line on stderr that contains `named`.
void expect_usage_error(const std::vector<std::string>& args, std::string_view named) {
  const Outcome r = run(args);
  EXPECT_EQ(r.exit_code, 2) << joined(args);
  EXPECT_FALSE(r.view.has_value()) << joined(args) << ": the viewer started";
  EXPECT_FALSE(r.bench.has_value()) << joined(args) << ": the benchmarks started";
  EXPECT_FALSE(r.clash.has_value()) << joined(args) << ": the clash command started";
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << joined(args) << ": " << r.err;
  EXPECT_NE(r.err.find(named), std::string::npos) << joined(args) << ": " << r.err;
}

std::string missing_folder_file(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / "voxhash_no_such_folder" / name).string();
}

TEST(CommandLine, HelpOfEachSubcommandListsItsFlags) {
  const std::vector<std::string> view_flags = {
      "--scene",      "--voxel-size", "--translate-a", "--translate-b", "--model-a",
      "--model-b",    "--points",     "--res",         "--algo",        "--backend",
      "--frames",     "--screenshot", "--export",      "--offscreen",   "--timing",
      "--no-interop", "--no-panel",   "--width",       "--height",      "voxhash bench --help",
      "--gpu-budget"};
  const std::vector<std::string> common = {"--backend", "--json", "--csv", "--quick", "--full"};
  std::vector<std::string> tables = common, frame = common;
  tables.insert(tables.end(), {"--runs", "--sweep"});
  frame.insert(frame.end(),
               {"--points",
                "--res",
                "--algo",
                "--all-algos",
                "--frames",
                "--warmup",
                "--scene",
                "--voxel-size",
                "--translate-a",
                "--model-a",
                "--model-b",
                "--export",
                "--gpu-budget"});
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> cases = {
      {{"--help"}, view_flags},
      {{"view", "--help"}, view_flags},
      {{"-h"}, view_flags},
      {{"bench", "--help"}, {"limits", "tables", "frame"}},
      {{"bench", "limits", "--help"}, common},
      {{"bench", "tables", "--help"}, tables},
      {{"bench", "frame", "--help"}, frame},
      {{"clash", "--help"},
       {"SCENE",
        "--json",
        "--csv",
        "--export-ply",
        "--time",
        "--voxel-size",
        "--translate-a",
        "--model-a",
        "--points",
        "--res",
        "--algo",
        "--backend",
        "--gpu-budget"}},
  };
  for (const auto& [args, flags] : cases) {
    const Outcome r = run(args);
    EXPECT_EQ(r.exit_code, 0) << joined(args) << ": " << r.err;
    EXPECT_FALSE(r.view || r.bench) << joined(args);
    for (const std::string& flag : flags)
      EXPECT_NE(r.out.find(flag), std::string::npos) << joined(args) << " lacks " << flag;
  }
  EXPECT_EQ(run({"bench", "limits", "--help"}).out.find("--points"), std::string::npos);
  EXPECT_EQ(run({"bench", "frame", "--help"}).out.find("--render"), std::string::npos);
}

TEST(CommandLine, WithoutASubcommandTheViewerStartsWithBackendDefaults) {
  const Outcome r = run({"--backend", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(r.view.has_value());
  EXPECT_EQ(r.view->backend, Backend::Cpu);
  EXPECT_EQ(r.view->points, 200000u);
  EXPECT_EQ(r.view->resolution, 256);
  EXPECT_EQ(r.view->algorithm, TableKind::Cuckoo);
  EXPECT_FALSE(r.view->frames.has_value());
  // The bundled demo scene: its two models, its swing.
  EXPECT_TRUE(r.view->scene.file.ends_with("assets/demo.json")) << r.view->scene.file;
  EXPECT_TRUE(r.view->scene.models[0].path.string().ends_with("assets/sphere.obj"));
  EXPECT_TRUE(r.view->scene.models[1].path.string().ends_with("assets/torus.obj"));
  EXPECT_EQ(r.view->scene.motion.kind, MotionKind::Swing);
}

TEST(CommandLine, ViewTakesTheSameFlags) {
  const Outcome r = run({"view",
                         "--backend",
                         "cpu",
                         "--points",
                         "8M",
                         "--res",
                         "2^9",
                         "--algo",
                         "hashgraph-v2",
                         "--frames",
                         "3",
                         "--offscreen",
                         "--timing",
                         "--model-a",
                         "a.obj",
                         "--width",
                         "640"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(r.view.has_value());
  EXPECT_EQ(r.view->points, 8'000'000u);
  EXPECT_EQ(r.view->resolution, 512);
  EXPECT_EQ(r.view->algorithm, TableKind::HashGraphV2);
  EXPECT_EQ(r.view->frames, 3);
  EXPECT_TRUE(r.view->offscreen);
  EXPECT_TRUE(r.view->timing);
  // A model on the command line without a scene: a user scene, no motion, grid fitted.
  EXPECT_EQ(r.view->scene.models[0].path, "a.obj");
  EXPECT_TRUE(r.view->scene.models[1].path.string().ends_with("assets/torus.obj"));
  EXPECT_EQ(r.view->scene.motion.kind, MotionKind::None);
  EXPECT_FALSE(r.view->scene.grid.bounds.has_value());
  EXPECT_EQ(r.view->scene.grid.resolution, 512);
  EXPECT_EQ(r.view->width, 640);
  EXPECT_EQ(r.view->height, 800);
}

TEST(CommandLine, EveryAlgorithmNameIsAccepted) {
  for (const TableKind kind : kTableKinds) {
    const std::string name(to_string(kind));
    const Outcome r = run({"bench", "frame", "--backend", "cpu", "--algo", name});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    ASSERT_TRUE(r.bench.has_value());
    EXPECT_EQ(r.bench->algorithm, kind) << name;
  }
}

TEST(CommandLine, BenchDefaultsFollowTheBackendAndQuick) {
  const Outcome quick = run({"bench", "frame", "--backend", "cpu"});
  ASSERT_EQ(quick.exit_code, 0) << quick.err;
  ASSERT_TRUE(quick.bench.has_value());
  EXPECT_EQ(quick.bench->command, bench::Command::Frame);
  EXPECT_EQ(quick.bench->command_line, "voxhash bench frame --backend cpu");
  EXPECT_TRUE(quick.bench->quick);
  EXPECT_EQ(quick.bench->points, 100'000u);
  EXPECT_EQ(quick.bench->frames, 10);
  EXPECT_EQ(quick.bench->warmup, 2);
  EXPECT_EQ(quick.bench->resolution, 512);

  const Outcome full =
      run({"bench", "frame", "--backend", "cpu", "--full", "--points", "1G", "--warmup", "0"});
  ASSERT_EQ(full.exit_code, 0) << full.err;
  ASSERT_TRUE(full.bench.has_value());
  EXPECT_FALSE(full.bench->quick);
  EXPECT_EQ(full.bench->points, 1'000'000'000u);
  EXPECT_EQ(full.bench->frames, 100);
  EXPECT_EQ(full.bench->warmup, 0);

  const Outcome sweeps =
      run({"bench", "tables", "--backend", "cpu", "--sweep", "load", "--sweep", "misses"});
  ASSERT_TRUE(sweeps.bench.has_value()) << sweeps.err;
  EXPECT_EQ(sweeps.bench->command, bench::Command::Tables);
  EXPECT_EQ(sweeps.bench->sweeps, (std::vector{bench::Sweep::Load, bench::Sweep::Misses}));
}

TEST(CommandLine, ClashTakesASceneAndItsOutputs) {
  const std::string json = (std::filesystem::path(::testing::TempDir()) / "r.json").string();
  const Outcome r        = run({"clash", "--backend", "cpu", "--json", json, "--time", "1.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(r.clash.has_value());
  ASSERT_EQ(r.clash->scenes.size(), 1u);
  EXPECT_TRUE(r.clash->scenes[0].file.ends_with("assets/demo.json")) << r.clash->scenes[0].file;
  EXPECT_EQ(r.clash->json_path, json);
  EXPECT_EQ(r.clash->time, 1.5);
  EXPECT_EQ(r.clash->defaults.points, 200'000u);
  EXPECT_EQ(r.clash->defaults.resolution, 256);
  EXPECT_EQ(r.clash->command_line, "voxhash clash --backend cpu --json " + json + " --time 1.5");
  EXPECT_FALSE(r.clash->scenes[0].gpu_budget.has_value()) << "no budget unless given";
  EXPECT_TRUE(r.clash->times.empty());

  // Several scenes, each in turn; --times as a range (T1 included) or a list.
  const std::string demo  = std::string(VOXHASH_SOURCE_DIR) + "/assets/demo.json";
  const std::string paged = std::string(VOXHASH_SOURCE_DIR) + "/assets/paged_clouds.json";
  const Outcome batch     = run({"clash", demo, paged, "--backend", "cpu"});
  ASSERT_EQ(batch.exit_code, 0) << batch.err;
  ASSERT_EQ(batch.clash->scenes.size(), 2u);
  EXPECT_EQ(batch.clash->scenes[1].file, paged);
  EXPECT_EQ(cli::run_label(*batch.clash, 1, 0.25), "paged_clouds.t0.25");
  EXPECT_EQ(cli::run_label(*batch.clash, 0, std::nullopt), "demo");
  const Outcome range = run({"clash", demo, "--backend", "cpu", "--times", "0:1:0.25"});
  ASSERT_EQ(range.exit_code, 0) << range.err;
  EXPECT_EQ(range.clash->times, (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  const Outcome list = run({"clash", demo, "--backend", "cpu", "--times", "3,0.5", "--sweep"});
  EXPECT_EQ(list.exit_code, 2) << "a list must increase";
  const Outcome sweep = run({"clash", demo, "--backend", "cpu", "--times", "0.5,3", "--sweep"});
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_TRUE(sweep.clash->sweep);
  EXPECT_EQ(sweep.clash->times, (std::vector<double>{0.5, 3}));
  EXPECT_EQ(cli::run_label(*sweep.clash, 0, 3.0), "t3") << "one scene: the time alone";

  // The viewer keeps a status file too, in a folder that exists.
  const Outcome view = run({"--backend", "cpu", "--status", json});
  ASSERT_TRUE(view.view.has_value()) << view.err;
  EXPECT_EQ(view.view->status_path, json);
  expect_usage_error({"view", "--status", "/nonexistent/s.json"}, "--status");
}

TEST(CommandLine, GpuBudgetOfTheJoins) {
  const Outcome clash = run({"clash", "--backend", "cpu", "--gpu-budget", "64MiB"});
  ASSERT_TRUE(clash.clash.has_value()) << clash.err;
  EXPECT_EQ(clash.clash->scenes[0].gpu_budget, std::size_t{64} << 20);
  const Outcome join = run({"bench", "join", "--backend", "cpu", "--gpu-budget", "1GiB"});
  ASSERT_TRUE(join.bench.has_value()) << join.err;
  EXPECT_EQ(join.bench->command, bench::Command::Join);
  EXPECT_EQ(join.bench->gpu_budget, std::size_t{1} << 30);
  const Outcome none = run({"bench", "join", "--backend", "cpu"});
  ASSERT_TRUE(none.bench.has_value()) << none.err;
  EXPECT_EQ(none.bench->gpu_budget, 0u) << "no budget unless given";
  expect_usage_error({"clash", "--gpu-budget", "lots"}, "--gpu-budget");
}

TEST(CommandLine, CuckooSpaceOfTheFrame) {
  const Outcome frame = run({"bench", "frame", "--backend", "cpu", "--cuckoo-space", "2"});
  ASSERT_TRUE(frame.bench.has_value()) << frame.err;
  EXPECT_EQ(frame.bench->cuckoo_space, 2.0);
  const Outcome none = run({"bench", "frame", "--backend", "cpu"});
  ASSERT_TRUE(none.bench.has_value()) << none.err;
  EXPECT_EQ(none.bench->cuckoo_space, 0.0) << "the tables' default unless given";
  expect_usage_error({"bench", "frame", "--cuckoo-space", "0.9"}, "--cuckoo-space");
  expect_usage_error({"bench", "frame", "--cuckoo-space", "lots"}, "--cuckoo-space");
}

TEST(CommandLine, GpuBudgetOfTheFrameOverridesTheScenes) {
  constexpr std::size_t kGiB = std::size_t{1} << 30;
  const Outcome frame        = run({"bench", "frame", "--backend", "cpu", "--gpu-budget", "1GiB"});
  ASSERT_TRUE(frame.bench.has_value()) << frame.err;
  EXPECT_EQ(frame.bench->scene.gpu_budget, kGiB);
  const Outcome view = run({"--backend", "cpu", "--gpu-budget", "512MiB"});
  ASSERT_TRUE(view.view.has_value()) << view.err;
  EXPECT_EQ(view.view->scene.gpu_budget, std::size_t{512} << 20);
  const Outcome clash = run({"clash", "--backend", "cpu", "--gpu-budget", "2GB"});
  ASSERT_TRUE(clash.clash.has_value()) << clash.err;
  EXPECT_EQ(clash.clash->scenes[0].gpu_budget, 2'000'000'000u)
      << "the frame's tables and the part pairs' join";
  const Outcome none = run({"bench", "frame", "--backend", "cpu"});
  ASSERT_TRUE(none.bench.has_value()) << none.err;
  EXPECT_FALSE(none.bench->scene.gpu_budget.has_value()) << "the demo has no budget";

  // The big scene has "gpu_budget": "1GiB"; the flag overrides it, in every front end.
  const std::string scene = std::string(VOXHASH_SOURCE_DIR) + "/assets/paged_clouds.json";
  const Outcome scenes    = run({"bench", "frame", "--backend", "cpu", "--scene", scene});
  ASSERT_TRUE(scenes.bench.has_value()) << scenes.err;
  EXPECT_EQ(scenes.bench->scene.gpu_budget, kGiB);
  const Outcome clash_scenes = run({"clash", scene, "--backend", "cpu"});
  ASSERT_TRUE(clash_scenes.clash.has_value()) << clash_scenes.err;
  EXPECT_EQ(clash_scenes.clash->scenes[0].gpu_budget, kGiB);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"bench", "frame", "--scene", scene},
        std::vector<std::string>{"view", "--scene", scene},
        std::vector<std::string>{"clash", scene}}) {
    std::vector<std::string> with_flag = args;
    with_flag.insert(with_flag.end(), {"--backend", "cpu", "--gpu-budget", "64MiB"});
    const Outcome r = run(with_flag);
    ASSERT_EQ(r.exit_code, 0) << joined(with_flag) << ": " << r.err;
    const Scene& s = r.bench ? r.bench->scene : r.view ? r.view->scene : r.clash->scenes[0];
    EXPECT_EQ(s.gpu_budget, std::size_t{64} << 20) << joined(with_flag);
  }

  expect_usage_error({"bench", "frame", "--gpu-budget", "0"}, "--gpu-budget");
  expect_usage_error({"view", "--gpu-budget", "12parsecs"}, "--gpu-budget");
  expect_usage_error({"--gpu-budget", "-5"}, "--gpu-budget");
  expect_usage_error({"clash", "--gpu-budget", "1.5GiB"}, "--gpu-budget");
  for (const std::vector<std::string>& args : {std::vector<std::string>{"view", "--help"},
                                               std::vector<std::string>{"bench", "frame", "--help"},
                                               std::vector<std::string>{"clash", "--help"}}) {
    const std::string help = run(args).out;
    EXPECT_NE(help.find("--gpu-budget"), std::string::npos) << joined(args);
    EXPECT_NE(help.find("the two models' tables may take SIZE of device memory"), std::string::npos)
        << joined(args) << ": " << help;
  }
  EXPECT_NE(run({"clash", "--help"}).out.find("part pairs' join"), std::string::npos);
}

TEST(CommandLine, UsageErrorsExitTwoWithOneLineNamingTheFlag) {
  expect_usage_error({"--bogus"}, "unknown option '--bogus'");
  expect_usage_error({"view", "--bogus"}, "unknown option '--bogus'");
  expect_usage_error({"--points"}, "--points");
  expect_usage_error({"--points", "abc"}, "--points");
  expect_usage_error({"--points", "2^"}, "--points");
  expect_usage_error({"--res", "3000000"}, "--res");
  expect_usage_error({"--algo", "quadratic"}, "--algo");
  expect_usage_error({"--backend", "opencl"}, "--backend");
  expect_usage_error({"--screenshot", "x.png"}, "--screenshot");
  expect_usage_error({"--export", "x.ply"}, "--export");
  expect_usage_error({"--offscreen"}, "--offscreen");
  expect_usage_error({"--width", "10"}, "--width");
  expect_usage_error({"view", "extra"}, "'extra'");
  expect_usage_error({"benchmark"}, "unknown command 'benchmark'");
  expect_usage_error({"bench"}, "missing command");
  expect_usage_error({"bench", "bogus"}, "unknown command 'bogus'");
  expect_usage_error({"bench", "frame", "--render"}, "unknown option '--render'");
  expect_usage_error({"bench", "limits", "--points", "5"}, "unknown option '--points'");
  expect_usage_error({"bench", "tables", "--export", "x.ply"}, "unknown option '--export'");
  expect_usage_error({"bench", "tables", "--quick", "--full"}, "excludes");
  expect_usage_error({"bench", "tables", "--runs", "2"}, "--runs");
  expect_usage_error({"bench", "tables", "--sweep", "bogus"}, "--sweep");
  expect_usage_error({"bench", "frame", "--json"}, "--json");
  expect_usage_error({"bench", "frame", "--frames", "0"}, "--frames");
  expect_usage_error({"--voxel-size", "0"}, "--voxel-size");
  expect_usage_error({"--voxel-size", "2 parsecs"}, "is not a length above 0 such as 2cm");
  expect_usage_error({"clash", "--model-a", "a.obj"}, "--model-a needs --model-b");
  expect_usage_error({"clash", "--model-b", "b.obj"}, "--model-b needs --model-a");
  expect_usage_error({"--voxel-size", "-1"}, "--voxel-size");
  expect_usage_error({"--translate-a", "1,2"}, "--translate-a");
  for (const char* time : {"nan", "inf", "-inf", "1e999", "1s", "1e300", "-2e9"}) {
    expect_usage_error({"clash", "--time", time}, "--time");
  }
  // CLI::Range let NaN through (it fails no comparison): these ran with a NaN setting.
  expect_usage_error({"bench", "frame", "--cuckoo-space", "nan"}, "--cuckoo-space");
  expect_usage_error({"bench", "frame", "--soak", "nan"}, "--soak");
  expect_usage_error({"bench", "frame", "--soak", "1", "--soak-every", "nan"}, "--soak-every");
  expect_usage_error({"bench", "tables", "--paged", "--page-space", "nan"}, "--page-space");
  expect_usage_error({"bench", "frame", "--translate-b", "1,2,x"}, "--translate-b");
  expect_usage_error({"clash", "--bogus"}, "unknown option '--bogus'");
}

TEST(CommandLine, PointsZeroIsAUsageErrorNotTheDefault) {
  expect_usage_error({"--points", "0"}, "--points");
  expect_usage_error({"view", "--points", "0"}, "--points");
  expect_usage_error({"bench", "frame", "--points", "0"}, "--points");
}

TEST(CommandLine, EmptyModelPathIsAUsageErrorNotTheDefault) {
  expect_usage_error({"--model-a="}, "--model-a");
  expect_usage_error({"--model-a", ""}, "--model-a");
  expect_usage_error({"bench", "frame", "--model-b="}, "--model-b");
  expect_usage_error({"bench", "frame", "--model-a", ""}, "--model-a");
}

TEST(CommandLine, OnePointPerModelIsLegalInViewerAndBench) {
  const Outcome view = run({"--backend", "cpu", "--points", "1"});
  ASSERT_TRUE(view.view.has_value()) << view.err;
  EXPECT_EQ(view.view->points, 1u);
  const Outcome bench = run({"bench", "frame", "--backend", "cpu", "--points", "1"});
  ASSERT_TRUE(bench.bench.has_value()) << bench.err;
  EXPECT_EQ(bench.bench->points, 1u);
}

TEST(CommandLine, OutputsIntoAMissingFolderFailBeforeAnythingRuns) {
  const std::string png  = missing_folder_file("shot.png");
  const std::string ply  = missing_folder_file("voxels.ply");
  const std::string json = missing_folder_file("out.json");
  const std::string csv  = missing_folder_file("out.csv");
  const std::string folder =
      (std::filesystem::path(::testing::TempDir()) / "voxhash_no_such_folder").string();
  expect_usage_error({"--frames", "100000", "--screenshot", png}, "--screenshot");
  expect_usage_error({"--frames", "100000", "--screenshot", png}, folder);
  expect_usage_error({"--offscreen", "--frames", "100000", "--export", ply}, "--export");
  expect_usage_error({"bench", "tables", "--json", json}, "--json");
  expect_usage_error({"bench", "limits", "--csv", csv}, "--csv");
  expect_usage_error({"bench", "frame", "--export", ply}, "--export");
  expect_usage_error({"bench", "limits", "--json", ::testing::TempDir()}, "is a folder");
}

TEST(CommandLine, OutputLostToAFullDeviceIsAFailure) {
  // `voxhash --help > /dev/full` (and a bench whose table went there) used to exit 0. In a child
  // process whose standard output is /dev/full, with stdout fully buffered as when redirected.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int full = ::open("/dev/full", O_WRONLY);
    if (full < 0 || ::dup2(full, 1) < 0) ::_exit(100);
    static char buffer[1 << 16];
    std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    const char* argv[] = {"voxhash", "--help"};
    const cli::FrontEnds none{.view  = [](const viewer::ViewerOptions&) { return 0; },
                              .bench = [](const bench::Options&) { return 0; },
                              .clash = [](const cli::ClashCommand&) { return 0; }};
    ::_exit(cli::run(2, argv, none));
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
}

}  // namespace
}  // namespace voxhash::test
