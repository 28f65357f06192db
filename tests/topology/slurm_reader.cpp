// Slurm topology files read into a Fabric: the real files of data/topologies/slurm (counts from
// SOURCES.md or counted with the commands beside them), hand-made files for the quirks and for
// every refusal (tests/instances/slurm).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "taskmap/core/error.h"
#include "taskmap/topology/fabric.h"
#include "taskmap/topology/machine_spec.h"
#include "test_support.h"

namespace taskmap {
namespace {

struct Read {
  Fabric fabric;
  std::vector<std::string> warnings;
};

Read read(const std::string& path, const std::string& map_file = "") {
  Read r;
  r.fabric = read_slurm_topology(path, map_file, [&r](const std::string& w) { r.warnings.push_back(w); });
  return r;
}

std::string error_of(const std::string& path) {
  return test::error_message([&] { read(path); });
}

std::string slurm_data(const std::string& name) { return test::shared_data("topologies/slurm/" + name); }
std::string slurm_instance(const std::string& name) { return test::instance("slurm/" + name); }

std::set<std::string> top_names(const Fabric& f) {
  std::set<std::string> names;
  for (auto s : f.top_switches) names.insert(f.switches.at(s));
  return names;
}

// Cables as unordered name pairs with their count (parallel cables would count 2).
std::map<std::pair<std::string, std::string>, int> cables_of(const Fabric& f) {
  std::map<std::pair<std::string, std::string>, int> cables;
  for (const auto& c : f.cables) {
    auto a = f.switches.at(c.a), b = f.switches.at(c.b);
    ++cables[{std::min(a, b), std::max(a, b)}];
  }
  return cables;
}

// Host name -> the names of the switches its ports go to.
std::map<std::string, std::vector<std::string>> ports_of(const Fabric& f) {
  std::map<std::string, std::vector<std::string>> ports;
  for (const auto& p : f.host_ports) ports[f.hosts.at(p.host)].push_back(f.switches.at(p.sw));
  return ports;
}

double gbps_between(const Fabric& f, const std::string& a, const std::string& b) {
  for (const auto& c : f.cables) {
    const auto x = f.switches.at(c.a), y = f.switches.at(c.b);
    if ((x == a && y == b) || (x == b && y == a)) return c.gbps;
  }
  return -1;
}

TEST(SlurmReader, X5NeighbourListsBecomeOneCablePerPair) {
  const auto path = slurm_data("hpctoolset_X5.topology.conf");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read(path);
  EXPECT_EQ(r.fabric.hosts.size(), 89u);     // SOURCES.md
  EXPECT_EQ(r.fabric.switches.size(), 11u);  // SOURCES.md
  EXPECT_EQ(r.fabric.host_ports.size(), 89u);  // no host under two leaves
  // 26 listed pairs (grep -o 'Switches=[^ ]*' FILE | tr ',' '\n' | wc -l), of which 86a2-851e
  // and 86a2-8530 are each listed from both ends: 24 cables.
  EXPECT_EQ(r.fabric.cables.size(), 24u);
  const auto cables = cables_of(r.fabric);
  EXPECT_EQ(cables.size(), 24u);  // no pair twice
  EXPECT_EQ(cables.at({"S-0008f1050010851e", "S-0008f105001086a2"}), 1);
  // Listed by no other switch: the two spines of lines 6 and 10.
  EXPECT_EQ(top_names(r.fabric), (std::set<std::string>{"S-0008f10500108c5c", "S-0008f10500108098"}));
  EXPECT_FALSE(r.fabric.hosts_on_switches);
  const auto ports = ports_of(r.fabric);
  EXPECT_EQ(ports.at("H-78e7d1030024535c"), std::vector<std::string>{"S-0008f1050020369c"});  // GUID kept: no map
  EXPECT_EQ(ports.at("sl390lin33"), std::vector<std::string>{"S-0002c90200417670"});
  EXPECT_EQ(ports.count("sl390lin6"), 0u);  // the range skips 6
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], path + ": Switches= lists neighbours (2 two-cycles, e.g. S-0008f1050010851e and "
                                  "S-0008f105001086a2): read as cables");
}

