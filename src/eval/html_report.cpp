#include "taskmap/eval/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

namespace taskmap {
namespace {

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

// Utilization of a channel: its load over its class bandwidth (the quantity the MCL maximizes).
double utilization(const Machine& m, const std::vector<double>& loads, ChannelId c) {
  return loads[c] / m.classes[m.channels[c].link_class].bandwidth;
}

// A perceptual dark-blue -> teal -> yellow ramp (viridis-like); idle channels are light grey.
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

std::string number_cell(const std::string& metric, std::size_t column, double value) {
  return fmt::format("<td data-metric=\"{}\" data-column=\"{}\" data-value=\"{:.17g}\">{:.6g}</td>", metric, column,
                     value, value);
}

std::string metrics_section(const std::vector<ReportColumn>& columns) {
  std::string out = "<table class=\"metrics\"><tr><th>metric</th>";
  for (const ReportColumn& c : columns) out += "<th>" + escape(c.label) + "</th>";
  out += "</tr>\n";
  using Getter = double (*)(const Metrics&);
  const std::vector<std::tuple<const char*, const char*, Getter>> rows = {
      {"mcl", "MCL (max channel load / bandwidth)", [](const Metrics& m) { return m.mcl; }},
      {"throughput", "throughput per node", [](const Metrics& m) { return m.throughput; }},
      {"hop_bytes", "hop-bytes", [](const Metrics& m) { return m.hop_bytes; }},
      {"avg_dilation", "avg dilation (volume-weighted)", [](const Metrics& m) { return m.avg_dilation; }},
      {"max_dilation", "max dilation", [](const Metrics& m) { return double(m.max_dilation); }},
      {"avg_routed_hops", "avg routed hops", [](const Metrics& m) { return m.avg_routed_hops; }},
      {"channels_used", "channels used", [](const Metrics& m) { return double(m.channels_used); }},
      {"load_imbalance", "load imbalance (max/mean)", [](const Metrics& m) { return m.load_imbalance; }},
      {"network_volume", "volume across the network", [](const Metrics& m) { return m.network_volume; }},
  };
  for (const auto& [key, text, get] : rows) {
    out += fmt::format("<tr><th>{}</th>", text);
    for (std::size_t c = 0; c < columns.size(); ++c) out += number_cell(key, c, get(columns[c].metrics));
    out += "</tr>\n";
  }
  out += "<tr><th>bottleneck class</th>";
  for (const ReportColumn& c : columns) out += "<td>" + escape(c.metrics.bottleneck_class) + "</td>";
  out += "</tr>\n";
  for (std::size_t k = 0; k < columns.front().metrics.by_class.size(); ++k) {
    const std::string& name = columns.front().metrics.by_class[k].name;
    out += fmt::format("<tr><th>MCL of class {}</th>", escape(name));
    for (std::size_t c = 0; c < columns.size(); ++c) {
      out += number_cell("mcl_by_class." + name, c, columns[c].metrics.by_class[k].mcl);
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

// One panel per pair of torus dimensions (i, j): dimension j across, i down. A link between
// neighbouring positions is drawn in the colour of the busiest channel, either direction,
// among all links that project onto it (the other dimensions are folded by max).
std::string torus_panel(const Machine& m, const TorusShape& t, std::size_t di, std::size_t dj,
                        const std::vector<double>& loads, double scale, std::size_t column) {
  const std::uint32_t H = t.sizes[di], W = t.sizes[dj];
  // value[(dim_is_j, y, x)] for the link leaving (y, x) in the + direction of that dimension.
  std::map<std::tuple<int, std::uint32_t, std::uint32_t>, double> link;
  for (RouterId r = 0; r < m.num_routers; ++r) {
    const std::uint32_t y = t.coord(r, di), x = t.coord(r, dj);
    for (int which = 0; which < 2; ++which) {
      const std::size_t d = which ? dj : di;
      const std::uint32_t size = t.sizes[d];
      for (int dir = 0; dir < 2; ++dir) {
        const ChannelId c = t.channel(r, d, dir);
        if (c == kNoChannel) continue;
        // The + link of the lower end: from r itself for "+", from the neighbour for "-".
        std::uint32_t ly = y, lx = x;
        if (dir == 1) (which ? lx : ly) = ((which ? x : y) + size - 1) % size;
        double& v = link[{which, ly, lx}];
        v = std::max(v, utilization(m, loads, c));
      }
    }
  }
  const double cell = std::clamp(300.0 / std::max(W, H), 8.0, 40.0), pad = 26;
  const double w = W * cell + 2 * pad, h = H * cell + 2 * pad;
  auto cx = [&](double x) { return pad + (x + 0.5) * cell; };
  auto cy = [&](double y) { return pad + (y + 0.5) * cell; };
  std::string out = fmt::format(
      "<figure><svg class=\"heatmap\" data-column=\"{}\" data-dims=\"{}{}\" xmlns=\"http://www.w3.org/2000/svg\" "
      "width=\"{:.0f}\" height=\"{:.0f}\">\n",
      column, t.letters[di], t.letters[dj], w, h);
  const double stroke = std::max(2.0, cell * 0.28);
  for (const auto& [key, v] : link) {
    const auto [which, y, x] = key;
    const std::uint32_t size = which ? W : H;
    const bool wraps = (which ? x : y) == size - 1;
    const std::string col = colour(v, scale);
    // A copy: clang 14 cannot capture a structured binding in a lambda (the fuzz build uses it).
    auto seg = [&, util = v](double x1, double y1, double x2, double y2) {
      out += fmt::format(
          "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{:.1f}\" "
          "data-util=\"{:.17g}\"><title>{:.6g}</title></line>\n",
          x1, y1, x2, y2, col, stroke, util, util);
    };
    if (!wraps) {
      seg(cx(x), cy(y), cx(which ? x + 1 : x), cy(which ? y : y + 1));
    } else if (which) {  // wraparound in j: leave right, re-enter left
      seg(cx(x), cy(y), w - pad / 3, cy(y));
      seg(pad / 3, cy(y), cx(0), cy(y));
    } else {
      seg(cx(x), cy(y), cx(x), h - pad / 3);
      seg(cx(x), pad / 3, cx(x), cy(0));
    }
  }
  for (std::uint32_t y = 0; y < H; ++y) {
    for (std::uint32_t x = 0; x < W; ++x) {
      out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#444\"/>\n",
                         cx(x) - cell * 0.18, cy(y) - cell * 0.18, cell * 0.36, cell * 0.36);
    }
  }
  out += "</svg>";
  std::string folded;
  for (std::size_t d = 0; d < t.dims(); ++d) {
    if (d != di && d != dj) folded += t.letters[d];
  }
  out += fmt::format("<figcaption>{} down, {} across{}</figcaption></figure>\n", t.letters[di], t.letters[dj],
                     folded.empty() ? "" : ", max over " + folded);
  return out;
}

// Dragonfly: cell (G, H) is the global channel from group G to group H.
std::string dragonfly_matrix(const Machine& m, const DragonflyShape& d, const std::vector<double>& loads, double scale,
                             std::size_t column) {
  const double cell = std::clamp(360.0 / d.g, 3.0, 30.0), pad = 30;
  const double size = d.g * cell + 2 * pad;
  std::string out = fmt::format(
      "<figure><svg class=\"group-matrix\" data-column=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" font-family=\"sans-serif\" font-size=\"10\">\n",
      column, size, size);
  for (std::uint32_t G = 0; G < d.g; ++G) {
    for (std::uint32_t H = 0; H < d.g; ++H) {
      const ChannelId c = d.global_of[static_cast<std::size_t>(G) * d.g + H];
      if (c == kNoChannel) continue;
      const double v = utilization(m, loads, c);
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" data-util=\"{:.17g}\">"
          "<title>group {} -> {}: {:.6g}</title></rect>\n",
          pad + H * cell, pad + G * cell, cell, cell, colour(v, scale), v, G, H, v);
    }
  }
  out += fmt::format("<text x=\"{:.0f}\" y=\"18\" text-anchor=\"middle\">to group</text>", size / 2);
  out += fmt::format("<text transform=\"translate(14 {:.0f}) rotate(-90)\" text-anchor=\"middle\">from group</text>",
                     size / 2);
  return out + "</svg><figcaption>global channels, group to group</figcaption></figure>\n";
}

// Histogram of channel utilization of one class: an "idle" bar, then 16 equal bins up to the
// shared scale.
std::string class_histogram(const Machine& m, std::uint16_t cls, const std::vector<double>& loads, double scale,
                            std::size_t column) {
  constexpr int kBins = 16;
  std::array<std::uint64_t, kBins + 1> count{};
  for (ChannelId c = 0; c < m.channels.size(); ++c) {
    if (m.channels[c].link_class != cls) continue;
    const double v = utilization(m, loads, c);
    if (!(v > 0)) {
      ++count[0];
      continue;
    }
    const int bin = scale > 0 ? std::min(kBins - 1, static_cast<int>(v / scale * kBins)) : kBins - 1;
    ++count[1 + bin];
  }
  const std::uint64_t top = std::max<std::uint64_t>(1, *std::max_element(count.begin(), count.end()));
  const double bw = 16, gap = 2, left = 34, plot_h = 110, base = 128;
  std::string out = fmt::format(
      "<figure><svg class=\"histogram\" data-column=\"{}\" data-class=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" "
      "width=\"{:.0f}\" height=\"150\" font-family=\"sans-serif\" font-size=\"10\">\n",
      column, escape(m.classes[cls].name), left + (kBins + 1) * (bw + gap) + 10);
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", left - 4, base - plot_h + 8, top);
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text>\n", left - 4, base);
  for (int b = 0; b <= kBins; ++b) {
    const double hgt = plot_h * double(count[b]) / double(top);
    const double mid = b == 0 ? 0 : scale * (b - 0.5) / kBins;
    const std::string label = b == 0 ? "idle" : fmt::format("{:.3g}-{:.3g}", scale * (b - 1) / kBins, scale * b / kBins);
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" fill=\"{}\" data-count=\"{}\"><title>{}: {} "
        "channels</title></rect>\n",
        left + b * (bw + gap), base - hgt, bw, hgt, b == 0 ? "#bbbbbb" : colour(mid, scale), count[b], label,
        count[b]);
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\">idle</text><text x=\"{:.0f}\" y=\"{}\" text-anchor=\"end\">{:.3g}</text>",
                     left, base + 14, left + (kBins + 1) * (bw + gap), base + 14, scale);
  return out + fmt::format("</svg><figcaption>class {}: channels per utilization</figcaption></figure>\n",
                           escape(m.classes[cls].name));
}

std::string colour_legend(double scale) {
  std::string out =
      "<div class=\"legend\">utilization (load / bandwidth): <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"260\" "
      "height=\"18\">";
  for (int i = 0; i < 50; ++i) {
    out += fmt::format("<rect x=\"{}\" y=\"2\" width=\"5.2\" height=\"14\" fill=\"{}\"/>", i * 5.2,
                       colour((i + 0.5) / 50 * scale, scale));
  }
  return out + fmt::format("</svg> 0 to {:.6g} (idle channels grey)</div>\n", scale);
}

}  // namespace

std::string html_report(const Machine& m, const ReportHeader& header, const std::vector<ReportColumn>& columns) {
  double scale = 0;  // one colour scale for every column
  for (const ReportColumn& c : columns) scale = std::max(scale, c.metrics.mcl);
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>taskmap report: {} on {}</title>\n"
      "<style>body{{font-family:sans-serif;margin:20px;color:#222}} table.metrics{{border-collapse:collapse}} "
      "table.metrics td,table.metrics th{{border:1px solid #ccc;padding:3px 8px;text-align:right}} "
      "table.metrics th:first-child{{text-align:left}} .columns{{display:flex;gap:24px;align-items:flex-start}} "
      ".column{{flex:1}} figure{{display:inline-block;margin:6px}} figcaption{{font-size:12px;color:#555}} "
      ".legend{{margin:8px 0}}</style></head><body>\n",
      escape(header.pattern), escape(m.description));
  out += fmt::format("<h1>{} on {}</h1>\n<p>{} tasks, {} slots, {} routing.</p>\n", escape(header.pattern),
                     escape(m.description), header.tasks, m.num_slots(), escape(header.routing));
  out += metrics_section(columns);
  out += colour_legend(scale);
  const auto* torus = m.torus();
  const auto* dragonfly = std::get_if<DragonflyShape>(&m.shape);
  out += "<div class=\"columns\">\n";
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const ReportColumn& col = columns[c];
    out += fmt::format("<div class=\"column\"><h2>{}</h2>\n<p>MCL {:.6g}, hop-bytes {:.6g}</p>\n", escape(col.label),
                       col.metrics.mcl, col.metrics.hop_bytes);
    if (torus != nullptr && torus->dims() >= 2) {
      out += "<h3>Link loads per dimension pair</h3>\n";
      for (std::size_t i = 0; i < torus->dims(); ++i) {
        for (std::size_t j = i + 1; j < torus->dims(); ++j) out += torus_panel(m, *torus, i, j, col.loads, scale, c);
      }
    }
    if (dragonfly != nullptr) {
      out += "<h3>Global channels</h3>\n" + dragonfly_matrix(m, *dragonfly, col.loads, scale, c);
    }
    out += "<h3>Channels per utilization, by class</h3>\n";
    for (std::uint16_t k = 0; k < m.classes.size(); ++k) out += class_histogram(m, k, col.loads, scale, c);
    out += "</div>\n";
  }
  return out + "</div>\n</body></html>\n";
}

}  // namespace taskmap
