// ClashSweep: each report's clashes matched to their pair of parts, an interval opened where a pair
// was not listed at the time before, extended where it was, ended at the first time it is not;
// and the sweep's JSON (nlohmann-json) and CSV writers.
#include "clash/clash_sweep.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>

namespace voxhash::clash {
namespace {

using json = nlohmann::ordered_json;

/// `value` kept at `time` where it is measured and beats `best` (or `best` is not measured yet).
void keep(double& best, double& best_time, double value, double time, bool larger) {
  if (std::isnan(value)) return;
  if (std::isnan(best) || (larger ? value > best : value < best)) {
    best      = value;
    best_time = time;
  }
}

/// Folds what `from` saw into `into`: the worse kind, the deeper, larger and closer figures.
void fold(SweepInterval& into, const SweepInterval& from) {
  into.kind = std::min(into.kind, from.kind);
  keep(into.max_depth, into.max_depth_time, from.max_depth, from.max_depth_time, true);
  keep(into.max_volume, into.max_volume_time, from.max_volume, from.max_volume_time, true);
  keep(into.min_distance, into.min_distance_time, from.min_distance, from.min_distance_time, false);
}

/// A number, or null where it was not measured.
json measured(double value) {
  return std::isnan(value) ? json(nullptr) : json(value);
}

json interval_fields(const SweepInterval& i) {
  return {{"kind", std::string(to_string(i.kind))},
          {"max_depth", measured(i.max_depth)},
          {"max_depth_time", measured(i.max_depth_time)},
          {"max_volume", measured(i.max_volume)},
          {"max_volume_time", measured(i.max_volume_time)},
          {"min_distance", measured(i.min_distance)},
          {"min_distance_time", measured(i.min_distance_time)}};
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string csv_number(double value) {
  return std::isnan(value) ? std::string() : json(value).dump();
}

}  // namespace

SweepInterval SweepPair::worst() const {
  SweepInterval w = intervals.front();
  for (const SweepInterval& i : intervals)
    fold(w, i);
  w.end     = intervals.back().end;
  w.last    = intervals.back().last;
  w.samples = 0;
  for (const SweepInterval& i : intervals)
    w.samples += i.samples;
  return w;
}

double SweepPair::clashing_time() const {
  double total = 0;
  for (const SweepInterval& i : intervals)
    total += i.duration();
  return total;
}

void ClashSweep::add(double time, const ClashReport& report) {
  if (!m_times.empty() && !(time > m_times.back())) {
    throw InvalidInput("clash sweep: time " + json(time).dump() + " s is not after " +
                       json(m_times.back()).dump() + " s (times must increase)");
  }
  m_times.push_back(time);
  m_counts.push_back(report.kind_counts);
  for (const Clash& c : report.clashes) {
    const auto [at, fresh] = m_index.try_emplace({c.part_a, c.part_b}, m_pairs.size());
    if (fresh) {
      SweepPair p;
      p.part_a = c.part_a;
      p.part_b = c.part_b;
      m_pairs.push_back(std::move(p));
    }
    SweepPair* pair = &m_pairs[at->second];
    // A pair's interval is open (no end) exactly while it was listed at the time before.
    if (pair->intervals.empty() || pair->intervals.back().end) {
      SweepInterval fresh_interval;
      fresh_interval.start = time;
      fresh_interval.kind  = c.kind;
      pair->intervals.push_back(fresh_interval);
    }
    SweepInterval& i = pair->intervals.back();
    i.last           = time;
    ++i.samples;
    i.kind = std::min(i.kind, c.kind);
    if (c.kind == ClashKind::Clearance) {
      keep(i.min_distance, i.min_distance_time, c.distance, time, false);
    } else {
      keep(i.max_depth, i.max_depth_time, c.depth, time, true);
      keep(i.max_volume, i.max_volume_time, c.volume, time, true);
    }
  }
  for (SweepPair& p : m_pairs) {
    SweepInterval& i = p.intervals.back();
    if (!i.end && i.last != time) i.end = time;
  }
}

std::vector<SweepPair> ClashSweep::pairs() const {
  std::vector<SweepPair> sorted = m_pairs;
  std::sort(sorted.begin(), sorted.end(), [](const SweepPair& x, const SweepPair& y) {
    return std::tuple(x.intervals.front().start, x.part_a, x.part_b) <
           std::tuple(y.intervals.front().start, y.part_a, y.part_b);
  });
  return sorted;
}

void write_sweep_json(const ClashSweep& sweep,
                      const std::string& path,
                      const ClashNames& names,
                      const ClashRun* run) {
  json frames = json::array();
  for (std::size_t t = 0; t < sweep.times().size(); ++t) {
    const auto& k = sweep.counts()[t];
    frames.push_back({{"time", sweep.times()[t]},
                      {"clashes", k[0] + k[1] + k[2]},
                      {"hard", k[0]},
                      {"touching", k[1]},
                      {"clearance", k[2]}});
  }
  json pairs = json::array();
  for (const SweepPair& p : sweep.pairs()) {
    json intervals = json::array();
    for (const SweepInterval& i : p.intervals) {
      json entry = {{"start", i.start},
                    {"end", i.end ? json(*i.end) : json(nullptr)},
                    {"last", i.last},
                    {"duration", i.duration()},
                    {"samples", i.samples}};
      entry.update(interval_fields(i));
      intervals.push_back(std::move(entry));
    }
    json pair = {{"model_a", names.model(0)},
                 {"part_a", names.part(0, p.part_a)},
                 {"part_a_id", p.part_a},
                 {"model_b", names.model(1)},
                 {"part_b", names.part(1, p.part_b)},
                 {"part_b_id", p.part_b},
                 {"first_contact", p.intervals.front().start},
                 {"clashing_time", p.clashing_time()},
                 {"worst", interval_fields(p.worst())},
                 {"intervals", std::move(intervals)}};
    pairs.push_back(std::move(pair));
  }
  const std::vector<double>& times = sweep.times();
  json document                    = {{"schema", "voxhash-clash-sweep/1"},
                                      {"times",
                                       {{"count", times.size()},
                                        {"first", times.empty() ? json(nullptr) : json(times.front())},
                                        {"last", times.empty() ? json(nullptr) : json(times.back())}}},
                                      {"pairs", std::move(pairs)},
                                      {"frames", std::move(frames)}};
  if (run) {
    document.update(
        {{"command_line", run->command_line},
         {"scene", {{"file", run->scene_file}, {"name", run->scene_name}, {"unit", run->unit}}},
         {"backend", run->backend},
         {"algorithm", run->algorithm},
         {"tolerance", run->tolerance},
         {"clearance", run->clearance},
         {"touching", run->touching},
         {"peak_device_bytes", run->memory.device},
         {"peak_pinned_bytes", run->memory.pinned},
         {"peak_host_bytes", run->memory.host},
         {"models",
          json::array({{{"name", names.model(0)}, {"path", run->paths[0]}},
                       {{"name", names.model(1)}, {"path", run->paths[1]}}})},
         {"warnings", run->warnings}});
  }
  write_file(path, document.dump(2) + "\n");
}

void write_sweep_csv(const ClashSweep& sweep, const std::string& path, const ClashNames& names) {
  std::string text =
      "model_a,part_a_id,part_a,model_b,part_b_id,part_b,interval,start,end,duration,samples,"
      "kind,max_depth,max_depth_time,max_volume,max_volume_time,min_distance,min_distance_time\n";
  const std::string model_a = csv_text(names.model(0)), model_b = csv_text(names.model(1));
  for (const SweepPair& p : sweep.pairs()) {
    const std::string parts = model_a + ',' + std::to_string(p.part_a) + ',' +
                              csv_text(names.part(0, p.part_a)) + ',' + model_b + ',' +
                              std::to_string(p.part_b) + ',' + csv_text(names.part(1, p.part_b));
    for (std::size_t n = 0; n < p.intervals.size(); ++n) {
      const SweepInterval& i = p.intervals[n];
      text += parts + ',' + std::to_string(n + 1) + ',' + csv_number(i.start) + ',' +
              (i.end ? csv_number(*i.end) : std::string()) + ',' + csv_number(i.duration()) + ',' +
              std::to_string(i.samples) + ',' + std::string(to_string(i.kind));
      for (const double v : {i.max_depth,
                             i.max_depth_time,
                             i.max_volume,
                             i.max_volume_time,
                             i.min_distance,
                             i.min_distance_time})
        text += ',' + csv_number(v);
      text += '\n';
    }
  }
  write_file(path, text);
}

}  // namespace voxhash::clash