TEST(SlurmReader, X5GuidsMissingFromTheMapKeepTheirNamesWithOneWarning) {
  const auto path = slurm_data("hpctoolset_X5.topology.conf");
  const auto map = test::shared_data("topologies/ibnet/hpctoolset_X5.map");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read(path, map);
  EXPECT_EQ(r.fabric.hosts.size(), 89u);
  // SOURCES.md: the 3 H- names are missing from the map (grep -ci GUID X5.map gives 0 for each).
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.warnings[1], path + ": 3 GUID node names not in " + map + " kept as host names, e.g. 'H-78e7d1030024535c'");
}

TEST(SlurmReader, NstdaHyphenatedRangesUnderOneTop) {
  const auto path = slurm_data("nstda_topology.conf");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read(path);  // no newline after its last line
  EXPECT_EQ(r.fabric.hosts.size(), 10u);     // SOURCES.md
  EXPECT_EQ(r.fabric.switches.size(), 5u);   // SOURCES.md
  EXPECT_EQ(r.fabric.host_ports.size(), 10u);
  EXPECT_EQ(r.fabric.cables.size(), 4u);     // s4 lists s[0-3]
  EXPECT_EQ(top_names(r.fabric), std::set<std::string>{"s4"});
  const auto ports = ports_of(r.fabric);
  EXPECT_EQ(ports.at("tara-c-006"), std::vector<std::string>{"s1"});
  EXPECT_EQ(ports.at("tara-dgx1-002"), std::vector<std::string>{"s3"});
  EXPECT_TRUE(r.warnings.empty());
  for (const auto& c : r.fabric.cables) EXPECT_EQ(c.gbps, 0.0);  // no LinkSpeed
}

TEST(SlurmReader, AzureTreeWithFlatNodeLists) {
  const auto path = slurm_data("azslurm_slurm_topology.txt");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read(path);
  EXPECT_EQ(r.fabric.hosts.size(), 16u);    // SOURCES.md
  EXPECT_EQ(r.fabric.switches.size(), 6u);  // SOURCES.md
  EXPECT_EQ(r.fabric.host_ports.size(), 16u);
  EXPECT_EQ(r.fabric.cables.size(), 5u);  // sw05 lists sw00..sw04
  EXPECT_EQ(top_names(r.fabric), std::set<std::string>{"sw05"});
  EXPECT_EQ(ports_of(r.fabric).at("hpcbench-hpc-49"), std::vector<std::string>{"sw01"});
  EXPECT_TRUE(r.warnings.empty());
}

TEST(SlurmReader, AzureGuidTreeWithMapGivesSixteenHostsOfEightRails) {
  const auto path = slurm_data("azslurm_topology.txt");
  const auto map = slurm_data("azslurm_nodes_guids.txt");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read(path, map);
  EXPECT_EQ(r.fabric.hosts.size(), 16u);         // SOURCES.md: 16 hosts x 8
  EXPECT_EQ(r.fabric.host_ports.size(), 128u);   // SOURCES.md: 128 HCA GUIDs
  EXPECT_EQ(r.fabric.switches.size(), 49u);      // SOURCES.md
  // 8 spines list 6 switches each, ibsw47 lists 8 (56 listings); ibsw47 and each spine list
  // each other (8 two-cycles): 48 cables.
  EXPECT_EQ(r.fabric.cables.size(), 48u);
  EXPECT_EQ(cables_of(r.fabric).at({"ibsw14", "ibsw47"}), 1);
  EXPECT_TRUE(r.fabric.top_switches.empty());  // every switch is listed by another
  for (const auto& [host, switches] : ports_of(r.fabric)) {
    EXPECT_EQ(std::set<std::string>(switches.begin(), switches.end()).size(), 8u) << host;  // 8 different leaves
  }
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], path + ": Switches= lists neighbours (8 two-cycles, e.g. ibsw14 and ibsw47): read as "
                                  "cables; no switch is a root: the top switches are found from the cables");
}

TEST(SlurmReader, AzureGuidTreeWithoutMapKeepsOneHostPerGuid) {
  const auto path = slurm_data("azslurm_topology.txt");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read(path);
  EXPECT_EQ(r.fabric.hosts.size(), 128u);
  EXPECT_EQ(r.fabric.host_ports.size(), 128u);
  EXPECT_EQ(ports_of(r.fabric).at("0x155dfffd33ff33"), std::vector<std::string>{"ibsw7"});
}

