// Torus flows computed many at a time (TorusFlows) against Routing::route, flow by flow.
#include <gtest/gtest.h>

#include <random>

#include "taskmap/routing/torus_flows.h"
#include "test_support.h"

namespace taskmap {
namespace {

std::vector<std::uint32_t> natural_order(const Machine& m) {
  std::vector<std::uint32_t> order(m.torus()->dims());
  for (std::uint32_t d = 0; d < order.size(); ++d) order[d] = d;
  return order;
}

// Loads of `flows` towards dst, each routed alone by route(), its shares added in order.
std::vector<double> loads_one_by_one(const Machine& m, const Routing& routing, RouterId dst,
                                     const std::vector<SourceFlow>& flows) {
  std::vector<double> loads(m.channels.size(), 0.0);
  std::vector<ChannelShare> shares;
  for (const SourceFlow& f : flows) {
    shares.clear();
    routing.route(f.src, dst, shares);
    for (const ChannelShare& s : shares) loads[s.channel] += f.volume * s.fraction;
  }
  return loads;
}

void expect_close(const std::vector<double>& expected, const std::vector<double>& actual, const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size());
  double top = 0;
  for (double l : expected) top = std::max(top, l);
  for (std::size_t c = 0; c < expected.size(); ++c) {
    ASSERT_NEAR(actual[c], expected[c], 1e-12 * top) << what << ", channel " << c;
  }
}

TEST(TorusFlows, FlowsTowardsOneDestinationMergeOnARing) {
  // torus:4, destination 0, one unit from each of 1, 2 and 3. From 2 the offset is k/2: half
  // goes 2->1->0, half 2->3->0. So 2->1 and 2->3 carry 1/2; 1->0 carries 1 (from 1) + 1/2
  // (from 2), and 3->0 the same.
  const Machine m = make_machine("torus:4");
  const TorusShape& t = *m.torus();
  const TorusFlows flows(m, true, {0}, TieRule::Split);
  std::vector<double> loads(m.channels.size(), 0.0);
  const std::vector<SourceFlow> from{{1, 1.0}, {2, 1.0}, {3, 1.0}};
  const std::uint64_t additions = flows.add_merged(0, from, loads);
  EXPECT_DOUBLE_EQ(loads[t.channel(2, 0, 1)], 0.5);
  EXPECT_DOUBLE_EQ(loads[t.channel(2, 0, 0)], 0.5);
  EXPECT_DOUBLE_EQ(loads[t.channel(1, 0, 1)], 1.5);
  EXPECT_DOUBLE_EQ(loads[t.channel(3, 0, 0)], 1.5);
  double total = 0;
  for (double l : loads) total += l;
  EXPECT_DOUBLE_EQ(total, 4.0);  // 1 + 2 + 1 hops
  EXPECT_EQ(additions, 4u);      // one per channel: the flows from 1 and 3 merged with 2's halves
}

TEST(TorusFlows, MergedLoadsEqualTheSplitOverMinimalPaths) {
  // Random destinations and sources on tori with k/2 ties, odd rings, meshes, a hypercube,
  // 2-wide wrap dimensions (two parallel channels each way) and mixed wrap/mesh dimensions.
  std::minstd_rand random(7);
  for (const char* spec : {"torus:4x4", "torus:6x5", "mesh:3x4x2", "torus:2x3x4", "hypercube:d=4",
                           "torus:4x3x2,mesh=B", "torus:6x2,mesh=A", "torus:8"}) {
    const Machine m = make_machine(spec);
    const auto routing = make_routing(m, parse_routing_spec("minimal"));
    const TorusFlows flows(m, true, natural_order(m), TieRule::Split);
    for (int trial = 0; trial < 20; ++trial) {
      const RouterId dst = static_cast<RouterId>(random() % m.num_routers);
      std::vector<SourceFlow> from;
      for (RouterId r = 0; r < m.num_routers; ++r) {
        if (r != dst && random() % 3 == 0) from.push_back({r, 0.25 + static_cast<double>(random() % 1000) / 100});
      }
      const auto expected = loads_one_by_one(m, *routing, dst, from);
      std::vector<double> merged(m.channels.size(), 0.0), chosen(m.channels.size(), 0.0), pairs(m.channels.size(), 0.0);
      flows.add_merged(dst, from, merged);
      flows.add_flows_to(dst, from, chosen);
      for (const SourceFlow& f : from) flows.add_pair(f.src, dst, f.volume, pairs);
      const std::string what = fmt::format("{} to router {} from {} sources", spec, dst, from.size());
      expect_close(expected, merged, what + " (merged)");
      expect_close(expected, chosen, what + " (cheaper way)");
      EXPECT_EQ(expected, pairs) << what << ": add_pair adds route()'s shares in route()'s order";
    }
  }
}

TEST(TorusFlows, MergesOnlyWhenItTouchesFewerChannels) {
  const Machine m = make_machine("torus:8x8x8");
  const TorusFlows flows(m, true, natural_order(m), TieRule::Split);
  std::vector<double> loads(m.channels.size(), 0.0);
  // Every other router towards router 0. Their own boxes of minimal paths have 29^3 - 1
  // points together (per dimension the offsets 0, +-1, +-2, +-3 give boxes 1, 2, 3, 4 wide and
  // the k/2 offset two boxes 5 wide: 1 + 2 (2 + 3 + 4) + 10 = 29), the merged box 512 routers:
  // merged, each router pushes its mass once per dimension it still has to cross.
  std::vector<SourceFlow> all;
  for (RouterId r = 1; r < m.num_routers; ++r) all.push_back({r, 1.0});
  std::uint64_t expected = 0;  // per router: one addition per dimension with offset != 0, two at k/2
  for (RouterId r = 1; r < m.num_routers; ++r) {
    for (std::size_t d = 0; d < 3; ++d) {
      const std::uint32_t c = m.torus()->coord(r, d);
      expected += c == 0 ? 0 : c == 4 ? 2 : 1;
    }
  }
  EXPECT_EQ(flows.add_flows_to(0, all, loads), expected);
  // One flow alone: its own box is smaller; route()'s shares, one addition each.
  const auto routing = make_routing(m, parse_routing_spec("minimal"));
  std::vector<ChannelShare> shares;
  routing->route(3, 0, shares);
  EXPECT_EQ(flows.add_flows_to(0, std::vector<SourceFlow>{{3, 1.0}}, loads), shares.size());
}

TEST(TorusFlows, DimensionOrderWalksEachFlowAsRouteDoes) {
  std::minstd_rand random(3);
  for (const char* spec : {"torus:4x5x2", "torus:6x4,mesh=B"}) {
    const Machine m = make_machine(spec);
    for (const char* name : {"dor", "dor:CBA", "dor:ties=simgrid"}) {
      if (std::string(name) == "dor:CBA" && m.torus()->dims() != 3) continue;
      const auto routing = make_routing(m, parse_routing_spec(name));
      for (int trial = 0; trial < 50; ++trial) {
        const RouterId src = static_cast<RouterId>(random() % m.num_routers), dst = static_cast<RouterId>(random() % m.num_routers);
        if (src == dst) continue;
        std::vector<ChannelShare> shares;
        routing->route(src, dst, shares);
        std::vector<double> expected(m.channels.size(), 0.0), actual(m.channels.size(), 0.0);
        for (const ChannelShare& s : shares) expected[s.channel] += 2.5 * s.fraction;
        const SourceFlow flow{src, 2.5};
        EXPECT_EQ(routing->add_flows_to(dst, std::span(&flow, 1), actual), shares.size());
        EXPECT_EQ(actual, expected) << spec << " " << name << " " << src << " -> " << dst;
      }
    }
  }
}

}  // namespace
}  // namespace taskmap
