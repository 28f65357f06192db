#include "taskmap/repro/reproduce.h"

#include <fmt/format.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <map>

#include "repro_support.h"
#include "taskmap/core/error.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/routing/routing.h"

namespace taskmap::repro {

Metrics evaluate(const Machine& machine, const CommGraph& graph, const std::string& mapper,
                 const std::string& routing) {
  const MappingProblem problem(machine, graph, routing);
  const Mapping mapping = make_mapper(parse_mapper_spec(mapper))->run(problem);
  return Evaluator(problem).evaluate(graph, mapping);
}

double round_half_even(double x) {
  const int saved = std::fegetround();
  std::fesetround(FE_TONEAREST);
  const double r = std::nearbyint(x);
  std::fesetround(saved);
  return r;
}

Cell& add_cell(Table& table, std::string row, std::string column) {
  if (std::find(table.rows.begin(), table.rows.end(), row) == table.rows.end()) table.rows.push_back(row);
  if (std::find(table.columns.begin(), table.columns.end(), column) == table.columns.end()) {
    table.columns.push_back(column);
  }
  Cell& c = table.cells.emplace_back();
  c.row = std::move(row);
  c.column = std::move(column);
  return c;
}

std::vector<Entry> reproduction_list() {
  return {
      {"percs-table1", "[PERCS-map Table 1]: Halo, ns = 32, nd = 1..16, direct routing, every mapping"},
      {"percs-table2", "[PERCS-map Table 2]: Halo, ns = 16..128, nd = 4, direct routing, every mapping"},
      {"percs-table3", "[PERCS-map Table 3]: Halo, ns = 32, nd = 1..16, indirect routing, blocking mappings"},
      {"percs-table4", "[PERCS-map Table 4]: Transpose 64x64, ns = 32, direct routing, SN SEQ and hybrid"},
      {"rtt-table1", "[RTT-map Table 1]: exact diameter and average distances of RT(a), RTT(a), a = 4..32"},
      {"rtt-fig5", "[RTT-map Figure 5]: throughput and average distance vs alpha, 8x4 logical torus on RT(4)/RTT(4)"},
      {"rtt-fig6", "[RTT-map Figure 6]: the same with concentration c = 2, 8x8 logical torus on RT(4)/RTT(4)"},
      {"dragonfly-fig4", "[Dragonfly-BAC Figure 4]: BSM vs B-BAC, minimal and UGAL-like routing, every Figure 3 size"},
  };
}

Reproduction reproduce(const std::string& name) {
  if (name == "percs-table1") return percs_table(1);
  if (name == "percs-table2") return percs_table(2);
  if (name == "percs-table3") return percs_table(3);
  if (name == "percs-table4") return percs_table(4);
  if (name == "rtt-table1") return rtt_table1();
  if (name == "rtt-fig5") return rtt_figure(5);
  if (name == "rtt-fig6") return rtt_figure(6);
  if (name == "dragonfly-fig4") return dragonfly_fig4();
  std::string names;
  for (const Entry& e : reproduction_list()) names += (names.empty() ? "" : ", ") + e.name;
  fail("unknown reproduction '{}' (use one of {}; --list describes them)", name, names);
}

std::string verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Match: return "match";
    case Verdict::Differs: return "differs";
    case Verdict::Random: return "random";
    case Verdict::Info: return "info";
  }
  return "info";
}

namespace {

const Cell* find_cell(const Table& t, const std::string& row, const std::string& column) {
  for (const Cell& c : t.cells) {
    if (c.row == row && c.column == column) return &c;
  }
  return nullptr;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

// Each cell shows "taskmap | paper"; a trailing "!" marks a deterministic cell that differs.
std::string render_table(const Table& t) {
  std::vector<std::vector<std::string>> grid;
  grid.push_back({""});
  for (const std::string& c : t.columns) grid[0].push_back(c);
  for (const std::string& r : t.rows) {
    std::vector<std::string> line{r};
    for (const std::string& col : t.columns) {
      const Cell* c = find_cell(t, r, col);
      if (!c) {
        line.push_back("-");
        continue;
      }
      std::string text = c->taskmap;
      if (!c->paper.empty()) text += " | " + c->paper;
      if (c->verdict == Verdict::Differs) text += " !";
      line.push_back(text);
    }
    grid.push_back(std::move(line));
  }
  std::vector<std::size_t> width(grid[0].size(), 0);
  for (const auto& line : grid)
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  std::string out = t.title + "\n(each cell: taskmap | paper; ! = deterministic cell that differs)\n";
  for (const auto& line : grid) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      out += i == 0 ? fmt::format("{:<{}}", line[i], width[i]) : fmt::format("  {:>{}}", line[i], width[i]);
    }
    out += "\n";
  }
  for (const std::string& n : t.notes) out += "  note: " + n + "\n";
  return out;
}