TEST(SlurmReader, AzureBlocksBecomeSwitchesUnderOneRoot) {
  const auto path = slurm_data("azslurm_block_topology.txt");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read(path);
  EXPECT_EQ(r.fabric.hosts.size(), 72u);        // SOURCES.md
  EXPECT_EQ(r.fabric.switches.size(), 4u + 1);  // SOURCES.md: 4 blocks, plus the root
  EXPECT_EQ(r.fabric.host_ports.size(), 72u);
  EXPECT_FALSE(r.fabric.hosts_on_switches);
  EXPECT_EQ(r.fabric.switches.back(), "blocks");
  EXPECT_EQ(top_names(r.fabric), std::set<std::string>{"blocks"});
  EXPECT_EQ(r.fabric.cables.size(), 4u);
  for (const auto& c : r.fabric.cables) EXPECT_EQ(r.fabric.switches.at(c.a), "blocks");
  const auto ports = ports_of(r.fabric);
  // Block 1 holds hpc-1, 5, 9, ... (line 3); hpc-72 ends block 4 (line 12).
  EXPECT_EQ(ports.at("hpcbench-hpc-5"), std::vector<std::string>{"block_5e797fc6-0f46-421a-8724-0e102c0f723c"});
  EXPECT_EQ(ports.at("hpcbench-hpc-72"), std::vector<std::string>{"block_5e797fc6-0f46-421a-8724-0e102c0f722a"});
  EXPECT_TRUE(r.warnings.empty());
}

TEST(SlurmReader, BlockFileWithEveryBlockCommentedOutIsRefused) {
  const auto path = slurm_data("azslurm_slurm_illegal_block_topology.txt");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  EXPECT_EQ(error_of(path), path + ": defines no block (every BlockName= line is commented out?)");
}

TEST(SlurmReader, QuirksBomCrlfCaseLinkSpeedAndAHostUnderTwoLeaves) {
  const auto path = slurm_instance("tree-quirks.conf");
  const auto r = read(path);
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"core", "spine1", "spine2", "leaf1", "leaf2"}));
  EXPECT_EQ(r.fabric.hosts.size(), 9u);  // n01..n08 and shared
  EXPECT_EQ(r.fabric.host_ports.size(), 10u);
  EXPECT_EQ(ports_of(r.fabric).at("shared"), (std::vector<std::string>{"leaf1", "leaf2"}));
  EXPECT_EQ(r.fabric.cables.size(), 6u);  // core-2 spines, each spine-2 leaves
  EXPECT_EQ(gbps_between(r.fabric, "core", "spine2"), 200.0);
  EXPECT_EQ(gbps_between(r.fabric, "spine1", "leaf2"), 100.0);
  for (const auto& p : r.fabric.host_ports) {
    EXPECT_EQ(p.gbps, r.fabric.switches.at(p.sw) == "leaf1" ? 25.0 : 0.0);
  }
  EXPECT_EQ(top_names(r.fabric), std::set<std::string>{"core"});
  EXPECT_EQ(r.warnings, (std::vector<std::string>{
                            path + ":3: 2 unknown keys ignored, first 'Foo='",
                            path + ": 1 node under several switches (one port to each), e.g. shared under leaf1 and leaf2",
                        }));
}

// Slurm reads "Include FILE" in place, FILE relative to the directory of the file holding the
// line (its parse_config.c), and an included file may include others.
TEST(SlurmReader, IncludedFilesAreReadInPlaceRelativeToTheIncludingFile) {
  const auto path = slurm_instance("include-main.conf");
  const auto r = read(path);
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"core", "leaf1", "leaf2", "leaf3"}));
  EXPECT_EQ(r.fabric.hosts.size(), 12u);  // n01..n12
  EXPECT_EQ(ports_of(r.fabric).at("n05"), std::vector<std::string>{"leaf2"});
  EXPECT_EQ(ports_of(r.fabric).at("n12"), std::vector<std::string>{"leaf3"});
  EXPECT_EQ(r.fabric.cables.size(), 3u);
  EXPECT_EQ(top_names(r.fabric), std::set<std::string>{"core"});
  // The warning names the included file and its line.
  EXPECT_EQ(r.warnings, std::vector<std::string>{slurm_instance("include.d/more/leaf2.conf") +
                                                 ":1: 1 unknown key ignored, first 'Color='"});
}

