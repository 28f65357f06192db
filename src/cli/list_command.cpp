// taskmap list KIND: a catalog's entries as a table, JSON or the markdown of docs/KIND.md.
#include <nlohmann/json.hpp>

#include <iostream>

#include "commands.h"
#include "taskmap/core/error.h"
#include "taskmap/launch/placement_catalog.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/routing/routing_catalog.h"
#include "taskmap/topology/node_topology.h"
#include "taskmap/topology/machine_catalog.h"
#include "taskmap/workload/pattern_catalog.h"

namespace taskmap::cli {
namespace {

nlohmann::json entry_json(const CatalogEntry& e) {
  nlohmann::json params = nlohmann::json::array();
  for (const CatalogParam& p : e.params) {
    nlohmann::json j = {{"name", p.name},
                        {"type", param_type_name(p.type)},
                        {"bare", e.positional && &p == &e.params.front()},
                        {"required", p.required},
                        {"meaning", p.meaning}};
    j["default"] = p.default_value.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.default_value);
    if (!p.when_absent.empty()) j["when_absent"] = p.when_absent;
    if (p.min) j["min"] = *p.min;
    if (p.max) j["max"] = *p.max;
    if (!p.choices.empty()) j["choices"] = p.choices;
    if (p.type == ParamType::Sizes) {
      j["min_count"] = p.min_count;
      j["max_count"] = p.max_count == 0 ? nlohmann::json(nullptr) : nlohmann::json(p.max_count);
    }
    params.push_back(std::move(j));
  }
  return {{"name", e.name},         {"synopsis", entry_synopsis(e)}, {"summary", e.summary},
          {"reference", e.reference}, {"applies_to", e.applies_to},  {"example", e.example},
          {"params", params}};
}

}  // namespace

const std::vector<const Catalog& (*)()>& listed_catalogs() {
  // `taskmap list X` for each catalog's plural.
  static const std::vector<const Catalog& (*)()> catalogs = {machine_catalog,  node_topology_catalog, routing_catalog,
                                                             pattern_catalog,  mapper_catalog,        placement_format_catalog};
  return catalogs;
}

int run_list(const RunConfig& c) {
  std::string known;
  for (auto catalog : listed_catalogs()) {
    const Catalog& cat = catalog();
    if (cat.info().plural == c.list_what) {
      if (c.format == "table") {
        std::cout << render_text(cat);
      } else if (c.format == "markdown") {
        std::cout << render_markdown(cat);
      } else if (c.format == "json") {
        nlohmann::json entries = nlohmann::json::array();
        for (const CatalogEntry& e : cat.entries()) entries.push_back(entry_json(e));
        std::cout << nlohmann::json{{"kind", cat.info().noun}, {"option", cat.info().option}, {"entries", entries}}
                         .dump(2)
                  << "\n";
      } else {
        usage_fail("--format '{}': unknown format (use table, json or markdown)", c.format);
      }
      return 0;
    }
    known += (known.empty() ? "" : ", ") + std::string(cat.info().plural);
  }
  usage_fail("list '{}': unknown list; known: {}", c.list_what, known);
}

}  // namespace taskmap::cli
