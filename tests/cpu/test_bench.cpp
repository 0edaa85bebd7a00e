// `voxhash bench` on the CPU backend (label cpu), run in-process through the command line:
// `limits`, the quick `tables` set, the quick `join` set (also under a GPU budget, over pages) and
// a tiny `frame --all-algos` run write JSON (and CSV) with the schema's fields (the run's memory
// peaks among them) and positive rates; `frame --export` writes a PLY; `frame --join` reports the
// pairs a brute-force count gives, and skips a join too large with one line; one point per model
// is a legal frame; usage errors exit 2.
// Performance itself is never asserted.
#include "bench/bench.hpp"
#include "cli/command_line.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/geometry.hpp>
#include <voxhash/hash_table.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <string_view>
#include <unistd.h>
#include <utility>
#include <vector>

namespace voxhash::test {
namespace {

/// `voxhash args...` with the real benchmarks and a viewer that must not start; the exit code.
int run_bench(std::vector<std::string> args) {
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
                                  .clash =
                                      [](const cli::ClashCommand&) {
                                        ADD_FAILURE() << "the clash command started";
                                        return 0;
                                      }};
  return cli::run(static_cast<int>(argv.size()), argv.data(), front_ends);
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("voxhash_test_bench_" + std::to_string(getpid()) + "_" + name))
      .string();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove(path);
  return text.str();
}

/// `"field": `, as the writer puts it before a value.
std::string key_of(std::string_view field) {
  std::string key = "\"";
  key.append(field);
  key.append("\": ");
  return key;
}

/// The values of every `"field": value` in the JSON text (null reads as 0).
std::vector<double> values_of(const std::string& json, std::string_view field) {
  std::vector<double> values;
  const std::string needle = key_of(field);
  for (auto pos = json.find(needle); pos != std::string::npos; pos = json.find(needle, pos + 1)) {
    values.push_back(std::strtod(json.c_str() + pos + needle.size(), nullptr));
  }
  return values;
}

void expect_header(const std::string& json) {
  EXPECT_NE(json.find("\"schema\": \"voxhash-bench/1\""), std::string::npos);
  EXPECT_NE(json.find("\"backend\": \"cpu\""), std::string::npos);
  for (const char* field :
       {"device", "driver", "git_commit", "command_line", "date", "limits", "results", "skipped"}) {
    EXPECT_NE(json.find(key_of(field)), std::string::npos) << field;
  }
  // The run's memory peaks: on the CPU backend the host's hold the device's and the pinned ones.
  const std::vector<double> device = values_of(json, "peak_device_bytes");
  const std::vector<double> pinned = values_of(json, "peak_pinned_bytes");
  const std::vector<double> host   = values_of(json, "peak_host_bytes");
  ASSERT_EQ(device.size(), 1u);
  ASSERT_EQ(pinned.size(), 1u);
  ASSERT_EQ(host.size(), 1u);
  EXPECT_GT(device[0], 0);
  EXPECT_LE(device[0], host[0]);
  EXPECT_LE(pinned[0], host[0]);
  EXPECT_LE(host[0], device[0] + pinned[0]);
}

void expect_positive_limits(const std::string& json) {
  for (const char* field : {"read4_dram",
                            "read8_dram",
                            "read4_l2",
                            "read8_l2",
                            "exch8_dram",
                            "exch8_l2",
                            "copy_gbs",
                            "sort_pairs",
                            "h2d_gbs",
                            "d2h_gbs",
                            "dram_table_gib",
                            "l2_table_mib"}) {
    const std::vector<double> v = values_of(json, field);
    ASSERT_EQ(v.size(), 1u) << field;
    EXPECT_GT(v[0], 0) << field;
  }
}

