#pragma once
// `eval --report` and `compare --report`: one self-contained HTML page (inline CSS and SVG, no
// scripts, no external files). At its top the recommendation (recommendation.h); then the
// metrics of every evaluated placement side by side, and pictures of the channel loads of the
// placements that carry them: heat maps of tori and meshes (one panel per dimension pair), a
// Dragonfly's global channels group to group and each group's busiest local and global links,
// a fat-tree's or a cluster tree's switches level by level (with the job's hosts marked when
// it has only some of the machine's nodes), and per-class histograms of the loaded channels'
// utilization. Every chart labels its axes with their units (docs/report.md).
#include <string>
#include <vector>

#include "taskmap/eval/evaluator.h"
#include "taskmap/eval/report.h"

namespace taskmap {

struct ReportColumn {
  std::string label;    // e.g. "default", "scotch"
  Metrics metrics;
  std::vector<double> loads;  // l(e) per channel id; empty: the column has no pictures
};

struct ReportHeader {
  std::string pattern;
  std::string routing;
  std::size_t tasks = 0;
  std::string recommendation;  // the sentence at the top of the page; empty: none
  bool recommends_change = false;  // it recommends the chosen placement (not "keep ...")
  Units units;
};

// Every number of the metrics table carries its full-precision value (as the JSON output has
// it, in the pattern's units) in a data-value attribute next to a data-metric name (the JSON
// key; classes.NAME.mcl for a class) and a data-column index, so tools and tests can read the
// page back. Colours share one scale across columns, so pictures compare directly.
std::string html_report(const Machine& machine, const ReportHeader& header, const std::vector<ReportColumn>& columns);

}  // namespace taskmap
