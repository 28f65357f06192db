// SimGrid export: the platform SimGrid builds from taskmap's export routes every node pair
// through the links of taskmap's path (TORUS and FAT_TREE clusters, explicit routes), and a
// replayed iteration takes the time the MCL bound gives.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/validate/simgrid.h"
#include "test_support.h"

namespace taskmap {
namespace {

using test::run_mapper;

#ifdef TASKMAP_SIMGRID_ROUTE

std::filesystem::path export_dir(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("taskmap_sg_" + std::to_string(::getpid()) + "_" + name);
}

// SimGrid's route for every ordered pair of the first n nodes, link names per pair.
std::map<std::pair<NodeId, NodeId>, std::vector<std::string>> simgrid_routes(const std::string& platform,
                                                                              NodeId n) {
  std::string pairs;
  for (NodeId a = 0; a < n; ++a)
    for (NodeId b = 0; b < n; ++b)
      if (a != b) pairs += fmt::format("node-{} node-{}\n", a, b);
  const std::string input = platform + ".pairs";
  { std::ofstream(input) << pairs; }
  const test::CommandResult r =
      test::run_command(std::string(TASKMAP_SIMGRID_ROUTE) + " " + platform + " < " + input);
  std::filesystem::remove(input);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::pair<NodeId, NodeId>, std::vector<std::string>> out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    unsigned a, b;
    if (std::sscanf(line.c_str(), "node-%u node-%u:", &a, &b) != 2) continue;
    std::istringstream links(line.substr(line.find(':') + 1));
    std::vector<std::string>& names = out[{a, b}];
    for (std::string name; links >> name;) names.push_back(name);
  }
  return out;
}

// Exports `machine` (one rank per node, all-to-all) and checks SimGrid's route of every node
// pair against taskmap's path, each taskmap channel named as SimGrid names that link.
void expect_same_routes(const std::string& machine_text, const std::string& expected_kind,
                        const std::function<std::string(const Machine&, ChannelId)>& simgrid_name,
                        const std::function<std::string(const std::string&)>& normalize = {}) {
  const Machine m = make_machine(machine_text);
  const CommGraph g = build_pattern(parse_pattern_spec(fmt::format("alltoall:{}", m.num_nodes())));
  const Mapping identity = run_mapper("default", m, g);
  const RoutingSpec spec = simgrid_routing(m);
  const SimGridExport e = export_simgrid(m, spec, g, identity, SimGridOptions{});
  EXPECT_EQ(e.platform_kind, expected_kind);
  const auto dir = export_dir(m.kind_name());
  std::filesystem::remove_all(dir);
  write_simgrid_export(e, dir.string());
  const auto routes = simgrid_routes((dir / "platform.xml").string(), m.num_nodes());
  const auto routing = make_routing(m, spec);
  std::size_t checked = 0;
  for (NodeId a = 0; a < m.num_nodes(); ++a) {
    for (NodeId b = 0; b < m.num_nodes(); ++b) {
      if (a == b || m.router_of_node(a) == m.router_of_node(b)) continue;
      std::vector<ChannelShare> shares;
      routing->route(m.router_of_node(a), m.router_of_node(b), shares);
      std::vector<std::string> expected;
      for (const ChannelShare& s : shares) expected.push_back(simgrid_name(m, s.channel));
      ASSERT_TRUE(routes.count({a, b})) << a << " -> " << b;
      std::vector<std::string> got = routes.at({a, b});
      if (normalize) {
        for (std::string& name : got) name = normalize(name);
      }
      EXPECT_EQ(got, expected) << machine_text << ": node " << a << " -> node " << b;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
  std::filesystem::remove_all(dir);
}

TEST(SimGridExport, TorusClusterRoutesLikeTaskmap) {
  // SimGrid's TORUS link "from I to J" is created by host I towards its "+" neighbour J in
  // one dimension: UP carries I -> J, DOWN carries J -> I. taskmap's "+" channel of router r
  // is that link of r, its "-" channel that link of r's "-" neighbour, downwards. A size-2
  // dimension has both links of the pair.
  expect_same_routes("torus:4x2x2", "TORUS cluster", [](const Machine& m, ChannelId c) {
    const TorusShape& t = *m.torus();
    const Channel& ch = m.channels[c];
    for (std::size_t d = 0; d < t.dims(); ++d) {
      if (t.channel(ch.src, d, 0) == c) return fmt::format("taskmap_link_from_{}_to_{}_UP", ch.src, ch.dst);
      if (t.channel(ch.src, d, 1) == c) return fmt::format("taskmap_link_from_{}_to_{}_DOWN", ch.dst, ch.src);
    }
    return std::string("?");
  });
}

TEST(SimGridExport, FatTreeClusterRoutesLikeTaskmap) {
  // SimGrid numbers a FAT_TREE cluster's switches downwards from 2N - 1, level by level: the
  // switch of level l at position p is 2N - 1 - ((l - 1) k^(n-1) + p); taskmap's router of
  // that switch is N + (l - 1) k^(n-1) + p. Links are named "link_from_CHILD_PARENT_i".
  auto simgrid_id = [](const Machine& m, RouterId r) {
    const std::uint32_t n = m.num_host_routers();
    return r < n ? r : 2 * n - 1 - (r - n);
  };
  expect_same_routes(
      "fattree:k=4,n=2", "FAT_TREE cluster",
      [&](const Machine& m, ChannelId c) {
        const Channel& ch = m.channels[c];
        const bool up = ch.src < ch.dst;  // taskmap numbers levels upwards
        const RouterId child = up ? ch.src : ch.dst, parent = up ? ch.dst : ch.src;
        return fmt::format("link_from_{}_{}_*_{}", simgrid_id(m, child), simgrid_id(m, parent), up ? "UP" : "DOWN");
      },
      [](const std::string& name) {  // SimGrid's running link number is not taskmap's business
        return std::regex_replace(name, std::regex(R"(_\d+_(UP|DOWN)$)"), "_*_$1");
      });
}

TEST(SimGridExport, ExplicitRoutesFollowTaskmapOnMeshesAndDragonflies) {
  // A mesh has no SimGrid cluster (TORUS wraps every dimension) and SimGrid's DRAGONFLY wires
  // and routes differently: one link per taskmap channel, named c<id>, one route per pair.
  for (const char* machine : {"mesh:4x4", "dragonfly:p=2,a=2,h=1"}) {
    expect_same_routes(machine, "explicit routes", [](const Machine&, ChannelId c) { return fmt::format("c{}", c); });
  }
}

TEST(SimGridExport, ReplayTakesTheMclBoundTime) {
  // halo2d:4x4 on torus:4x4, identity: each rank sends 0.25 units (250,000 bytes) to each of
  // its 4 neighbours, one hop, every channel carrying one message. At 1 GB/s and 1 us per
  // link the iteration takes 250 us + 1 us.
  const test::CommandResult r = test::run_taskmap(
      "validate --machine torus:4x4 --pattern halo2d:4x4 --mappers default,random:seed=1 --format json");
  if (r.exit_code != 0 && r.err.find("not found") != std::string::npos) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["platform"], "TORUS cluster");
  EXPECT_DOUBLE_EQ(j["rows"][0]["predicted_s"].get<double>(), 250e-6 + 1e-6);
  EXPECT_NEAR(j["rows"][0]["simulated_s"].get<double>(), 251e-6, 0.001 * 251e-6);
  // The random placement is worse in both, so the two rank the same way.
  EXPECT_GT(j["rows"][1]["simulated_s"].get<double>(), j["rows"][0]["simulated_s"].get<double>());
  EXPECT_DOUBLE_EQ(j["spearman"].get<double>(), 1.0);
}

// Under forwarding tables (lft:) the platform's routes are the tables' one path per pair: on
// the two-leaf fabric (tests/instances/lft) both flows a leaf sends leave through the same
// uplink, 2 units of 1,000,000 bytes at 1 GB/s over 4 links of 1 us: 2 ms + 4 us, in
// taskmap's bound and in SimGrid's replay alike (ecmp's even split would halve it).
TEST(SimGridExport, ForwardingTablesGiveThePlatformItsRoutes) {
  const std::string lft = test::instance("lft/");
  const test::CommandResult r = test::run_taskmap(
      "validate --machine ibnet:" + lft + "two_leaves.topo --pattern file:" + lft + "pairs.txt --mappers hostname-order "
      "--routing lft:" + lft + "one_spine_each.lft --format json");
  if (r.exit_code != 0 && r.err.find("not found") != std::string::npos) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["platform"], "explicit routes");
  EXPECT_DOUBLE_EQ(j["rows"][0]["predicted_s"].get<double>(), 2e-3 + 4e-6);
  EXPECT_NEAR(j["rows"][0]["simulated_s"].get<double>(), 2e-3 + 4e-6, 0.001 * 2e-3);
}

TEST(SimGridExport, Spearman) {
  EXPECT_DOUBLE_EQ(*spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(*spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  // Ties take their average rank: ranks (1.5, 1.5, 3) against (1, 2, 3): r = 0.866...
  EXPECT_NEAR(*spearman({5, 5, 7}, {1, 2, 3}), std::sqrt(3.0) / 2, 1e-12);
  EXPECT_FALSE(spearman({1, 1, 1}, {1, 2, 3}).has_value());
}

#endif

}  // namespace
}  // namespace taskmap