TEST(bench, LimitsWriteJson) {
  const std::string json_path = temp_path("limits.json");
  EXPECT_EQ(run_bench({"bench", "limits", "--backend", "cpu", "--quick", "--json", json_path}), 0);
  const std::string json = read_text(json_path);
  expect_header(json);
  expect_positive_limits(json);
  EXPECT_NE(json.find("\"results\": []"), std::string::npos);
}

TEST(bench, QuickTablesWriteJsonAndCsv) {
  const std::string json_path = temp_path("tables.json");
  const std::string csv_path  = temp_path("tables.csv");
  EXPECT_EQ(run_bench({"bench",
                       "tables",
                       "--backend",
                       "cpu",
                       "--quick",
                       "--json",
                       json_path,
                       "--csv",
                       csv_path}),
            0);
  const std::string json = read_text(json_path);
  expect_header(json);
  expect_positive_limits(json);

  const std::vector<double> rates = values_of(json, "rate_gkeys");
  ASSERT_FALSE(rates.empty());
  for (const double rate : rates)
    EXPECT_GT(rate, 0);
  for (const double fraction : values_of(json, "fraction_of_bound"))
    EXPECT_GT(fraction, 0);
  EXPECT_EQ(values_of(json, "suite").size(), rates.size());
  for (const char* algorithm : {"cuckoo", "hashgraph-v1", "hashgraph-v2", "bcht", "sorted-array"}) {
    EXPECT_NE(json.find(key_of("algorithm") + '"' + algorithm + '"'), std::string::npos)
        << algorithm;
  }
  for (const char* operation :
       {"insert", "build", "find-hit", "find-miss", "probe-standard", "probe-intersect"}) {
    EXPECT_NE(json.find(key_of("operation") + '"' + operation + '"'), std::string::npos)
        << operation;
  }

  std::istringstream csv(read_text(csv_path));
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  EXPECT_TRUE(line.starts_with("suite,sweep,algorithm,operation,keys,"));
  std::size_t rows = 0;
  while (std::getline(csv, line))
    rows += line.starts_with("tables,");
  EXPECT_EQ(rows, rates.size());
}

TEST(bench, QuickPagedTablesWriteJson) {
  const std::string json_path = temp_path("paged.json");
  EXPECT_EQ(run_bench({"bench",
                       "tables",
                       "--backend",
                       "cpu",
                       "--quick",
                       "--paged",
                       "--gpu-budget",
                       "1MiB",
                       "--json",
                       json_path}),
            0);
  const std::string json = read_text(json_path);
  expect_header(json);
  expect_positive_limits(json);
  EXPECT_NE(json.find(key_of("algorithm") + "\"paged-cuckoo\""), std::string::npos);
  EXPECT_NE(json.find(key_of("bound") + "\"d2h_gbs/8\""), std::string::npos);
  EXPECT_NE(json.find(key_of("bound") + "\"h2d_gbs/8\""), std::string::npos);
  const std::vector<double> budgets = values_of(json, "gpu_budget");
  ASSERT_EQ(budgets.size(), 6u) << "insert, find-hit, find-miss, 4x the budget and within it";
  for (const double b : budgets)
    EXPECT_EQ(b, 1 << 20);
  const std::vector<double> used = values_of(json, "gpu_bytes");
  for (const double u : used)
    EXPECT_LE(u, 1 << 20) << "the table's memory stays within its budget";
  EXPECT_EQ(values_of(json, "of_flat").size(), 3u) << "the table within the budget beside flat";
  EXPECT_GT(values_of(json, "bytes_to_host").front(), 0) << "the 4x table's build downloads";
  EXPECT_GE(values_of(json, "peak_pinned_bytes").front(), 3 << 20)
      << "the 4x table's pages beyond the budget are held in pinned host memory";
  for (const double rate : values_of(json, "rate_gkeys"))
    EXPECT_GT(rate, 0);
}

