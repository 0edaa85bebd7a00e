// The report's outputs: each result becomes one record (nlohmann-json, fields in the schema's
// order) from which both the JSON document and the CSV rows (fixed columns, then every extra field
// seen) are written; and aligned tables on stdout.
#include "bench/report.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>

namespace voxhash::bench {
namespace {

using json = nlohmann::ordered_json;

constexpr std::array kLimitFields{
    LimitField{"read4_dram", &DeviceLimits::read4_dram, "G/s", "random 4-byte reads, DRAM table"},
    LimitField{"read8_dram", &DeviceLimits::read8_dram, "G/s", "random 8-byte reads, DRAM table"},
    LimitField{"read4_l2", &DeviceLimits::read4_l2, "G/s", "random 4-byte reads, L2 table"},
    LimitField{"read8_l2", &DeviceLimits::read8_l2, "G/s", "random 8-byte reads, L2 table"},
    LimitField{"exch8_dram", &DeviceLimits::exch8_dram, "G/s", "random 64-bit atomicExch, DRAM"},
    LimitField{"exch8_l2", &DeviceLimits::exch8_l2, "G/s", "random 64-bit atomicExch, L2"},
    LimitField{"copy_gbs", &DeviceLimits::copy_gbs, "GB/s", "device copy, read + write"},
    LimitField{"sort_pairs", &DeviceLimits::sort_pairs, "G/s", "u32 pairs radix-sorted (32 bits)"},
    LimitField{"h2d_gbs", &DeviceLimits::h2d_gbs, "GB/s", "pinned host to device copy"},
    LimitField{"d2h_gbs", &DeviceLimits::d2h_gbs, "GB/s", "device to pinned host copy"},
    LimitField{"dram_table_gib", &DeviceLimits::dram_table_gib, "GiB", "DRAM table size"},
    LimitField{"l2_table_mib", &DeviceLimits::l2_table_mib, "MiB", "L2 table size"},
};

/// A number as JSON: null where it does not apply, integral values as integers.
json json_number(double v) {
  if (!std::isfinite(v)) return nullptr;
  if (v == std::floor(v) && std::fabs(v) < 1e15) return static_cast<std::int64_t>(v);
  return v;
}

/// One result as the record both outputs are written from: the fixed fields in the schema's
/// order, then the extra ones.
json result_record(const Result& r) {
  json record = {{"suite", r.suite},
                 {"sweep", r.sweep},
                 {"algorithm", r.algorithm},
                 {"operation", r.operation},
                 {"keys", r.keys},
                 {"multiplicity", json_number(r.multiplicity)},
                 {"load", json_number(r.load)},
                 {"seconds", json_number(r.seconds)},
                 {"rate_gkeys", json_number(r.rate_gkeys)},
                 {"bound", r.bound.empty() ? json(nullptr) : json(r.bound)},
                 {"bound_gkeys", json_number(r.bound_gkeys)},
                 {"fraction_of_bound", json_number(r.fraction_of_bound)}};
  for (const auto& [name, value] : r.extra)
    record[name] = json_number(value);
  return record;
}

/// A record's value as a CSV field: empty for null, strings quoted where needed.
std::string csv_field(const json& value) {
  if (value.is_null()) return "";
  if (!value.is_string()) return value.dump();
  const std::string s = value.get<std::string>();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

/// Shortest readable text for a number on stdout (integers without a fraction).
std::string number_text(double v) {
  const json number = json_number(v);
  if (number.is_null()) return "";
  if (number.is_number_integer()) return number.dump();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

std::span<const LimitField> limit_fields() {
  return kLimitFields;
}

void Result::set_bound(const DeviceLimits& limits, std::string_view name) {
  const auto field  = std::find_if(kLimitFields.begin(),
                                  kLimitFields.end(),
                                  [&](const LimitField& f) { return f.name == name; });
  bound             = name;
  bound_gkeys       = field == kLimitFields.end() ? kNone : limits.*(field->member);
  fraction_of_bound = bound_gkeys > 0 ? rate_gkeys / bound_gkeys : kNone;
}

void fold_memory_peaks(Report& report, Backend backend) {
  const MemoryPeaks now = memory_peaks(backend);
  report.memory.device  = std::max(report.memory.device, now.device);
  report.memory.pinned  = std::max(report.memory.pinned, now.pinned);
  report.memory.host    = std::max(report.memory.host, now.host);
}

DeviceLimits measure_limits_apart(Report& report, Backend backend, bool quick) {
  fold_memory_peaks(report, backend);
  DeviceLimits limits = measure_device_limits(backend, quick);
  reset_memory_peaks(backend);
  return limits;
}

void write_json(const Report& report, const std::string& path) {
  json limits = nullptr;
  if (report.limits) {
    limits = {{"device", report.limits->device}};
    for (const LimitField& f : kLimitFields)
      limits[std::string(f.name)] = json_number((*report.limits).*(f.member));
  }
  json results = json::array();
  for (const Result& r : report.results) {
    json record = result_record(r);
    if (!r.frame_ms.empty()) record["frame_ms"] = r.frame_ms;
    results.push_back(std::move(record));
  }
  json document = {{"schema", "voxhash-bench/1"},
                   {"device", report.device},
                   {"backend", report.backend},
                   {"driver", report.driver},
                   {"git_commit", report.git_commit},
                   {"command_line", report.command_line},
                   {"date", report.date},
                   {"limits", std::move(limits)},
                   {"results", std::move(results)},
                   {"skipped", report.skipped},
                   {"peak_device_bytes", report.memory.device},
                   {"peak_pinned_bytes", report.memory.pinned},
                   {"peak_host_bytes", report.memory.host}};
  if (report.outputs_identical) document["outputs_identical"] = *report.outputs_identical;
  if (!report.models.empty()) {
    document["scene"] = report.scene;
    json models       = json::array();
    for (const ModelEntry& m : report.models) {
      models.push_back({{"name", m.name},
                        {"path", m.path},
                        {"points", m.points},
                        {"outside_grid", m.outside_grid}});
    }
    document["models"] = std::move(models);
    document["gpu_budget"] =
        report.gpu_budget.limited() ? json(report.gpu_budget.bytes()) : json(nullptr);
    document["cuckoo_space"]        = report.cuckoo_space;
    document["host_peak_rss_bytes"] = report.host_peak_rss;
  }
  json warnings = json::array();
  for (const std::string& message : report.scene_warnings)
    warnings.push_back({{"kind", "scene"}, {"message", message}});
  for (const OutsideGridWarning& w : report.warnings) {
    warnings.push_back({{"kind", "outside_grid"},
                        {"model", w.model},
                        {"path", w.path},
                        {"points", w.points},
                        {"max_outside_fraction", json_number(w.max_fraction)},
                        {"frames_over", w.frames_over},
                        {"frames", w.frames},
                        {"message", w.message}});
  }
  document["warnings"] = std::move(warnings);
  if (report.soak && !report.soak->samples.empty()) {
    json samples = json::array();
    for (const SoakSample& s : report.soak->samples) {
      samples.push_back({{"seconds", json_number(s.seconds)},
                         {"frames", s.frames},
                         {"host_rss_bytes", s.host_rss},
                         {"backend_free_bytes", s.backend_free},
                         {"backend_used_delta_bytes", s.backend_used_delta},
                         {"buffers_bytes", s.buffers_in_use}});
    }
    const auto& first = report.soak->samples.front();
    const auto& last  = report.soak->samples.back();
    document["soak"]  = {
         {"minutes", json_number(report.soak->minutes)},
         {"sample_every_seconds", json_number(report.soak->every_s)},
         {"frames", last.frames},
         {"host_rss_growth_bytes",
          static_cast<std::int64_t>(last.host_rss) - static_cast<std::int64_t>(first.host_rss)},
         {"backend_used_growth_bytes", last.backend_used_delta - first.backend_used_delta},
         {"buffers_growth_bytes",
          static_cast<std::int64_t>(last.buffers_in_use) -
              static_cast<std::int64_t>(first.buffers_in_use)},
         {"samples", std::move(samples)}};
  }
  voxhash::write_file(path, document.dump(2) + "\n");
}

void write_csv(const Report& report, const std::string& path) {
  std::vector<json> records;
  for (const Result& r : report.results)
    records.push_back(result_record(r));
  std::vector<std::string> columns;
  const json fixed = result_record(Result{});
  for (const auto& field : fixed.items())
    columns.push_back(field.key());
  std::set<std::string> extra_names;
  for (const Result& r : report.results) {
    for (const auto& e : r.extra)
      extra_names.insert(e.first);
  }
  columns.insert(columns.end(), extra_names.begin(), extra_names.end());

  std::string text;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (c) text += ',';
    text += csv_field(columns[c]);
  }
  text += '\n';
  for (const json& record : records) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (c) text += ',';
      if (const auto field = record.find(columns[c]); field != record.end()) {
        text += csv_field(*field);
      }
    }
    text += '\n';
  }
  voxhash::write_file(path, text);
}

void print_limits(std::ostream& out, const DeviceLimits& limits) {
  out << "device limits: " << limits.device << '\n';
  char line[160];
  for (const LimitField& f : kLimitFields) {
    std::snprintf(line,
                  sizeof line,
                  "  %-15s %10.2f %-5s %.*s\n",
                  std::string(f.name).c_str(),
                  limits.*(f.member),
                  std::string(f.unit).c_str(),
                  static_cast<int>(f.what.size()),
                  f.what.data());
    out << line;
  }
  out.flush();
}

void ResultPrinter::print(const Result& r) {
  char line[256];
  if (!m_header_done) {
    std::snprintf(line,
                  sizeof line,
                  "%-13s %-15s %-15s %11s %5s %5s %10s %8s %-11s %6s  %s\n",
                  "sweep",
                  "algorithm",
                  "operation",
                  "keys",
                  "mult",
                  "load",
                  "ms",
                  "G/s",
                  "bound",
                  "%bound",
                  "details");
    m_out << line;
    m_header_done = true;
  }
  const auto opt = [](double v, const char* format) {
    if (std::isnan(v)) return std::string("-");
    char buf[32];
    std::snprintf(buf, sizeof buf, format, v);
    return std::string(buf);
  };
  std::string details;
  for (const auto& [name, value] : r.extra) {
    details += (details.empty() ? "" : " ") + name + "=" + number_text(value);
  }
  std::snprintf(line,
                sizeof line,
                "%-13s %-15s %-15s %11llu %5s %5s %10s %8s %-11s %6s  ",
                r.sweep.c_str(),
                r.algorithm.c_str(),
                r.operation.c_str(),
                static_cast<unsigned long long>(r.keys),
                opt(r.multiplicity, "%.0f").c_str(),
                opt(r.load, "%.2f").c_str(),
                opt(r.seconds * 1e3, "%.3f").c_str(),
                opt(r.rate_gkeys, "%.3f").c_str(),
                r.bound.empty() ? "-" : r.bound.c_str(),
                opt(r.fraction_of_bound * 100, "%.1f").c_str());
  m_out << line << details << std::endl;
}

}  // namespace voxhash::bench
