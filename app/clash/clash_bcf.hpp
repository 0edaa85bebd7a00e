// A clash report as a BCF 2.1 file (buildingSMART's BIM Collaboration Format: a zip of XML that
// Navisworks, Solibri, BIMcollab, Revit add-ins and other BCF readers open): `bcf.version`, a
// `project.bcfp`, and per clash a topic folder named by its GUID holding `markup.bcf` (the topic:
// kind, parts, volume, depth, distance, location) and `viewpoint.bcfv` (a camera framing the clash
// in the report's coordinates, a clipping plane through it, the two parts selected). GUIDs follow
// from the clash ids, so the same clash keeps its topic from run to run. XML through pugixml, the
// zip through libzip, written through voxhash::write_file (whole or not at all).
#pragma once

#include "clash/clash_report.hpp"

#include <voxhash/clash.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace voxhash::clash {

/// A GUID (8-4-4-4-12 lower-case hex, RFC 4122 version 5 and variant bits) that follows from a
/// clash id and what it names ("topic", "viewpoint"): the same every run.
[[nodiscard]] std::string clash_guid(std::uint64_t id, std::string_view what);

/// Writes `report`'s clashes as a BCF 2.1 zip at `path` (see the file comment); `run` gives the
/// scene's name and unit for the project and the descriptions. Throws InvalidInput when the file
/// cannot be written.
void write_clash_bcf(const ClashReport& report,
                     const std::string& path,
                     const ClashNames& names = {},
                     const ClashRun* run     = nullptr);

}  // namespace voxhash::clash
