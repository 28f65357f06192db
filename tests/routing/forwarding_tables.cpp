// Forwarding tables (lft:): read as sites dump them, followed one path per LID, checked for
// what they fail to route. The hand-made fabric tests/instances/lft/two_leaves.topo has two
// leaves (h1, h2 under leaf1; h3, h4 under leaf2) and two spines; its tables
// one_spine_each.lft send everything leaf1 sends up through spine1 and everything leaf2 sends
// up through spine2.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <nlohmann/json.hpp>

#include "test_support.h"
#include "taskmap/core/text_source.h"
#include "taskmap/eval/incremental.h"
#include "taskmap/routing/forwarding_tables.h"

namespace taskmap {
namespace {

const std::string kFabric = "ibnet:" + test::instance("lft/two_leaves.topo");
const std::string kTables = test::instance("lft/one_spine_each.lft");

Machine two_leaves() { return build_machine(parse_machine_spec(kFabric)); }

const ib::Subnet& subnet_of(const Machine& m) { return *std::get<FabricShape>(m.shape).subnet; }

// The router a host name or a switch name is.
RouterId router(const Machine& m, const std::string& name) {
  for (NodeId n = 0; n < m.num_nodes(); ++n) {
    if (m.node_name(n) == name) return m.router_of_node(n);
  }
  const auto& shape = std::get<FabricShape>(m.shape);
  for (std::size_t s = 0; s < shape.switch_names.size(); ++s) {
    if (shape.switch_names[s] == name) return shape.first_switch + static_cast<RouterId>(s);
  }
  ADD_FAILURE() << "no router " << name;
  return 0;
}

// The path a unit flow takes, as "a>b" hops between router names.
std::vector<std::string> hops(const Machine& m, const Routing& r, const std::string& from, const std::string& to) {
  std::map<RouterId, std::string> names;
  for (NodeId n = 0; n < m.num_nodes(); ++n) names[m.router_of_node(n)] = m.node_name(n);
  const auto& shape = std::get<FabricShape>(m.shape);
  for (std::size_t s = 0; s < shape.switch_names.size(); ++s) names[shape.first_switch + static_cast<RouterId>(s)] = shape.switch_names[s];
  std::vector<std::string> out;
  for (const auto& [channel, load] : test::route_loads(r, router(m, from), router(m, to))) {
    EXPECT_DOUBLE_EQ(load, 1.0);
    out.push_back(names[m.channels[channel].src] + ">" + names[m.channels[channel].dst]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ForwardingTables, OneDumpGivesEachPairItsOnePath) {
  const Machine m = two_leaves();
  const auto routing = make_routing(m, parse_routing_spec("lft:" + kTables));
  // Up through the spine the source leaf's table names, down to the destination's port.
  EXPECT_EQ(hops(m, *routing, "h1", "h3"),
            (std::vector<std::string>{"h1>leaf1", "leaf1>spine1", "leaf2>h3", "spine1>leaf2"}));
  EXPECT_EQ(hops(m, *routing, "h4", "h2"),
            (std::vector<std::string>{"h4>leaf2", "leaf1>h2", "leaf2>spine2", "spine2>leaf1"}));
  EXPECT_EQ(hops(m, *routing, "h1", "h2"), (std::vector<std::string>{"h1>leaf1", "leaf1>h2"}));
}

// The permutation h1->h3, h2->h4, h3->h1, h4->h2, one unit each, in host order: under the tables
// both of a leaf's flows take the same uplink (load 2 on 4 of the 8 switch channels); ecmp splits
// them over both spines (load 1 on all 8).
TEST(ForwardingTables, EvalMeasuresTheTablesPaths) {
  const std::string args = "eval --format json --machine " + kFabric + " --pattern file:" +
                           test::instance("lft/pairs.txt") + " --mapper hostname-order --baseline none --routing ";
  const auto tables = test::run_taskmap(args + "lft:" + kTables);
  ASSERT_EQ(tables.exit_code, 0) << tables.err;
  const auto j = nlohmann::json::parse(tables.out);
  EXPECT_DOUBLE_EQ(j["mcl"].get<double>(), 2.0);
  const auto ecmp = test::run_taskmap(args + "ecmp");
  ASSERT_EQ(ecmp.exit_code, 0) << ecmp.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(ecmp.out)["mcl"].get<double>(), 1.0);
  const nlohmann::json& links = j.at("classes").at("link");  // the switch links (8 channels)
  EXPECT_EQ(links.at("channels"), 8);
  EXPECT_EQ(links.at("channels_used"), 4);
  EXPECT_DOUBLE_EQ(links.at("max_load").get<double>(), 2.0);
}

// The same tables as dump_fts (a directed route instead of the LID in the header), as OpenSM's
// opensm-lfts.dump ('#' before the destination, "N lids dumped" counting the table's size),
// split over the files of a folder, and packed in a tar.gz, read alike.
TEST(ForwardingTables, EveryFormOfDumpReadsAlike) {
  const Machine m = two_leaves();
  const ib::Subnet& subnet = subnet_of(m);
  const ForwardingTables expected = read_forwarding_tables(kTables, subnet, {});
  const std::string text = io::read_text_file(kTables);
  const std::string dir = test::temp_path("lft", "forms");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/folder");
  std::string fts = std::regex_replace(text, std::regex("of switch Lid [0-9]+ guid"), "of switch DR path slid 0; dlid 0; 0,1 guid");
  std::string opensm = std::regex_replace(text, std::regex(" : \\("), " # ");
  opensm = std::regex_replace(opensm, std::regex("8 valid lids dumped "), "14 lids dumped");
  opensm = std::regex_replace(opensm, std::regex("  Lid  Out   Destination\n       Port     Info \n"), "");
  std::ofstream(dir + "/fts.txt") << fts;
  std::ofstream(dir + "/opensm-lfts.dump") << opensm;
  const auto second = text.find("Unicast", 10);
  std::ofstream(dir + "/folder/a.txt") << text.substr(0, second);
  std::ofstream(dir + "/folder/b.txt") << text.substr(second);
  ASSERT_EQ(test::run_command("cd '" + dir + "' && tar czf tables.tar.gz folder").exit_code, 0);
  for (const std::string& path : std::vector<std::string>{dir + "/fts.txt", dir + "/opensm-lfts.dump", dir + "/folder", dir + "/tables.tar.gz"}) {
    SCOPED_TRACE(path);
    EXPECT_EQ(read_forwarding_tables(path, subnet, {}).port, expected.port);
  }
  std::filesystem::remove_all(dir);
}

// GUIDs above 2^63, as NVIDIA's (OUI 98:03:9b, b8:59:9f...) are: the same fabric and tables with
// every GUID's top byte set to 0x98 read and route alike.
TEST(ForwardingTables, GuidsAboveTwoToTheSixtyThreeMatch) {
  const std::string dir = test::temp_path("lft", "high-guids");
  std::filesystem::create_directories(dir);
  const std::regex low("(S-|H-|\\(|guid 0x|portguid 0x)00([0-9a-f]{14})");
  std::ofstream(dir + "/fabric.topo") << std::regex_replace(io::read_text_file(test::instance("lft/two_leaves.topo")), low, "$0198$2");
  std::ofstream(dir + "/tables.lft") << std::regex_replace(io::read_text_file(kTables), low, "$0198$2");
  const Machine m = build_machine(parse_machine_spec("ibnet:" + dir + "/fabric.topo"));
  EXPECT_EQ(subnet_of(m).nodes[0].guid >> 56, 0x98u);
  const auto routing = make_routing(m, parse_routing_spec("lft:" + dir + "/tables.lft"));
  EXPECT_EQ(hops(m, *routing, "h1", "h3"),
            (std::vector<std::string>{"h1>leaf1", "leaf1>spine1", "leaf2>h3", "spine1>leaf2"}));
  std::filesystem::remove_all(dir);
}

// Following every switch's table to every LID: the loop (spine1 sends LID 13 back to leaf1,
// which sends it up again) counts both switches on it; the dead port (leaf1 sends LID 14 to its
// port 5, which has no cable) counts leaf1. Every other (switch, LID) pair arrives.
TEST(ForwardingTables, LoopsAndDeadPortsAreCountedAndRefused) {
  const Machine m = two_leaves();
  const ib::Subnet& subnet = subnet_of(m);
  const TableDefects loop = check_forwarding_tables(subnet, read_forwarding_tables(test::instance("lft/loop.lft"), subnet, {}));
  EXPECT_EQ(loop.loop.count, 2u);
  EXPECT_EQ(loop.missing.count + loop.dead_port.count + loop.wrong_end.count, 0u);
  const TableDefects dead =
      check_forwarding_tables(subnet, read_forwarding_tables(test::instance("lft/dead_port.lft"), subnet, {}));
  EXPECT_EQ(dead.dead_port.count, 1u);
  EXPECT_NE(dead.dead_port.first.find("LID 14: port 5 has no cable"), std::string::npos) << dead.dead_port.first;
  EXPECT_FALSE(check_forwarding_tables(subnet, read_forwarding_tables(kTables, subnet, {})).any());

  // A flow that needs the loop is refused, naming the hosts; with unroutable=skip it carries
  // nothing and one warning counts the pairs left out.
  const auto refuse = make_routing(m, parse_routing_spec("lft:" + test::instance("lft/loop.lft")));
  std::vector<ChannelShare> shares;
  try {
    refuse->route(router(m, "h1"), router(m, "h3"), shares);
    ADD_FAILURE() << "the loop was routed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no route from h1 to h3: LID 13 loops"), std::string::npos) << e.what();
  }
  std::vector<std::string> warnings;
  {
    const auto skip = make_routing(m, parse_routing_spec("lft:" + test::instance("lft/loop.lft") + ",unroutable=skip"),
                                   [&](const std::string& w) { warnings.push_back(w); });
    EXPECT_TRUE(test::route_loads(*skip, router(m, "h1"), router(m, "h3")).empty());
    EXPECT_EQ(test::route_loads(*skip, router(m, "h3"), router(m, "h1")).size(), 4u);  // leaf2's tables are whole
  }
  ASSERT_EQ(warnings.size(), 2u);  // the defects when read, the pairs left out when the routing ends
  EXPECT_NE(warnings[1].find("1 host pairs have no route"), std::string::npos) << warnings[1];
}

// Mapping for the tables' routes: the tasks 0<->2 and 1<->3 (pairs.txt) placed in host order
// cross the fabric and share leaf1's uplink to spine1 (and leaf2's to spine2): 2 units on a
// switch link. Every host sends and receives 1 unit, so the MCL over all channels is 1 in every
// placement (the hosts' own links) and cannot tell placements apart; the switch links can: with
// each pair under one leaf no traffic reaches them. A search on the network's links finds that,
// and auto, whose ties go to the lower network MCL, keeps it.
TEST(ForwardingTables, MappersSeeTheTablesCollisions) {
  const Machine m = two_leaves();
  const CommGraph g = build_pattern(parse_pattern_spec("file:" + test::instance("lft/pairs.txt")));
  const MappingProblem problem(m, g, "lft:" + kTables);
  const Mapping start = test::run_mapper_on(problem, "hostname-order");
  const Evaluator evaluator(problem);
  const Metrics before = evaluator.evaluate(g, start);
  EXPECT_DOUBLE_EQ(before.mcl, 2.0);
  EXPECT_DOUBLE_EQ(before.mcl_network, 2.0);
  // The evaluator the refiners use, counting the network's links only, sees the same 2.
  EXPECT_DOUBLE_EQ(IncrementalEvaluator(problem, start, 1, IncrementalEvaluator::Track::Loads, nullptr,
                                        IncrementalEvaluator::Channels::Network)
                       .score()
                       .mcl,
                   2.0);
  for (const char* mapper : {"hostname-order+refine-mcl:links=network", "auto"}) {
    SCOPED_TRACE(mapper);
    const Metrics after = evaluator.evaluate(g, test::run_mapper_on(problem, mapper));
    EXPECT_DOUBLE_EQ(after.mcl_network, 0.0);
    EXPECT_DOUBLE_EQ(after.mcl, 1.0);
  }
}


// Whole nodes exchanged (refine-mcl's moves=routers): two slots per host, tasks 0 -> 4 and
// 2 -> 6 (node_pairs.txt) in host order sit on h1 -> h3 and h2 -> h4, both up through spine1:
// 2 units on leaf1's uplink and spine1's downlink. Exchanging the contents of h1 and h4 (or of
// h2 and h3) puts each pair under one leaf: no switch link carries anything, and the hosts'
// own links carry 1 unit each, as before. The search gets there moving whole hosts only: each
// host holds what one host held at the start.
TEST(ForwardingTables, WholeNodeExchangesKeepEachNodesTasks) {
  const Machine m = build_machine(parse_machine_spec(kFabric + ",ppn=2"));
  const CommGraph g = build_pattern(parse_pattern_spec("file:" + test::instance("lft/node_pairs.txt")));
  const MappingProblem problem(m, g, "lft:" + kTables);
  const Evaluator evaluator(problem);
  const Mapping start = test::run_mapper_on(problem, "hostname-order");
  EXPECT_DOUBLE_EQ(evaluator.evaluate(g, start).mcl_network, 2.0);
  auto tasks_by_node = [&](const Mapping& mapping) {
    std::map<NodeId, std::set<TaskId>> on;
    for (TaskId t = 0; t < g.num_tasks(); ++t) on[m.node_of_slot(mapping.slot_of_task[t])].insert(t);
    std::set<std::set<TaskId>> sets;
    for (auto& [node, tasks] : on) sets.insert(tasks);
    return sets;
  };
  const std::set<std::set<TaskId>> groups = {{0, 1}, {2, 3}, {4, 5}, {6}};
  ASSERT_EQ(tasks_by_node(start), groups);
  const Mapping after = test::run_mapper_on(problem, "hostname-order+refine-mcl:links=network,moves=routers");
  const Metrics metrics = evaluator.evaluate(g, after);
  EXPECT_DOUBLE_EQ(metrics.mcl_network, 0.0);
  EXPECT_DOUBLE_EQ(metrics.mcl, 1.0);
  EXPECT_EQ(tasks_by_node(after), groups);
}
// `routes` writes what lft: reads back, and names the tables it wrote.
TEST(ForwardingTables, RoutesWritesWhatLftReadsBack) {
  const std::string out = test::temp_path("lft", "written.lft");
  const auto r = test::run_taskmap("routes --machine " + kFabric + " --routing lft:" + kTables + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "wrote " + out + ": the tables of 4 switches, 32 entries (lft:" + kTables + ")\n");
  const Machine m = two_leaves();
  EXPECT_EQ(read_forwarding_tables(out, subnet_of(m), {}).port, read_forwarding_tables(kTables, subnet_of(m), {}).port);
  const auto model = test::run_taskmap("routes --machine " + kFabric + " --routing ecmp");
  EXPECT_EQ(model.exit_code, 1);
  EXPECT_EQ(model.err, "taskmap: error: --routing 'ecmp' is a flow model, not forwarding tables: give lft:FILE or "
                       "opensm:ENGINE\n");
  std::filesystem::remove(out);
}

// Entries counted in the dumps by a regular expression, independently of taskmap's reader.
std::size_t entries_in(const std::string& text) {
  static const std::regex entry("^0x[0-9a-f]{4} [0-9]{3} :", std::regex::multiline);
  return static_cast<std::size_t>(std::distance(std::sregex_iterator(text.begin(), text.end(), entry), std::sregex_iterator()));
}

// The three sites' own dumps, as they are: Avakas's 25 tables all end with ibroute's error line
// instead of their count (306 entries each); one of PlaFRIM2's 7 tables has no count line and
// prints LID 0x003f for its last 21 entries (one of them twice over), each naming its destination.
TEST(ForwardingTables, TheSitesDumpsAsTheyAre) {
  const std::string other = test::shared_data("topologies/other/"), ibnet = test::shared_data("topologies/ibnet/");
  TASKMAP_REQUIRE_SHARED_DATA(other);
  struct Site {
    std::string fabric, tables;
    std::size_t switches;
  };
  for (const Site& site : {Site{"hwloc-netloc_avakas_ib-subnet-fe80_0000_0000_0000.txt.gz", "avakas", 25},
                           Site{"hwloc-netloc_plafrim_ib-subnet-fe80_0000_0000_0000.txt", "plafrim", 9},
                           Site{"hwloc-netloc_plafrim2_ib-subnet-fe80_0000_0000_0000.txt", "plafrim2", 7}}) {
    SCOPED_TRACE(site.tables);
    const Machine m = build_machine(parse_machine_spec("ibnet:" + ibnet + site.fabric));
    const std::string path = other + "hwloc-netloc_" + site.tables + "_ibroutes-fe80_0000_0000_0000.tar.gz";
    std::vector<std::string> warnings;
    const ForwardingTables t = read_forwarding_tables(path, subnet_of(m), [&](const std::string& w) { warnings.push_back(w); });
    std::size_t tables = 0, entries = 0, printed = 0;
    for (std::size_t n = 0; n < t.port.size(); ++n) {
      tables += t.has_table(static_cast<std::uint32_t>(n));
      for (std::uint8_t p : t.port[n]) entries += p != ib::kNoPort;
    }
    for (const io::TextFile& f : io::read_text_files(path)) printed += entries_in(f.text);
    EXPECT_EQ(tables, site.switches);
    if (site.tables == "plafrim2") {
      EXPECT_EQ(printed - entries, 4u);  // 4 of the 21 lines printed under 0x003f repeat an entry already read
      ASSERT_EQ(warnings.size(), 2u);
      EXPECT_NE(warnings[0].find("1 tables end without their"), std::string::npos) << warnings[0];
      EXPECT_NE(warnings[1].find("21 entries repeat an earlier LID"), std::string::npos) << warnings[1];
    } else {
      EXPECT_EQ(entries, printed);
    }
    if (site.tables == "avakas") {
      EXPECT_EQ(entries, 25u * 306u);
      ASSERT_EQ(warnings.size(), 1u);
      EXPECT_NE(warnings[0].find("25 tables end with ibroute's error line"), std::string::npos) << warnings[0];
    }
  }
}

}  // namespace
}  // namespace taskmap
