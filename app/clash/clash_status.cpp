// update_clash_status: the status file read (when it exists) and checked, each clash of the
// report matched by its id, the file written back whole through write_file.
#include "clash/clash_status.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>

namespace voxhash::clash {
namespace {

using json = nlohmann::ordered_json;

constexpr std::string_view kSchema                  = "voxhash-clash-status/1";
constexpr std::array<std::string_view, 5> kStatuses = {
    "new", "active", "reviewed", "approved", "resolved"};

/// The previous run's file as JSON; an empty file of this schema when there is none.
json read_status(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    return {{"schema", kSchema}, {"runs", 0}, {"clashes", json::array()}};
  }
  std::ifstream in(path, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (!in.good() && !in.eof()) throw InvalidInput(path + ": cannot read the status file");
  json doc        = json::parse(text, nullptr, false);
  const auto fail = [&](const std::string& what) {
    throw InvalidInput(path + ": not a clash status file (" + what + ")");
  };
  if (doc.is_discarded()) fail("not valid JSON");
  if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != kSchema) {
    fail("its \"schema\" is not \"" + std::string(kSchema) + "\"");
  }
  if (!doc.contains("runs") || !doc["runs"].is_number_unsigned()) fail("no \"runs\" count");
  if (!doc.contains("clashes") || !doc["clashes"].is_array()) fail("no \"clashes\" list");
  for (std::size_t i = 0; i < doc["clashes"].size(); ++i) {
    const json& entry       = doc["clashes"][i];
    const std::string where = "clashes[" + std::to_string(i) + "]";
    if (!entry.is_object() || !entry.contains("id") || !entry["id"].is_string()) {
      fail(where + " has no \"id\"");
    }
    const std::string status = entry.contains("status") && entry["status"].is_string()
                                   ? entry["status"].get<std::string>()
                                   : "";
    bool known               = false;
    for (const std::string_view s : kStatuses)
      known = known || status == s;
    if (!known) {
      fail(where + ".status \"" + status +
           "\" is not one of new, active, reviewed, approved, resolved");
    }
  }
  return doc;
}

/// What this run measured of a clash (overwritten every run; a person's fields are left alone).
void measure(json& entry, const Clash& c, const ClashNames& names) {
  entry["kind"]     = std::string(to_string(c.kind));
  entry["model_a"]  = names.model(0);
  entry["part_a"]   = names.part(0, c.part_a);
  entry["model_b"]  = names.model(1);
  entry["part_b"]   = names.part(1, c.part_b);
  entry["volume"]   = c.volume;
  entry["depth"]    = c.depth;
  entry["distance"] = c.distance;
  entry["centroid"] = {c.centroid.x, c.centroid.y, c.centroid.z};
}

}  // namespace

StatusCounts update_clash_status(const ClashReport& report,
                                 const std::string& path,
                                 const ClashNames& names,
                                 const ClashRun& run) {
  json doc = read_status(path);
  StatusCounts counts;
  counts.run = doc["runs"].get<std::size_t>() + 1;
  std::unordered_map<std::string, std::size_t> listed;  // id -> index in the previous list
  for (std::size_t i = 0; i < doc["clashes"].size(); ++i)
    listed.emplace(doc["clashes"][i]["id"].get<std::string>(), i);

  json clashes = json::array();
  std::vector<bool> found(doc["clashes"].size(), false);
  for (const Clash& c : report.clashes) {
    const std::string id = id_text(c.id);
    const auto before    = listed.find(id);
    json entry;
    if (before == listed.end()) {
      entry = {{"id", id},
               {"status", "new"},
               {"assignee", ""},
               {"comment", ""},
               {"first_run", counts.run}};
      ++counts.fresh;
    } else {
      found[before->second] = true;
      entry                 = doc["clashes"][before->second];
      const std::string was = entry["status"].get<std::string>();
      // Found again: new and resolved become active; what a person decided stays.
      if (was == "new" || was == "active" || was == "resolved") entry["status"] = "active";
      entry.erase("resolved_run");
      ++counts.active;
    }
    measure(entry, c, names);
    entry["last_run"] = counts.run;
    clashes.push_back(std::move(entry));
  }
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (found[i]) continue;
    json entry = doc["clashes"][i];
    if (entry["status"] != "resolved") {
      entry["status"]       = "resolved";
      entry["resolved_run"] = counts.run;
    }
    ++counts.resolved;
    clashes.push_back(std::move(entry));
  }
  doc["runs"]    = counts.run;
  doc["scene"]   = run.scene_file;
  doc["time"]    = run.time;
  doc["clashes"] = std::move(clashes);
  write_file(path, doc.dump(2) + "\n");
  return counts;
}

}  // namespace voxhash::clash
