// A clash report as one self-contained HTML page for people: the scene, the grid, the clashes'
// counts per kind, the run's warnings, and a table of the clashes (parts, kind, volume, depth,
// distance, location) that sorts by any column when its header is clicked. Nothing is fetched:
// the style and the sorting script are in the page.
#pragma once

#include "clash/clash_report.hpp"

#include <voxhash/clash.hpp>

#include <string>

namespace voxhash::clash {

/// Writes `report` as an HTML page at `path` (see the file comment); `run` gives the scene, unit
/// and warnings. Throws InvalidInput when the file cannot be written.
void write_clash_html(const ClashReport& report,
                      const std::string& path,
                      const ClashNames& names = {},
                      const ClashRun* run     = nullptr);

}  // namespace voxhash::clash
