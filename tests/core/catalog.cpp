// The catalog framework on a table of its own, and the real catalogs: messages, defaults,
// applicability, `taskmap list`, --help and the generated docs.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "taskmap/core/catalog.h"
#include "taskmap/core/error.h"
#include "taskmap/launch/placement.h"
#include "taskmap/launch/placement_catalog.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/routing/routing.h"
#include "taskmap/routing/routing_catalog.h"
#include "taskmap/topology/node_topology.h"
#include "taskmap/topology/machine_catalog.h"
#include "taskmap/topology/machine_spec.h"
#include "taskmap/workload/pattern_catalog.h"
#include "taskmap/workload/pattern_spec.h"
#include "test_support.h"

namespace taskmap {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// ---- The framework on a small table -----------------------------------------------------------------

struct Oven {
  int temperature = 0;
};
std::string hot_only(const Oven& o) { return o.temperature >= 200 ? "" : "the oven is too cold"; }

const Catalog& bakery() {
  static const Catalog catalog(
      {.noun = "cake", .plural = "cakes", .option = "--cake", .title = "Cakes", .intro = "Cakes.", .table_file = "test"},
      {
          {.name = "sponge",
           .tag = 7,
           .summary = "a sponge cake",
           .example = "sponge:20x30,eggs=4",
           .positional = true,
           .params = {{.name = "sizes", .type = ParamType::Sizes, .required = true, .min = 1, .max = 100,
                       .min_count = 2, .max_count = 2, .meaning = "tin"},
                      {.name = "eggs", .type = ParamType::Int, .default_value = "3", .min = 1, .max = 12,
                       .meaning = "eggs"},
                      {.name = "sugar", .type = ParamType::Real, .default_value = "0.25", .min = 0, .max = 1,
                       .meaning = "share of sugar"},
                      {.name = "iced", .type = ParamType::Bool, .default_value = "false", .meaning = "iced"},
                      {.name = "flour", .type = ParamType::Choice, .default_value = "wheat",
                       .choices = {"wheat", "spelt", "rye"}, .meaning = "flour"},
                      {.name = "label", .type = ParamType::String, .meaning = "label", .when_absent = "none"}}},
          {.name = "souffle",
           .summary = "needs a hot oven",
           .applies_to = "ovens at 200 or more",
           .applies = hot_only,
           .example = "souffle"},
          {.name = "recipe",
           .summary = "baked from a file",
           .example = "recipe:x.txt,eggs=2",
           .positional = true,
           .params = {{.name = "path", .type = ParamType::Path, .required = true, .meaning = "the recipe"},
                      {.name = "eggs", .type = ParamType::Int, .required = true, .min = 1, .max = 12,
                       .meaning = "eggs"}}},
      });
  return catalog;
}

std::string parse_error(const Catalog& c, const std::string& spec) {
  return error_of([&] { c.parse(spec); });
}

TEST(Catalog, TypedValuesAndTableDefaults) {
  const SpecValues v = bakery().parse("sponge:20x30,sugar=0.5,flour=rye,iced=yes");
  EXPECT_EQ(v.entry().name, "sponge");
  EXPECT_EQ(v.entry().tag, 7);
  EXPECT_EQ(v.get_sizes("sizes"), (std::vector<std::uint32_t>{20, 30}));
  EXPECT_FALSE(v.given("eggs"));
  EXPECT_EQ(v.get_int("eggs"), 3);  // the table's default
  EXPECT_DOUBLE_EQ(v.get_real("sugar"), 0.5);
  EXPECT_TRUE(v.get_bool("iced"));
  EXPECT_EQ(v.get_choice("flour"), "rye");
  EXPECT_EQ(v.choice_index("flour"), 2u);
  EXPECT_FALSE(v.given("label"));
  EXPECT_THROW(v.get_text("label"), std::logic_error);  // absent, no default
  EXPECT_THROW(v.get_int("sugar"), std::logic_error);   // wrong type
  EXPECT_THROW(v.get_int("butter"), std::logic_error);  // not a parameter
  const SpecValues d = bakery().parse("sponge:1x1");
  EXPECT_DOUBLE_EQ(d.get_real("sugar"), 0.25);
  EXPECT_FALSE(d.get_bool("iced"));
  EXPECT_EQ(d.get_choice("flour"), "wheat");
}

TEST(Catalog, OneLineErrorsNamingOptionAndValue) {
  const Catalog& c = bakery();
  EXPECT_EQ(parse_error(c, "spnoge:2x2"), "--cake 'spnoge:2x2': unknown cake 'spnoge'; did you mean 'sponge'?");
  EXPECT_EQ(parse_error(c, "tart"), "--cake 'tart': unknown cake 'tart'; known: sponge, souffle, recipe");
  EXPECT_EQ(parse_error(c, "sponge:2x2,egs=2"),
            "--cake 'sponge:2x2,egs=2': sponge: unknown parameter 'egs'; known: eggs, sugar, iced, flour, label");
  EXPECT_EQ(parse_error(c, "sponge:2x2,eggs=13"), "--cake 'sponge:2x2,eggs=13': sponge: eggs must be at most 12, not 13");
  EXPECT_EQ(parse_error(c, "sponge:2x2,eggs=0"), "--cake 'sponge:2x2,eggs=0': sponge: eggs must be at least 1, not 0");
  EXPECT_EQ(parse_error(c, "sponge:2x2,eggs=two"), "--cake 'sponge:2x2,eggs=two': sponge: eggs='two' is not an integer");
  EXPECT_EQ(parse_error(c, "sponge:2x2,sugar=1.5"), "--cake 'sponge:2x2,sugar=1.5': sponge: sugar must be at most 1, not 1.5");
  EXPECT_EQ(parse_error(c, "sponge:2x2,iced=maybe"), "--cake 'sponge:2x2,iced=maybe': sponge: iced='maybe' is not true or false");
  EXPECT_EQ(parse_error(c, "sponge:2x2,flour=oat"), "--cake 'sponge:2x2,flour=oat': sponge: unknown flour 'oat'; known: wheat, spelt, rye");
  EXPECT_EQ(parse_error(c, "sponge:2x2,flour=spellt"),
            "--cake 'sponge:2x2,flour=spellt': sponge: unknown flour 'spellt'; did you mean 'spelt'?");
  EXPECT_EQ(parse_error(c, "sponge:2x2x2"), "--cake 'sponge:2x2x2': sponge: expected 2 grid sizes, got 3");
  EXPECT_EQ(parse_error(c, "sponge:2x0"), "--cake 'sponge:2x0': sponge: dimension size 0 must be at least 1");
  EXPECT_EQ(parse_error(c, "sponge:2x101"), "--cake 'sponge:2x101': sponge: size 101 is too large (at most 100)");
  EXPECT_EQ(parse_error(c, "sponge:eggs=2"), "--cake 'sponge:eggs=2': sponge: missing SIZES, e.g. sponge:20x30,eggs=4");
  EXPECT_EQ(parse_error(c, "sponge:2x2,eggs=2,eggs=3"), "--cake 'sponge:2x2,eggs=2,eggs=3': sponge: eggs given twice");
  EXPECT_EQ(parse_error(c, "souffle:eggs=2"), "--cake 'souffle:eggs=2': 'souffle' takes no parameters");
  EXPECT_EQ(parse_error(c, "recipe:r.txt"), "--cake 'recipe:r.txt': recipe: missing eggs=, e.g. recipe:x.txt,eggs=2");
  EXPECT_EQ(parse_error(c, ""), "--cake '': empty value");
  EXPECT_EQ(parse_error(c, ":2x2"), "--cake ':2x2': missing name before ':'");
}

TEST(Catalog, UnquotedPathStopsAtTheEntrysOwnKeys) {
  const SpecValues v = bakery().parse("recipe:a,b=c,eggs=2");
  EXPECT_EQ(v.get_text("path"), "a,b=c");
  EXPECT_EQ(v.get_int("eggs"), 2);
  EXPECT_EQ(bakery().parse("recipe:'x,eggs=1',eggs=3").get_text("path"), "x,eggs=1");
  EXPECT_EQ(parse_error(bakery(), "recipe:eggs=3,x"), "--cake 'recipe:eggs=3,x': recipe: 'x' is not of the form key=value");
  EXPECT_EQ(parse_error(bakery(), "recipe:eggs=3"), "--cake 'recipe:eggs=3': recipe: missing PATH, e.g. recipe:x.txt,eggs=2");
}

// Sizes are stored as uint32_t: without a limit in the table, 2^32 + 1 would be stored as 1.
TEST(Catalog, SizesWithoutALimitStillFitTheirType) {
  const CatalogInfo info{.noun = "x", .plural = "xs", .option = "--x", .title = "X", .intro = "", .table_file = "t"};
  const Catalog c(info, {{.name = "tray",
                          .summary = "s",
                          .example = "tray:2x3",
                          .positional = true,
                          .params = {{.name = "grid", .type = ParamType::Sizes, .required = true, .meaning = "g"}}}});
  EXPECT_EQ(c.parse("tray:4294967295x2").get_sizes("grid"), (std::vector<std::uint32_t>{4294967295u, 2}));
  EXPECT_EQ(parse_error(c, "tray:4294967297x2"),
            "--x 'tray:4294967297x2': tray: size 4294967297 is too large (at most 4294967295)");
  EXPECT_EQ(parse_error(c, "tray:2x4294967296"),
            "--x 'tray:2x4294967296': tray: size 4294967296 is too large (at most 4294967295)");
  // The mapper catalog's grid has no limit of its own: 4294967304x4 must not wrap to 8x4.
  EXPECT_EQ(error_of([] { parse_mapper_spec("rtt-map:grid=4294967304x4"); }),
            "--mapper 'rtt-map:grid=4294967304x4': rtt-map: size 4294967304 is too large (at most 4294967295)");
}

TEST(Catalog, ApplicabilityChecksTheSubject) {
  const Catalog& c = bakery();
  EXPECT_EQ(c.find("souffle")->applies(Oven{150}), "the oven is too cold");
  EXPECT_EQ(c.find("souffle")->applies(Oven{220}), "");
  EXPECT_EQ(c.find("sponge")->applies(Oven{150}), "");  // no check: applies everywhere
  EXPECT_EQ(c.applicable(Oven{150}).size(), 2u);
  EXPECT_EQ(c.applicable(Oven{250}).size(), 3u);
  EXPECT_THROW(c.find("souffle")->applies(42), std::logic_error);  // a check on Oven, asked about an int
}

TEST(Catalog, BrokenTablesAreRefused) {
  const CatalogInfo info{.noun = "x", .plural = "xs", .option = "--x", .title = "X", .intro = "", .table_file = "t"};
  auto entry = [](std::string_view name) { return CatalogEntry{.name = name, .summary = "s", .example = name}; };
  EXPECT_THROW(Catalog(info, {entry("a"), entry("a")}), std::logic_error);
  CatalogEntry bad_default = entry("b");
  bad_default.example = "b";
  bad_default.params = {{.name = "n", .type = ParamType::Int, .default_value = "20", .max = 10, .meaning = "n"}};
  EXPECT_THROW(Catalog(info, {bad_default}), std::logic_error);
  CatalogEntry bad_example = entry("c");
  bad_example.example = "c:n=1";
  EXPECT_THROW(Catalog(info, {bad_example}), std::logic_error);
  CatalogEntry required_with_default = entry("d");
  required_with_default.params = {
      {.name = "n", .type = ParamType::Int, .default_value = "1", .required = true, .meaning = "n"}};
  EXPECT_THROW(Catalog(info, {required_with_default}), std::logic_error);
  EXPECT_NO_THROW(Catalog(info, {entry("a"), entry("b")}));
}

TEST(Catalog, EditDistanceAndSuggestions) {
  EXPECT_EQ(edit_distance("dro", "dor"), 1u);  // a swap of neighbours
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("ecmp", "ecmp"), 0u);
  EXPECT_EQ(closest_name("dro", {"minimal", "dor", "ecmp"}), "dor");
  EXPECT_EQ(closest_name("fast", {"minimal", "dor", "ecmp"}), std::nullopt);
  EXPECT_EQ(closest_name("hallo2d", {"halo2d", "halo3d"}), "halo2d");  // ties: the first
}

