// `taskmap reproduce NAME | --list`: a reference paper's table or figure, paper beside taskmap.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "taskmap/core/atomic_file.h"
#include "taskmap/core/error.h"
#include "taskmap/repro/reproduce.h"

namespace taskmap::cli {
namespace {

nlohmann::json table_json(const repro::Table& t) {
  nlohmann::json cells = nlohmann::json::array();
  for (const repro::Cell& c : t.cells) {
    cells.push_back({{"row", c.row},
                     {"column", c.column},
                     {"taskmap", c.taskmap},
                     {"value", c.value},
                     {"paper", c.paper},
                     {"verdict", repro::verdict_name(c.verdict)},
                     {"note", c.note}});
  }
  return {{"title", t.title}, {"rows", t.rows}, {"columns", t.columns}, {"cells", cells}, {"notes", t.notes}};
}

}  // namespace

int run_reproduce(const RunConfig& c) {
  if (c.list) {
    for (const repro::Entry& e : repro::reproduction_list()) std::cout << fmt::format("{:<16} {}\n", e.name, e.description);
    return 0;
  }
  if (c.reproduce_name.empty()) usage_fail("reproduce: name a table or figure (taskmap reproduce --list shows them)");
  if (c.format != "table" && c.format != "json" && c.format != "csv") {
    usage_fail("--format '{}' is not table, json or csv", c.format);
  }
  if (!c.out.empty()) io::check_output_path(c.out, io::OutputKind::Directory, "--out");
  const repro::Reproduction r = repro::reproduce(c.reproduce_name);

  // Everything is computed before any file is written.
  std::vector<std::pair<std::string, std::string>> files;
  for (std::size_t i = 0; i < r.tables.size(); ++i) {
    files.emplace_back(r.name + (r.tables.size() > 1 ? fmt::format("-{}", i + 1) : "") + ".csv",
                       repro::table_csv(r.tables[i]));
  }
  for (const repro::Figure& f : r.figures) {
    files.emplace_back(f.name + ".csv", repro::figure_csv(f));
    files.emplace_back(f.name + ".svg", repro::figure_svg(f));
  }

  if (c.format == "json") {
    nlohmann::json j{{"name", r.name}, {"tables", nlohmann::json::array()}, {"figures", nlohmann::json::array()}};
    for (const repro::Table& t : r.tables) j["tables"].push_back(table_json(t));
    for (const repro::Figure& f : r.figures) {
      nlohmann::json series = nlohmann::json::array();
      for (const repro::Series& s : f.series) {
        series.push_back({{"name", s.name}, {"source", s.model ? "model" : "taskmap"}, {"x", s.x}, {"y", s.y}});
      }
      j["figures"].push_back({{"name", f.name}, {"title", f.title}, {"x_label", f.x_label}, {"y_label", f.y_label},
                              {"series", series}});
    }
    std::cout << j.dump(2) << "\n";
  } else if (c.format == "csv") {
    for (const repro::Table& t : r.tables) std::cout << repro::table_csv(t);
  } else {
    for (const repro::Table& t : r.tables) std::cout << repro::render_table(t) << "\n";
  }

  if (c.out.empty()) {
    if (!r.figures.empty()) std::cerr << "taskmap: figures are written as CSV and SVG with --out DIR\n";
    return 0;
  }
  std::error_code ec;
  std::filesystem::create_directories(c.out, ec);
  if (ec) fail("--out '{}': cannot create the directory: {}", c.out, ec.message());
  for (const auto& [name, content] : files) {
    const std::string path = (std::filesystem::path(c.out) / name).string();
    io::write_file_atomically(path, content);
    std::cerr << "wrote " << path << "\n";
  }
  return 0;
}

}  // namespace taskmap::cli
