#pragma once
// `eval --report`: one self-contained HTML page (inline CSS and SVG, no scripts, no external
// files) with the metrics and pictures of channel loads for each evaluated mapping, side by
// side: heat maps of tori and meshes (one panel per dimension pair), the group-to-group
// global channel matrix of a Dragonfly, and per-class histograms of channel utilization.
#include <string>
#include <vector>

#include "taskmap/eval/evaluator.h"

namespace taskmap {

struct ReportColumn {
  std::string label;    // e.g. "default", "scotch"
  Metrics metrics;
  std::vector<double> loads;  // l(e) per channel id
};

struct ReportHeader {
  std::string pattern;
  std::string routing;
  std::size_t tasks = 0;
};

// Every number shown carries its full-precision value in a data-value attribute next to a
// data-metric name (the eval JSON key) and a data-column index, so tools and tests can read
// the page back. Colours share one scale across columns, so pictures compare directly.
std::string html_report(const Machine& machine, const ReportHeader& header, const std::vector<ReportColumn>& columns);

}  // namespace taskmap