TEST(Catalog, Synopsis) {
  EXPECT_EQ(entry_synopsis(*bakery().find("sponge")),
            "sponge:SIZES[,eggs=N][,sugar=X][,iced=true|false][,flour=wheat|spelt|rye][,label=TEXT]");
  EXPECT_EQ(entry_synopsis(*bakery().find("recipe")), "recipe:PATH,eggs=N");
  EXPECT_EQ(entry_synopsis(*bakery().find("souffle")), "souffle");
}

TEST(Catalog, RoffText) {
  EXPECT_EQ(roff_text("a-b `--out` x"), "a\\-b \\fB\\-\\-out\\fR x");
  EXPECT_EQ(roff_text(".x"), "\\&.x");  // not a request
  EXPECT_EQ(roff_text("'x"), "\\&'x");
  EXPECT_EQ(roff_text("a.b 'c'"), "a.b 'c'");  // only at the start of the line
  EXPECT_EQ(roff_text("C:\\x"), "C:\\ex");
  // Break points after commas and bars, before brackets (not a leading one).
  EXPECT_EQ(roff_text("[a]x,y[z]|w"), "[a]x,\\:y\\:[z]|\\:w");
  // U+00A7 (2 bytes), U+00D7 (2), U+2014 (3), U+1F600 (4), a stray byte.
  EXPECT_EQ(roff_text("\u00a73 \u00d7 \u2014 \U0001F600 \xff"), "\\[u00A7]3 \\[u00D7] \\[u2014] \\[u1F600] \\[uFFFD]");
  EXPECT_EQ(roff_text("`open"), "\\fBopen\\fR");  // an unclosed code span ends in roman
}