TEST(bench, PagedTablesUnderOnePageFailBeforeMeasuring) {
  // A budget of 1 byte printed the device limits and no table, and exited 0.
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int code =
      run_bench({"bench", "tables", "--backend", "cpu", "--quick", "--paged", "--gpu-budget", "1"});
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, 1);
  EXPECT_NE(err.find("--gpu-budget 1 B holds no page; the paged bench needs at least"),
            std::string::npos)
      << err;
  EXPECT_EQ(out.find("read8_dram"), std::string::npos) << "no device limits were measured";
}

TEST(bench, QuickJoinWritesJson) {
  const std::string json_path = temp_path("join.json");
  EXPECT_EQ(
      run_bench(
          {"bench", "join", "--backend", "cpu", "--quick", "--runs", "3", "--json", json_path}),
      0);
  const std::string json = read_text(json_path);
  expect_header(json);
  expect_positive_limits(json);
  const std::vector<double> rates = values_of(json, "rate_gkeys");
  ASSERT_FALSE(rates.empty());
  for (const double rate : rates)
    EXPECT_GT(rate, 0);
  for (const double bound : values_of(json, "bound_gkeys"))
    EXPECT_GT(bound, 0);
  for (const char* algorithm : {"cuckoo", "hashgraph-v1", "hashgraph-v2", "bcht", "sort-merge"}) {
    EXPECT_NE(json.find(key_of("algorithm") + '"' + algorithm + '"'), std::string::npos)
        << algorithm;
  }
  for (const char* operation : {"left-join", "left-join-pairs", "inner-join", "inner-join-pairs"}) {
    EXPECT_NE(json.find(key_of("operation") + '"' + operation + '"'), std::string::npos)
        << operation;
  }
  // Paper: every probe row is an output row; multiplicity m: n * m pairs from n probe rows.
  const auto probe = values_of(json, "probe_rows"), output = values_of(json, "output_rows");
  const auto mult = values_of(json, "multiplicity");
  ASSERT_EQ(probe.size(), output.size());
  ASSERT_EQ(mult.size(), output.size());
  for (std::size_t i = 0; i < probe.size(); ++i)
    EXPECT_EQ(output[i], probe[i] * mult[i]) << "result " << i;
}

TEST(bench, QuickJoinUnderAGpuBudgetRunsOverPages) {
  const std::string json_path = temp_path("join_budget.json");
  EXPECT_EQ(run_bench({"bench",
                       "join",
                       "--backend",
                       "cpu",
                       "--quick",
                       "--runs",
                       "3",
                       "--gpu-budget",
                       "256KiB",
                       "--json",
                       json_path}),
            0);
  const std::string json = read_text(json_path);
  expect_header(json);
  expect_positive_limits(json);
  for (const double rate : values_of(json, "rate_gkeys"))
    EXPECT_GT(rate, 0);
  // Every hash join reports its pages (0: in one piece); the larger ones ran over several, moved
  // their build pages each way and carry the pinned-copy bound.
  const auto budgets = values_of(json, "gpu_budget"), pages = values_of(json, "pages");
  const auto down = values_of(json, "bytes_to_host"), up = values_of(json, "bytes_to_device");
  const auto copy_bound = values_of(json, "copy_bound_gkeys");
  ASSERT_FALSE(pages.empty());
  ASSERT_EQ(budgets.size(), pages.size());
  ASSERT_EQ(down.size(), pages.size());
  ASSERT_EQ(up.size(), pages.size());
  ASSERT_EQ(copy_bound.size(), pages.size());  // null (read as 0) where nothing moved
  // The first call pins the host pages; the timed runs after it reuse them (the pinned pool).
  const auto first_pinned = values_of(json, "first_bytes_pinned");
  const auto pinned       = values_of(json, "bytes_pinned");
  ASSERT_EQ(first_pinned.size(), pages.size());
  ASSERT_EQ(pinned.size(), pages.size());
  EXPECT_EQ(values_of(json, "first_pin_ms").size(), pages.size());
  EXPECT_EQ(values_of(json, "first_partition_ms").size(), pages.size());
  std::size_t over_pages = 0;
  for (std::size_t i = 0; i < pages.size(); ++i) {
    EXPECT_EQ(budgets[i], 256 << 10);
    EXPECT_EQ(pinned[i], 0) << "result " << i << ": a timed run pinned memory";
    if (pages[i] < 3) continue;
    ++over_pages;
    EXPECT_GT(down[i], 0) << "result " << i;
    EXPECT_GT(up[i], 0) << "result " << i;
    EXPECT_GT(copy_bound[i], 0) << "result " << i;
    EXPECT_EQ(first_pinned[i], down[i]) << "result " << i << ": the first call pins its pages";
  }
  for (const double s : values_of(json, "first_seconds"))
    EXPECT_GT(s, 0);
  EXPECT_GT(over_pages, 0u) << "no join ran over pages";
  // Paper: every probe row is an output row; multiplicity m: n * m pairs from n probe rows.
  const auto probe = values_of(json, "probe_rows"), output = values_of(json, "output_rows");
  const auto mult = values_of(json, "multiplicity");
  ASSERT_EQ(probe.size(), output.size());
  ASSERT_EQ(mult.size(), output.size());
  for (std::size_t i = 0; i < probe.size(); ++i)
    EXPECT_EQ(output[i], probe[i] * mult[i]) << "result " << i;
}

