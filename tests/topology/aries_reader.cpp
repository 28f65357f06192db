// read_aries_links on Cray's Aries port lists of Edison and Theta (counts from SOURCES.md), the
// xtdb2proc node table, hand-made port lists, and taskmap's plain Dragonfly format.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "taskmap/core/error.h"
#include "taskmap/topology/fabric.h"
#include "test_support.h"

namespace taskmap {
namespace {

std::string dragonfly_file(const std::string& name) { return test::shared_data("topologies/dragonfly/" + name); }
const std::string kEdison = dragonfly_file("codes_links-edison.txt.gz");
const std::string kTheta = dragonfly_file("codes_theta.interconnect.gz");
const std::string kNodes = dragonfly_file("pytokio_sample.xtdb2proc.gz");

struct Read {
  Fabric fabric;
  std::vector<std::string> warnings;
};

Read read(const std::string& links, const std::string& nodes = "") {
  Read r;
  r.fabric = read_aries_links(links, nodes, [&](const std::string& w) { r.warnings.push_back(w); });
  return r;
}

std::string error_of(const std::string& links, const std::string& nodes = "") {
  try {
    read(links, nodes);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::size_t cables_at(const Fabric& f, double gbps) {
  return static_cast<std::size_t>(
      std::count_if(f.cables.begin(), f.cables.end(), [&](const auto& c) { return c.gbps == gbps; }));
}

// The connected parts of the switches joined by the cables of rate `gbps`: size -> how many.
std::map<std::size_t, std::size_t> parts_joined_at(const Fabric& f, double gbps) {
  std::vector<std::uint32_t> parent(f.switches.size());
  std::iota(parent.begin(), parent.end(), 0u);
  auto root = [&](std::uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const auto& c : f.cables)
    if (c.gbps == gbps) parent[root(c.a)] = root(c.b);
  std::map<std::uint32_t, std::size_t> size;
  for (std::uint32_t s = 0; s < f.switches.size(); ++s) ++size[root(s)];
  std::map<std::size_t, std::size_t> parts;
  for (const auto& [r, n] : size) ++parts[n];
  return parts;
}

// The switch each host is on, by name.
std::map<std::string, std::string> switch_of_host(const Fabric& f) {
  std::map<std::string, std::string> out;
  for (const auto& p : f.host_ports) out[f.hosts[p.host]] = f.switches[p.sw];
  return out;
}

constexpr double kElectrical = 42.0;  // green and black: 3 lanes x 14 Gb/s
constexpr double kOptical = 37.5;     // blue: 3 lanes x 12.5 Gb/s

TEST(AriesReader, EdisonHas1440RoutersIn15GroupsAndItsCables) {
  TASKMAP_REQUIRE_SHARED_DATA(kEdison);
  const Read r = read(kEdison);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  const Fabric& f = r.fabric;
  EXPECT_EQ(f.switches.size(), 1440u);
  // SOURCES.md: 21600 green + 21600 black + 5040 blue port ends used; each cable has two ends.
  EXPECT_EQ(f.cables.size(), (21600u + 21600u + 5040u) / 2);
  EXPECT_EQ(cables_at(f, kElectrical), (21600u + 21600u) / 2);
  EXPECT_EQ(cables_at(f, kOptical), 5040u / 2);
  // Green and black cables stay inside a group: 15 groups of 96 routers (6 chassis x 16).
  EXPECT_EQ(parts_joined_at(f, kElectrical), (std::map<std::size_t, std::size_t>{{96, 15}}));
  // 4 nodes per router, one port each, on their router.
  EXPECT_TRUE(f.hosts_on_switches);
  EXPECT_EQ(f.hosts.size(), 5760u);
  ASSERT_EQ(f.host_ports.size(), 5760u);
  EXPECT_EQ(std::set<std::string>(f.hosts.begin(), f.hosts.end()).size(), 5760u);
  EXPECT_EQ(f.switches[0], "c0-0c0s0a0");
  EXPECT_EQ(f.hosts[0], "nid00000");
  EXPECT_EQ(f.hosts[3], "nid00003");
  EXPECT_EQ(f.host_ports[3].sw, 0u);
}

TEST(AriesReader, ThetaHas864RoutersIn9Groups) {
  TASKMAP_REQUIRE_SHARED_DATA(kTheta);
  const Read r = read(kTheta);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  EXPECT_EQ(r.fabric.switches.size(), 864u);
  // SOURCES.md: 12960 green + 12960 black + 3456 blue port ends used.
  EXPECT_EQ(cables_at(r.fabric, kElectrical), (12960u + 12960u) / 2);
  EXPECT_EQ(cables_at(r.fabric, kOptical), 3456u / 2);
  EXPECT_EQ(r.fabric.cables.size(), (12960u + 12960u + 3456u) / 2);
  EXPECT_EQ(parts_joined_at(r.fabric, kElectrical), (std::map<std::size_t, std::size_t>{{96, 9}}));
  EXPECT_EQ(r.fabric.hosts.size(), 3456u);
}

// The xtdb2proc sample is from a NERSC XC whose cabinets (c2-3, c3-3, c4-3, c3-1) are Edison's.
TEST(AriesReader, Xtdb2procNamesEdisonsComputeNodes) {
  TASKMAP_REQUIRE_SHARED_DATA(kEdison);
  const Read listed = read(kEdison, kNodes);
  EXPECT_TRUE(listed.warnings.empty()) << listed.warnings.front();
  // SOURCES.md: 499 records, 497 compute, 2 service (nid05445, nid05446: not hosts).
  EXPECT_EQ(listed.fabric.hosts.size(), 497u);
  EXPECT_EQ(listed.fabric.host_ports.size(), 497u);
  EXPECT_EQ(listed.fabric.switches.size(), 1440u);
  const auto listed_on = switch_of_host(listed.fabric);
  EXPECT_EQ(listed_on.count("nid05445"), 0u);
  EXPECT_EQ(listed_on.count("nid05446"), 0u);
  // zcat pytokio_sample.xtdb2proc.gz | grep processor_id=2261: cpu=1,slot=5,cage=2,cab_position=3,cab_row=1
  EXPECT_EQ(listed_on.at("nid02261"), "c3-1c2s5a0");
  EXPECT_EQ(listed_on.at("nid05000"), "c2-3c0s2a0");  // first record: cpu=0,slot=2,cage=0,cab_position=2,cab_row=3
  // Without the table, Cray's numbering gives every one of those nodes the same name and router.
  const auto numbered_on = switch_of_host(read(kEdison).fabric);
  for (const auto& [host, sw] : listed_on) EXPECT_EQ(numbered_on.at(host), sw) << host;
}

TEST(AriesReader, NodesOnRoutersTheLinksDoNotListAreSkippedWithOneWarning) {
  TASKMAP_REQUIRE_SHARED_DATA(kTheta);
  // Of the 497 compute nodes only nid02261 (c3-1) is in one of Theta's cabinets.
  const Read r = read(kTheta, kNodes);
  ASSERT_EQ(r.fabric.hosts, std::vector<std::string>{"nid02261"});
  EXPECT_EQ(r.fabric.switches[r.fabric.host_ports[0].sw], "c3-1c2s5a0");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].find(kNodes + ": 496 compute nodes are on routers " + kTheta +
                               " does not list (skipped), e.g. nid05000 on c2-3c0s2a0 (line 8)"),
            0u)
      << r.warnings[0];
}

// two-groups.links: routers c0-0c0s0, c0-0c0s1 (group 0) and c1-0c0s0, c1-0c0s1 (group 1);
// cables: green c0s0-c0s1 (both ends), 2 parallel blue c0-0c0s0-c1-0c0s0 (both ends), green
// c1-0c0s0-c1-0c0s1 (only from c1-0c0s0); c1-0c0s1 lists no port, so it has no processor tile.
TEST(AriesReader, HandMadePortListCountsEachCableOnce) {
  const std::string links = test::instance("aries/two-groups.links");
  const Read r = read(links);
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"c0-0c0s0a0", "c0-0c0s1a0", "c1-0c0s0a0", "c1-0c0s1a0"}));
  ASSERT_EQ(r.fabric.cables.size(), 4u);
  EXPECT_EQ(cables_at(r.fabric, kOptical), 2u);
  EXPECT_EQ(cables_at(r.fabric, kElectrical), 2u);
  // Cabinets c0-0 and c1-0: a grid 2 cabinets wide; c1-0c0s0's first node is ((1 * 3 + 0) * 16 + 0) * 4 = 192.
  EXPECT_EQ(r.fabric.hosts, (std::vector<std::string>{"nid00000", "nid00001", "nid00002", "nid00003", "nid00004",
                                                      "nid00005", "nid00006", "nid00007", "nid00192", "nid00193",
                                                      "nid00194", "nid00195"}));
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.warnings[0], links + ": 1 links are listed from one end only (counted as cables), e.g. "
                                   "c1-0c0s0a0l00 -> c1-0c0s1a0l00 (line 25)");
  EXPECT_EQ(r.warnings[1], links + ": 1 routers do not have 8 processor tiles (4 nodes; none without tiles), "
                                   "e.g. c1-0c0s1a0 has 0");
}

