// The report's outputs, written by hand (no JSON dependency): a JSON document with one result per
// line, CSV with the fixed columns followed by every extra field seen, and aligned stdout tables.
#include "bench/report.hpp"

#include <voxhash/error.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <set>

namespace voxhash::bench {
namespace {

constexpr std::array kLimitFields{
    LimitField{"read4_dram", &DeviceLimits::read4_dram, "G/s", "random 4-byte reads, DRAM table"},
    LimitField{"read8_dram", &DeviceLimits::read8_dram, "G/s", "random 8-byte reads, DRAM table"},
    LimitField{"read4_l2", &DeviceLimits::read4_l2, "G/s", "random 4-byte reads, L2 table"},
    LimitField{"read8_l2", &DeviceLimits::read8_l2, "G/s", "random 8-byte reads, L2 table"},
    LimitField{"exch8_dram", &DeviceLimits::exch8_dram, "G/s", "random 64-bit atomicExch, DRAM"},
    LimitField{"exch8_l2", &DeviceLimits::exch8_l2, "G/s", "random 64-bit atomicExch, L2"},
    LimitField{"copy_gbs", &DeviceLimits::copy_gbs, "GB/s", "device copy, read + write"},
    LimitField{"sort_pairs", &DeviceLimits::sort_pairs, "G/s", "u32 pairs radix-sorted (32 bits)"},
    LimitField{"dram_table_gib", &DeviceLimits::dram_table_gib, "GiB", "DRAM table size"},
    LimitField{"l2_table_mib", &DeviceLimits::l2_table_mib, "MiB", "L2 table size"},
};

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + '"';
}

/// Shortest faithful text for a number (integers without a fraction); "" for kNone.
std::string number_text(double v) {
  if (std::isnan(v) || std::isinf(v)) return "";
  char buf[32];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", v);
  }
  return buf;
}

std::string json_number(double v) {
  const std::string text = number_text(v);
  return text.empty() ? "null" : text;
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::ofstream open_output(const std::string& path) {
  std::ofstream out(path);
  if (!out) throw Error("bench: cannot write '" + path + "'");
  return out;
}

void close_output(std::ofstream& out, const std::string& path) {
  out.close();
  if (!out) throw Error("bench: writing '" + path + "' failed");
}

std::string result_json(const Result& r) {
  std::string s =
      "{\"suite\": " + json_string(r.suite) + ", \"sweep\": " + json_string(r.sweep) +
      ", \"algorithm\": " + json_string(r.algorithm) +
      ", \"operation\": " + json_string(r.operation) + ", \"keys\": " + std::to_string(r.keys) +
      ", \"multiplicity\": " + json_number(r.multiplicity) + ", \"load\": " + json_number(r.load) +
      ", \"seconds\": " + json_number(r.seconds) +
      ", \"rate_gkeys\": " + json_number(r.rate_gkeys) +
      ", \"bound\": " + (r.bound.empty() ? "null" : json_string(r.bound)) +
      ", \"bound_gkeys\": " + json_number(r.bound_gkeys) +
      ", \"fraction_of_bound\": " + json_number(r.fraction_of_bound);
  for (const auto& [name, value] : r.extra)
    s += ", " + json_string(name) + ": " + json_number(value);
  return s + "}";
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

void write_json(const Report& report, const std::string& path) {
  std::ofstream out = open_output(path);
  out << "{\n  \"schema\": \"voxhash-bench/1\",\n"
      << "  \"device\": " << json_string(report.device) << ",\n"
      << "  \"backend\": " << json_string(report.backend) << ",\n"
      << "  \"driver\": " << json_string(report.driver) << ",\n"
      << "  \"git_commit\": " << json_string(report.git_commit) << ",\n"
      << "  \"command_line\": " << json_string(report.command_line) << ",\n"
      << "  \"date\": " << json_string(report.date) << ",\n  \"limits\": ";
  if (report.limits) {
    out << "{\"device\": " << json_string(report.limits->device);
    for (const LimitField& f : kLimitFields) {
      out << ", " << json_string(f.name) << ": " << json_number((*report.limits).*(f.member));
    }
    out << "}";
  } else {
    out << "null";
  }
  out << ",\n  \"results\": [";
  for (std::size_t i = 0; i < report.results.size(); ++i) {
    out << (i ? ",\n    " : "\n    ") << result_json(report.results[i]);
  }
  out << (report.results.empty() ? "]" : "\n  ]") << ",\n  \"skipped\": [";
  for (std::size_t i = 0; i < report.skipped.size(); ++i) {
    out << (i ? ",\n    " : "\n    ") << json_string(report.skipped[i]);
  }
  out << (report.skipped.empty() ? "]" : "\n  ]");
  if (report.outputs_identical) {
    out << ",\n  \"outputs_identical\": " << (*report.outputs_identical ? "true" : "false");
  }
  out << "\n}\n";
  close_output(out, path);
}

void write_csv(const Report& report, const std::string& path) {
  std::set<std::string> extra_names;
  for (const Result& r : report.results) {
    for (const auto& e : r.extra)
      extra_names.insert(e.first);
  }
  std::ofstream out = open_output(path);
  out << "suite,sweep,algorithm,operation,keys,multiplicity,load,seconds,rate_gkeys,bound,"
         "bound_gkeys,fraction_of_bound";
  for (const std::string& name : extra_names)
    out << ',' << csv_field(name);
  out << '\n';
  for (const Result& r : report.results) {
    out << csv_field(r.suite) << ',' << csv_field(r.sweep) << ',' << csv_field(r.algorithm) << ','
        << csv_field(r.operation) << ',' << r.keys << ',' << number_text(r.multiplicity) << ','
        << number_text(r.load) << ',' << number_text(r.seconds) << ',' << number_text(r.rate_gkeys)
        << ',' << csv_field(r.bound) << ',' << number_text(r.bound_gkeys) << ','
        << number_text(r.fraction_of_bound);
    for (const std::string& name : extra_names) {
      const auto it = std::find_if(
          r.extra.begin(), r.extra.end(), [&](const auto& e) { return e.first == name; });
      out << ',' << (it == r.extra.end() ? std::string() : number_text(it->second));
    }
    out << '\n';
  }
  close_output(out, path);
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