TEST(SlurmReader, ALineEndingInABackslashGoesOnOnTheNextAndQuotesHoldSpaces) {
  const auto path = slurm_instance("continued-lines.conf");
  const auto r = read(path);
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"top", "leaf1", "leaf2"}));
  EXPECT_EQ(r.fabric.hosts.size(), 8u);  // n1..n4 (the last after the line break), n5..n8
  EXPECT_EQ(ports_of(r.fabric).at("n4"), std::vector<std::string>{"leaf1"});
  EXPECT_EQ(ports_of(r.fabric).at("n8"), std::vector<std::string>{"leaf2"});
  EXPECT_EQ(cables_of(r.fabric), (std::map<std::pair<std::string, std::string>, int>{{{"leaf1", "top"}, 1}, {{"leaf2", "top"}, 1}}));
  EXPECT_EQ(gbps_between(r.fabric, "top", "leaf2"), 200.0);
  for (const auto& p : r.fabric.host_ports) EXPECT_EQ(p.gbps, r.fabric.switches.at(p.sw) == "leaf1" ? 100.0 : 0.0);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(SlurmReader, EscapedHashAndSpacesAroundEquals) {
  const auto r = read(slurm_instance("escapes.conf"));
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"s1", "top"}));
  EXPECT_EQ(r.fabric.hosts, (std::vector<std::string>{"n#1", "n2"}));
  EXPECT_EQ(gbps_between(r.fabric, "top", "s1"), 100.0);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(SlurmReader, ATwoCycleIsOneCableAndLeavesNoRoot) {
  const auto path = slurm_instance("neighbours.conf");
  const auto r = read(path);
  EXPECT_EQ(r.fabric.cables.size(), 2u);  // a-b and a-c, each listed from both ends
  EXPECT_EQ(cables_of(r.fabric), (std::map<std::pair<std::string, std::string>, int>{{{"a", "b"}, 1}, {{"a", "c"}, 1}}));
  EXPECT_TRUE(r.fabric.top_switches.empty());
  EXPECT_EQ(r.warnings, std::vector<std::string>{path + ": Switches= lists neighbours (2 two-cycles, e.g. a and b): "
                                                        "read as cables; no switch is a root: the top switches are "
                                                        "found from the cables"});
}

TEST(SlurmReader, AForestIsReadWithAWarning) {
  const auto path = slurm_instance("forest.conf");
  const auto r = read(path);
  // The two trees are joined under one added switch, a cable to each tree's top.
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"left", "right", "forest-root"}));
  EXPECT_EQ(r.fabric.cables.size(), 2u);
  EXPECT_EQ(top_names(r.fabric), (std::set<std::string>{"forest-root"}));
  EXPECT_EQ(r.warnings, std::vector<std::string>{path + ": the switches form 2 unconnected groups: joined under one "
                                                        "added switch 'forest-root' (the file names no link between "
                                                        "them)"});
}

TEST(SlurmReader, YamlTree) {
  const auto path = slurm_instance("tree.yaml");
  const auto r = read(path);
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"root", "s1", "s2"}));
  EXPECT_EQ(r.fabric.hosts, (std::vector<std::string>{"node01", "node02", "node03", "node04", "node05"}));
  EXPECT_EQ(ports_of(r.fabric).at("node04"), std::vector<std::string>{"s2"});  // from a yaml list of host lists
  EXPECT_EQ(r.fabric.cables.size(), 2u);
  EXPECT_EQ(top_names(r.fabric), std::set<std::string>{"root"});
  EXPECT_EQ(r.warnings, std::vector<std::string>{path + ":15: 1 unknown key ignored, first 'color:'"});
}

TEST(SlurmReader, YamlReadsTheClusterDefaultTopology) {
  const auto path = slurm_instance("multi.yaml");
  const auto r = read(path);
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"b1", "b2", "blocks"}));
  EXPECT_EQ(r.fabric.hosts.size(), 8u);
  EXPECT_EQ(ports_of(r.fabric).at("node03"), std::vector<std::string>{"b1"});
  EXPECT_EQ(ports_of(r.fabric).at("node04"), std::vector<std::string>{"b2"});
  EXPECT_EQ(r.fabric.cables.size(), 2u);
  EXPECT_EQ(r.warnings, std::vector<std::string>{
                            path + ": 3 topologies, read 'racks' (the cluster default), not fabric, everything"});
}

