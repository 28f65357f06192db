#include "taskmap/eval/html_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

#include "html_charts.h"

namespace taskmap {
namespace html {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string colour(double value, double scale) {
  if (!(value > 0)) return "#e6e6e6";
  static constexpr std::array<std::array<double, 3>, 5> stops{
      {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
  const double t = std::clamp(scale > 0 ? value / scale : 0.0, 0.0, 1.0) * (stops.size() - 1);
  const std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(t), stops.size() - 2);
  const double f = t - static_cast<double>(i);
  auto mix = [&](int k) { return static_cast<int>(std::lround(stops[i][k] + f * (stops[i + 1][k] - stops[i][k]))); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(0), mix(1), mix(2));
}

std::string ChartContext::shown(double u) const { return fmt::format("{:.4g} {}", in_units(u), units.utilization_unit()); }

std::string axis_label(double x, double y, const std::string& text, bool vertical) {
  if (vertical) {
    return fmt::format(
        "<text class=\"axis-label\" transform=\"translate({:.1f} {:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
        x, y, escape(text));
  }
  return fmt::format("<text class=\"axis-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", x, y,
                     escape(text));
}

std::string bar_chart(const ChartContext& ctx, const BarChart& chart) {
  const std::size_t n = chart.categories.size(), k = chart.series.size();
  double top = 0;
  for (const BarSeries& s : chart.series) {
    for (double v : s.values) top = std::max(top, v);
  }
  if (!(top > 0)) top = 1;
  const double left = 58, right = 12, plot_top = 36, plot_h = 120;
  const double bar_w = std::clamp(640.0 / std::max<double>(1, static_cast<double>(n * k)), 2.0, 16.0);
  const double group_w = bar_w * static_cast<double>(k) + std::max(1.0, bar_w / 4);
  const double width = left + group_w * static_cast<double>(n) + right, base = plot_top + plot_h;
  const double height = base + 44;
  std::string out = fmt::format(
      "<figure><svg class=\"chart {}\" data-column=\"{}\" {} xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" font-family=\"sans-serif\" font-size=\"10\">\n",
      chart.kind, ctx.column, chart.attributes, std::max(width, 220.0), height);
  // The y axis: line, ticks at 0, half and the top.
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#555\"/>\n", left - 2, plot_top, base);
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2:.1f}\" y2=\"{1}\" stroke=\"#555\"/>\n", left - 2, base,
                     width - right);
  for (double f : {0.0, 0.5, 1.0}) {
    const double y = base - f * plot_h;
    out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:.3g}</text>", left - 5, y + 3,
                       f * top * chart.y_factor);
  }
  out += axis_label(12, plot_top + plot_h / 2, chart.y_label, true);
  if (!chart.y_unit.empty()) {
    out += fmt::format("<text class=\"axis-label\" x=\"4\" y=\"{:.1f}\">({})</text>\n", plot_top - 9,
                       escape(chart.y_unit));
  }
  // Bars, and their categories' labels.
  // A category label every few groups, so that labels (about 6 pixels a character) do not overlap.
  std::size_t longest = 1;
  for (const std::string& c : chart.categories) longest = std::max(longest, c.size());
  const auto label_every =
      static_cast<std::size_t>(std::max(1.0, std::ceil((6.0 * static_cast<double>(longest) + 8) / group_w)));
  for (std::size_t c = 0; c < n; ++c) {
    const double x0 = left + group_w * static_cast<double>(c);
    for (std::size_t s = 0; s < k; ++s) {
      const BarSeries& series = chart.series[s];
      const double v = series.values[c], h = plot_h * v / top;
      const std::string& fill = series.fills.size() == n ? series.fills[c] : series.fills.front();
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" {}=\"{:.17g}\"><title>{}{}: "
          "{:.6g}</title></rect>\n",
          x0 + bar_w * static_cast<double>(s), base - h, bar_w, h, fill, chart.value_attribute, v,
          k > 1 ? escape(series.name) + ", " : "", escape(chart.categories[c]), v * chart.y_factor);
    }
    if (c % label_every == 0) {
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", x0 + group_w / 2, base + 13,
                         escape(chart.categories[c]));
    }
  }
  out += axis_label(left + (width - left - right) / 2, base + 34, chart.x_label);
  if (k > 1) {  // the series' legend, top right
    double x = std::max(width, 220.0) - right - 130;
    for (const BarSeries& s : chart.series) {
      out += fmt::format("<rect x=\"{:.1f}\" y=\"2\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{:.1f}\" "
                         "y=\"11\">{}</text>",
                         x, s.fills.front(), x + 14, escape(s.name));
      x += 24 + 6.5 * static_cast<double>(s.name.size());
    }
  }
  return out + fmt::format("</svg><figcaption>{}</figcaption></figure>\n", escape(chart.caption));
}

}  // namespace html

