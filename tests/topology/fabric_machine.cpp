// Fabric -> Machine, allocations and the job's slots, on fabrics small enough to derive every
// number by hand.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "taskmap/core/error.h"
#include "taskmap/eval/evaluator.h"
#include "taskmap/topology/allocation.h"
#include "taskmap/topology/fabric.h"
#include "test_support.h"

namespace taskmap {
namespace {

// Leaves s0 (hosts a, b) and s1 (host c, cabled twice: two rails) under spine s2; s0-s2 has two
// parallel 200G cables, s1-s2 one 100G cable; hosts have 100G ports.
Fabric two_leaves() {
  Fabric f;
  f.source = "two-leaves";
  f.switches = {"s0", "s1", "s2"};
  f.hosts = {"a", "b", "c"};
  f.host_ports = {{0, 0, 100}, {1, 0, 100}, {2, 1, 100}, {2, 1, 100}};
  f.cables = {{0, 2, 200}, {0, 2, 200}, {1, 2, 100}};
  return f;
}

TEST(FabricMachine, RoutersChannelsAndClassesFromTheCables) {
  Fabric f = two_leaves();
  f.rates_in_gbps = true;  // as ibnetdiscover's; a Slurm file's LinkSpeed has the site's units
  const Machine m = build_fabric_machine(f, {.slots_per_node = 4, .description = "two"});
  EXPECT_EQ(m.num_routers, 6u);  // 3 hosts' own routers, then 3 switches
  EXPECT_EQ(m.channels.size(), 2u * 4 + 2u * 3);
  EXPECT_EQ(m.num_nodes(), 3u);
  EXPECT_EQ(m.num_slots(), 12u);
  EXPECT_EQ(m.node_name(2), "c");
  EXPECT_EQ(m.router_of_slot(9), 2u);
  EXPECT_EQ(m.slots_of_router(4), 0u);  // a switch
  // The most common switch-to-switch rate (200G, twice) is bandwidth 1.
  std::map<std::string, std::pair<double, bool>> classes;
  for (const LinkClass& c : m.classes) classes[c.name] = {c.bandwidth, c.host_link};
  EXPECT_EQ(classes["link-200G"], std::make_pair(1.0, false));
  EXPECT_EQ(classes["link-100G"], std::make_pair(0.5, false));
  EXPECT_EQ(classes["inject"], std::make_pair(0.5, true));
  EXPECT_EQ(classes["eject"], std::make_pair(0.5, true));
}

// A class is named by its rate at 6 significant digits (4xFDR's 4 x 14.0625 x 64/66 Gb/s is
// 54.5454...), unless two rates of one kind print alike so: then each as it reads back.
TEST(FabricMachine, ClassNamesGiveRatesAtSixDigitsWhileThatKeepsThemApart) {
  Fabric f = two_leaves();
  f.rates_in_gbps = true;
  f.cables[2].gbps = 4 * 14.0625 * 64 / 66;
  f.host_ports[0].gbps = 100.0000001;
  auto names = [](const Machine& m) {
    std::set<std::string> out;
    for (const LinkClass& c : m.classes) out.insert(c.name);
    return out;
  };
  EXPECT_EQ(names(build_fabric_machine(f, {})),
            (std::set<std::string>{"link-200G", "link-54.5455G", "inject-100G", "inject-100.0000001G", "eject-100G",
                                   "eject-100.0000001G"}));
}

TEST(FabricMachine, CablesOfUnknownRateGetTheReferenceBandwidthInAClassNamedSo) {
  Fabric f = two_leaves();
  f.cables[2].gbps = 0;  // s1-s2: a rate the file did not give
  const Machine m = build_fabric_machine(f, {});
  std::map<std::string, double> bandwidth;
  for (const LinkClass& c : m.classes) bandwidth[c.name] = c.bandwidth;
  // The rates in the file's own units (a Slurm LinkSpeed): no "G"
  EXPECT_EQ(bandwidth, (std::map<std::string, double>{
                           {"link-200", 1.0}, {"link-rate-unknown", 1.0}, {"inject", 0.5}, {"eject", 0.5}}));
}

// Bandwidths are relative to the most common cable rate; in bytes/s only where the rates are
// data rates in Gb/s (ibnetdiscover, Aries), not a Slurm file's LinkSpeed in the site's units.
TEST(FabricMachine, LinkRatesInBytesPerSecondWhereTheFileGivesGbps) {
  Fabric f = two_leaves();
  EXPECT_EQ(build_fabric_machine(f, {}).link_bytes_per_s, 0.0);
  f.rates_in_gbps = true;
  EXPECT_DOUBLE_EQ(build_fabric_machine(f, {}).link_bytes_per_s, 200e9 / 8);  // 200G, twice
  for (auto& c : f.cables) c.gbps = 0;
  for (auto& p : f.host_ports) p.gbps = 0;
  EXPECT_EQ(build_fabric_machine(f, {}).link_bytes_per_s, 0.0);  // no rate known
  // PERCS's bandwidths are in GB/s [PERCS-map §2].
  EXPECT_DOUBLE_EQ(make_machine("percs:ns=16,nd=2").link_bytes_per_s, 1e9);
  EXPECT_EQ(make_machine("torus:4x4").link_bytes_per_s, 0.0);
}

TEST(FabricMachine, OneFlowAcrossTheSpine) {
  const Machine m = build_fabric_machine(two_leaves(), {.slots_per_node = 1, .description = "two"});
  CommGraph g = CommGraph::from_edges(3, {{0, 2, 1.0}});
  const MappingProblem problem(m, g);
  EXPECT_EQ(problem.routing_name(), "ecmp");
  const Metrics x = Evaluator(problem).evaluate(g, Mapping{{0, 1, 2}, {}});
  // a -> s0 -> s2 -> s1 -> c: 4 hops. a's port carries 1 over 0.5; s2 -> s1 carries 1 over 0.5;
  // each of the parallel s0 -> s2 cables 0.5 over 1; each of c's two rails 0.5 over 0.5.
  EXPECT_DOUBLE_EQ(x.hop_bytes, 4.0);
  EXPECT_DOUBLE_EQ(x.mcl, 2.0);
  EXPECT_DOUBLE_EQ(x.mcl_network, 2.0);
  EXPECT_DOUBLE_EQ(x.leaf_uplink_volume, 1.0);  // 0.5 + 0.5 up from s0; nothing up from s1
}

TEST(FabricMachine, TheNicIsTheBottleneckWhenItIsSlowest) {
  Fabric f = two_leaves();
  f.cables = {{0, 2, 100}, {1, 2, 100}};
  f.host_ports = {{0, 0, 25}, {1, 0, 100}, {2, 1, 100}};
  f.rates_in_gbps = true;
  const Machine m = build_fabric_machine(f, {.description = "nic"});
  CommGraph g = CommGraph::from_edges(3, {{0, 2, 1.0}});
  const MappingProblem problem(m, g);
  const Metrics x = Evaluator(problem).evaluate(g, Mapping{{0, 1, 2}, {}});
  EXPECT_DOUBLE_EQ(x.mcl, 4.0);          // a's 25G port: 1 / 0.25
  EXPECT_DOUBLE_EQ(x.mcl_network, 1.0);  // the 100G switch links
  EXPECT_EQ(x.bottleneck_class, std::vector<std::string>{"inject-25G"});
}

TEST(FabricMachine, RefusesWhatHasNoMeaning) {
  Fabric f = two_leaves();
  f.host_ports.pop_back();
  f.host_ports.pop_back();  // c has no port left
  EXPECT_THROW(
      {
        try {
          build_fabric_machine(f, {});
        } catch (const Error& e) {
          EXPECT_STREQ(e.what(), "two-leaves: host 'c' is cabled to no switch");
          throw;
        }
      },
      Error);
  f = two_leaves();
  f.cables.pop_back();  // s1 and its host c are cut off
  try {
    build_fabric_machine(f, {});
    FAIL() << "a fabric in two pieces was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "two-leaves: the fabric is not connected: host 'c' cannot reach switch 's0' (taskmap routes over one "
                 "connected fabric; give each part as a machine of its own)");
  }
}

TEST(FabricMachine, TopSwitchesAreDeclaredOrFarthestFromTheLeaves) {
  const Machine m = build_fabric_machine(two_leaves(), {});
  EXPECT_EQ(std::get<FabricShape>(m.shape).top_switches, std::vector<RouterId>{5});  // s2
  Fabric f = two_leaves();
  f.top_switches = {0};
  EXPECT_EQ(std::get<FabricShape>(build_fabric_machine(f, {}).shape).top_switches, std::vector<RouterId>{3});
}

// Three levels: leaves l0, l1 under spines p0, q0; l2, l3 under p1, q1; the four spines under
// s0 and s1; two hosts per leaf (half their ports) and a login host on p0 (a fifth of its).
// Counted up from every switch with hosts, s0 and s1 (one above p0) would share the top level
// with q0, p1 and q1 (one above a leaf); p0 is above leaves that have another spine (q0) and
// share no neighbour with it, so it is no leaf.
TEST(FabricMachine, AHostOnASpineLeavesTheTopAtTheTop) {
  Fabric f;
  f.source = "three-levels";
  f.switches = {"l0", "l1", "l2", "l3", "p0", "q0", "p1", "q1", "s0", "s1"};
  f.hosts = {"cn0", "cn1", "cn2", "cn3", "cn4", "cn5", "cn6", "cn7", "login"};
  for (std::uint32_t h = 0; h < 8; ++h) f.host_ports.push_back({h, h / 2, 100});  // two per leaf
  f.host_ports.push_back({8, 4, 100});  // login on p0
  for (std::uint32_t leaf = 0; leaf < 4; ++leaf) {
    const std::uint32_t spine = leaf < 2 ? 4 : 6;
    f.cables.push_back({leaf, spine, 100});
    f.cables.push_back({leaf, spine + 1, 100});
  }
  for (std::uint32_t spine = 4; spine < 8; ++spine) {
    f.cables.push_back({spine, 8, 100});
    f.cables.push_back({spine, 9, 100});
  }
  const Machine m = build_fabric_machine(f, {});
  const RouterId first_switch = 9;  // after the 9 hosts' own routers
  EXPECT_EQ(std::get<FabricShape>(m.shape).top_switches,
            (std::vector<RouterId>{first_switch + 8, first_switch + 9}));
}

// Leaves A (4 hosts) and B (1 host) under spines S1 and S2, and a cable A-B: B's share of host
// ports (1 of 4) is less than half A's (4 of 7), but B shares A's spines: a peer, still a leaf
// (else B would sit a level up, beside the spines, at the top).
TEST(FabricMachine, LeavesCabledToEachOtherStayLeaves) {
  Fabric f;
  f.source = "paired";
  f.switches = {"A", "B", "S1", "S2"};
  f.hosts = {"a1", "a2", "a3", "a4", "b1"};
  f.host_ports = {{0, 0, 100}, {1, 0, 100}, {2, 0, 100}, {3, 0, 100}, {4, 1, 100}};
  f.cables = {{0, 2, 100}, {0, 3, 100}, {1, 2, 100}, {1, 3, 100}, {0, 1, 100}};
  const Machine m = build_fabric_machine(f, {});
  EXPECT_EQ(std::get<FabricShape>(m.shape).top_switches, (std::vector<RouterId>{5 + 2, 5 + 3}));
  // A small switch C with 5 hosts cabled below leaf L alone (1 host, under S1 and S2 beside A):
  // C's share (5 of 6) is more than twice L's (1 of 4), yet L is no spine: C has no other switch.
  Fabric c;
  c.source = "cascade";
  c.switches = {"A", "L", "S1", "S2", "C"};
  c.hosts = {"a1", "a2", "a3", "a4", "l1", "c1", "c2", "c3", "c4", "c5"};
  for (std::uint32_t h = 0; h < 10; ++h) c.host_ports.push_back({h, h < 4 ? 0u : h == 4 ? 1u : 4u, 100});
  c.cables = {{0, 2, 100}, {0, 3, 100}, {1, 2, 100}, {1, 3, 100}, {1, 4, 100}};
  const Machine cascade = build_fabric_machine(c, {});
  EXPECT_EQ(std::get<FabricShape>(cascade.shape).top_switches, (std::vector<RouterId>{10 + 2, 10 + 3}));
}

// A Dragonfly-like fabric, nodes on the routers, 4, 4, 4 and 1 of them: every router is a root.
TEST(FabricMachine, ADirectNetworkHasEveryRouterAtTheTop) {
  Fabric f;
  f.source = "dragonfly-like";
  f.switches = {"r0", "r1", "r2", "r3"};
  for (std::uint32_t h = 0; h < 13; ++h) {
    f.hosts.push_back(fmt::format("n{}", h));
    f.host_ports.push_back({h, h / 4, 0});
  }
  f.cables = {{0, 1, 0}, {0, 1, 0}, {1, 2, 0}, {1, 2, 0}, {2, 3, 0}, {2, 3, 0}, {3, 0, 0}, {3, 0, 0}};
  f.hosts_on_switches = true;
  const Machine m = build_fabric_machine(f, {});
  EXPECT_EQ(std::get<FabricShape>(m.shape).top_switches, (std::vector<RouterId>{0, 1, 2, 3}));
}

TEST(FabricMachine, HostsOnSwitchRoutersHaveNoInjectionChannels) {
  Fabric f;
  f.source = "aries-like";
  f.switches = {"r0", "r1"};
  f.hosts = {"n2", "n0", "n1"};
  f.host_ports = {{0, 1, 0}, {1, 0, 0}, {2, 0, 0}};
  f.cables = {{0, 1, 0}};
  f.hosts_on_switches = true;
  const Machine m = build_fabric_machine(f, {.slots_per_node = 2, .description = "aries-like"});
  EXPECT_EQ(m.num_routers, 2u);
  EXPECT_EQ(m.channels.size(), 2u);
  // Nodes in router order: n0 and n1 on r0, then n2 on r1.
  EXPECT_EQ(m.node_name(0), "n0");
  EXPECT_EQ(m.node_name(2), "n2");
  EXPECT_EQ(m.slots_of_router(0), 4u);
  EXPECT_EQ(m.first_slot_of_router(1), 4u);
}


TEST(Allocation, OnlyTheAllocatedNodesHaveSlots) {
  const Machine m = allocate(test::four_named_nodes(4), parse_nodes_argument("cn01,cn2,gpu1"));
  EXPECT_EQ(m.num_slots(), 12u);
  EXPECT_EQ(m.slots_of_node(0), 0u);  // cn10 is not in the job
  EXPECT_EQ(m.first_slot_of_node(1), 0u);
  EXPECT_EQ(m.node_of_slot(5), 2u);  // cn01
  EXPECT_EQ(m.num_routers, 7u);      // the whole fabric stays
}

TEST(Allocation, HostFilesGiveCounts) {
  const std::string path = testing::TempDir() + "hosts, run=1.txt";
  std::ofstream(path) << "# Open MPI, Hydra and PBS forms\ncn10 slots=2\ncn2:3\ngpu1\ngpu1\n";
  const Machine m = allocate(test::four_named_nodes(4), parse_nodes_argument("@" + path));
  EXPECT_EQ(m.slots_of_node(0), 2u);
  EXPECT_EQ(m.slots_of_node(1), 3u);
  EXPECT_EQ(m.slots_of_node(2), 0u);
  EXPECT_EQ(m.slots_of_node(3), 2u);  // listed twice: two slots
}

TEST(Allocation, OpenMpiHostfileKeysAndPerSlotLists) {
  const std::string path = testing::TempDir() + "ompi_hosts.txt";
  std::ofstream(path) << "cn10 max_slots=2   # max_slots alone is the count\ncn2 cpu = 3\ngpu1 count=1 foo=bar\n";
  const Allocation a = parse_nodes_argument("@" + path);
  EXPECT_EQ(a.hosts, (std::vector<std::string>{"cn10", "cn2", "gpu1"}));
  EXPECT_EQ(a.slots, (std::vector<std::uint32_t>{2, 3, 1}));
  EXPECT_EQ(a.warnings, std::vector<std::string>{"1 hostfile keys not known here ignored, first " + path + ":3: 'foo='"});
  // A host named twice makes the list one of slots: cn2, named once, is then one slot too.
  EXPECT_EQ(parse_nodes_argument("cn01,cn01,cn2").slots, (std::vector<std::uint32_t>{2, 1}));
  EXPECT_EQ(parse_nodes_argument("cn01,cn2").slots, (std::vector<std::uint32_t>{0, 0}));  // whole nodes
  std::ofstream(path) << "cn10 slots=4 max_slots=2\n";
  EXPECT_EQ(test::error_message([&] { parse_nodes_argument("@" + path); }), path + ":1: 4 slots but max_slots=2");
}

TEST(Allocation, RepeatsAndSecondCountsAreSaid) {
  // A host named twice on the command line turns the list into one of slots: said in a warning.
  const Allocation listed = parse_nodes_argument("cn01,cn01,cn2");
  ASSERT_EQ(listed.warnings.size(), 1u);
  EXPECT_EQ(listed.warnings[0], "--nodes: host 'cn01' is listed 2 times, so every host listed without a count gets "
                                "one slot per listing (as in a PBS node file), not the whole node");
  EXPECT_TRUE(parse_nodes_argument("cn01,cn2").warnings.empty());
  const std::string path = testing::TempDir() + "second_count.txt";
  std::ofstream(path) << "cn01 slots=4\ncn2\ncn01\n";  // cn01 with a count, then without: the count holds
  const Allocation a = parse_nodes_argument("@" + path);
  EXPECT_EQ(a.slots, (std::vector<std::uint32_t>{4, 0}));
  EXPECT_EQ(a.lines, (std::vector<std::string>{path + ":1", path + ":2"}));
  ASSERT_EQ(a.warnings.size(), 1u);
  EXPECT_NE(a.warnings[0].find("host 'cn01' is listed with a slot count and also without one; it gets the count (4)"),
            std::string::npos);
  std::ofstream(path) << "cn01 slots=2 slots=3\n";  // Open MPI would take one of them; which is not said
  EXPECT_EQ(test::error_message([&] { parse_nodes_argument("@" + path); }),
            path + ":1: 'slots=' gives this host a second slot count");
  std::ofstream(path) << "cn2:2 cpu=2\n";
  EXPECT_EQ(test::error_message([&] { parse_nodes_argument("@" + path); }), path + ":1: 'cpu=' gives this host a second slot count");
}

TEST(Allocation, AHostByItsFullAndItsShortNameGetsBothCounts) {
  // A PBS node file that names cn01 twice by its full name and twice by its short one: 4 slots.
  const std::string path = testing::TempDir() + "mixed_names.txt";
  std::ofstream(path) << "cn01.cluster.local\ncn01.cluster.local\ncn01\ncn01\ncn2\n";
  Machine m = allocate(test::four_named_nodes(8), parse_nodes_argument("@" + path));
  EXPECT_EQ(m.slots_of_node(2), 4u);  // cn01
  EXPECT_EQ(m.slots_of_node(1), 1u);  // cn2
  EXPECT_EQ(m.num_slots(), 5u);
  std::ofstream(path) << "cn01.cluster.local slots=2\ncn01 slots=3\n";
  m = allocate(test::four_named_nodes(8), parse_nodes_argument("@" + path));
  EXPECT_EQ(m.num_slots(), 5u);
  std::ofstream(path) << "cn01.cluster.local\ncn01 slots=3\n";  // the count holds, as for one name
  m = allocate(test::four_named_nodes(8), parse_nodes_argument("@" + path));
  EXPECT_EQ(m.num_slots(), 3u);
  // Refusals about one host of a host file name its line.
  std::ofstream(path) << "cn2\nlocalhost\n";
  EXPECT_TRUE(test::error_message([&] { allocate(test::four_named_nodes(8), parse_nodes_argument("@" + path)); })
                  .starts_with(path + ":2: host 'localhost' is not in machine 'four' (closest: "));
}

TEST(Allocation, SlotCountsAreCappedBeforeTheyOverflow) {
  // 1,025 lines of 2^20 slots for one host: 2^30 + 2^20 slots, past taskmap's 2^30.
  const std::string path = testing::TempDir() + "huge_hosts.txt";
  {
    std::ofstream out(path);
    for (int i = 0; i < 1025; ++i) out << "cn01 slots=1048576\n";
  }
  EXPECT_EQ(test::error_message([&] { parse_nodes_argument("@" + path); }),
            "--nodes @" + path + ": host 'cn01' is given more than 1073741824 slots");
}

TEST(Allocation, AnUnknownHostNamesTheClosestKnownOnes) {
  try {
    allocate(test::four_named_nodes(1), parse_nodes_argument("cn3"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--nodes: host 'cn3' is not in machine 'four' (closest: cn2, cn10, cn01)");
  }
  EXPECT_THROW(parse_nodes_argument("cn[01-"), Error);
  EXPECT_THROW(allocate(make_machine("torus:2x2"), parse_nodes_argument("node0")), Error);
}

TEST(Allocation, TheSchedulersEnvironment) {
  setenv("SLURM_JOB_NODELIST", "cn[01-02],gpu1", 1);
  setenv("SLURM_TASKS_PER_NODE", "2(x2),1", 1);
  auto a = allocation_from_environment();
  unsetenv("SLURM_JOB_NODELIST");
  unsetenv("SLURM_TASKS_PER_NODE");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->source, "$SLURM_JOB_NODELIST with $SLURM_TASKS_PER_NODE");
  EXPECT_EQ(a->hosts, (std::vector<std::string>{"cn01", "cn02", "gpu1"}));
  EXPECT_EQ(a->slots, (std::vector<std::uint32_t>{2, 2, 1}));
  const std::string pbs = testing::TempDir() + "pbs_nodefile";
  std::ofstream(pbs) << "cn2\ncn2\ncn10\n";
  setenv("PBS_NODEFILE", pbs.c_str(), 1);
  a = allocation_from_environment();
  unsetenv("PBS_NODEFILE");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->hosts, (std::vector<std::string>{"cn2", "cn10"}));
  EXPECT_EQ(a->slots, (std::vector<std::uint32_t>{2, 1}));  // a PBS node file lists a host once per slot
  EXPECT_FALSE(allocation_from_environment().has_value());
}

TEST(Allocation, HostNamesSortAsSlurmSortsThem) {
  EXPECT_TRUE(hostname_less("cn2", "cn10"));
  EXPECT_TRUE(hostname_less("cn01", "cn2"));
  EXPECT_TRUE(hostname_less("cn10", "gpu1"));
  EXPECT_TRUE(hostname_less("r1n16", "r2n01"));
  EXPECT_FALSE(hostname_less("cn10", "cn10"));
  const Machine m = test::four_named_nodes(1);
  EXPECT_EQ(nodes_in_name_order(m), (std::vector<NodeId>{2, 1, 0, 3}));  // cn01, cn2, cn10, gpu1
}

}  // namespace
}  // namespace taskmap