TEST(SlurmReader, TheTopologyKeyChoosesAmongTheYamlTopologies) {
  const auto path = slurm_instance("multi.yaml");
  std::vector<std::string> warnings;
  const Fabric tree = read_slurm_topology(path, "", [&](const std::string& w) { warnings.push_back(w); }, "fabric");
  EXPECT_EQ(tree.switches, (std::vector<std::string>{"root", "s1", "s2"}));
  EXPECT_EQ(tree.hosts.size(), 8u);
  EXPECT_EQ(tree.cables.size(), 2u);
  EXPECT_TRUE(warnings.empty());  // chosen by name: nothing to say about the others
  const Machine m = make_machine("slurm:" + path + ",topology=fabric,ppn=2");
  EXPECT_EQ(m.num_slots(), 16u);
  EXPECT_EQ(test::error_message([&] { read_slurm_topology(path, "", {}, "nope"); }),
            path + ": no topology 'nope' (it has fabric, racks, everything)");
  EXPECT_EQ(test::error_message([&] { read_slurm_topology(path, "", {}, "everything"); }),
            path + ":23: topology 'everything' is flat: it names no switch and no block");
  EXPECT_EQ(test::error_message([&] { read(slurm_instance("bad-twice.yaml")); }),
            slurm_instance("bad-twice.yaml") + ":7: topology 'fabric' is defined twice (first on line 2)");
  const auto two = read(slurm_instance("two-defaults.yaml"));
  EXPECT_EQ(two.fabric.switches, (std::vector<std::string>{"s1"}));
  EXPECT_EQ(two.warnings, std::vector<std::string>{slurm_instance("two-defaults.yaml") +
                                                   ": 2 topologies, read 'first' (the first of the 2 marked "
                                                   "cluster_default), not second"});
  EXPECT_EQ(test::error_message([&] { make_machine("slurm:" + path + ",topology="); }),
            "--machine 'slurm:" + path + ",topology=': topology= needs the name of one of the file's topologies");
  const auto conf = slurm_instance("tree-quirks.conf");
  EXPECT_EQ(test::error_message([&] { read_slurm_topology(conf, "", {}, "fabric"); }),
            conf + ": topology=fabric chooses among the topologies of a topology.yaml, and this is a topology.conf "
                   "(one topology)");
}

TEST(SlurmReader, YamlRecognisedByItsContent) {
  const auto r = read(slurm_instance("yaml-by-content.txt"));
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"top", "leaf"}));
  EXPECT_EQ(r.fabric.hosts, (std::vector<std::string>{"c1", "c2", "c3"}));
  EXPECT_EQ(r.fabric.cables.size(), 1u);
}

TEST(SlurmReader, YamlSaysWhatItWouldOtherwisePassOverUnseen) {
  const std::string path = testing::TempDir() + "passed_over.yaml";
  auto write = [&](const std::string& text) { std::ofstream(path) << text; };
  // A second 'nodes:' in one entry would replace the first.
  write("- topology: t\n  tree:\n    switches:\n      - switch: s0\n        nodes: cn[1-2]\n        nodes: cn[3-4]\n");
  EXPECT_EQ(error_of(path), path + ":6: 'nodes:' is given twice (first on line 5)");
  // Slurm reads one YAML document: a second is said, not read.
  write("- topology: a\n  tree:\n    switches:\n      - switch: s0\n        nodes: cn[1-2]\n---\n"
        "- topology: b\n  cluster_default: true\n  tree:\n    switches:\n      - switch: s1\n        nodes: cn[3-4]\n");
  Read r = read(path);
  EXPECT_EQ(r.fabric.hosts, (std::vector<std::string>{"cn1", "cn2"}));
  EXPECT_EQ(r.warnings, std::vector<std::string>{path + ":6: a second YAML document begins here; read the first only"});
  // A leading '---' opens the first document; '...' ends one.
  write("---\n- topology: a\n  tree:\n    switches:\n      - switch: s0\n        nodes: cn1\n...\n# done\n");
  EXPECT_TRUE(read(path).warnings.empty());
  write("- topology: a\n  tree:\n    switches:\n      - switch: s0\n        nodes: cn1\n...\n- topology: b\n");
  EXPECT_EQ(read(path).warnings, std::vector<std::string>{path + ":7: a second YAML document begins here; read the first only"});
  // A key under tree: that Slurm does not know is counted with the others.
  write("- topology: t\n  tree:\n    extra: 1\n    switches:\n      - switch: s0\n        nodes: cn1\n");
  r = read(path);
  EXPECT_EQ(r.warnings, std::vector<std::string>{path + ":3: 1 unknown key ignored, first 'extra:'"});
  write("- topology: t\n  cluster_default: maybe\n  tree:\n    switches:\n      - switch: s0\n        nodes: cn1\n");
  EXPECT_EQ(error_of(path), path + ":2: cluster_default: expected true or false, found 'maybe'");
  // Messages name the YAML keys, not topology.conf's.
  write("- topology: t\n  tree:\n    switches:\n      - switch: s0\n        children: s1\n        nodes: cn1\n");
  EXPECT_EQ(error_of(path), path + ":4: switch 's1' is listed under children: but never defined (no '- switch: s1' entry)");
  // yaml-cpp's terse words said plainly: a map as a key where text belongs, nesting too deep.
  write("- topology: t\n  tree:\n    switches:\n      - switch: s0\n        ? [a, b]\n        : c\n");
  EXPECT_EQ(error_of(path), path + ":5: a value of the wrong kind here (a list or a map where text belongs, or the reverse)");
  write("- topology: t\n  tree:\n    switches:\n      - switch: s0\n        nodes: " + std::string(1000, '[') +
        std::string(1000, ']') + "\n");
  EXPECT_EQ(error_of(path), path + ":5: YAML nested too deeply to read");
  // JSON (YAML's flow style) in a file not named .yaml is read as YAML.
  const std::string json = testing::TempDir() + "topology.json";
  std::ofstream(json) << R"([{"topology": "t", "tree": {"switches": [{"switch": "s0", "nodes": "cn[1-3]"}]}}])";
  EXPECT_EQ(read(json).fabric.hosts, (std::vector<std::string>{"cn1", "cn2", "cn3"}));
}

