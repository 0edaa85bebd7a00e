// The measuring commands of `voxhash bench` (limits is a single call, made in bench.cpp): each one
// prints its results as they come, adds them to the report and returns the exit code.
#pragma once

#include "bench/bench.hpp"
#include "bench/report.hpp"

namespace voxhash::bench {

/// Hash-table micro-benchmarks (tables_suite.cpp): the default set, or the sweeps in options.
int run_tables(const Options& options, Report& report, ResultPrinter& printer);

/// Joins (join_suite.cpp): the hash join paper's left joins and inner joins by multiplicity, on
/// every table and the sort-merge baseline.
int run_join(const Options& options, Report& report, ResultPrinter& printer);

/// --gpus G (multi_suite.cpp): the table's build / find, or the inner join, on one GPU and
/// partitioned over G (emulated partitions on the CPU backend), with the exchange's share.
int run_tables_gpus(const Options& options, Report& report, ResultPrinter& printer);
int run_join_gpus(const Options& options, Report& report, ResultPrinter& printer);

/// The frame pipeline without a window (frame_suite.cpp). Returns 1 when --all-algos finds outputs
/// that differ between algorithms.
int run_frame(const Options& options, Report& report, ResultPrinter& printer);

}  // namespace voxhash::bench