namespace {

using html::escape;

struct MetricRow {
  const char* key;   // the JSON key
  const char* text;
  // The quantity's unit as shown: "utilization", "volume x hops", "volume x levels", "volume"
  // or "" (shown as is).
  enum class Unit { Utilization, VolumeHops, VolumeLevels, Volume, None } unit;
  double (*get)(const Metrics&);
  // Which rows a page shows: every one, those of machines with injection links (where the
  // network's MCL can differ), of placements with traffic inside nodes, of fabrics read from
  // files (where leaf switches are known).
  enum class When { Always, HostLinks, NodeTraffic, Fabric } when = When::Always;
};

std::string number_cell(const std::string& metric, std::size_t column, double value, double shown) {
  return fmt::format("<td data-metric=\"{}\" data-column=\"{}\" data-value=\"{:.17g}\">{:.6g}</td>", escape(metric),
                     column, value, shown);
}

std::string metrics_section(const Machine& m, const std::vector<ReportColumn>& columns, const Units& units) {
  std::string out = "<table class=\"metrics\"><tr><th>metric</th><th>unit</th>";
  for (const ReportColumn& c : columns) out += "<th>" + escape(c.label) + "</th>";
  out += "</tr>\n";
  using U = MetricRow::Unit;
  using W = MetricRow::When;
  // The command line's table (metrics_table in report.cpp) in the same order, the same values.
  const std::vector<MetricRow> rows = {
      {"mcl", "MCL (max channel load / bandwidth)", U::Utilization, [](const Metrics& x) { return x.mcl; }},
      {"throughput", "throughput per task (1 / MCL)", U::None, [](const Metrics& x) { return x.throughput; }},
      {"mcl_network", "MCL of the network's links (without the nodes' own)", U::Utilization,
       [](const Metrics& x) { return x.mcl_network; }, W::HostLinks},
      {"hop_bytes", "hop-bytes", U::VolumeHops, [](const Metrics& x) { return x.hop_bytes; }},
      {"j", "J (each pair once)", U::VolumeHops, [](const Metrics& x) { return x.j; }},
      {"node_hop_bytes", "node hop-bytes (traffic inside nodes x levels apart)", U::VolumeLevels,
       [](const Metrics& x) { return x.node_hop_bytes; }, W::NodeTraffic},
      {"node_volume", "volume inside nodes", U::Volume, [](const Metrics& x) { return x.node_volume; }, W::NodeTraffic},
      {"leaf_uplink_volume", "leaf uplink volume (leaving leaf switches upwards)", U::Volume,
       [](const Metrics& x) { return x.leaf_uplink_volume; }, W::Fabric},
      {"avg_dilation", "avg dilation (volume-weighted)", U::None, [](const Metrics& x) { return x.avg_dilation; }},
      {"max_dilation", "max dilation", U::None, [](const Metrics& x) { return double(x.max_dilation); }},
      {"avg_routed_hops", "avg routed hops", U::None, [](const Metrics& x) { return x.avg_routed_hops; }},
      {"channels_used", "channels used", U::None, [](const Metrics& x) { return double(x.channels_used); }},
      {"load_imbalance", "load imbalance (max/mean)", U::None, [](const Metrics& x) { return x.load_imbalance; }},
      {"network_volume", "volume across the network", U::Volume, [](const Metrics& x) { return x.network_volume; }},
  };
  auto shown = [&](W when) {
    switch (when) {
      case W::Always: return true;
      case W::HostLinks:
        return std::any_of(m.classes.begin(), m.classes.end(), [](const LinkClass& c) { return c.host_link; });
      case W::NodeTraffic:
        return std::any_of(columns.begin(), columns.end(), [](const ReportColumn& c) { return c.metrics.node_volume > 0; });
      case W::Fabric: return std::holds_alternative<FabricShape>(m.shape);
    }
    return true;
  };
  auto unit_of = [&](U u) -> std::pair<std::string, double> {
    switch (u) {
      case U::Utilization: return {units.utilization_unit(), units.utilization_factor()};
      case U::VolumeHops: return {units.load_unit() + " x hops", units.load_factor()};
      case U::VolumeLevels: return {units.load_unit() + " x levels", units.load_factor()};
      case U::Volume: return {units.load_unit(), units.load_factor()};
      case U::None: break;
    }
    return {"", 1};
  };
  for (const MetricRow& r : rows) {
    if (!shown(r.when)) continue;
    const auto [unit, factor] = unit_of(r.unit);
    out += fmt::format("<tr><th>{}</th><td class=\"unit\">{}</td>", r.text, escape(unit));
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const double v = r.get(columns[c].metrics);
      out += number_cell(r.key, c, v, v * factor);
    }
    out += "</tr>\n";
  }
  out += "<tr><th>bottleneck class</th><td></td>";
  for (const ReportColumn& c : columns) {
    out += "<td>" + escape(fmt::format("{}", fmt::join(c.metrics.bottleneck_class, ", "))) + "</td>";
  }
  out += "</tr>\n";
  const auto [unit, factor] = unit_of(U::Utilization);
  for (std::size_t k = 0; k < m.classes.size() && k < columns.front().metrics.by_class.size(); ++k) {
    const LinkClass& cls = m.classes[k];
    const std::string bandwidth = units.link_bytes_per_s > 0
                                      ? fmt::format("{:.4g} B/s", cls.bandwidth * units.link_bytes_per_s)
                                      : fmt::format("{:.4g} (relative)", cls.bandwidth);
    out += fmt::format("<tr><th>MCL of class {} (bandwidth {})</th><td class=\"unit\">{}</td>", escape(cls.name),
                       bandwidth, escape(unit));
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const double v = columns[c].metrics.by_class[k].mcl;
      out += number_cell("classes." + cls.name + ".mcl", c, v, v * factor);
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

// Histogram of channel utilization of some classes: 16 equal bins up to the shared scale. Idle
// channels (load 0) are counted in the caption and the svg's data-idle, not drawn: on a big
// machine under a small job they outnumber the rest by far, and their bar would flatten the
// others.
std::string class_histogram(const html::ChartContext& ctx, const std::vector<double>& loads,
                            const std::function<bool(std::uint16_t)>& in_class, const std::string& name) {
  const Machine& m = ctx.machine;
  constexpr int kBins = 16;
  std::array<std::uint64_t, kBins> count{};
  std::uint64_t idle = 0;
  for (ChannelId c = 0; c < m.channels.size(); ++c) {
    if (!in_class(m.channels[c].link_class)) continue;
    const double v = html::utilization(m, loads, c);
    if (!(v > 0)) {
      ++idle;
      continue;
    }
    ++count[ctx.scale > 0 ? std::min(kBins - 1, static_cast<int>(v / ctx.scale * kBins)) : kBins - 1];
  }
  html::BarChart chart;
  chart.kind = "histogram";
  chart.attributes = fmt::format("data-class=\"{}\" data-idle=\"{}\"", escape(name), idle);
  chart.value_attribute = "data-count";
  html::BarSeries series{"channels", {}, {}};
  for (int b = 0; b < kBins; ++b) {
    series.values.push_back(static_cast<double>(count[b]));
    chart.categories.push_back(fmt::format("{:.3g}", ctx.in_units(ctx.scale * (b + 1) / kBins)));
    series.fills.push_back(html::colour(ctx.scale * (b + 0.5) / kBins, ctx.scale));
  }
  chart.series.push_back(std::move(series));
  chart.x_label = fmt::format("utilization, bin's upper end ({})", ctx.units.utilization_unit());
  chart.y_label = "loaded channels";
  chart.y_unit = "count";
  chart.caption = fmt::format("class {}: loaded channels per utilization; {} idle channel{} (load 0) not drawn", name,
                              idle, idle == 1 ? "" : "s");
  return html::bar_chart(ctx, chart);
}

// One histogram per class; on machines of many classes (fabrics of many rates) one of all.
constexpr std::size_t kMaxHistograms = 12;

std::string histograms(const html::ChartContext& ctx, const std::vector<double>& loads) {
  const Machine& m = ctx.machine;
  if (m.classes.size() > kMaxHistograms) {
    return class_histogram(ctx, loads, [](std::uint16_t) { return true; },
                           fmt::format("all {} classes", m.classes.size()));
  }
  std::string out;
  for (std::uint16_t k = 0; k < m.classes.size(); ++k) {
    out += class_histogram(ctx, loads, [k](std::uint16_t c) { return c == k; }, m.classes[k].name);
  }
  return out;
}

std::string colour_legend(double scale, const Units& units) {
  std::string out = fmt::format(
      "<div class=\"legend\"><svg class=\"chart legend\" xmlns=\"http://www.w3.org/2000/svg\" width=\"420\" "
      "height=\"44\" font-family=\"sans-serif\" font-size=\"10\">");
  for (int i = 0; i < 50; ++i) {
    out += fmt::format("<rect x=\"{:.1f}\" y=\"2\" width=\"5.2\" height=\"14\" fill=\"{}\"/>", 10 + i * 5.2,
                       html::colour((i + 0.5) / 50 * scale, scale));
  }
  out += "<rect x=\"282\" y=\"2\" width=\"14\" height=\"14\" fill=\"#e6e6e6\"/><text x=\"300\" y=\"13\">idle</text>";
  out += fmt::format("<text x=\"10\" y=\"27\">0</text><text x=\"270\" y=\"27\" text-anchor=\"end\">{:.4g}</text>",
                     scale * units.utilization_factor());
  out += html::axis_label(140, 40, fmt::format("channel utilization = load / bandwidth ({})", units.utilization_unit()));
  return out + "</svg></div>\n";
}

// A spec string with every path shortened to its file name (slurm:/long/path/topology.conf,ppn=4
// -> slurm:topology.conf,ppn=4), for the page's title; the full spec is in its tooltip. A path is
// a field of the spec (between ':', ',' and '=') that holds a '/'.
std::string without_directories(const std::string& spec) {
  std::string out, field;
  auto flush = [&] {
    const std::size_t slash = field.find_last_of('/');
    if (slash == std::string::npos || slash + 1 == field.size()) {
      out += field;
    } else {
      if (field[0] == '\'' || field[0] == '"') out += field[0];  // a quoted path keeps its quotes
      out += field.substr(slash + 1);
    }
    field.clear();
  };
  for (char c : spec) {
    if (c == ':' || c == ',' || c == '=') {
      flush();
      out += c;
    } else {
      field += c;
    }
  }
  flush();
  return out;
}

std::string units_sentence(const Units& u, const Machine& m) {
  std::string volume = u.volume_in_bytes()
                           ? fmt::format("Volumes and loads in bytes ({:.6g} bytes per unit of the pattern).",
                                         u.bytes_per_unit)
                           : "Volumes and loads in the pattern's own units (give --bytes-per-unit for bytes).";
  std::string bandwidth =
      m.link_bytes_per_s > 0
          ? fmt::format(" Link bandwidths in B/s (bandwidth 1 = {:.6g} B/s, from the machine's description).",
                        m.link_bytes_per_s)
          : " Link bandwidths are relative (the machine's description gives no rates).";
  std::string util = u.utilization_in_seconds()
                         ? " Utilization = load / bandwidth in seconds: the time a channel needs to carry its load once."
                         : fmt::format(" Utilization = load / bandwidth, in {}.", u.utilization_unit());
  return volume + bandwidth + util;
}

}  // namespace

std::string html_report(const Machine& m, const ReportHeader& header, const std::vector<ReportColumn>& columns) {
  double scale = 0;  // one colour scale for every column
  for (const ReportColumn& c : columns) scale = std::max(scale, c.metrics.mcl);
  const std::string pattern = without_directories(header.pattern), machine = without_directories(m.description);
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>taskmap report: {} on {}</title>\n"
      "<style>body{{font-family:sans-serif;margin:20px;color:#222}} h1{{overflow-wrap:anywhere}} "
      "table.metrics{{border-collapse:collapse}} "
      "table.metrics td,table.metrics th{{border:1px solid #ccc;padding:3px 8px;text-align:right}} "
      "table.metrics th:first-child{{text-align:left}} table.metrics td.unit{{color:#666;text-align:left}} "
      ".columns{{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}} .column{{flex:1}} "
      "figure{{display:inline-block;margin:6px}} figcaption{{font-size:12px;color:#555}} .legend{{margin:8px 0}} "
      ".recommendation{{font-size:1.25em;font-weight:bold;padding:10px 14px;border-left:6px solid #21918c;"
      "background:#eef7f6}} .recommendation.keep{{border-left-color:#b5651d;background:#fbf3ea}}</style>"
      "</head><body>\n",
      escape(pattern), escape(machine));
  // Paths shortened to file names, the full specs in the tooltip: a site's long paths would
  // run past the page's edge.
  out += fmt::format("<h1 title=\"{} on {}\">{} on {}</h1>\n", escape(header.pattern), escape(m.description),
                     escape(pattern), escape(machine));
  if (!header.recommendation.empty()) {
    out += fmt::format("<p class=\"recommendation{}\">{}</p>\n", header.recommends_change ? "" : " keep",
                       escape(header.recommendation));
  }
  out += fmt::format("<p>{} tasks, {} slots, {} routing. {}</p>\n", header.tasks, m.num_slots(),
                     escape(header.routing), escape(units_sentence(header.units, m)));
  out += metrics_section(m, columns, header.units);
  out += colour_legend(scale, header.units);
  out += "<div class=\"columns\">\n";
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const ReportColumn& col = columns[c];
    if (col.loads.empty()) continue;
    const html::ChartContext ctx{m, scale, header.units, c};
    out += fmt::format("<div class=\"column\"><h2>{}</h2>\n<p>MCL {}, hop-bytes {:.6g} {} x hops</p>\n",
                       escape(col.label), escape(ctx.shown(col.metrics.mcl)),
                       col.metrics.hop_bytes * header.units.load_factor(), header.units.load_unit());
    out += html::torus_pictures(ctx, col.loads);
    out += html::dragonfly_pictures(ctx, col.loads);
    out += html::tree_pictures(ctx, col.loads);
    out += "<h3>Channels per utilization, by class</h3>\n" + histograms(ctx, col.loads);
    out += "</div>\n";
  }
  return out + "</div>\n</body></html>\n";
}

}  // namespace taskmap