TEST(bench, FrameAllAlgorithmsAgree) {
  const std::string json_path = temp_path("frame.json");
  EXPECT_EQ(run_bench({"bench",
                       "frame",
                       "--backend",
                       "cpu",
                       "--points",
                       "20000",
                       "--res",
                       "64",
                       "--frames",
                       "2",
                       "--warmup",
                       "0",
                       "--all-algos",
                       "--json",
                       json_path}),
            0);
  const std::string json = read_text(json_path);
  expect_header(json);
  EXPECT_NE(json.find("\"outputs_identical\": true"), std::string::npos);
  // At least both models' rest points (12 bytes each) in every algorithm's pipeline at once.
  EXPECT_GE(values_of(json, "peak_device_bytes").front(), kTableKinds.size() * 2 * 20000 * 12.0);
  EXPECT_LT(values_of(json, "peak_device_bytes").front(), 1 << 30);
  // Every algorithm with the same stages each (at least animate ... flood_fill, total), and one
  // sort + unique baseline row holding every algorithm's build against it.
  const std::size_t results = values_of(json, "suite").size() - 1;
  EXPECT_GE(results, kTableKinds.size() * 6u);
  for (const TableKind kind : kTableKinds) {
    const std::string tag = key_of("algorithm") + '"' + std::string(to_string(kind)) + '"';
    std::size_t count     = 0;
    for (auto pos = json.find(tag); pos != std::string::npos; pos = json.find(tag, pos + 1))
      ++count;
    EXPECT_EQ(kTableKinds.size() * count, results) << to_string(kind);
    EXPECT_NE(json.find("build_vs_sort_unique_" + std::string(to_string(kind))), std::string::npos);
  }
  EXPECT_EQ(values_of(json, "operation").size(), results + 1);
  EXPECT_NE(json.find('"' + std::string("sort_unique") + '"'), std::string::npos);
  // Each algorithm's host time per frame beside its device stages, with its mean.
  const std::string host_tag = key_of("operation") + "\"host\"";
  std::size_t host_rows      = 0;
  for (auto pos = json.find(host_tag); pos != std::string::npos; pos = json.find(host_tag, pos + 1))
    ++host_rows;
  EXPECT_EQ(host_rows, kTableKinds.size());
  const std::vector<double> means = values_of(json, "mean_ms");
  EXPECT_EQ(means.size(), kTableKinds.size());
  for (const double mean : means)
    EXPECT_GT(mean, 0);
  // Every frame's time in order, on every result.
  std::size_t series = 0;
  for (auto pos = json.find(key_of("frame_ms")); pos != std::string::npos;
       pos      = json.find(key_of("frame_ms"), pos + 1))
    ++series;
  EXPECT_EQ(series, results + 1);
}