TEST(SlurmReader, LinkSpeedsStayWithinWhatSlurmKeeps) {
  const std::string path = testing::TempDir() + "speeds.conf";
  std::ofstream(path) << "SwitchName=top Switches=s[1-2] LinkSpeed=4294967295\nSwitchName=s1 Nodes=a LinkSpeed=0.001\n"
                         "SwitchName=s2 Nodes=b LinkSpeed=0\n";
  EXPECT_EQ(read(path).fabric.hosts.size(), 2u);
  std::ofstream(path) << "SwitchName=top Switches=s1 LinkSpeed=1e300\nSwitchName=s1 Nodes=a LinkSpeed=1e-300\n";
  EXPECT_EQ(error_of(path), path + ":1: LinkSpeed '1e300' is not 0 or a number from 0.001 to 4294967295");
}

TEST(SlurmReader, BadInputsNameTheFileAndLine) {
  auto bad = [](const std::string& name) { return slurm_instance(name); };
  EXPECT_EQ(error_of(bad("bad-unclosed.conf")), bad("bad-unclosed.conf") + ":3: host list 'cn[005-': unclosed '['");
  EXPECT_EQ(error_of(bad("bad-reversed.conf")), bad("bad-reversed.conf") + ":3: host list 'cn[8-5]': reversed range 8-5");
  EXPECT_EQ(error_of(bad("bad-undefined-switch.conf")),
            bad("bad-undefined-switch.conf") +
                ":1: switch 'leaf3' is listed under Switches= but never defined (no SwitchName=leaf3 line)");
  EXPECT_EQ(error_of(bad("bad-mixed.conf")),
            bad("bad-mixed.conf") +
                ":4: BlockName= line in a topology/tree file (SwitchName= on line 1): tree and block lines cannot be mixed");
  EXPECT_EQ(error_of(bad("bad-twice.conf")), bad("bad-twice.conf") + ":2: switch 'leaf1' is defined twice (first on line 1)");
  EXPECT_EQ(error_of(bad("bad-include.conf")),
            bad("bad-include.conf") + ":3: Include topology.d/more.conf: no file " + bad("topology.d/more.conf"));
  EXPECT_EQ(error_of(bad("bad-include-dir.conf")),
            bad("bad-include-dir.conf") + ":3: Include include.d: " + bad("include.d") + " is not a regular file");
  // A NUL byte, even on the first line, which tells topology.conf from topology.yaml, is named
  // with the file.
  const std::string nul = testing::TempDir() + "nul.conf";
  std::ofstream(nul, std::ios::binary) << std::string("SwitchName=s1 No\0des=n1\n", 24);
  EXPECT_EQ(error_of(nul), nul + ":1: a NUL byte at column 17: not a text file");
  // An error inside an included file names that file and its line.
  EXPECT_EQ(error_of(bad("bad-include-inner.conf")), bad("include.d/bad-leaf.conf") + ":2: host list 'cn[01-': unclosed '['");
  EXPECT_EQ(error_of(bad("bad-include-loop.conf")),
            bad("bad-include-loop.conf") + ":3: Include ./bad-include-loop.conf: " + bad("./bad-include-loop.conf") +
                " is already being read (an Include loop)");
  EXPECT_EQ(error_of(bad("bad-include-twice.conf")),
            bad("include.d/leaves.conf") + ":2: switch 'leaf1' is defined twice (first on " + bad("bad-include-twice.conf") +
                ":2)");
  EXPECT_EQ(error_of(bad("bad-quote.conf")), bad("bad-quote.conf") + ":2: unclosed '\"' in '\"n[1-4], n5'");
  EXPECT_EQ(error_of(bad("bad-linkspeed.conf")), bad("bad-linkspeed.conf") + ":1: LinkSpeed 'fast' is not 0 or a number from 0.001 to 4294967295");
  EXPECT_EQ(error_of(bad("bad-huge.conf")),
            bad("bad-huge.conf") + ":1: host list 'n[1-1000000000000]': expands to more than 4194304 names");
  EXPECT_EQ(error_of(bad("bad-flat.yaml")),
            bad("bad-flat.yaml") + ":1: topology 'everything' is flat: it names no switch and no block");
  EXPECT_EQ(error_of(bad("bad-empty.conf")), bad("bad-empty.conf") + ": defines no switch");
  EXPECT_EQ(error_of(bad("bad-hostlist.yaml")), bad("bad-hostlist.yaml") + ":5: host list 'cn[3-1]': reversed range 3-1");
  // yaml-cpp's own words after the line of the misindented key (their text varies by version).
  EXPECT_EQ(error_of(bad("bad-syntax.yaml")).rfind(bad("bad-syntax.yaml") + ":6: ", 0), 0u) << error_of(bad("bad-syntax.yaml"));
}