TEST(AriesReader, BadLinesGiveTheirFileAndLine) {
  const auto bad = [](const std::string& name) { return test::instance("aries/" + name); };
  EXPECT_EQ(error_of(bad("bad-colour.links")),
            bad("bad-colour.links") + ":2: unknown colour 'red' (expected green, black, blue or ptile)");
  EXPECT_EQ(error_of(bad("bad-port.links")),
            bad("bad-port.links") + ":2: 'c0-0c0s0a0l00' is not an Aries port like c0-0c0s0a0l00(0:0:0)");
  EXPECT_EQ(error_of(bad("twice.links")),
            bad("twice.links") + ":3: port c0-0c0s0a0l00(0:0:0) is listed twice (first on line 1)");
  EXPECT_EQ(error_of(bad("moved.links")),
            bad("moved.links") + ":2: router c0-0c0s1a0 is at (0:0:2) here but at (0:0:1) on line 1");
  EXPECT_EQ(error_of(bad("crossed.links")),
            bad("crossed.links") + ":1: port c0-0c0s0a0l00 leads to c0-0c0s1a0l00, but c0-0c0s1a0l00 leads to "
                                   "c0-0c0s2a0l00 (line 2)");
  const std::string links = bad("two-groups.links");
  EXPECT_EQ(error_of(links, bad("twice.xtdb2proc")),
            bad("twice.xtdb2proc") + ":3: nid 5000 is listed twice (first at line 2)");
  EXPECT_EQ(error_of(links, bad("no-row.xtdb2proc")),
            bad("no-row.xtdb2proc") + ":1: the record has no 'cab_row' field");
  EXPECT_EQ(error_of(links, bad("bad-cpu.xtdb2proc")),
            bad("bad-cpu.xtdb2proc") + ":1: cpu=4 is not a number in [0, 4)");
  // The sample's nodes are in cabinets c2-3 ... c4-3, none in two-groups.links' c0-0 and c1-0.
  if (std::filesystem::exists(kNodes)) {
    EXPECT_EQ(error_of(links, kNodes),
              kNodes + ": none of its 497 compute nodes is on a router of " + links + " (nodes of another machine?)");
  }
}

