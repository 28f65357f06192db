// The recommendation's wording rule (recommendation.h, docs/report.md) on hand-made metrics,
// and the first line of eval's and compare's summaries on a ring whose loads are derived by
// hand.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "taskmap/eval/recommendation.h"
#include "test_support.h"

namespace taskmap {
namespace {

Metrics metrics(double mcl, double hop_bytes, double node_hop_bytes = 0) {
  Metrics m;
  m.mcl = mcl;
  m.mcl_network = mcl;  // no links of the nodes' own: the summary shows no second MCL
  m.hop_bytes = hop_bytes;
  m.node_hop_bytes = node_hop_bytes;
  return m;
}

// A fabric's metrics: the network links' MCL apart, and the leaf uplink volume.
Metrics fabric_metrics(double mcl, double mcl_network, double hop_bytes, double node_hop_bytes, double uplink) {
  Metrics m = metrics(mcl, hop_bytes, node_hop_bytes);
  m.mcl_network = mcl_network;
  m.leaf_uplink_volume = uplink;
  return m;
}

std::string sentence(const Metrics& chosen, const Metrics& baseline, bool launcher = true,
                     const std::string& placement = "") {
  return recommend({"auto", chosen, launcher ? "hostname-order" : "scotch", baseline, launcher, placement}).text;
}

TEST(Recommendation, BetterOnBoth) {
  // (0.59 - 1) / 1 = -41%; (77 - 100) / 100 = -23%.
  const Recommendation r =
      recommend({"auto", metrics(0.59, 77), "hostname-order", metrics(1, 100), true, "job.rankfile (openmpi-rankfile)"});
  EXPECT_TRUE(r.better);
  EXPECT_NEAR(r.mcl_change, -0.41, 1e-12);
  EXPECT_NEAR(r.hop_bytes_change, -0.23, 1e-12);
  EXPECT_EQ(r.text,
            "auto lowers the maximum link load by 41% and hop-bytes by 23% against hostname-order (the launcher's "
            "default); use job.rankfile (openmpi-rankfile)");
  EXPECT_EQ(r.deciding, "mcl");
  EXPECT_EQ(r.improved, (std::vector<std::string>{"mcl", "hop_bytes"}));
  EXPECT_TRUE(r.worse.empty());
}

TEST(Recommendation, TheMaximumLinkLoadDecides) {
  // MCL -50% (2 vs 4) wins over hop-bytes +12.5% (45 vs 40), which rounds half away from 0.
  EXPECT_EQ(sentence(metrics(2, 45), metrics(4, 40)),
            "auto lowers the maximum link load by 50% but raises hop-bytes by 13% against hostname-order (the "
            "launcher's default); decided by the maximum link load: use auto");
  // MCL +5% (1.05 vs 1) loses, though hop-bytes fall 3% (97 vs 100).
  EXPECT_EQ(sentence(metrics(1.05, 97), metrics(1, 100)),
            "auto raises the maximum link load by 5% though it lowers hop-bytes by 3% against hostname-order (the "
            "launcher's default); decided by the maximum link load: keep the launcher's default");
  // Worse on both, against a baseline that is not the launcher's default.
  EXPECT_EQ(sentence(metrics(3, 300), metrics(2, 100), false),
            "auto raises the maximum link load by 50% and hop-bytes by 200% against scotch; keep scotch");
}

TEST(Recommendation, EqualLoadsLeaveItToHopBytesThenToTheNodes) {
  // MCL within 1e-9 relative is the same; hop-bytes 99.6 vs 100: -0.4%, less than 1%.
  EXPECT_EQ(sentence(metrics(1 + 1e-12, 99.6), metrics(1, 100)),
            "auto keeps the maximum link load and lowers hop-bytes by less than 1% against hostname-order (the "
            "launcher's default); use auto");
  EXPECT_EQ(sentence(metrics(1, 120), metrics(1, 100)),
            "auto keeps the maximum link load but raises hop-bytes by 20% against hostname-order (the launcher's "
            "default); keep the launcher's default");
  // Both network metrics equal: the traffic between cores, 30 vs 40: -25%.
  EXPECT_EQ(sentence(metrics(1, 100, 30), metrics(1, 100, 40)),
            "auto keeps the maximum link load and hop-bytes and lowers node hop-bytes by 25% against hostname-order "
            "(the launcher's default); use auto");
  const Recommendation same = recommend({"auto", metrics(1, 100, 5), "default", metrics(1, 100, 5), true, ""});
  EXPECT_FALSE(same.better);
  EXPECT_TRUE(same.tie());
  EXPECT_EQ(same.text,
            "auto is no better than default (the launcher's default): the same maximum link load, hop-bytes and "
            "node hop-bytes; keep the launcher's default");
}

// What got worse is named, whichever metric decides (a fabric: the nodes' own links make the
// network links' MCL a metric of its own; leaf switches show the uplink volume).
TEST(Recommendation, EveryMetricThatGotWorseIsNamed) {
  // MCL 8.5 vs 10 (-15%) decides; the network links' MCL 8.31 vs 8 (+3.875%: 4%) and node
  // hop-bytes 139 vs 79 (+75.9%: 76%) rose, hop-bytes 90 vs 100 (-10%) and the uplink volume
  // 40 vs 50 (-20%) fell.
  const Recommendation r = recommend({"auto", fabric_metrics(8.5, 8.31, 90, 139, 40), "hostname-order",
                                      fabric_metrics(10, 8, 100, 79, 50), true, "x.txt (slurm)"});
  EXPECT_TRUE(r.better);
  EXPECT_EQ(r.text,
            "auto lowers the maximum link load by 15%, hop-bytes by 10% and the leaf uplink volume by 20% but raises "
            "the maximum load on network links by 4% and node hop-bytes by 76% against hostname-order (the "
            "launcher's default); decided by the maximum link load: use x.txt (slurm)");
  EXPECT_EQ(r.deciding, "mcl");
  EXPECT_EQ(r.worse, (std::vector<std::string>{"mcl_network", "node_hop_bytes"}));
  EXPECT_EQ(r.improved, (std::vector<std::string>{"mcl", "hop_bytes", "leaf_uplink_volume"}));
  EXPECT_NEAR(r.mcl_network_change, 0.31 / 8, 1e-12);
  EXPECT_NEAR(r.leaf_uplink_volume_change, -0.2, 1e-12);
  const auto j = recommendation_to_json({"auto", fabric_metrics(8.5, 8.31, 90, 139, 40), "hostname-order",
                                         fabric_metrics(10, 8, 100, 79, 50), true, "x.txt (slurm)"},
                                        r);
  EXPECT_EQ(j["deciding"], "mcl");
  EXPECT_EQ(j["worse"], nlohmann::json({"mcl_network", "node_hop_bytes"}));
  EXPECT_EQ(j["placement_holds_baseline"], false);
}

TEST(Recommendation, ASecondaryMetricThatMovesWhileTheDecidingOnesStayIsSaid) {
  // The same MCL (a node's own link, 12 in both), hop-bytes 95 vs 100 (-5%) decide; the switch
  // cables' MCL fell from 6 to 4 (-33%).
  EXPECT_EQ(sentence(fabric_metrics(12, 4, 95, 10, 0), fabric_metrics(12, 6, 100, 10, 0)),
            "auto keeps the maximum link load and lowers hop-bytes by 5% and the maximum load on network links by "
            "33% against hostname-order (the launcher's default); use auto");
  // All three deciding metrics equal, the switch cables' MCL fell from 6 to 4 and the uplink
  // volume rose from 30 to 33 (+10%): a tie that says both.
  const Recommendation tie = recommend({"auto", fabric_metrics(12, 4, 100, 10, 33), "hostname-order",
                                        fabric_metrics(12, 6, 100, 10, 30), true, "x.txt (slurm)", true});
  EXPECT_TRUE(tie.tie());
  EXPECT_FALSE(tie.better);
  EXPECT_EQ(tie.text,
            "auto is no better than hostname-order (the launcher's default): the same maximum link load, hop-bytes "
            "and node hop-bytes, though it lowers the maximum load on network links by 33% and raises the leaf "
            "uplink volume by 10%; keep the launcher's default: x.txt (slurm) holds it");
  // Worse, the chosen placement written: the file is not the one to keep.
  EXPECT_EQ(sentence(metrics(3, 300), metrics(2, 300), true, "x.txt"),
            "auto raises the maximum link load by 50% against hostname-order (the launcher's default); keep the "
            "launcher's default, not x.txt");
}

TEST(Recommendation, OrderOfPlacements) {
  EXPECT_LT(compare_placements(metrics(1, 200), metrics(2, 100)), 0);        // the MCL first
  EXPECT_GT(compare_placements(metrics(1, 101), metrics(1, 100)), 0);        // then hop-bytes
  EXPECT_LT(compare_placements(metrics(1, 100, 3), metrics(1, 100, 4)), 0);  // then inside nodes
  EXPECT_EQ(compare_placements(metrics(1, 100 * (1 + 1e-12)), metrics(1, 100)), 0);  // within 1e-9
}

TEST(Recommendation, Percentages) {
  EXPECT_EQ(percent_text(0), "0%");
  EXPECT_EQ(percent_text(-0.004), "less than 1%");
  EXPECT_EQ(percent_text(0.005), "1%");      // half a percent rounds away from zero
  EXPECT_EQ(percent_text(-0.4149), "41%");
  EXPECT_EQ(percent_text(-0.996), "more than 99%");  // not all of it: something is left
  EXPECT_EQ(percent_text(-1), "100%");
  EXPECT_EQ(percent_text(2), "200%");
  // From a baseline of 0 the change has no percentage.
  EXPECT_EQ(sentence(metrics(0, 5), metrics(0, 0)),
            "auto keeps the maximum link load but raises hop-bytes from 0 to 5 against hostname-order (the "
            "launcher's default); keep the launcher's default");
  const Recommendation r = recommend({"auto", metrics(0, 5), "default", metrics(0, 0), true, ""});
  EXPECT_TRUE(std::isinf(r.hop_bytes_change));
  EXPECT_TRUE(recommendation_to_json({"auto", metrics(0, 5), "default", metrics(0, 0), true, ""}, r)["hop_bytes_change"]
                  .is_null());
}

// torus:8 is a ring of 8 routers, one slot each; halo2d:1x8 a ring of 8 tasks, each sending
// 1/4 to each of its two neighbours (16 flows of 1/4).
//   default (task t on router t): every flow 1 hop, each of the 16 channels carries one flow:
//     MCL 1/4, hop-bytes 16 x 1/4 = 4.
//   cyclic:stride=2 (tasks 0-3 on routers 0,2,4,6, tasks 4-7 on 1,3,5,7): neighbour pairs are
//     2 hops apart except 3-4 (routers 6 and 1: 3 hops) and 7-0 (routers 7 and 0: 1 hop), 16
//     hops per direction: hop-bytes 2 x 16 x 1/4 = 8; every + channel carries two flows (e.g.
//     channel 0->1 those of 0->2 and 6->1), and likewise every - channel: MCL 1/2.
//   task t on router 3t mod 8: every pair 3 hops apart, each channel carries three flows: MCL
//     3/4, hop-bytes 12.
TEST(Recommendation, FirstLineOfTheSummaries) {
  const std::string ring = "--machine torus:8 --pattern halo2d:1x8";
  auto r = test::run_taskmap("compare " + ring + " --mappers default,cyclic:stride=2 --baseline cyclic:stride=2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "default lowers the maximum link load by 50% and hop-bytes by 50% against cyclic:stride=2; use default");
  // The launcher's default on a machine without host names is default; it is the best row.
  r = test::run_taskmap("compare " + ring + " --mappers cyclic:stride=2,default");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "default (the launcher's default) is the best placement here; keep the launcher's default");
  const std::string file =
      (std::filesystem::temp_directory_path() / ("taskmap_stride3_" + std::to_string(::getpid()) + ".txt")).string();
  {
    std::ofstream out(file);
    for (int t = 0; t < 8; ++t) out << t << " " << (3 * t) % 8 << "\n";
  }
  r = test::run_taskmap("eval " + ring + " --mapping " + file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 3/4 against 1/4 and 12 against 4: +200% each.
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "file:" + file +
                " raises the maximum link load by 200% and hop-bytes by 200% against default (the launcher's "
                "default); keep the launcher's default, not " + file);
  // --baseline none: no recommendation, the summary starts with the run.
  r = test::run_taskmap("eval " + ring + " --mapper default --baseline none");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "halo2d:1x8 on torus:8 (minimal routing), mapping default");
  r = test::run_taskmap("eval " + ring + " --mapper default --baseline cyclic:stride=2 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out)["recommendation"];
  EXPECT_DOUBLE_EQ(j["mcl_change"].get<double>(), -0.5);
  EXPECT_DOUBLE_EQ(j["hop_bytes_change"].get<double>(), -0.5);
  EXPECT_EQ(j["better"], true);
  EXPECT_EQ(j["launcher_default"], false);
  std::filesystem::remove(file);
}

// torus:4,ppn=2: a ring of 4 routers, 2 slots each; halo2d:1x8 a ring of 8 tasks, 1/4 to each
// neighbour.
//   default (task t on router t/2): pairs 0-1, 2-3, 4-5, 6-7 share a node (node hop-bytes
//     4 x 2 x 1/4 = 2), the other four pairs are one hop apart, one flow of 1/4 on each of the
//     8 channels: MCL 1/4, hop-bytes 8 x 1/4 = 2.
//   cyclic (task t on router t mod 4): every pair one hop apart, 16 flows of 1/4, two on each
//     channel: MCL 1/2, hop-bytes 4, node hop-bytes 0.
TEST(Recommendation, TheSummaryNamesWhatGotWorse) {
  const auto r = test::run_taskmap("eval --machine torus:4,ppn=2 --pattern halo2d:1x8 --mapper default --baseline cyclic");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "default lowers the maximum link load by 50% and hop-bytes by 50% but raises node hop-bytes from 0 to 2 "
            "against cyclic; decided by the maximum link load: use default");
}

TEST(Recommendation, NamedNodesCompareWithHostnameOrder) {
  // cn01..cn09 under three leaves: the launchers' block default is host-name order.
  const auto r = test::run_taskmap("eval --machine slurm:" + test::instance("reorder/three_leaves.conf") +
                                   " --pattern halo2d:3x3 --mapper random:seed=1 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["recommendation"]["baseline"], "hostname-order");
  EXPECT_EQ(j["baselines"][0]["mapper"], "hostname-order");
}

}  // namespace
}  // namespace taskmap