/// Writes `points` (x, y, z; `copies` times each) as an XYZ point cloud at `path`.
void write_xyz(const std::string& path, const std::vector<std::pair<Float3, int>>& points) {
  std::ofstream out(path);
  for (const auto& [p, copies] : points)
    for (int i = 0; i < copies; ++i)
      out << p.x << ' ' << p.y << ' ' << p.z << '\n';
}

/// Runs `bench frame --join` on the command-line models a and b (static, fitted grid) with every
/// algorithm; the JSON report.
std::string frame_join_json(const std::string& a, const std::string& b) {
  const std::string json_path = temp_path("frame_join.json");
  EXPECT_EQ(run_bench({"bench",
                       "frame",
                       "--backend",
                       "cpu",
                       "--model-a",
                       a,
                       "--model-b",
                       b,
                       "--res",
                       "32",
                       "--frames",
                       "2",
                       "--warmup",
                       "1",
                       "--all-algos",
                       "--join",
                       "--json",
                       json_path}),
            0);
  std::filesystem::remove(a);
  std::filesystem::remove(b);
  return read_text(json_path);
}

TEST(bench, FrameJoinCountsThePairsOfPointsInAVoxel) {
  // Clusters of equal points far apart (one voxel each on the fitted 32^3 grid): two shared, one
  // of each model alone. The join's pairs are the pairs of equal points, counted by brute force.
  const std::vector<std::pair<Float3, int>> a = {
      {{0.1f, 0.2f, 0.3f}, 7}, {{3.1f, 0.2f, 0.3f}, 11}, {{0.1f, 3.2f, 0.3f}, 4}};
  const std::vector<std::pair<Float3, int>> b = {
      {{0.1f, 0.2f, 0.3f}, 5}, {{3.1f, 0.2f, 0.3f}, 13}, {{3.1f, 3.2f, 3.3f}, 6}};
  std::size_t pairs = 0, rows = 0;
  for (const auto& [p, n] : a)
    for (const auto& [q, m] : b)
      if (p.x == q.x && p.y == q.y && p.z == q.z) pairs += static_cast<std::size_t>(n) * m;
  for (const auto& side : {a, b})
    for (const auto& [p, n] : side)
      rows += n;
  const std::string path_a = temp_path("join_a.xyz"), path_b = temp_path("join_b.xyz");
  write_xyz(path_a, a);
  write_xyz(path_b, b);
  const std::string json = frame_join_json(path_a, path_b);
  expect_header(json);
  EXPECT_NE(json.find("\"outputs_identical\": true"), std::string::npos);
  // Two rows (probe rows/s, pairs/s) for every algorithm, each joined on its own table.
  for (const char* operation : {"join", "join-pairs"}) {
    const std::string tag = key_of("operation") + '"' + operation + '"';
    std::size_t count     = 0;
    for (auto pos = json.find(tag); pos != std::string::npos; pos = json.find(tag, pos + 1))
      ++count;
    EXPECT_EQ(count, kTableKinds.size()) << operation;
  }
  const std::vector<double> counted = values_of(json, "pairs");
  const std::vector<double> probe   = values_of(json, "probe_rows"),
                            build   = values_of(json, "build_rows");
  ASSERT_EQ(counted.size(), 2 * kTableKinds.size());
  ASSERT_EQ(probe.size(), counted.size());
  ASSERT_EQ(build.size(), counted.size());
  for (std::size_t i = 0; i < counted.size(); ++i) {
    EXPECT_EQ(counted[i], static_cast<double>(pairs)) << "result " << i;
    EXPECT_EQ(probe[i] + build[i], static_cast<double>(rows)) << "result " << i;
  }
  EXPECT_EQ(pairs, 7u * 5 + 11u * 13);
}

