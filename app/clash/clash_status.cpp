// ClashStatus: the status file read (when it exists) and checked, each clash of a report matched
// by its id, a person's edits checked, the file written back whole through write_file; the JSON
// kept as read, so that fields a person added survive.
#include "clash/clash_status.hpp"

#include <voxhash/error.hpp>
#include <voxhash/io.hpp>

#include <algorithm>
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

constexpr std::string_view kSchema = "voxhash-clash-status/1";

bool known_status(std::string_view status) {
  return std::find(kClashStatuses.begin(), kClashStatuses.end(), status) != kClashStatuses.end();
}

std::string status_list() {
  std::string list;
  for (const std::string_view s : kClashStatuses)
    list += (list.empty() ? "" : ", ") + std::string(s);
  return list;
}

std::string text_field(const json& entry, const char* key) {
  return entry.contains(key) && entry[key].is_string() ? entry[key].get<std::string>() : "";
}

std::size_t count_field(const json& entry, const char* key) {
  return entry.contains(key) && entry[key].is_number_unsigned() ? entry[key].get<std::size_t>() : 0;
}

StatusEntry to_entry(const json& e) {
  return {.id           = e["id"].get<std::string>(),
          .status       = e["status"].get<std::string>(),
          .assignee     = text_field(e, "assignee"),
          .comment      = text_field(e, "comment"),
          .kind         = text_field(e, "kind"),
          .part_a       = text_field(e, "part_a"),
          .part_b       = text_field(e, "part_b"),
          .first_run    = count_field(e, "first_run"),
          .last_run     = count_field(e, "last_run"),
          .resolved_run = count_field(e, "resolved_run")};
}

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
    const std::string status = text_field(entry, "status");
    if (!known_status(status)) {
      fail(where + ".status \"" + status + "\" is not one of " + status_list());
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

struct ClashStatus::Document {
  json doc;
};

ClashStatus::ClashStatus()
    : m_doc(std::make_unique<Document>(
          Document{{{"schema", kSchema}, {"runs", 0}, {"clashes", json::array()}}})) {}
ClashStatus::ClashStatus(const ClashStatus& other)
    : m_doc(std::make_unique<Document>(*other.m_doc)) {}
ClashStatus& ClashStatus::operator=(const ClashStatus& other) {
  if (this != &other) m_doc = std::make_unique<Document>(*other.m_doc);
  return *this;
}
ClashStatus::ClashStatus(ClashStatus&&) noexcept            = default;
ClashStatus& ClashStatus::operator=(ClashStatus&&) noexcept = default;
ClashStatus::~ClashStatus()                                 = default;

ClashStatus ClashStatus::read(const std::string& path) {
  ClashStatus status;
  status.m_doc->doc = read_status(path);
  return status;
}

StatusCounts ClashStatus::update(const ClashReport& report,
                                 const ClashNames& names,
                                 const ClashRun& run) {
  json& doc = m_doc->doc;
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
  return counts;
}

void ClashStatus::edit(std::string_view id,
                       std::string_view status,
                       std::string_view assignee,
                       std::string_view comment) {
  if (!known_status(status)) {
    throw InvalidInput("clash status \"" + std::string(status) + "\" is not one of " +
                       status_list());
  }
  for (json& entry : m_doc->doc["clashes"]) {
    if (entry["id"] != id) continue;
    entry["status"]   = status;
    entry["assignee"] = assignee;
    entry["comment"]  = comment;
    return;
  }
  throw InvalidInput("clash " + std::string(id) + " is not in the status file");
}

std::size_t ClashStatus::runs() const {
  return m_doc->doc["runs"].get<std::size_t>();
}

std::vector<StatusEntry> ClashStatus::entries() const {
  std::vector<StatusEntry> out;
  for (const json& entry : m_doc->doc["clashes"])
    out.push_back(to_entry(entry));
  return out;
}

std::optional<StatusEntry> ClashStatus::find(std::string_view id) const {
  for (const json& entry : m_doc->doc["clashes"]) {
    if (entry["id"] == id) return to_entry(entry);
  }
  return std::nullopt;
}

void ClashStatus::write(const std::string& path) const {
  write_file(path, m_doc->doc.dump(2) + "\n");
}

StatusCounts update_clash_status(const ClashReport& report,
                                 const std::string& path,
                                 const ClashNames& names,
                                 const ClashRun& run) {
  ClashStatus status       = ClashStatus::read(path);
  const StatusCounts count = status.update(report, names, run);
  status.write(path);
  return count;
}

}  // namespace voxhash::clash