std::string table_csv(const Table& t) {
  std::string out = "row,column,taskmap,value,paper,verdict,note\n";
  for (const std::string& r : t.rows)
    for (const std::string& col : t.columns) {
      const Cell* c = find_cell(t, r, col);
      if (!c) continue;
      out += fmt::format("{},{},{},{},{},{},{}\n", csv_field(r), csv_field(col), csv_field(c->taskmap), c->value,
                         csv_field(c->paper), verdict_name(c->verdict), csv_field(c->note));
    }
  return out;
}

std::string figure_csv(const Figure& f) {
  std::string out = fmt::format("series,source,{},{}\n", csv_field(f.x_label), csv_field(f.y_label));
  for (const Series& s : f.series)
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      out += fmt::format("{},{},{},{}\n", csv_field(s.name), s.model ? "model" : "taskmap", s.x[i], s.y[i]);
    }
  return out;
}

// A plain line chart: taskmap's curves solid with dots, the paper's model dashed, one colour
// per mapping, legend on the right.
std::string figure_svg(const Figure& f) {
  const double W = 760, H = 440, left = 70, right = 250, top = 40, bottom = 60;
  const double pw = W - left - right, ph = H - top - bottom;
  double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
  for (const Series& s : f.series)
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      xmin = std::min(xmin, s.x[i]);
      xmax = std::max(xmax, s.x[i]);
      ymax = std::max(ymax, s.y[i]);
    }
  if (!(xmax > xmin)) xmax = xmin + 1;
  // A round upper bound: 1, 2 or 5 times a power of ten, split into 5 ticks.
  const double raw = ymax > 0 ? ymax * 1.05 : 1;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double top_value = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * mag >= raw) {
      top_value = m * mag;
      break;
    }
  }
  auto X = [&](double x) { return left + (x - xmin) / (xmax - xmin) * pw; };
  auto Y = [&](double y) { return top + ph - y / top_value * ph; };
  static const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2"};
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      W, H, W, H);
  out += fmt::format("<text x=\"{}\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{}</text>\n", left, f.title);
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\"/>\n", left, top,
                     pw, ph);
  for (int i = 0; i <= 5; ++i) {
    const double v = top_value * i / 5, y = Y(v);
    out += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", left, y, left + pw, y);
    out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n", left - 6, y + 4, v);
    const double xv = xmin + (xmax - xmin) * i / 5, x = X(xv);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{:g}</text>\n", x, top + ph + 18, xv);
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", left + pw / 2, H - 15, f.x_label);
  out += fmt::format("<text transform=\"translate(18 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                     top + ph / 2, f.y_label);
  std::map<std::string, std::size_t> colour_of;  // taskmap and model curve of one mapping share it
  double legend_y = top + 10;
  for (const Series& s : f.series) {
    const char* colour = colours[colour_of.emplace(s.name, colour_of.size()).first->second % 7];
    std::string points;
    for (std::size_t i = 0; i < s.x.size(); ++i) points += fmt::format("{:.1f},{:.1f} ", X(s.x[i]), Y(s.y[i]));
    out += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{} points=\"{}\"/>\n", colour,
                       s.model ? 1.5 : 2, s.model ? " stroke-dasharray=\"6 4\"" : "", points);
    if (!s.model) {
      for (std::size_t i = 0; i < s.x.size(); ++i) {
        out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"/>\n", X(s.x[i]), Y(s.y[i]), colour);
      }
    }
    const double lx = left + pw + 15;
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", lx,
                       legend_y, lx + 28, legend_y, colour, s.model ? " stroke-dasharray=\"6 4\"" : "");
    out += fmt::format("<text x=\"{}\" y=\"{}\">{} ({})</text>\n", lx + 34, legend_y + 4, s.name,
                       s.model ? "model" : "taskmap");
    legend_y += 18;
  }
  out += "</svg>\n";
  return out;
}

}  // namespace taskmap::repro
