// Same input, options and seed give the same mapping: every mapper of the catalog runs twice
// on small problems of each machine kind (those with a `threads` parameter also with 1 and 2
// threads) and the mappings and notes must be identical; refine-mcl and rahtm also through
// the command line, byte for byte.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "taskmap/core/error.h"
#include "taskmap/core/spec.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "test_support.h"

namespace taskmap {
namespace {

struct Job {
  std::string machine;
  std::string routing;  // "" for the machine's default
  std::string pattern;
};

// Small jobs on which each mapper of the catalog applies somewhere: tori (3D, and 5D for the
// letter orders and the Rubik tiling), a mesh under DOR (refine-mcl's split budget), PERCS,
// RTT, Dragonfly, a fat tree and a fabric with leaf switches read from a Slurm file.
const std::vector<Job>& jobs() {
  static const std::vector<Job> list = {
      {"torus:4x4x4", "", "npb-cg:64"},
      {"mesh:4x4x4", "dor", "npb-cg:64"},
      {"torus:4x2x2x2x2", "", "halo2d:8x8"},
      {"percs:ns=32,nd=4", "", "halo2d:32x64"},
      {"rtt:a=4,ppn=4", "", "halo2d:16x8"},
      {"dragonfly:p=4,a=6,h=3", "", "halo2d:12x12"},
      {"fattree:k=4,n=3", "", "halo2d:8x8"},
      {"slurm:" + test::instance("cluster/two-leaves.conf") + ",ppn=4", "", "halo2d:4x6"},
  };
  return list;
}

// Budgets made small to keep the test fast, and small enough that refine-mcl's search runs
// out of work in the middle of a phase, RAHTM's exact search out of nodes (so that CBC runs)
// and CBC out of iterations on the larger cubes.
const std::vector<std::pair<std::string, std::string>> kSmallBudgets = {
    {"work", "3"}, {"beam", "4"}, {"search-nodes", "300"}, {"milp-iterations", "200"}};

// Jobs larger than this run only the mappers no smaller job covered (percs-modcolor needs a
// 32x64 grid).
constexpr std::uint32_t kLargeJob = 1024;

bool has_param(const CatalogEntry& entry, std::string_view name) {
  for (const CatalogParam& p : entry.params)
    if (p.name == name) return true;
  return false;
}

// The entry's example with the pattern's own grid, the small budgets, and `extra` items
// (key=value) replacing the example's.
std::string spec_of(const CatalogEntry& entry, std::vector<std::pair<std::string, std::string>> extra) {
  for (const auto& [key, value] : kSmallBudgets)
    if (has_param(entry, key)) extra.emplace_back(key, value);
  const std::string example(entry.example);
  const std::size_t colon = example.find(':');
  std::vector<std::string> items;
  if (colon != std::string::npos) {
    for (std::string_view item : io::split_outside_quotes(std::string_view(example).substr(colon + 1), ',')) {
      const std::string key(item.substr(0, item.find('=')));
      const bool replaced = key == "grid" || std::any_of(extra.begin(), extra.end(), [&](const auto& e) {
                              return e.first == key && item.find('=') != std::string_view::npos;
                            });
      if (!replaced) items.emplace_back(item);
    }
  }
  for (const auto& [key, value] : extra) items.push_back(key + "=" + value);
  std::string spec(entry.name);
  for (std::size_t i = 0; i < items.size(); ++i) spec += (i == 0 ? ":" : ",") + items[i];
  return spec;
}

// Runs the spec on a fresh problem (no route cache shared with an earlier run).
Mapping run_fresh(const Job& job, const Machine& machine, const CommGraph& graph, const std::string& spec) {
  return make_mapper(parse_mapper_spec(spec))->run(MappingProblem(machine, graph, job.routing));
}

TEST(Determinism, EveryMapperGivesTheSameMappingTwiceAndOnAnyThreadCount) {
  std::set<std::string> covered;
  for (const Job& job : jobs()) {
    const Machine machine = make_machine(job.machine);
    const CommGraph graph = build_pattern(parse_pattern_spec(job.pattern));
    const MappingProblem problem(machine, graph, job.routing);
    for (const CatalogEntry& entry : mapper_catalog().entries()) {
      // A mapper that reads its placement from a file has nothing to vary.
      if (std::any_of(entry.params.begin(), entry.params.end(),
                      [](const CatalogParam& p) { return p.required && p.type == ParamType::Path; })) {
        covered.insert(std::string(entry.name));
        continue;
      }
      if (graph.num_tasks() > kLargeJob && covered.count(std::string(entry.name))) continue;
      const bool threaded = has_param(entry, "threads");
      const std::string spec = spec_of(entry, threaded ? std::vector<std::pair<std::string, std::string>>{{"threads", "1"}}
                                                       : std::vector<std::pair<std::string, std::string>>{});
      if (!why_not_applicable(parse_mapper_spec(spec), problem).empty()) continue;
      SCOPED_TRACE(fmt::format("{} on {} ({}) under {}", spec, job.machine, job.pattern,
                               job.routing.empty() ? "the default routing" : job.routing));
      Mapping first;
      try {
        first = run_fresh(job, machine, graph, spec);
      } catch (const Error&) {
        continue;  // refused for this job's grid or sizes: another job covers it
      }
      covered.insert(std::string(entry.name));
      const Mapping again = run_fresh(job, machine, graph, spec);
      EXPECT_EQ(again.slot_of_task, first.slot_of_task);
      EXPECT_EQ(again.note, first.note);
      if (threaded) {
        const Mapping two = run_fresh(job, machine, graph, spec_of(entry, {{"threads", "2"}}));
        EXPECT_EQ(two.slot_of_task, first.slot_of_task) << "threads=2";
        EXPECT_EQ(two.note, first.note) << "threads=2";
      }
    }
  }
  for (const CatalogEntry& entry : mapper_catalog().entries()) {
    EXPECT_TRUE(covered.count(std::string(entry.name)))
        << "mapper " << entry.name << " (example " << entry.example << ") applies to none of the jobs here: add one";
  }
}

TEST(Determinism, TheSpecsOfTheTestAreTheExamplesWithSmallBudgets) {
  const CatalogEntry* refine = mapper_catalog().find("refine-mcl");
  const CatalogEntry* rahtm = mapper_catalog().find("rahtm");
  ASSERT_TRUE(refine && rahtm);
  EXPECT_EQ(spec_of(*refine, {}), "refine-mcl:regions=50,work=3");
  EXPECT_EQ(spec_of(*rahtm, {{"threads", "1"}}), "rahtm:threads=1,beam=4,search-nodes=300,milp-iterations=200");
  EXPECT_EQ(spec_of(*mapper_catalog().find("rubik-tiling"), {}), "rubik-tiling");
  EXPECT_EQ(spec_of(*mapper_catalog().find("order"), {}), "order:TEDCBA");
}

// The command line writes the same bytes on every run: refine-mcl cut short by its work
// budget, and rahtm on 1 and 2 threads (its exact search cut short, so that CBC runs too).
TEST(Determinism, MapWritesTheSamePlacementBytesEveryRun) {
  const std::string job = "map --machine torus:4x4x4 --pattern npb-cg:64 --out -";
  for (const std::vector<std::string>& mappers :
       {std::vector<std::string>{"refine-mcl:work=3", "refine-mcl:work=3"},
        std::vector<std::string>{"rahtm:beam=8,search-nodes=300,milp-iterations=200,threads=1",
                                  "rahtm:beam=8,search-nodes=300,milp-iterations=200,threads=1",
                                  "rahtm:beam=8,search-nodes=300,milp-iterations=200,threads=2"}}) {
    std::vector<test::CommandResult> runs;
    for (const std::string& mapper : mappers) {
      runs.push_back(test::run_taskmap(job + " --mapper " + mapper));
      ASSERT_EQ(runs.back().exit_code, 0) << runs.back().err;
    }
    // The placement: a comment line, then "task slot" for each of the 64 tasks.
    std::istringstream lines(runs.front().out);
    int tasks = 0;
    for (std::string line; std::getline(lines, line);) tasks += !line.empty() && line[0] != '#';
    EXPECT_EQ(tasks, 64) << runs.front().out;
    for (std::size_t i = 1; i < runs.size(); ++i) EXPECT_EQ(runs[i].out, runs.front().out) << mappers[i];
  }
}

}  // namespace
}  // namespace taskmap
