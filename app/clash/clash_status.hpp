// Clash status across runs (Navisworks Clash Detective's lifecycle): a JSON file of clashes by
// their stable ids (schema voxhash-clash-status/1) that each `voxhash clash --status FILE` run
// reads and writes back. A clash found for the first time is new; found again, active (or the
// status a person gave it: reviewed, approved); listed but no longer found, resolved. What a
// person wrote into an entry (status, assignee, comment, any field of their own) is kept.
#pragma once

#include "clash/clash_report.hpp"

#include <voxhash/clash.hpp>

#include <cstddef>
#include <string>

namespace voxhash::clash {

/// How one run changed the status file.
struct StatusCounts {
  std::size_t fresh    = 0;  // clashes found for the first time (status "new")
  std::size_t active   = 0;  // found again (status "active", or the one a person gave it)
  std::size_t resolved = 0;  // listed, not found this run (status "resolved")
  std::size_t run      = 0;  // this run's number in the file (1 for a new file)
};

/// Reads the status file at `path` when it exists, updates it with `report`'s clashes (see the
/// file comment) and writes it back whole or not at all (write_file). Throws InvalidInput naming
/// the file for one that is not a status file (bad JSON, another schema, a status that is not
/// new, active, reviewed, approved or resolved), before anything is written.
StatusCounts update_clash_status(const ClashReport& report,
                                 const std::string& path,
                                 const ClashNames& names,
                                 const ClashRun& run);

}  // namespace voxhash::clash