TEST(Catalog, ManSection) {
  const std::string man = render_man(bakery());
  EXPECT_TRUE(man.starts_with(".SH CAKES\nCakes.\n")) << man;
  // Every entry a tagged paragraph, its parameters in an indented list.
  EXPECT_EQ(test::count_of(man, ".TP\n\\fBsponge:SIZES\\:[,\\:eggs=N]"), 1u);
  EXPECT_NE(man.find(".TP\n\\fBsouffle\\fR\nneeds a hot oven\n.br\nApplies to: ovens at 200 or more.\n"),
            std::string::npos);
  EXPECT_NE(man.find(".TP\n\\fIflour\\fR\nchoice, default wheat, wheat,\\: spelt or rye: flour\n"), std::string::npos);
  EXPECT_NE(man.find(".TP\n\\fIPATH\\fR (bare)\npath, required, a file: the recipe\n"), std::string::npos);
  EXPECT_EQ(test::count_of(man, ".RS\n"), 2u);  // sponge's and recipe's parameters; souffle has none
  EXPECT_EQ(test::count_of(man, ".RE\n"), 2u);
}

// ---- The real catalogs ------------------------------------------------------------------------------------

TEST(Catalogs, MessagesNameOptionValueAndRemedy) {
  EXPECT_EQ(error_of([] { parse_routing_spec("dro"); }), "--routing 'dro': unknown routing 'dro'; did you mean 'dor'?");
  EXPECT_EQ(error_of([] { make_machine("torus:4x4,pnp=2"); }),
            "--machine 'torus:4x4,pnp=2': torus: unknown parameter 'pnp'; known: mesh, wrap, conc, ppn");
  EXPECT_EQ(error_of([] { parse_pattern_spec("halo2d:4x4,points=7"); }),
            "--pattern 'halo2d:4x4,points=7': halo2d: points must be 5 or 9, not 7");
  EXPECT_EQ(error_of([] { make_machine("dragonfly:p=2,a=4,h=2,wiring=palmtre"); }),
            "--machine 'dragonfly:p=2,a=4,h=2,wiring=palmtre': dragonfly: unknown wiring 'palmtre'; did you mean "
            "'palmtree'?");
  EXPECT_EQ(error_of([] { make_machine("dragonfly:p=2,a=4"); }),
            "--machine 'dragonfly:p=2,a=4': dragonfly: missing h=, e.g. dragonfly:p=2,a=4,h=2");
  EXPECT_EQ(error_of([] { parse_placement_format("slrum"); }),
            "--out-format 'slrum': unknown format 'slrum'; did you mean 'slurm'?");
  EXPECT_EQ(error_of([] { make_routing(make_machine("torus:4x4"), parse_routing_spec("valiant")); }),
            "--routing 'valiant' does not apply to torus machines (it routes through Dragonfly groups; use minimal, dor "
            "or ecmp)");
}

