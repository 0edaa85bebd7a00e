// Parsing of `voxhash bench` command lines: a table of flags (which commands accept each, whether
// it takes a value), `--flag value` and `--flag=value` forms, counts with K/M/G suffixes or 2^k.
#include "bench/options.hpp"

#include <voxhash/error.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <string_view>

namespace voxhash::bench {
namespace {

struct Flag {
  std::string_view name;
  bool takes_value;
  std::string_view commands;  // the commands that accept it, space separated
};

constexpr std::array kFlags{
    Flag{"--backend", true, "limits tables frame"},
    Flag{"--json", true, "limits tables frame"},
    Flag{"--csv", true, "limits tables frame"},
    Flag{"--quick", false, "limits tables frame"},
    Flag{"--full", false, "limits tables frame"},
    Flag{"--runs", true, "tables"},
    Flag{"--sweep", true, "tables"},
    Flag{"--points", true, "frame"},
    Flag{"--res", true, "frame"},
    Flag{"--algo", true, "frame"},
    Flag{"--all-algos", false, "frame"},
    Flag{"--frames", true, "frame"},
    Flag{"--warmup", true, "frame"},
    Flag{"--model-a", true, "frame"},
    Flag{"--model-b", true, "frame"},
    Flag{"--export", true, "frame"},
    Flag{"--render", false, "frame"},
};

/// Flags of `frame` that the offscreen viewer run of --render has no use for.
constexpr std::array<std::string_view, 4> kNotWithRender{
    "--all-algos", "--warmup", "--json", "--csv"};

[[noreturn]] void usage_error(const std::string& message) {
  throw InvalidInput("bench: " + message + " (see `voxhash bench --help`)");
}

/// A non-negative count: digits with an optional K, M or G suffix (10^3, 10^6, 10^9), or 2^k.
std::uint64_t parse_count(std::string_view flag, std::string_view text, std::uint64_t max) {
  const auto bad = [&] {
    usage_error(std::string(flag) + " expects a count up to " + std::to_string(max) + ", got '" +
                std::string(text) + "'");
  };
  std::uint64_t value = 0;
  if (text.starts_with("2^")) {
    unsigned exponent     = 0;
    const auto [end, err] = std::from_chars(text.data() + 2, text.data() + text.size(), exponent);
    if (err != std::errc() || end != text.data() + text.size() || exponent > 40) bad();
    value = std::uint64_t{1} << exponent;
  } else {
    const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (err != std::errc() || end == text.data()) bad();
    const std::string_view suffix(end, static_cast<std::size_t>(text.data() + text.size() - end));
    std::uint64_t scale = 1;
    if (suffix == "K" || suffix == "k")
      scale = 1'000;
    else if (suffix == "M")
      scale = 1'000'000;
    else if (suffix == "G")
      scale = 1'000'000'000;
    else if (!suffix.empty())
      bad();
    if (value > max / scale) bad();
    value *= scale;
  }
  if (value > max) bad();
  return value;
}

int parse_int(std::string_view flag, std::string_view text, int min, int max) {
  const std::uint64_t v = parse_count(flag, text, static_cast<std::uint64_t>(max));
  if (v < static_cast<std::uint64_t>(min)) {
    usage_error(std::string(flag) + " must be at least " + std::to_string(min));
  }
  return static_cast<int>(v);
}

Sweep parse_sweep(std::string_view text) {
  if (text == "load") return Sweep::Load;
  if (text == "multiplicity") return Sweep::Multiplicity;
  if (text == "size") return Sweep::Size;
  if (text == "misses") return Sweep::Misses;
  usage_error("unknown sweep '" + std::string(text) +
              "' (expected load, multiplicity, size or misses)");
}

bool accepts(const Flag& flag, std::string_view command) {
  std::string_view list = flag.commands;
  while (!list.empty()) {
    const std::size_t space = list.find(' ');
    if (list.substr(0, space) == command) return true;
    list = space == std::string_view::npos ? std::string_view() : list.substr(space + 1);
  }
  return false;
}

}  // namespace

const char* to_string(Sweep sweep) {
  switch (sweep) {
    case Sweep::Load:
      return "load";
    case Sweep::Multiplicity:
      return "multiplicity";
    case Sweep::Size:
      return "size";
    case Sweep::Misses:
      return "misses";
  }
  return "?";
}

Options parse_options(int argc, char** argv) {
  Options o;
  o.command_line = "voxhash";
  for (int i = 0; i < argc; ++i)
    o.command_line += std::string(" ") + argv[i];

  std::string backend_name = "auto";
  bool full                = false;
  std::vector<std::string_view> given;  // flags seen, checked against the command at the end
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h" || arg == "help") {
      o.help = true;
      continue;
    }
    if (!arg.starts_with("--")) {
      if (!o.command.empty()) usage_error("unexpected argument '" + std::string(arg) + "'");
      if (arg != "limits" && arg != "tables" && arg != "frame") {
        usage_error("unknown command '" + std::string(arg) +
                    "' (expected limits, tables or frame)");
      }
      o.command = arg;
      continue;
    }
    const std::size_t eq        = arg.find('=');
    const std::string_view name = arg.substr(0, eq);
    const auto flag =
        std::find_if(kFlags.begin(), kFlags.end(), [&](const Flag& f) { return f.name == name; });
    if (flag == kFlags.end()) usage_error("unknown option '" + std::string(name) + "'");
    std::string_view value;
    if (flag->takes_value) {
      if (eq != std::string_view::npos) {
        value = arg.substr(eq + 1);
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        usage_error(std::string(name) + " needs a value");
      }
    } else if (eq != std::string_view::npos) {
      usage_error(std::string(name) + " takes no value");
    }
    given.push_back(flag->name);

