// A clash report as one self-contained HTML page (clash_html.hpp): no scripts or styles fetched
// from anywhere, every name from a file escaped.
#include "clash/clash_html.hpp"

#include <voxhash/io.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace voxhash::clash {
namespace {

std::string escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

/// A number to 4 significant digits; "" for NaN (no solid).
std::string number(double value) {
  if (!std::isfinite(value)) return "";
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

/// A table cell whose sort key is `key` (numbers sort by value, text as text).
std::string cell(const std::string& text, const std::string& key = "") {
  return "<td" + (key.empty() ? std::string() : " data-key=\"" + escape(key) + "\"") + ">" +
         escape(text) + "</td>";
}

constexpr const char* kStyle = R"(<style>
body { font: 14px system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; }
th, td { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: left; }
th { cursor: pointer; background: #f4f4f4; user-select: none; }
td.num, th.num { text-align: right; }
.hard { color: #b00020; } .touching { color: #b26a00; } .clearance { color: #00639b; }
.warn { color: #b26a00; }
</style>)";

/// Click a column's header to sort by it (again: the other way).
constexpr const char* kScript = R"(<script>
document.querySelectorAll('th').forEach((th, column) => th.addEventListener('click', () => {
  const body = th.closest('table').tBodies[0];
  const up = th.dataset.order !== 'up';
  th.dataset.order = up ? 'up' : 'down';
  const key = row => {
    const c = row.cells[column];
    const k = c.dataset.key ?? c.textContent;
    const n = parseFloat(k);
    return isNaN(n) ? k : n;
  };
  [...body.rows].sort((a, b) => {
    const x = key(a), y = key(b);
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return up ? order : -order;
  }).forEach(row => body.appendChild(row));
}));
</script>)";

}  // namespace

void write_clash_html(const ClashReport& report,
                      const std::string& path,
                      const ClashNames& names,
                      const ClashRun* run) {
  const std::string unit = run ? run->unit : "";
  const std::string title =
      "voxhash clashes" +
      (run && !run->scene_name.empty() ? ": " + run->scene_name : std::string());
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
      escape(title) + "</title>\n" + kStyle + "\n</head>\n<body>\n<h1>" + escape(title) +
      "</h1>\n<p>";
  if (run) {
    html += "Scene " + escape(run->scene_file.empty() ? run->scene_name : run->scene_file) +
            ", time " + number(run->time) + " s, " + escape(run->backend) + " backend, " +
            escape(run->algorithm) + ". Models: " + escape(names.model(0)) + " (" +
            escape(run->paths[0]) + ") and " + escape(names.model(1)) + " (" +
            escape(run->paths[1]) + ").<br>\n";
  }
  const Grid& g = report.grid;
  html += "Grid " + std::to_string(g.resolution.x) + " &times; " + std::to_string(g.resolution.y) +
          " &times; " + std::to_string(g.resolution.z) + ", voxel " + number(g.voxel_size.x) +
          (unit.empty() ? "" : " " + escape(unit)) + ".</p>\n<p>";
  for (int k = 0; k < kClashKinds; ++k) {
    const auto kind = static_cast<ClashKind>(k);
    html += std::string(k ? ", " : "") + "<span class=\"" + std::string(to_string(kind)) + "\">" +
            std::to_string(report.kind_counts[k]) + " " + std::string(to_string(kind)) + "</span>";
  }
  html += " clashes; " + std::to_string(report.total_regions) + " clash regions, " +
          std::to_string(report.voxels) + " intersection voxels.</p>\n";
  if (run && !run->warnings.empty()) {
    html += "<ul class=\"warn\">\n";
    for (const std::string& w : run->warnings)
      html += "<li>" + escape(w) + "</li>\n";
    html += "</ul>\n";
  }
  const std::string u  = unit.empty() ? "" : " (" + escape(unit) + ")";
  const std::string u3 = unit.empty() ? "" : " (" + escape(unit) + "&sup3;)";
  html += "<table>\n<thead><tr><th>#</th><th>id</th><th>kind</th><th>part of " +
          escape(names.model(0)) + "</th><th>part of " + escape(names.model(1)) +
          "</th><th class=\"num\">volume" + u3 + "</th><th class=\"num\">depth" + u +
          "</th><th class=\"num\">distance" + u +
          "</th><th class=\"num\">x</th>"
          "<th class=\"num\">y</th><th class=\"num\">z</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < report.clashes.size(); ++i) {
    const Clash& c = report.clashes[i];
    const std::string kind(to_string(c.kind));
    html += "<tr class=\"" + kind + "\">" + cell(std::to_string(i + 1)) + cell(id_text(c.id)) +
            cell(kind, std::to_string(static_cast<int>(c.kind))) + cell(names.part(0, c.part_a)) +
            cell(names.part(1, c.part_b));
    for (const double v : {c.volume,
                           c.depth,
                           c.distance,
                           static_cast<double>(c.centroid.x),
                           static_cast<double>(c.centroid.y),
                           static_cast<double>(c.centroid.z)}) {
      html += "<td class=\"num\">" + escape(number(v)) + "</td>";
    }
    html += "</tr>\n";
  }
  html += "</tbody>\n</table>\n";
  html += kScript;
  html += "\n</body>\n</html>\n";
  voxhash::write_file(path, html);
}

}  // namespace voxhash::clash