TEST(Catalogs, DefaultRoutingIsTheFirstThatApplies) {
  const std::string topo = test::instance("square.topo");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"torus:4x4", "minimal"},     {"mesh:4x4", "minimal"},          {"hypercube:d=3", "minimal"},
      {"rt:a=2", "minimal"},        {"rtt:a=2", "minimal"},           {"dragonfly:p=1,a=2,h=1", "minimal"},
      {"percs:ns=4,nd=8", "direct"}, {"fattree:k=2,n=2", "dmodk"},    {"graph:" + topo, "ecmp"}};
  for (const auto& [machine, routing] : cases) EXPECT_EQ(default_routing(make_machine(machine)).text, routing) << machine;
  EXPECT_EQ(routings_for(make_machine("torus:4x4")), (std::vector<std::string>{"minimal", "dor", "ecmp"}));
  EXPECT_EQ(routings_for(make_machine("dragonfly:p=1,a=2,h=1")),
            (std::vector<std::string>{"minimal", "valiant", "ugal", "ecmp"}));
  EXPECT_EQ(routings_for(make_machine("percs:ns=4,nd=8")), (std::vector<std::string>{"direct", "indirect", "ecmp"}));
  EXPECT_EQ(routings_for(make_machine("graph:" + topo)), (std::vector<std::string>{"ecmp"}));
}