// small.dragonfly: groups g0 = {a0, a1}, g1 = {b0, b1}; 5 cables (a1-b1 twice); 2+2+2+1 nodes.
TEST(DragonflyFile, PlainFormatGivesRoutersCablesAndNodes) {
  const std::string path = test::instance("aries/small.dragonfly");
  const Read r = read(path);  // read_aries_links recognises the format
  const Fabric& f = r.fabric;
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(f.switches, (std::vector<std::string>{"a0", "a1", "b0", "b1"}));
  ASSERT_EQ(f.cables.size(), 5u);
  const std::vector<std::tuple<std::uint32_t, std::uint32_t, double>> cables = {
      {0, 1, 100.0}, {2, 3, 0.0}, {0, 2, 50.0}, {1, 3, 50.0}, {1, 3, 0.0}};
  for (std::size_t i = 0; i < cables.size(); ++i) {
    EXPECT_EQ(std::make_tuple(f.cables[i].a, f.cables[i].b, f.cables[i].gbps), cables[i]) << i;
  }
  EXPECT_EQ(f.hosts, (std::vector<std::string>{"a0n0", "a0n1", "a1n0", "a1n1", "b0n0", "b0n1", "b1n0"}));
  ASSERT_EQ(f.host_ports.size(), 7u);
  EXPECT_EQ(f.host_ports[6].sw, 3u);
  EXPECT_EQ(f.host_ports[6].host, 6u);
  EXPECT_TRUE(f.hosts_on_switches);
  EXPECT_EQ(f.switch_group, (std::vector<std::uint32_t>{0, 0, 1, 1}));  // g0, g1 in order of appearance
  EXPECT_TRUE(f.rates_in_gbps);
  // The most common known rate, 50 Gb/s (twice), is bandwidth 1: 50e9 / 8 bytes/s.
  const Machine m = build_fabric_machine(f, FabricOptions{});
  EXPECT_DOUBLE_EQ(m.link_bytes_per_s, 6.25e9);
  EXPECT_EQ(std::get<FabricShape>(m.shape).dragonfly.group_of, f.switch_group);
  EXPECT_EQ(read_dragonfly_file(path, [](const std::string&) {}).cables.size(), 5u);
  EXPECT_EQ(error_of(path, kNodes).find(path + ": a Dragonfly file in taskmap's format names its own nodes"), 0u);
}

