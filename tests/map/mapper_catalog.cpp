// The mapper catalog: names, parameters and defaults from one table, messages that help, the
// applicability checks that let `compare` skip a mapper, and every spec the docs show parses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "taskmap/core/error.h"
#include "taskmap/launch/placement_catalog.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/map/mapper_support.h"
#include "taskmap/routing/routing_catalog.h"
#include "taskmap/topology/machine_catalog.h"
#include "taskmap/workload/generators.h"
#include "taskmap/workload/pattern_catalog.h"
#include "test_support.h"

namespace taskmap {
namespace {

std::string error_of(const std::string& spec) {
  try {
    parse_mapper_spec(spec);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MapperCatalog, MessagesSuggestAndListWhatIsKnown) {
  EXPECT_EQ(error_of("rahmt"), "--mapper 'rahmt': unknown mapper 'rahmt'; did you mean 'rahtm'?");
  EXPECT_EQ(error_of("rahtm:beem=2"),
            "--mapper 'rahtm:beem=2': rahtm: unknown parameter 'beem'; known: beam, search-nodes, milp-iterations, milp-seconds, leaf, threads, grid");
  EXPECT_EQ(error_of("default+hilbert"),
            "--mapper 'default+hilbert': 'hilbert' cannot start from another mapping (after '+' only timer, refine-hb, "
            "refine-mcl or refine-inject)");
  EXPECT_EQ(error_of("rtt-map:conc=x2"),
            "--mapper 'rtt-map:conc=x2': conc='x2': 'x' is not h, v or t (write e.g. conc=v2 or conc=h2t2)");
}

// A comma-separated list splits between mappers, not between one stage's parameters: a
// stage's later parameters may be followed by the next stages of its pipeline.
TEST(MapperCatalog, MapperListsSplitBetweenMappersNotBetweenParameters) {
  EXPECT_EQ(split_mapper_list({"hostname-order,rb:tries=16,split=leaves+refine-mcl:work=9,within=leaf,refine-hb"}),
            (std::vector<std::string>{"hostname-order", "rb:tries=16,split=leaves+refine-mcl:work=9,within=leaf",
                                      "refine-hb"}));
  EXPECT_EQ(split_mapper_list({"rb:tries=2", "default,refine-mcl:work=1,seed=2+refine-hb"}),
            (std::vector<std::string>{"rb:tries=2", "default", "refine-mcl:work=1,seed=2+refine-hb"}));
}

TEST(MapperCatalog, EveryDocumentedParameterIsAccepted) {
  // Parameters the docs documented but an older parser rejected, and a default from the table.
  EXPECT_EQ(error_of("rahtm:threads=2"), "");
  EXPECT_EQ(error_of("rahtm:threads=2,beam=8,milp-iterations=500,milp-seconds=0.2,leaf=greedy,grid=4x4"), "");
  EXPECT_EQ(parse_mapper_spec("rahtm").stages[0].get_int("beam"), 64);
  EXPECT_EQ(parse_mapper_spec("timer").stages[0].get_int("hierarchies"), 50);
  // The pipeline's stages keep their own options.
  const MapperSpec p = parse_mapper_spec("rb:tries=4+refine-mcl:regions=3");
  ASSERT_EQ(p.stages.size(), 2u);
  EXPECT_EQ(p.stages[0].get_int("tries"), 4);
  EXPECT_EQ(p.stages[1].get_int("regions"), 3);
}

TEST(MapperCatalog, ApplicabilityNamesTheReason) {
  const Machine torus = make_machine("torus:4x4");
  const CommGraph halo = make_halo2d(4, 4, 5, true), big = make_halo2d(8, 8, 5, true);
  const MappingProblem fits(torus, halo), crowded(torus, big);
  EXPECT_EQ(why_not_applicable(parse_mapper_spec("rahtm"), fits), "");
  EXPECT_EQ(why_not_applicable(parse_mapper_spec("dragonfly-bsm"), fits), "it needs a Dragonfly, not torus");
  EXPECT_EQ(why_not_applicable(parse_mapper_spec("rahtm"), crowded),
            "it places one task per slot, and the job has 64 tasks for 16 slots (several tasks per slot: auto, "
            "default, hostname-order, file, scotch, ptscotch, metis, greedy, rb, ml, timer, refine-hb, refine-mcl or "
            "refine-inject)");
  EXPECT_EQ(why_not_applicable(parse_mapper_spec("scotch+refine-mcl"), crowded), "");
  const Machine fat_tree = make_machine("fattree:k=4,n=2");
  const MappingProblem switches(fat_tree, halo);
  EXPECT_EQ(why_not_applicable(parse_mapper_spec("timer+refine-mcl"), switches),
            "timer: it places tasks on routers, and machine 'fattree:k=4,n=2' has routers without nodes (switches)");
  // The router-level mappers place tasks on the routers that hold slots, switches or not.
  EXPECT_EQ(why_not_applicable(parse_mapper_spec("scotch+refine-mcl"), switches), "");
  EXPECT_EQ(why_not_applicable(parse_mapper_spec("cyclic+refine-mcl"), switches), "");
  const Machine torus3 = make_machine("torus:3x3");
  const CommGraph nine = make_halo2d(3, 3, 5, true);
  EXPECT_NE(why_not_applicable(parse_mapper_spec("timer"), MappingProblem(torus3, nine)), "") << "odd rings";
}

// The mappers that the one-task-per-slot mappers' refusal names for jobs with more tasks than
// slots are exactly those whose check lets such a job through, and each of them places it
// within the balance: 16 tasks on torus:2x2 (refine-inject: 32 on the two-leaf fabric's 12
// slots), ceil(1.03 x 16 / 4) = 5 tasks per slot (3 on the fabric).
TEST(MapperCatalog, TheMappersNamedForSeveralTasksPerSlotPlaceSuchJobs) {
  const std::string list = detail::kSeveralTasksPerSlot;
  std::set<std::string> named;
  const std::regex word("[a-z-]+");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), word); it != std::sregex_iterator(); ++it) {
    if (it->str() != "or") named.insert(it->str());
  }
  const Machine torus = make_machine("torus:2x2");
  const CommGraph halo = make_halo2d(4, 4, 5, true);
  const MappingProblem crowded(torus, halo);
  ASSERT_EQ(crowded.tasks_per_slot(), 5u);
  const Machine fabric = make_machine("slurm:" + test::instance("cluster/two-leaves.conf") + ",ppn=2");
  const CommGraph halo32 = make_halo2d(4, 8, 5, true);
  const MappingProblem crowded_fabric(fabric, halo32);
  ASSERT_EQ(crowded_fabric.tasks_per_slot(), 3u);
  const std::string file = test::temp_path("several_per_slot", "placement.txt");
  {
    std::ofstream out(file);
    for (TaskId t = 0; t < 16; ++t) out << t << ' ' << t / 4 << '\n';
  }
  std::set<std::string> applying;
  for (const CatalogEntry& e : mapper_catalog().entries()) {
    const std::string name(e.name);
    const std::string spec = name == "file" ? "file:" + file : std::string(e.example);
    const MappingProblem& problem = name == "refine-inject" ? crowded_fabric : crowded;
    SCOPED_TRACE(spec);
    if (!why_not_applicable(parse_mapper_spec(spec), problem).empty()) continue;
    applying.insert(name);
    const Mapping m = test::run_mapper_on(problem, spec);
    EXPECT_EQ(test::error_message([&] {
                validate_mapping(m, problem.machine(), problem.graph().num_tasks(), spec, problem.tasks_per_slot());
              }),
              "no error");
  }
  std::filesystem::remove(file);
  EXPECT_EQ(applying, named);
  EXPECT_EQ(named.size(), 14u);
}