TEST(Catalogs, DefaultsComeFromTheTable) {
  EXPECT_EQ(make_machine("percs:ns=32,nd=4").slots_per_node, 4u);
  EXPECT_EQ(make_machine("torus:4x4").slots_per_node, 1u);
  EXPECT_EQ(parse_pattern_spec("halo2d:4x4").points, 5u);
  EXPECT_EQ(parse_pattern_spec("halo3d:4x4x4").points, 7u);
  EXPECT_EQ(parse_routing_spec("dor").ties, TieRule::Split);
  EXPECT_EQ(parse_routing_spec("dor:BA,ties=simgrid").dimension_order, "BA");
  EXPECT_EQ(parse_machine_spec("rtt:a=4,c=3").nodes_per_router, 3u);
  EXPECT_EQ(parse_machine_spec("rtt:a=4,conc=2").nodes_per_router, 2u);
}

// The names every catalog must list (written out here, independently of the tables).
const std::vector<std::pair<std::string, std::vector<std::string>>>& expected_names() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> names = {
      {"machines", {"torus", "mesh", "hypercube", "rt", "rtt", "dragonfly", "percs", "fattree", "hier", "tgt", "graph",
                    "slurm", "ibnet", "aries"}},
      {"node-topologies", {"hwloc", "gpus"}},
      {"routings",
       {"minimal", "dor", "direct", "indirect", "valiant", "ugal", "dmodk", "tree", "ecmp", "updn", "lft", "opensm"}},
      {"patterns", {"halo2d", "halo3d", "transpose", "alltoall", "localmix", "npb-cg", "npb-bt", "npb-sp", "llm", "file"}},
      {"formats", {"plain", "scotch", "metis-part", "openmpi-rankfile", "hydra", "slurm", "slurm-map-cpu", "slurm-map-gpu", "srun",
                   "gpu-env", "cray-rank-order", "bgq-mapfile"}},
      // The 26 mappers; pipelines A+B+... make the 27th way to map.
      {"mappers", {"auto", "default", "hostname-order", "order", "random", "cyclic", "file", "percs-block", "percs-modcolor", "percs-transpose",
                   "rtt-map", "dragonfly-bsm", "dragonfly-bbac", "hilbert", "rubik-tiling", "blocks", "scotch", "ptscotch", "metis",
                   "greedy", "rb", "ml", "timer", "refine-hb", "refine-mcl", "refine-inject", "rahtm"}}};
  return names;
}

