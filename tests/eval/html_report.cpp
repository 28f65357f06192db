// `eval --report`: the HTML page shows the same numbers as `eval --format json`, for the
// evaluated mapping and for the default beside it, and its pictures cover every channel.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace taskmap {
namespace {

std::string temp_report(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("taskmap_report_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// (metric, column) -> value, from the page's data attributes.
std::map<std::pair<std::string, int>, double> page_metrics(const std::string& html) {
  std::map<std::pair<std::string, int>, double> out;
  const std::regex cell(R"re(data-metric="([^"]+)" data-column="(\d+)" data-value="([^"]+)")re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), cell); it != std::sregex_iterator(); ++it) {
    out[{(*it)[1].str(), std::stoi((*it)[2].str())}] = std::stod((*it)[3].str());
  }
  return out;
}

// The opening tags of every element of one kind (svg class) in one column, each with its body.
std::vector<std::string> pictures(const std::string& html, const std::string& svg_class, int column) {
  std::vector<std::string> out;
  const std::string open = "<svg class=\"chart " + svg_class + "\" data-column=\"" + std::to_string(column) + "\"";
  for (std::size_t at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    out.push_back(html.substr(at, html.find("</svg>", at) - at));
  }
  return out;
}

std::vector<double> attribute_values(const std::string& text, const std::string& attribute) {
  std::vector<double> out;
  const std::regex value(attribute + R"re(="([^"]+)")re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), value); it != std::sregex_iterator(); ++it) {
    out.push_back(std::stod((*it)[1].str()));
  }
  return out;
}

void expect_page_matches_json(const std::map<std::pair<std::string, int>, double>& page, int column,
                              const nlohmann::json& j) {
  for (const char* key : {"mcl", "throughput", "hop_bytes", "avg_dilation", "max_dilation", "avg_routed_hops",
                          "channels_used", "load_imbalance", "network_volume"}) {
    ASSERT_TRUE(page.count({key, column})) << key;
    EXPECT_DOUBLE_EQ(page.at({key, column}), j[key].get<double>()) << key << " column " << column;
  }
  for (const auto& [cls, metrics] : j["classes"].items()) {
    EXPECT_DOUBLE_EQ(page.at({"classes." + cls + ".mcl", column}), metrics["mcl"].get<double>()) << cls;
  }
}

TEST(HtmlReport, TorusPageMatchesEvalJsonAndCoversEveryChannel) {
  const std::string page_path = temp_report("torus.html");
  const std::string args = "eval --machine torus:4x4x4 --pattern halo3d:4x4x4 --format json ";
  const auto chosen = test::run_taskmap(args + "--mapper random:seed=3 --report " + page_path);
  ASSERT_EQ(chosen.exit_code, 0) << chosen.err;
  const auto base = test::run_taskmap(args + "--mapper default");
  ASSERT_EQ(base.exit_code, 0) << base.err;
  const nlohmann::json jc = nlohmann::json::parse(chosen.out), jd = nlohmann::json::parse(base.out);
  // Hand-derived: the identity places the 4x4x4 halo on the 4x4x4 torus, one hop per flow;
  // each task sends one unit split over its 6 neighbours, so each channel carries 1/6.
  EXPECT_DOUBLE_EQ(jd["mcl"].get<double>(), 1.0 / 6);
  const std::string html = test::read_text(page_path);
  ASSERT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);  // self-contained, no scripts
  EXPECT_EQ(html.find("http://", html.find("<body")), html.find("http://www.w3.org/2000/svg", html.find("<body")));
  // What to do, above everything else: the same sentence as the JSON's.
  const std::size_t top = html.find("<p class=\"recommendation keep\">" + jc["recommendation"]["text"].get<std::string>());
  ASSERT_NE(top, std::string::npos);
  EXPECT_LT(top, html.find("<table"));
  const auto page = page_metrics(html);
  expect_page_matches_json(page, 0, jd);
  expect_page_matches_json(page, 1, jc);
  for (int column = 0; column < 2; ++column) {
    const nlohmann::json& j = column == 0 ? jd : jc;
    // Three dimension pairs (AB, AC, BC); every channel projects onto two of them, so the
    // busiest link drawn is the MCL.
    const auto panels = pictures(html, "heatmap", column);
    ASSERT_EQ(panels.size(), 3u);
    double drawn_max = 0;
    for (const std::string& p : panels) {
      for (double u : attribute_values(p, "data-util")) drawn_max = std::max(drawn_max, u);
    }
    EXPECT_DOUBLE_EQ(drawn_max, j["mcl"].get<double>());
    // One histogram per class, counting each of its channels once.
    const auto histograms = pictures(html, "histogram", column);
    ASSERT_EQ(histograms.size(), j["classes"].size());
    for (const std::string& histogram : histograms) {
      std::smatch name;
      ASSERT_TRUE(std::regex_search(histogram, name, std::regex(R"re(data-class="([^"]+)")re")));
      double counted = attribute_values(histogram, "data-idle").at(0);
      for (double n : attribute_values(histogram, "data-count")) counted += n;
      EXPECT_EQ(counted, j["classes"][name[1].str()]["channels"].get<double>()) << name[1];
    }
  }
  std::filesystem::remove(page_path);
}

TEST(HtmlReport, DragonflyPageHasTheGroupMatrix) {
  const std::string page_path = temp_report("dragonfly.html");
  const std::string args = "eval --machine dragonfly:p=2,a=4,h=2 --pattern halo2d:8x9 --format json ";
  const auto chosen = test::run_taskmap(args + "--mapper random:seed=1 --report " + page_path);
  ASSERT_EQ(chosen.exit_code, 0) << chosen.err;
  const nlohmann::json jc = nlohmann::json::parse(chosen.out);
  const std::string html = test::read_text(page_path);
  expect_page_matches_json(page_metrics(html), 1, jc);
  EXPECT_TRUE(pictures(html, "heatmap", 1).empty());
  const auto matrix = pictures(html, "group-matrix", 1);
  ASSERT_EQ(matrix.size(), 1u);
  // g = a*h + 1 = 9 groups, one global channel per ordered pair of groups.
  const auto cells = attribute_values(matrix[0], "data-util");
  EXPECT_EQ(cells.size(), 9u * 8u);
  EXPECT_DOUBLE_EQ(*std::max_element(cells.begin(), cells.end()), jc["classes"]["global"]["mcl"].get<double>());
  // Each group's busiest local and global links; the class of the larger is the bottleneck.
  const auto bars = pictures(html, "group-loads", 1);
  ASSERT_EQ(bars.size(), 1u);
  const auto utils = attribute_values(bars[0], "data-util");
  ASSERT_EQ(utils.size(), 2u * 9);
  const double local = jc["classes"]["local"]["mcl"].get<double>(), global = jc["classes"]["global"]["mcl"].get<double>();
  EXPECT_DOUBLE_EQ(*std::max_element(utils.begin(), utils.end()), std::max(local, global));
  ASSERT_NE(local, global);
  const std::string bottleneck = local > global ? "local" : "global";
  EXPECT_NE(html.find("data-bottleneck=\"" + bottleneck + "\">The " + bottleneck + " links are the bottleneck"),
            std::string::npos);
  EXPECT_EQ(jc["bottleneck_class"], nlohmann::json({bottleneck}));
  std::filesystem::remove(page_path);
}

// A fabric Dragonfly (taskmap's Dragonfly file: groups g0 = {a0, a1}, g1 = {b0, b1}) gets the
// same pictures from its switches' groups: two global cells (g0 -> g1, g1 -> g0).
TEST(HtmlReport, FabricDragonflyHasLocalAndGlobalLinks) {
  const std::string page_path = temp_report("aries.html");
  const auto r = test::run_taskmap("eval --machine aries:" + test::instance("aries/small.dragonfly") +
                                   " --pattern halo2d:1x7 --mapper hostname-order --report " + page_path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = test::read_text(page_path);
  const auto matrix = pictures(html, "group-matrix", 0);
  ASSERT_EQ(matrix.size(), 1u);
  EXPECT_EQ(attribute_values(matrix[0], "data-util").size(), 2u);
  EXPECT_EQ(attribute_values(pictures(html, "group-loads", 0).at(0), "data-util").size(), 2u * 2);
  EXPECT_TRUE(pictures(html, "tree", 0).empty());
  std::filesystem::remove(page_path);
}

// The switch tree, level by level: every channel is in one of the drawn links (data-links),
// the busiest drawn is the MCL, and each row's boxes hold all its routers.
TEST(HtmlReport, TreesShowEveryLinkLevelByLevel) {
  const std::string fabric = "slurm:" + test::instance("reorder/three_leaves.conf");
  for (const std::string& machine : {std::string("fattree:k=4,n=3"), fabric}) {
    SCOPED_TRACE(machine);
    const std::string page_path = temp_report("tree.html");
    const auto r = test::run_taskmap("eval --machine " + machine + " --pattern halo2d:3x3 --mapper random:seed=5 "
                                     "--format json --report " + page_path);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const std::string html = test::read_text(page_path);
    const auto tree = pictures(html, "tree", 1);
    ASSERT_EQ(tree.size(), 1u);
    double links = 0, busiest = 0, routers = 0;
    for (double n : attribute_values(tree[0], "data-links")) links += n;
    for (double u : attribute_values(tree[0], "data-util")) busiest = std::max(busiest, u);
    for (double n : attribute_values(tree[0], "data-routers")) routers += n;
    EXPECT_EQ(links, j["channels_total"].get<double>());
    EXPECT_DOUBLE_EQ(busiest, j["mcl"].get<double>());
    // fattree:k=4,n=3: 4^3 hosts' routers and 3 levels of 4^2 switches; three_leaves: 9 hosts'
    // routers, 3 leaves and the top switch.
    EXPECT_EQ(routers, machine == fabric ? 9 + 3 + 1 : 64 + 3 * 16);
    std::filesystem::remove(page_path);
  }
}

// The command line's metrics of a fabric job are in the page too: J, the traffic inside nodes
// (node hop-bytes and its volume) and the volume over the leaves' uplinks, with the network's
// own MCL. three_leaves.conf, 2 slots a node: halo2d:3x4 placed at random on the 6 nodes of
// s0 and s1 has traffic inside nodes and across the top switch.
TEST(HtmlReport, FabricPageHasTheCommandLinesNodeAndLeafMetrics) {
  const std::string page_path = temp_report("fabric_metrics.html");
  const auto r = test::run_taskmap("eval --machine slurm:" + test::instance("reorder/three_leaves.conf") +
                                   ",ppn=2 --nodes cn[01-06] --pattern halo2d:3x4 --mapper random:seed=4 "
                                   "--format json --report " + page_path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const std::string html = test::read_text(page_path);
  const auto page = page_metrics(html);
  for (const char* key : {"j", "node_hop_bytes", "node_volume", "leaf_uplink_volume", "mcl_network"}) {
    SCOPED_TRACE(key);
    EXPECT_GT(j[key].get<double>(), 0);  // a row that shows something
    for (int column = 0; column < 2; ++column) {
      ASSERT_TRUE(page.count({key, column})) << column;
      const nlohmann::json& placement = column == 0 ? j["baselines"][0] : j;
      EXPECT_DOUBLE_EQ(page.at({key, column}), placement[key].get<double>()) << column;
    }
  }
  // J counts each pair once: half the hop-bytes of the symmetric halo.
  EXPECT_DOUBLE_EQ(page.at({"j", 1}), page.at({"hop_bytes", 1}) / 2);
  EXPECT_NE(html.find("<th>J (each pair once)</th><td class=\"unit\">pattern units x hops</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"unit\">pattern units x levels</td>"), std::string::npos);
  std::filesystem::remove(page_path);
}

// Per box of the tree's hosts and leaves: its hosts (data-hosts) and the job's among them
// (data-job-hosts), with the box's name and the same counts in its tooltip.
struct HostBox {
  int level;
  std::string name;
  int hosts, job;
};
std::vector<HostBox> host_boxes(const std::string& tree) {
  std::vector<HostBox> out;
  const std::regex box(
      R"re(data-level="(\d)" data-routers="\d+" data-hosts="(\d+)" data-job-hosts="(\d+)"><title>(.*): (\d+) of (\d+) hosts are the job's</title>)re");
  for (auto it = std::sregex_iterator(tree.begin(), tree.end(), box); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    EXPECT_EQ(m[3].str(), m[5].str());
    EXPECT_EQ(m[2].str(), m[6].str());
    out.push_back({std::stoi(m[1].str()), m[4].str(), std::stoi(m[2].str()), std::stoi(m[3].str())});
  }
  return out;
}

// azslurm's Slurm file (../shared/data/topologies/slurm/azslurm_slurm_topology.txt) puts
// hpc-36, -39, -42 under sw00; hpc-1, -35, -38, -41, -44, -49 under sw01; hpc-37, -45, -46
// under sw02; hpc-40, -43 under sw03; hpc-47, -48 under sw04. A job on hpc-[1,35,36,39,40]
// has 2 of sw00's 3 hosts, 2 of sw01's 6, 1 of sw03's 2, none of sw02's and sw04's.
TEST(HtmlReport, TreeMarksTheJobsHostsPerLeaf) {
  const std::string conf = test::shared_data("topologies/slurm/azslurm_slurm_topology.txt");
  TASKMAP_REQUIRE_SHARED_DATA(conf);
  const std::string page_path = temp_report("job_hosts.html");
  const auto r = test::run_taskmap("eval --machine slurm:" + conf +
                                   " --nodes hpcbench-hpc-[1,35-36,39-40] --pattern halo2d:1x5 --mapper hostname-order "
                                   "--report " + page_path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = test::read_text(page_path);
  const auto tree = pictures(html, "tree", 0);
  ASSERT_EQ(tree.size(), 1u);
  std::map<std::string, std::pair<int, int>> leaves;
  int hosts = 0, job_hosts = 0;
  for (const HostBox& b : host_boxes(tree[0])) {
    if (b.level == 1) leaves[b.name] = {b.job, b.hosts};
    if (b.level == 0) hosts += b.hosts, job_hosts += b.job;
  }
  EXPECT_EQ(leaves, (std::map<std::string, std::pair<int, int>>{
                        {"sw00", {2, 3}}, {"sw01", {2, 6}}, {"sw02", {0, 3}}, {"sw03", {1, 2}}, {"sw04", {0, 2}}}));
  EXPECT_EQ(hosts, 16);
  EXPECT_EQ(job_hosts, 5);
  EXPECT_NE(html.find("data-job-hosts=\"5\" data-job-leaves=\"3\">The job has 5 of the 16 hosts, under 3 of the 5 leaf"),
            std::string::npos);
  std::filesystem::remove(page_path);
}

// On a real InfiniBand fabric (avakas, 281 hosts under 16 leaves) the page's job hosts per
// leaf are those `taskmap info --format json` lists under each leaf switch (a host under two
// leaves counts in both), for a job of every 7th host.
TEST(HtmlReport, TreeMarksTheJobsHostsOnARealFabric) {
  const std::string file = test::shared_data("topologies/ibnet/hwloc-netloc_avakas_ib-subnet-fe80_0000_0000_0000.txt.gz");
  TASKMAP_REQUIRE_SHARED_DATA(file);
  const auto info = test::run_taskmap("info --machine ibnet:" + file + " --format json");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const auto hosts = nlohmann::json::parse(info.out)["hosts"];
  std::map<std::string, std::pair<int, int>> expected;  // leaf -> (the job's hosts, hosts)
  std::string nodes;
  int job = 0;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const bool in_job = i % 7 == 0;
    if (in_job) {
      if (job++ > 0) nodes += ',';
      nodes += hosts[i]["name"].get<std::string>();
    }
    for (const auto& sw : hosts[i]["switches"]) {
      auto& [k, n] = expected[sw.get<std::string>()];
      k += in_job, ++n;
    }
  }
  ASSERT_EQ(hosts.size(), 281u);
  const std::string page_path = temp_report("avakas.html");
  const auto r = test::run_taskmap("eval --machine ibnet:" + file + " --nodes " + nodes + " --pattern alltoall:" +
                                   std::to_string(job) + " --mapper hostname-order --report " + page_path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = test::read_text(page_path);
  std::map<std::string, std::pair<int, int>> drawn;
  int job_hosts = 0;
  for (const HostBox& b : host_boxes(pictures(html, "tree", 0).at(0))) {
    if (b.level == 1) drawn[b.name] = {b.job, b.hosts};
    if (b.level == 0) job_hosts += b.job;
  }
  EXPECT_EQ(drawn, expected);
  EXPECT_EQ(job_hosts, job);
  std::filesystem::remove(page_path);
}

// The idle channels are a count in the caption, not a bar: the tallest bar drawn is a loaded
// one, and the idle count is the number of the class's channels of load 0 in --loads-csv.
TEST(HtmlReport, HistogramsCountIdleChannelsInTheCaption) {
  const std::string conf = test::shared_data("topologies/slurm/azslurm_slurm_topology.txt");
  TASKMAP_REQUIRE_SHARED_DATA(conf);
  const std::string page_path = temp_report("idle.html"), csv = temp_report("idle.csv");
  const auto r = test::run_taskmap("eval --machine slurm:" + conf + " --nodes hpcbench-hpc-[1,35-36,39-40] "
                                   "--pattern halo2d:1x5 --mapper hostname-order --loads-csv " + csv + " --report " +
                                   page_path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, int> idle, loaded;  // per class, from the CSV
  std::istringstream lines(test::read_text(csv));
  std::string line;
  std::getline(lines, line);
  ASSERT_EQ(line, "channel,src_router,dst_router,class,bandwidth,load,utilization");
  while (std::getline(lines, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 7u) << line;
    ++(std::stod(f[5]) == 0 ? idle : loaded)[f[3]];
  }
  std::set<std::string> classes;
  for (const auto& counts : {idle, loaded}) {
    for (const auto& [cls, n] : counts) classes.insert(cls);
  }
  const std::string html = test::read_text(page_path);
  const auto histograms = pictures(html, "histogram", 0);
  ASSERT_EQ(histograms.size(), classes.size());
  bool idle_tallest = false;  // a class where an idle bar would have flattened the others
  for (const std::string& h : histograms) {
    std::smatch name;
    ASSERT_TRUE(std::regex_search(h, name, std::regex(R"re(data-class="([^"]+)")re")));
    const std::string cls = name[1].str();
    SCOPED_TRACE(cls);
    EXPECT_EQ(attribute_values(h, "data-idle").at(0), idle[cls]);
    const auto counts = attribute_values(h, "data-count");
    double drawn = 0;
    for (double n : counts) drawn += n;
    EXPECT_EQ(drawn, loaded[cls]);
    // The tallest bar, the full height of the plot (120 pixels), is the fullest loaded bin.
    const double fullest = *std::max_element(counts.begin(), counts.end());
    std::smatch tallest;
    ASSERT_TRUE(std::regex_search(h, tallest, std::regex(R"re(height="120.0" fill="[^"]+" data-count="([^"]+)")re")));
    EXPECT_EQ(std::stod(tallest[1].str()), fullest);
    EXPECT_GT(fullest, 0);
    idle_tallest = idle_tallest || idle[cls] > fullest;
    const std::size_t at = html.find(h);
    const std::string caption = html.substr(html.find("<figcaption>", at), html.find("</figcaption>", at) - html.find("<figcaption>", at));
    EXPECT_NE(caption.find(fmt::format("; {} idle channels (load 0) not drawn", idle[cls])), std::string::npos) << caption;
  }
  EXPECT_TRUE(idle_tallest);
  std::filesystem::remove(page_path);
  std::filesystem::remove(csv);
}

// A fabric of 10,000 nodes (250 leaves of 40, 10 spines over 25 leaves each, one top switch)
// is drawn in blocks: at most 64 boxes a row, and the page stays small.
TEST(HtmlReport, LargeFabricsAreDrawnInBlocks) {
  const std::string conf = temp_report("big.conf"), page_path = temp_report("big.html");
  {
    std::ofstream out(conf);
    for (int l = 0; l < 250; ++l) out << fmt::format("SwitchName=leaf{} Nodes=cn[{:05d}-{:05d}]\n", l, 40 * l, 40 * l + 39);
    for (int s = 0; s < 10; ++s) out << fmt::format("SwitchName=spine{} Switches=leaf[{}-{}]\n", s, 25 * s, 25 * s + 24);
    out << "SwitchName=top Switches=spine[0-9]\n";
  }
  const auto r = test::run_taskmap("eval --machine slurm:" + conf +
                                   " --pattern halo2d:100x100 --mapper hostname-order --report " + page_path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = test::read_text(page_path);
  EXPECT_LT(html.size(), 1u << 20);
  const auto tree = pictures(html, "tree", 0);
  ASSERT_EQ(tree.size(), 1u);
  const auto boxes = attribute_values(tree[0], "data-routers");
  double routers = 0;
  for (double n : boxes) routers += n;
  EXPECT_EQ(routers, 10000 + 250 + 10 + 1);
  // Rows of 10,000 hosts (157 a box: 64 boxes), 250 leaves (4 a box: 63), 10 spines, the top.
  EXPECT_EQ(boxes.size(), 64u + 63 + 10 + 1);
  std::filesystem::remove(conf);
  std::filesystem::remove(page_path);
}

// Every chart names its axes; with bytes per unit and a machine's link rate the utilization
// is in seconds: small.dragonfly's reference rate is 50 Gb/s = 6.25e9 B/s, so at 1e6 bytes
// per unit an MCL of x units per bandwidth unit is x * 1e6 / 6.25e9 s.
TEST(HtmlReport, ChartsHaveAxisLabelsAndUnits) {
  const std::string page_path = temp_report("units.html");
  const auto r = test::run_taskmap("eval --machine aries:" + test::instance("aries/small.dragonfly") +
                                   " --pattern halo2d:1x7 --mapper random:seed=2 --bytes-per-unit 1e6 --format json "
                                   "--report " + page_path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["units"]["utilization"], "s");
  EXPECT_DOUBLE_EQ(j["units"]["link_bytes_per_s"].get<double>(), 6.25e9);
  const std::string html = test::read_text(page_path);
  const double mcl = j["mcl"].get<double>();
  EXPECT_NE(html.find(fmt::format("data-metric=\"mcl\" data-column=\"1\" data-value=\"{:.17g}\">{:.6g}</td>", mcl,
                                  mcl * 1e6 / 6.25e9)),
            std::string::npos);
  std::size_t charts = 0;
  for (std::size_t at = html.find("<svg class=\"chart "); at != std::string::npos;
       at = html.find("<svg class=\"chart ", at + 1)) {
    const std::string svg = html.substr(at, html.find("</svg>", at) - at);
    const bool legend = svg.find("class=\"chart legend\"") != std::string::npos;
    std::size_t labels = 0;
    for (std::size_t l = svg.find("class=\"axis-label\""); l != std::string::npos; l = svg.find("class=\"axis-label\"", l + 1)) {
      ++labels;
    }
    EXPECT_GE(labels, legend ? 1u : 2u) << svg.substr(0, 120);
    ++charts;
  }
  EXPECT_GE(charts, 1u + 2 * 3);  // the legend; per column a group matrix, group bars, histograms
  EXPECT_NE(html.find("utilization, bin's upper end (s)"), std::string::npos);
  EXPECT_NE(html.find("bandwidth 6.25e+09 B/s"), std::string::npos);
  std::filesystem::remove(page_path);
}

// compare --report: every mapper in the metrics table, pictures of the best and the baseline,
// and the recommendation at the top as on stdout's first line.
TEST(HtmlReport, ComparePageRecommendsAsTheSummaryDoes) {
  const std::string page_path = temp_report("compare.html");
  const auto r = test::run_taskmap("compare --machine torus:4x4x4 --pattern halo3d:4x4x4 --mappers "
                                   "random:seed=3,default,random:seed=4 --baseline random:seed=3 --report " + page_path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string first = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(first.rfind("default lowers the maximum link load by", 0), 0u) << first;
  const std::string html = test::read_text(page_path);
  const std::size_t top = html.find("<p class=\"recommendation\">" + first + "</p>");
  ASSERT_NE(top, std::string::npos);
  EXPECT_LT(top, html.find("<table"));
  const auto page = page_metrics(html);
  for (int column = 0; column < 3; ++column) EXPECT_TRUE(page.count({"mcl", column})) << column;
  EXPECT_EQ(pictures(html, "heatmap", 0).size(), 3u);  // the baseline, random:seed=3
  EXPECT_EQ(pictures(html, "heatmap", 1).size(), 3u);  // the best, default
  EXPECT_TRUE(pictures(html, "heatmap", 2).empty());
  std::filesystem::remove(page_path);
}

}  // namespace
}  // namespace taskmap