TEST(MapperCatalog, CompareSkipsWhatDoesNotApplyAndSaysWhy) {
  const auto r = test::run_taskmap(
      "compare --machine torus:4x4 --pattern halo2d:4x4 --mappers default,dragonfly-bsm,percs-modcolor,hilbert "
      "--format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = nlohmann::json::parse(r.out)["rows"];
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_TRUE(rows[0].contains("mcl"));
  EXPECT_EQ(rows[1]["skipped"], "it needs a Dragonfly, not torus");
  EXPECT_EQ(rows[2]["skipped"], "it needs a PERCS machine, not torus");
  EXPECT_FALSE(rows[1].contains("mcl"));
  EXPECT_TRUE(rows[3].contains("mcl"));
  const auto table = test::run_taskmap("compare --machine torus:4x4 --pattern halo2d:4x4 --mappers default,dragonfly-bsm");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("dragonfly-bsm  skipped: it needs a Dragonfly, not torus"), std::string::npos) << table.out;
  const auto none = test::run_taskmap("compare --machine torus:4x4 --pattern halo2d:4x4 --mappers dragonfly-bsm,percs-modcolor");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.err,
            "taskmap: error: compare: no mapper applies (dragonfly-bsm: it needs a Dragonfly, not torus; "
            "percs-modcolor: it needs a PERCS machine, not torus)\n");
}

// Parses `value` as a spec of the named kind; throws Error.
void parse_as(const std::string& kind, const std::string& value) {
  if (kind == "machine") machine_catalog().parse(value);
  if (kind == "pattern") pattern_catalog().parse(value);
  if (kind == "routing") routing_catalog().parse(value);
  if (kind == "out-format") placement_format_catalog().parse(value);
  if (kind == "mapper" || (kind == "baseline" && value != "none")) parse_mapper_spec(value);
  if (kind == "mappers") {
    for (const std::string& m : split_mapper_list({value})) parse_mapper_spec(m);
  }
}