TEST(bench, FrameJoinTooLargeIsSkippedWithOneLine) {
  // 50,000 equal points in each model: 2.5e9 pairs, more than the 2^31 - 1 rows --join accepts.
  const std::string path_a = temp_path("big_a.xyz"), path_b = temp_path("big_b.xyz");
  write_xyz(path_a, {{{0.5f, 0.5f, 0.5f}, 50000}, {{1.5f, 1.5f, 1.5f}, 1}});
  write_xyz(path_b, {{{0.5f, 0.5f, 0.5f}, 50000}, {{1.5f, 0.5f, 1.5f}, 1}});
  const std::string json = frame_join_json(path_a, path_b);
  EXPECT_EQ(json.find(key_of("operation") + "\"join\""), std::string::npos);
  EXPECT_NE(json.find("the point join is skipped for this run"), std::string::npos);
  EXPECT_NE(json.find("2500000000 rows"), std::string::npos);
}

TEST(bench, FrameOnAWideGridRunsOnSixtyFourBitKeys) {
  // Two small clouds (a few hundred voxels) in a 4096^3 grid: 36 key bits, 64-bit keys.
  std::vector<std::pair<Float3, int>> a, b;
  for (int i = 0; i < 300; ++i) {
    const float t = 0.021f * i, u = 0.37f * i;
    const Float3 p{std::sin(t) * std::cos(u), std::sin(t) * std::sin(u), std::cos(t)};
    a.push_back({p, 1});
    b.push_back({{p.x + 0.5f, p.y, p.z}, 1});
  }
  const std::string path_a = temp_path("wide_a.xyz"), path_b = temp_path("wide_b.xyz");
  write_xyz(path_a, a);
  write_xyz(path_b, b);
  const std::string json_path = temp_path("frame_wide.json");
  EXPECT_EQ(run_bench({"bench",
                       "frame",
                       "--backend",
                       "cpu",
                       "--model-a",
                       path_a,
                       "--model-b",
                       path_b,
                       "--res",
                       "4096",
                       "--frames",
                       "1",
                       "--warmup",
                       "0",
                       "--join",
                       "--json",
                       json_path}),
            0);
  const std::string json = read_text(json_path);
  EXPECT_NE(json.find("\"key_bits\": 64"), std::string::npos) << json.substr(0, 2000);
  EXPECT_EQ(json.find("\"key_bits\": 32"), std::string::npos);
  EXPECT_NE(json.find("64-bit and join() takes 32-bit keys"), std::string::npos)
      << "--join on a wide grid is skipped with one line";
}

TEST(bench, FrameAtAnyCuckooSpaceAgreesAcrossAlgorithms) {
  // The cuckoo tables' space changes their probes, never a frame's output: --all-algos exits 1
  // unless every algorithm downloads the same voxels and labels.
  for (const char* space : {"1.15", "3"}) {
    const std::string json_path = temp_path(std::string("frame_space_") + space + ".json");
    EXPECT_EQ(run_bench({"bench",
                         "frame",
                         "--backend",
                         "cpu",
                         "--all-algos",
                         "--points",
                         "20k",
                         "--res",
                         "128",
                         "--frames",
                         "2",
                         "--warmup",
                         "0",
                         "--cuckoo-space",
                         space,
                         "--json",
                         json_path}),
              0)
        << space;
    const std::vector<double> spaces = values_of(read_text(json_path), "cuckoo_space");
    ASSERT_EQ(spaces.size(), 1u);
    EXPECT_EQ(spaces.front(), std::stod(space));
  }
}

