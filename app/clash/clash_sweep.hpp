// A clash sweep over a motion (`voxhash clash --times ... --sweep`): the clash reports of one scene
// at increasing times folded, per pair of parts, into the intervals over which it clashes (the
// first sampled time it is listed, the first sampled time after that it is not), with the worst
// depth, volume and gap of each interval and when; written as JSON (schema voxhash-clash-sweep/1)
// and CSV (one row per interval).
#pragma once

#include "clash/clash_report.hpp"

#include <voxhash/clash.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace voxhash::clash {

/// The samples over which a pair of parts is listed without a break. Lengths in scene units; NaN
/// where nothing was measured (no solids: no volume or depth; no clearance clash: no gap).
struct SweepInterval {
  static constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

  double start = 0;              // the first sampled time the pair is listed
  std::optional<double> end;     // the first sampled time after it that it is not; empty: the sweep
                                 // ended with the pair still listed
  double last              = 0;  // the last sampled time it is listed
  std::size_t samples      = 0;  // sampled times it is listed
  ClashKind kind           = ClashKind::Clearance;  // the worst listed (hard, then touching)
  double max_depth         = kNotMeasured;          // the deepest penetration
  double max_depth_time    = kNotMeasured;          // and when
  double max_volume        = kNotMeasured;          // the largest overlap volume
  double max_volume_time   = kNotMeasured;
  double min_distance      = kNotMeasured;  // the closest clearance gap
  double min_distance_time = kNotMeasured;

  /// end - start, or last - start when the sweep ended inside the interval.
  [[nodiscard]] double duration() const { return end.value_or(last) - start; }
};

/// One pair of parts that clashes at some sampled time, and when.
struct SweepPair {
  std::uint32_t part_a = 0, part_b = 0;
  std::vector<SweepInterval> intervals;  // by time

  /// The worst over every interval (kind, depths, volumes and gaps with their times).
  [[nodiscard]] SweepInterval worst() const;
  /// The sum of the intervals' durations.
  [[nodiscard]] double clashing_time() const;
};

/// The clash reports of one scene at increasing times, folded pair by pair.
class ClashSweep {
 public:
  /// Adds the report of the frame at `time`. Throws InvalidInput when `time` is not later than the
  /// last one added.
  void add(double time, const ClashReport& report);

  /// Every pair listed at some time, by the start of its first interval, then by part ids.
  [[nodiscard]] std::vector<SweepPair> pairs() const;
  [[nodiscard]] const std::vector<double>& times() const { return m_times; }
  /// Per sampled time, the clashes of each kind (hard, touching, clearance).
  [[nodiscard]] const std::vector<std::array<std::size_t, kClashKinds>>& counts() const {
    return m_counts;
  }
  /// Whether any report listed a clash.
  [[nodiscard]] bool any() const { return !m_pairs.empty(); }

 private:
  std::vector<SweepPair> m_pairs;  // in the order first seen
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> m_index;  // parts -> m_pairs
  std::vector<double> m_times;
  std::vector<std::array<std::size_t, kClashKinds>> m_counts;
};

/// The sweep as JSON: schema, the times (count, first, last, each time's counts per kind), and per
/// pair its parts (names and ids), first contact, clashing time, worst (kind, depth, volume, gap
/// and their times) and intervals (start, end or null, duration, samples, kind and worsts); with
/// `run`, the scene, backend, algorithm, tolerance, clearance, command line and warnings. Throws
/// InvalidInput when the file cannot be written.
void write_sweep_json(const ClashSweep& sweep,
                      const std::string& path,
                      const ClashNames& names = {},
                      const ClashRun* run     = nullptr);

/// The sweep as CSV: a header, then one row per interval of each pair in pairs() order: the two
/// model names, the two parts (id and name), the interval's number (1, 2, ...), start, end (empty
/// while still clashing at the last time), duration, samples, kind, max_depth and its time,
/// max_volume and its time, min_distance and its time (empty where not measured). Throws
/// InvalidInput when the file cannot be written.
void write_sweep_csv(const ClashSweep& sweep,
                     const std::string& path,
                     const ClashNames& names = {});

}  // namespace voxhash::clash
