// Clash status across runs (Navisworks Clash Detective's lifecycle): a JSON file of clashes by
// their stable ids (schema voxhash-clash-status/1) that each `voxhash clash --status FILE` run
// reads and writes back, and that the viewer shows and edits. A clash found for the first time is
// new; found again, active (or the status a person gave it: reviewed, approved); listed but no
// longer found, resolved. What a person wrote into an entry (status, assignee, comment, any field
// of their own) is kept.
#pragma once

#include "clash/clash_report.hpp"

#include <voxhash/clash.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace voxhash::clash {

/// A status's values: what a run sets (new, active, resolved) and what a person may set too.
inline constexpr std::array<std::string_view, 5> kClashStatuses = {
    "new", "active", "reviewed", "approved", "resolved"};

/// How one run changed the status file.
struct StatusCounts {
  std::size_t fresh    = 0;  // clashes found for the first time (status "new")
  std::size_t active   = 0;  // found again (status "active", or the one a person gave it)
  std::size_t resolved = 0;  // listed, not found this run (status "resolved")
  std::size_t run      = 0;  // this run's number in the file (1 for a new file)
};

/// One clash of a status file, as the viewer lists it.
struct StatusEntry {
  std::string id;      // id_text of the clash's id
  std::string status;  // one of kClashStatuses
  std::string assignee, comment;
  std::string kind, part_a, part_b;  // as the last run that found it measured them
  std::size_t first_run = 0, last_run = 0;
  std::size_t resolved_run = 0;  // the run that no longer found it; 0: found by the last run
};

/// A status file in memory: read, updated by a run, edited by a person, written back whole.
class ClashStatus {
 public:
  /// A file of no runs and no clashes.
  ClashStatus();
  ClashStatus(const ClashStatus& other);
  ClashStatus& operator=(const ClashStatus& other);
  ClashStatus(ClashStatus&&) noexcept;
  ClashStatus& operator=(ClashStatus&&) noexcept;
  ~ClashStatus();

  /// The status file at `path`; an empty one when there is no such file. Throws InvalidInput
  /// naming the file for one that is not a status file (bad JSON, another schema, an entry without
  /// an id, a status not in kClashStatuses).
  [[nodiscard]] static ClashStatus read(const std::string& path);

  /// `report` as the next run: each of its clashes matched by id (new, or found again), each
  /// listed clash it does not find resolved (see the file comment); `run` gives the scene file and
  /// time recorded.
  StatusCounts update(const ClashReport& report, const ClashNames& names, const ClashRun& run);

  /// A person's edit of the entry of clash `id`: its status, assignee and comment (other fields
  /// stay). Throws InvalidInput for an id the file does not list or a status not in
  /// kClashStatuses; nothing changes then.
  void edit(std::string_view id,
            std::string_view status,
            std::string_view assignee,
            std::string_view comment);

  /// The runs recorded so far.
  [[nodiscard]] std::size_t runs() const;
  /// Every entry, in the file's order (the last run's clashes in its report's order, then those
  /// it resolved).
  [[nodiscard]] std::vector<StatusEntry> entries() const;
  /// The entry of clash `id`, if the file lists it.
  [[nodiscard]] std::optional<StatusEntry> find(std::string_view id) const;

  /// Writes the file whole or not at all (write_file); throws InvalidInput when it cannot.
  void write(const std::string& path) const;

 private:
  struct Document;
  std::unique_ptr<Document> m_doc;
};

/// Reads the status file at `path` when it exists, updates it with `report`'s clashes and writes
/// it back (ClashStatus::read, update, write): what `voxhash clash --status` does. Nothing is
/// written when the file is not a status file.
StatusCounts update_clash_status(const ClashReport& report,
                                 const std::string& path,
                                 const ClashNames& names,
                                 const ClashRun& run);

}  // namespace voxhash::clash