TEST(bench, FrameUnderAGpuBudgetSaysItsTablesKeepTheirSpace) {
  const std::string json_path = temp_path("frame_space_budget.json");
  ::testing::internal::CaptureStderr();
  const int code        = run_bench({"bench",
                                     "frame",
                                     "--backend",
                                     "cpu",
                                     "--points",
                                     "20k",
                                     "--res",
                                     "128",
                                     "--frames",
                                     "1",
                                     "--warmup",
                                     "0",
                                     "--gpu-budget",
                                     "1GiB",
                                     "--cuckoo-space",
                                     "3",
                                     "--json",
                                     json_path});
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(code, 0) << err;
  EXPECT_NE(err.find("--cuckoo-space 3: under a GPU budget the tables take at most 1.25"),
            std::string::npos)
      << err;
  const std::vector<double> spaces = values_of(read_text(json_path), "cuckoo_space");
  ASSERT_EQ(spaces.size(), 1u);
  EXPECT_EQ(spaces.front(), BuildOptions{}.cuckoo_space) << "the space the tables take";
}

TEST(bench, FrameExportWritesAPly) {
  const std::string ply_path = temp_path("frame.ply");
  EXPECT_EQ(run_bench({"bench", "frame", "--backend", "cpu", "--quick", "--export", ply_path}), 0);
  const std::string ply      = read_text(ply_path);
  const std::string vertices = "\nelement vertex ";
  ASSERT_TRUE(ply.starts_with("ply\n")) << ply.substr(0, 64);
  const std::size_t at = ply.find(vertices);
  ASSERT_NE(at, std::string::npos);
  EXPECT_GT(std::strtoul(ply.c_str() + at + vertices.size(), nullptr, 10), 0u);
  EXPECT_GT(ply.size(), ply.find("end_header\n") + 11);
}

TEST(bench, OnePointPerModelIsAFrame) {
  EXPECT_EQ(run_bench({"bench",
                       "frame",
                       "--backend",
                       "cpu",
                       "--points",
                       "1",
                       "--res",
                       "8",
                       "--frames",
                       "1",
                       "--warmup",
                       "0"}),
            0);
}

TEST(bench, UsageErrorsExitWithTwo) {
  EXPECT_EQ(run_bench({"bench", "tables", "--backend", "cpu", "--bogus"}), 2);
  EXPECT_EQ(run_bench({"bench", "tables", "--backend", "cpu", "--sweep", "bogus"}), 2);
  EXPECT_EQ(run_bench({"bench", "tables", "--backend", "cpu", "--runs", "2"}), 2);
  EXPECT_EQ(run_bench({"bench", "limits", "--backend", "cpu", "--points", "5"}), 2);
  EXPECT_EQ(run_bench({"bench", "frame", "--backend", "cpu", "--points", "many"}), 2);
  EXPECT_EQ(run_bench({"bench", "frame", "--backend", "cpu", "--json"}), 2);
  EXPECT_EQ(run_bench({"bench", "frame", "--backend", "cpu", "--render"}), 2);
  EXPECT_EQ(run_bench({"bench", "tables", "--backend", "cpu", "--export", "x.ply"}), 2);
  EXPECT_EQ(run_bench({"bench", "tables", "--backend", "tpu"}), 2);
  EXPECT_EQ(run_bench({"bench", "join", "--backend", "cpu", "--sweep", "load"}), 2);
  EXPECT_EQ(run_bench({"bench", "tables", "--backend", "cpu", "--gpu-budget", "1GiB"}), 2);
  EXPECT_EQ(run_bench({"bench", "join", "--backend", "cpu", "--gpu-budget", "lots"}), 2);
  EXPECT_EQ(run_bench({"bench", "tables", "--backend", "cpu", "--paged", "--gpu-budget", "lots"}),
            2);
  EXPECT_EQ(run_bench({"bench", "tables", "--backend", "cpu", "--paged", "--sweep", "load"}), 2);
  EXPECT_EQ(run_bench({"bench", "benchmark"}), 2);
  EXPECT_EQ(run_bench({"bench"}), 2);
  EXPECT_EQ(run_bench({"bench", "--help"}), 0);
}

}  // namespace
}  // namespace voxhash::test