// bench/gen_slurm_tree.py's output read back, with the reading speed printed in lines per second.
Read read_generated(const std::string& args) {
  const auto path = (std::filesystem::temp_directory_path() / fmt::format("taskmap_slurm_{}.conf", ::getpid())).string();
  const auto gen = test::run_command(fmt::format("python3 {}/bench/gen_slurm_tree.py {} -o {}", TASKMAP_SOURCE_DIR, args, path));
  EXPECT_EQ(gen.exit_code, 0) << gen.err;
  std::size_t lines = 0;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) ++lines;
  const auto start = std::chrono::steady_clock::now();
  Read r = read(path);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::filesystem::remove(path);
  std::cout << fmt::format("gen_slurm_tree.py {}: {} lines read in {:.3f} s: {:.0f} lines/s\n", args, lines, seconds,
                           static_cast<double>(lines) / seconds);
  return r;
}

TEST(SlurmReader, GeneratedTenThousandNodeTree) {
  for (const std::string args : {"", "--flat-nodes"}) {  // nodes as ranges, then one by one
    const auto r = read_generated(args);
    EXPECT_EQ(r.fabric.hosts.size(), 10000u);  // 250 leaves x 40
    EXPECT_EQ(r.fabric.host_ports.size(), 10000u);
    EXPECT_EQ(r.fabric.switches.size(), 2u + 20 + 250);
    EXPECT_EQ(r.fabric.cables.size(), 2u * 20 + 250 * 2);  // cores x spines, every leaf under 2 spines
    EXPECT_EQ(top_names(r.fabric), (std::set<std::string>{"core1", "core2"}));
    EXPECT_EQ(gbps_between(r.fabric, "core2", "spine20"), 200.0);
    EXPECT_EQ(ports_of(r.fabric).at("cn10000"), std::vector<std::string>{"leaf250"});
    EXPECT_TRUE(r.warnings.empty());
  }
}

TEST(SlurmReader, GeneratedHundredThousandLines) {
  const auto r = read_generated("--leaves 100000 --nodes-per-leaf 1 --spines 200");
  EXPECT_EQ(r.fabric.hosts.size(), 100000u);
  EXPECT_EQ(r.fabric.switches.size(), 2u + 200 + 100000);
  EXPECT_EQ(r.fabric.cables.size(), 2u * 200 + 100000 * 2);
  EXPECT_TRUE(r.warnings.empty());
}

}  // namespace
}  // namespace taskmap