const Catalog& catalog_named(const std::string& plural) {
  // The catalogs `taskmap list` shows (src/cli/list_command.cpp).
  for (const Catalog* c : {&machine_catalog(), &node_topology_catalog(), &routing_catalog(), &pattern_catalog(),
                           &placement_format_catalog(), &mapper_catalog()}) {
    if (c->info().plural == plural) return *c;
  }
  throw std::logic_error("no catalog " + plural);
}

TEST(Catalogs, ListTheExpectedEntries) {
  for (const auto& [plural, names] : expected_names()) {
    std::vector<std::string> listed;
    for (const CatalogEntry& e : catalog_named(plural).entries()) listed.emplace_back(e.name);
    EXPECT_EQ(listed, names) << plural;
  }
}

TEST(Catalogs, ExamplesBuild) {
  for (const CatalogEntry& e : machine_catalog().entries()) {
    // Machines read from files: their examples name a site's files (tests/topology has real ones).
    if (e.name != "graph" && e.name != "tgt" && e.name != "slurm" && e.name != "ibnet" && e.name != "aries") {
      EXPECT_GT(make_machine(e.example).num_slots(), 0u) << e.example;
    }
  }
  for (const CatalogEntry& e : pattern_catalog().entries()) {
    if (e.name != "file") {
      EXPECT_GT(build_pattern(parse_pattern_spec(e.example)).num_tasks(), 0u) << e.example;
    }
  }
  for (const CatalogEntry& e : placement_format_catalog().entries()) {
    EXPECT_EQ(placement_format_name(parse_placement_format(std::string(e.example))), e.name);
  }
}

TEST(Catalogs, EveryEntryIsInTaskmapListAndHelp) {
  for (const auto& [plural, names] : expected_names()) {
    SCOPED_TRACE(plural);
    const auto table = test::run_taskmap("list " + plural);
    ASSERT_EQ(table.exit_code, 0) << table.err;
    const auto json = test::run_taskmap("list " + plural + " --format json");
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto entries = nlohmann::json::parse(json.out)["entries"];
    ASSERT_EQ(entries.size(), names.size());
    const auto help = test::run_taskmap(plural == "formats" ? "map --help" : "eval --help");
    ASSERT_EQ(help.exit_code, 0) << help.err;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string& name = names[i];
      const std::string synopsis = entry_synopsis(*catalog_named(plural).find(name));
      EXPECT_NE(("\n" + table.out).find("\n" + synopsis + "\n"), std::string::npos) << name;
      EXPECT_EQ(entries[i]["name"], name);
      EXPECT_NE(help.out.find(synopsis), std::string::npos) << name;
    }
  }
  // A JSON detail checked against the documented machine: PERCS has 4 slots per node.
  const auto machines = nlohmann::json::parse(test::run_taskmap("list machines --format json").out)["entries"];
  EXPECT_EQ(machines[6]["name"], "percs");
  EXPECT_EQ(machines[6]["params"][2]["name"], "ppn");
  EXPECT_EQ(machines[6]["params"][2]["default"], "4");
  const auto unknown = test::run_taskmap("list mapers");
  EXPECT_EQ(unknown.exit_code, 2);  // command-line misuse
  EXPECT_EQ(unknown.err, "taskmap: error: list 'mapers': unknown list; known: machines, node-topologies, routings, patterns, "
                         "mappers, formats (see taskmap --help)\n");
}

TEST(Docs, GeneratedCatalogDocsAreCurrent) {
  for (const auto& [plural, names] : expected_names()) {
    const std::string path = std::string(TASKMAP_SOURCE_DIR) + "/docs/" + plural + ".md";
    std::ifstream in(path);
    ASSERT_TRUE(in) << path << " is missing: run scripts/gen_docs.sh";
    std::stringstream text;
    text << in.rdbuf();
    const std::string rendered = render_markdown(catalog_named(plural));
    EXPECT_TRUE(text.str() == rendered) << "docs/" << plural << ".md is stale: regenerate it with scripts/gen_docs.sh "
                                        << "(taskmap list " << plural << " --format markdown)";
    for (const std::string& name : names) EXPECT_NE(rendered.find("\n## " + name + "\n"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace taskmap