    if (name == "--backend")
      backend_name = value;
    else if (name == "--json")
      o.json_path = value;
    else if (name == "--csv")
      o.csv_path = value;
    else if (name == "--quick")
      o.quick = true;
    else if (name == "--full")
      full = true;
    else if (name == "--runs")
      o.runs = parse_int(name, value, 3, 1000);
    else if (name == "--sweep")
      o.sweeps.push_back(parse_sweep(value));
    else if (name == "--points")
      o.points = parse_count(name, value, 1'000'000'000);
    else if (name == "--res")
      o.resolution = parse_int(name, value, 8, 1024);
    else if (name == "--algo")
      o.algorithm = parse_table_kind(value);
    else if (name == "--all-algos")
      o.all_algorithms = true;
    else if (name == "--frames")
      o.frames = parse_int(name, value, 1, 1'000'000);
    else if (name == "--warmup")
      o.warmup = parse_int(name, value, 0, 1'000'000);
    else if (name == "--model-a")
      o.model_a = value;
    else if (name == "--model-b")
      o.model_b = value;
    else if (name == "--export")
      o.export_path = value;
    else if (name == "--render")
      o.render = true;
  }
  if (o.help) return o;
  if (o.command.empty()) usage_error("missing command (limits, tables or frame)");
  for (const std::string_view name : given) {
    const auto flag =
        std::find_if(kFlags.begin(), kFlags.end(), [&](const Flag& f) { return f.name == name; });
    if (!accepts(*flag, o.command)) {
      usage_error("option " + std::string(name) + " does not apply to `" + o.command + "`");
    }
    if (o.render &&
        std::find(kNotWithRender.begin(), kNotWithRender.end(), name) != kNotWithRender.end()) {
      usage_error("option " + std::string(name) + " does not apply to `frame --render`");
    }
  }
  if (o.quick && full) usage_error("--quick and --full exclude each other");
  if (o.points == 1) usage_error("--points must be at least 2");
  o.backend = parse_backend(backend_name);
  if (o.render && o.backend != Backend::Cuda) {
    throw InvalidInput(
        "bench: frame --render draws through CUDA-GL interop and needs a CUDA device: " +
        (cuda_available() ? std::string("drop --backend cpu") : cuda_unavailable_reason()));
  }
  if (o.backend == Backend::Cpu && !full) o.quick = true;
  return o;
}

std::string usage() {
  return R"(usage: voxhash bench <command> [options]

commands:
  limits   measure the device's ceilings: random reads and 64-bit exchanges (DRAM- and
           L2-sized tables), device copy, radix sort of pairs
  tables   hash-table micro-benchmarks: cuckoo, HashGraph V1/V2 and a sorted-array baseline;
           without --sweep the default set (cuckoo 50M keys at 1.25N; HashGraph 2^25 and
           2^28 keys, unique and multiplicity 32), each rate also given as a fraction of
           its bound from the limits measured in the same run
  frame    the voxel intersection pipeline without a window, per-stage times; with --render
           the viewer's offscreen frame instead, with per-frame transfer timings

common options:
  --backend cpu|cuda|auto   backend (default auto: cuda when a device exists)
  --json FILE               write results as JSON (schema voxhash-bench/1, docs/BENCH_SCHEMA.md)
  --csv FILE                write results as CSV, one row per result
  --quick                   small sizes (default on the cpu backend)
  --full                    full sizes on the cpu backend too
  --help                    this text

tables options:
  --runs N                  timed runs per figure, median reported (>= 3; default 5, quick 3)
  --sweep load|multiplicity|size|misses
                            instead of the default set, sweep cuckoo space 1.05-2.0 and
                            HashGraph load 0.25-2 (32M keys), multiplicity 1-32, size 1M-256M,
                            or the fraction of missing queries 0-1; may be repeated

frame options:
  --points N                points per model (default 1M; quick 100k); K/M suffixes, 2^k
  --res R                   grid resolution per axis (default 512, at most 1024)
  --algo cuckoo|hashgraph-v1|hashgraph-v2
  --all-algos               run every algorithm on the same frames; exit 1 unless every
                            downloaded output is identical
  --frames N                timed frames (default 100; quick 10)
  --warmup N                untimed frames first (default 5; quick 2)
  --model-a PATH, --model-b PATH
                            models (default assets/sphere.obj and assets/torus.obj; generated
                            sphere / torus points when those are missing)
  --export FILE             write the last frame's labelled voxels as a PLY point cloud (voxel
                            centres: yellow intersection, red inside, grey / blue outside); with
                            --all-algos the first algorithm's
  --render                  run the same scene through the viewer offscreen (EGL device, CUDA-GL
                            interop, no window) and print per-frame transfer timings (interop
                            map / unmap, pipeline, instances, draw) and their medians, then the
                            same frames into plain device buffers; needs a CUDA device with an EGL
                            driver; --all-algos, --warmup, --json and --csv do not apply

Tables go to stdout, progress to stderr. Sizes that do not fit in free memory are skipped
with a message.
)";
}

}  // namespace voxhash::bench