// Rates that differ past the sixth digit still make link classes of their own, each named
// by its rate in full.
TEST(DragonflyFile, RatesThatPrintAlikeGetClassesOfTheirOwn) {
  const std::string path = test::instance("aries/close-rates.dragonfly");
  const Machine m = build_fabric_machine(read_dragonfly_file(path, [](const std::string&) {}), FabricOptions{});
  std::set<std::string> names;
  for (const auto& c : m.classes) names.insert(c.name);
  EXPECT_EQ(names.size(), m.classes.size());
  EXPECT_TRUE(names.count("link-100.0000001G")) << *names.begin();
  EXPECT_TRUE(names.count("link-100.0000002G"));
  EXPECT_TRUE(names.count("link-100G"));
}

TEST(DragonflyFile, BadLinesGiveTheirFileAndLine) {
  const auto bad = [](const std::string& name) { return test::instance("aries/" + name); };
  EXPECT_EQ(error_of(bad("bad-local.dragonfly")),
            bad("bad-local.dragonfly") + ":3: a local link between routers of groups 'g0' and 'g1'");
  EXPECT_EQ(error_of(bad("bad-router.dragonfly")),
            bad("bad-router.dragonfly") + ":3: unknown router 'a2' (declare it with 'router a2 GROUP' first)");
  EXPECT_EQ(error_of(bad("bad-count.dragonfly")),
            bad("bad-count.dragonfly") + ":2: 'many' is not a node count (1 or more)");
  EXPECT_EQ(error_of(bad("bad-keyword.dragonfly")),
            bad("bad-keyword.dragonfly") + ":3: unknown line 'switch' (expected router, link or nodes)");
  EXPECT_EQ(error_of(bad("bad-rate.dragonfly")), bad("bad-rate.dragonfly") + ":3: '0' is not a positive rate in Gb/s");
  // A count of 10^11 is refused before anything is allocated for it.
  EXPECT_EQ(error_of(bad("huge-count.dragonfly")), bad("huge-count.dragonfly") + ":2: more than 4194304 nodes");
}

}  // namespace
}  // namespace taskmap