// A placeholder (M, FILE, PxQ, npb-cg:N), a synopsis (a|b, [...]), a shell variable or a quoted
// message. Capitals are placeholders except where letters name dimensions (order:TEDCBA,
// dor:EDCBA, mesh=D, wrap=A).
bool is_placeholder(const std::string& value) {
  if (!std::regex_search(value, std::regex("[a-z]")) || value.find_first_of("$\"|[]'") != std::string::npos) return true;
  if (value.find("...") != std::string::npos || value.back() == ':') return true;
  const std::string without_letters = std::regex_replace(value, std::regex("(^order:|^dor:|mesh=|wrap=)[A-Z]+"), "");
  return std::regex_search(without_letters, std::regex("[A-Z]"));
}

std::vector<std::string> catalogs_knowing(const std::string& name) {
  std::vector<std::string> kinds;
  if (machine_catalog().find(name)) kinds.push_back("machine");
  if (pattern_catalog().find(name)) kinds.push_back("pattern");
  if (routing_catalog().find(name)) kinds.push_back("routing");
  if (mapper_catalog().find(name)) kinds.push_back("mapper");
  if (placement_format_catalog().find(name)) kinds.push_back("out-format");
  return kinds;
}

// Every spec the README and docs/ show, after --machine, --pattern, --routing, --mapper(s),
// --baseline or --out-format in a command, or as inline code naming a catalog entry
// (`scotch+timer`, `torus:4x4x4x8x2,mesh=D`), parses with its catalog.
TEST(MapperCatalog, EverySpecInTheDocsParses) {
  std::vector<std::filesystem::path> files = {std::filesystem::path(TASKMAP_SOURCE_DIR) / "README.md"};
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::filesystem::path(TASKMAP_SOURCE_DIR) / "docs")) {
    if (entry.path().extension() == ".md") files.push_back(entry.path());
  }
  const std::regex option(R"(--(machine|pattern|routing|mappers?|out-format|baseline)[ =]([^ `\n\\)]+))");
  const std::regex inline_code(R"(`([a-z][a-z0-9-]*(:[^` ]*)?(\+[^` ]*)?)`)");
  std::size_t commands = 0, inline_specs = 0;
  for (const auto& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (auto it = std::sregex_iterator(s.begin(), s.end(), option); it != std::sregex_iterator(); ++it) {
      const std::string kind = (*it)[1], value = (*it)[2];
      if (is_placeholder(value)) continue;
      SCOPED_TRACE(file.filename().string() + ": --" + kind + " " + value);
      try {
        parse_as(kind, value);
      } catch (const Error& e) {
        ADD_FAILURE() << e.what();
      }
      ++commands;
    }
    for (auto it = std::sregex_iterator(s.begin(), s.end(), inline_code); it != std::sregex_iterator(); ++it) {
      const std::string value = (*it)[1];
      const std::string head = value.substr(0, value.find_first_of(":+"));
      const std::vector<std::string> kinds = catalogs_knowing(head);
      // A bare name (`halo2d`) names an entry; a spec has parameters or stages.
      if (kinds.empty() || is_placeholder(value) || value.find_first_of(":+") == std::string::npos) continue;
      SCOPED_TRACE(file.filename().string() + ": `" + value + "`");
      std::string errors;
      for (const std::string& kind : kinds) {
        try {
          parse_as(kind, value);
          errors.clear();
          break;
        } catch (const Error& e) {
          errors += std::string(e.what()) + "; ";
        }
      }
      EXPECT_EQ(errors, "");
      ++inline_specs;
    }
  }
  EXPECT_GE(commands, 5u) << "the docs show example commands";
  EXPECT_GE(inline_specs, 50u) << "the docs name specs inline";
}

// Every reference key a catalog cites ("[RAHTM §III-D]", "[RAHTM]; RT/RTT [RTT-map]") has its
// full citation in docs/references.md.
TEST(MapperCatalog, EveryCitedKeyHasItsCitation) {
  std::ifstream in(std::filesystem::path(TASKMAP_SOURCE_DIR) / "docs" / "references.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::regex key(R"(\[([A-Za-z][A-Za-z-]*)[\] ])");
  std::size_t cited = 0;
  for (const Catalog* c : {&machine_catalog(), &routing_catalog(), &pattern_catalog(), &placement_format_catalog(),
                           &mapper_catalog()}) {
    for (const CatalogEntry& e : c->entries()) {
      const std::string ref(e.reference);
      for (auto it = std::sregex_iterator(ref.begin(), ref.end(), key); it != std::sregex_iterator(); ++it) {
        EXPECT_NE(text.str().find("**[" + (*it)[1].str() + "]**"), std::string::npos) << e.name << ": " << ref;
        ++cited;
      }
    }
  }
  EXPECT_GE(cited, 15u);
}

}  // namespace
}  // namespace taskmap
