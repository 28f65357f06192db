#pragma once
// The pieces of the HTML report's pictures (html_report.cpp puts the page together): text
// escaping, the colour scale, a bar chart with labelled axes, and the pictures of the
// machine's kinds (html_pictures.cpp): torus heat maps, a Dragonfly's groups, a tree's levels.
// Every picture is an inline <svg class="chart KIND" data-column="C"> whose axes carry
// <text class="axis-label"> elements naming the quantity and its unit.
#include <cstdint>
#include <string>
#include <vector>

#include "taskmap/eval/report.h"
#include "taskmap/topology/machine.h"

namespace taskmap::html {

std::string escape(const std::string& s);

// A perceptual dark-blue -> teal -> yellow ramp (viridis-like) over [0, scale]; idle (0) is
// light grey.
std::string colour(double value, double scale);

// Utilization of a channel: its load over its class bandwidth (the quantity the MCL maximizes).
inline double utilization(const Machine& m, const std::vector<double>& loads, ChannelId c) {
  return loads[c] / m.classes[m.channels[c].link_class].bandwidth;
}

// What every picture of one page shares: the machine, the colour scale (the largest MCL of the
// columns), the units, and the column the picture belongs to.
struct ChartContext {
  const Machine& machine;
  double scale;  // utilization at the top of the colour ramp
  const Units& units;
  std::size_t column;
  // A utilization as the charts show it: "0.25 s", "1.5e+06 bytes per bandwidth unit".
  std::string shown(double utilization) const;
  double in_units(double utilization) const { return utilization * units.utilization_factor(); }
};

// "<text class="axis-label" ...>": horizontal at (x, y), or rotated to read bottom-up.
std::string axis_label(double x, double y, const std::string& text, bool vertical = false);

// Bars from a baseline, one group per category, one bar per series in it, a y axis from 0 to
// the largest value with ticks, and both axes labelled.
struct BarSeries {
  std::string name;                 // in the legend when there are several series
  std::vector<double> values;       // per category
  std::vector<std::string> fills;   // per category, or one for all
};
struct BarChart {
  std::string kind;                 // the svg's second class: "histogram", "group-loads"
  std::string attributes;           // more attributes of the svg element (data-class="...")
  std::string value_attribute;      // each bar's value as this attribute: "data-count", "data-util"
  std::vector<std::string> categories;
  std::vector<BarSeries> series;
  std::string x_label;
  std::string y_label;  // the quantity, along the y axis
  std::string y_unit;   // its unit, above the y axis
  std::string caption;
  // Values are multiplied by this for the y axis' tick labels (the bars' attributes keep them).
  double y_factor = 1;
};
std::string bar_chart(const ChartContext& ctx, const BarChart& chart);

// Pictures of the machine's structure, with loads; "" when the machine is not of that kind.
std::string torus_pictures(const ChartContext& ctx, const std::vector<double>& loads);
std::string dragonfly_pictures(const ChartContext& ctx, const std::vector<double>& loads);
std::string tree_pictures(const ChartContext& ctx, const std::vector<double>& loads);

// Above this many boxes in a row (switches of a tree level, groups of a Dragonfly, routers of
// a torus dimension) a picture draws one box per block of consecutive ones, coloured by the
// busiest link among them, so that a 10,000-node fabric's page stays small.
inline constexpr std::size_t kMaxBoxesPerRow = 64;

}  // namespace taskmap::html
