// `voxhash bench`: fills the report's header (device, driver, commit, command line, date), runs the
// command (limits here; tables, join and frame in their suites) and writes the JSON and CSV
// outputs.
#include "bench/bench.hpp"
#include "bench/report.hpp"
#include "bench/suites.hpp"

#include <voxhash/backend.hpp>
#include <voxhash/buffer.hpp>
#include <voxhash/device_limits.hpp>
#include <voxhash/error.hpp>

#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <voxhash_git_commit.hpp>

namespace voxhash::bench {
namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

/// Fails before any measurement when an output file cannot be created.
void check_writable(const std::string& path) {
  if (path.empty()) return;
  std::ofstream out(path, std::ios::app);
  if (!out) throw Error("bench: cannot write '" + path + "'");
}

}  // namespace

int run(const Options& options) {
  check_writable(options.json_path);
  check_writable(options.csv_path);
  check_writable(options.export_path);

  Report report;
  report.device       = describe_device(options.backend);
  report.backend      = std::string(to_string(options.backend));
  report.driver       = driver_version(options.backend);
  report.git_commit   = VOXHASH_GIT_COMMIT;
  report.command_line = options.command_line;
  report.date         = utc_now();
  std::cerr << "[bench] " << to_string(options.command) << " on " << report.device << " ("
            << report.backend << " backend" << (options.quick ? ", quick sizes" : "") << ")"
            << std::endl;

  ResultPrinter printer(std::cout);
  int code = 0;
  reset_memory_peaks(options.backend);
  switch (options.command) {
    case Command::Limits:
      report.limits = measure_device_limits(options.backend, options.quick);
      print_limits(std::cout, *report.limits);
      break;
    case Command::Tables:
      code = options.gpus > 0 ? run_tables_gpus(options, report, printer)
                              : run_tables(options, report, printer);
      break;
    case Command::Join:
      code = options.gpus > 0 ? run_join_gpus(options, report, printer)
                              : run_join(options, report, printer);
      break;
    case Command::Frame:
      code = run_frame(options, report, printer);
      break;
  }
  fold_memory_peaks(report, options.backend);
  std::cout << "memory: peak device " << format_bytes(report.memory.device) << ", pinned host "
            << format_bytes(report.memory.pinned) << ", host " << format_bytes(report.memory.host)
            << " (voxhash's buffers)" << std::endl;

  if (!options.json_path.empty()) {
    write_json(report, options.json_path);
    std::cerr << "[bench] wrote " << options.json_path << std::endl;
  }
  if (!options.csv_path.empty()) {
    write_csv(report, options.csv_path);
    std::cerr << "[bench] wrote " << options.csv_path << std::endl;
  }
  return code;
}

}  // namespace voxhash::bench
