// read_ibnetdiscover on every real file in topologies/ibnet (SOURCES.md), on hand-made files for
// each oddity and each refusal, and infiniband_gbps. Counts not in SOURCES.md are taken from the
// files with the shell command beside them (D = ../shared/data/topologies/ibnet; topograph's file
// is gzipped: zcat it to /tmp/t first).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"
#include "taskmap/topology/fabric.h"
#include "test_support.h"

namespace taskmap {
namespace {

struct Read {
  Fabric fabric;
  std::vector<std::string> warnings;

  // The one warning that contains `text` ("" when none or several do).
  std::string warning(std::string_view text) const {
    std::string found;
    int hits = 0;
    for (const auto& w : warnings) {
      if (w.find(text) != std::string::npos) {
        found = w;
        ++hits;
      }
    }
    return hits == 1 ? found : std::string();
  }
  std::uint32_t host(std::string_view name) const { return index_of(fabric.hosts, name); }
  std::uint32_t sw(std::string_view name) const { return index_of(fabric.switches, name); }
  std::size_t ports_of(std::string_view name) const {
    const auto h = host(name);
    return std::count_if(fabric.host_ports.begin(), fabric.host_ports.end(),
                         [&](const auto& p) { return p.host == h; });
  }
  std::size_t cables_between(std::string_view a, std::string_view b) const {
    const auto x = sw(a), y = sw(b);
    return std::count_if(fabric.cables.begin(), fabric.cables.end(),
                         [&](const auto& c) { return (c.a == x && c.b == y) || (c.a == y && c.b == x); });
  }
  std::size_t hosts_named_from_guid() const {
    return std::count_if(fabric.hosts.begin(), fabric.hosts.end(), [](const auto& h) { return h.starts_with("H-"); });
  }
  std::size_t host_ports_at(double gbps) const {
    return std::count_if(fabric.host_ports.begin(), fabric.host_ports.end(),
                         [&](const auto& p) { return p.gbps == gbps; });
  }
  std::size_t cables_at(double gbps) const {
    return std::count_if(fabric.cables.begin(), fabric.cables.end(), [&](const auto& c) { return c.gbps == gbps; });
  }

 private:
  static std::uint32_t index_of(const std::vector<std::string>& names, std::string_view name) {
    const auto it = std::find(names.begin(), names.end(), name);
    EXPECT_NE(it, names.end()) << "no '" << name << "'";
    return static_cast<std::uint32_t>(it - names.begin());
  }
};

Read read_file(const std::string& path, const std::string& map = "") {
  Read r;
  r.fabric = read_ibnetdiscover(path, map, [&](const std::string& w) { r.warnings.push_back(w); });
  return r;
}

std::string ibnet_data(const std::string& name) { return test::shared_data("topologies/ibnet/" + name); }

std::string error_of(const std::string& path) {
  return test::error_message([&] { read_file(path); });
}

TEST(InfinibandGbps, WidthTimesLaneDataRate) {
  // Data rates: a lane's signalling rate less its line code (8b/10b: 4/5 up to QDR; 64b/66b
  // from FDR10), the IBTA's 50, 100, 200 Gb/s per lane from HDR on.
  EXPECT_DOUBLE_EQ(infiniband_gbps("4xQDR"), 32.0);     // 4 x 10 x 8/10
  EXPECT_DOUBLE_EQ(infiniband_gbps("4xFDR10"), 40.0);   // 4 x 10.3125 x 64/66
  EXPECT_DOUBLE_EQ(infiniband_gbps("4xFDR"), 4 * 14.0625 * 64 / 66);  // 54.5
  EXPECT_DOUBLE_EQ(infiniband_gbps("1xSDR"), 2.0);      // 2.5 x 8/10
  EXPECT_DOUBLE_EQ(infiniband_gbps("4xDDR"), 16.0);     // 4 x 5 x 8/10
  EXPECT_DOUBLE_EQ(infiniband_gbps("4xEDR"), 100.0);    // 4 x 25.78125 x 64/66
  EXPECT_DOUBLE_EQ(infiniband_gbps("2xHDR"), 100.0);
  EXPECT_DOUBLE_EQ(infiniband_gbps("4xNDR"), 400.0);
  EXPECT_DOUBLE_EQ(infiniband_gbps("12xQDR"), 96.0);
  EXPECT_DOUBLE_EQ(infiniband_gbps("4x QDR"), 32.0);  // the port list's two fields  // the port list's two fields
}

TEST(InfinibandGbps, UnknownIsZero) {
  for (const char* text : {"4x???", "QDR", "3xQDR", "4xQQR", "", "x", "4x"})
    EXPECT_EQ(infiniband_gbps(text), 0.0) << text;
}

TEST(IbnetReader, TopographNdrFabric) {
  const auto path = ibnet_data("topograph_example.out.gz");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read_file(path);
  EXPECT_EQ(r.fabric.switches.size(), 40u);  // SOURCES.md
  // 122 distinct first words of CA descriptions, less localhost and ubuntu which become 3 + 2
  // hosts, plus 69 factory-described CAs named from their GUID:
  //   grep '^Ca' /tmp/t | sed 's/.*# "//' | grep -v -e Aggregation -e ^MT4129 | awk '{print $1}' | sort -u | wc -l
  EXPECT_EQ(r.fabric.hosts.size(), 120u + 3 + 2 + 69);
  EXPECT_EQ(r.hosts_named_from_guid(), 69u);  // grep -c '^Ca.*"MT4129 ConnectX7' /tmp/t
  // 582 CAs less the 40 SHARP nodes, each with one port line: grep -c '^Ca' /tmp/t
  EXPECT_EQ(r.fabric.host_ports.size(), 582u - 40);
  // 1114 links (SOURCES.md) = 582 CA links + 532 between switches
  EXPECT_EQ(r.fabric.cables.size(), 1114u - 582);
  EXPECT_EQ(r.cables_at(400.0), r.fabric.cables.size());  // all 4xNDR
  EXPECT_EQ(r.host_ports_at(400.0), r.fabric.host_ports.size());
  // grep '"a05-p1-dgx-01-c01 ' /tmp/t | grep -c '^Ca'; grep -c '^Ca.*B11-P1-CUFM-02' /tmp/t
  EXPECT_EQ(r.ports_of("a05-p1-dgx-01-c01"), 3u);
  EXPECT_EQ(r.ports_of("B11-P1-CUFM-02"), 2u);
  EXPECT_EQ(r.ports_of("localhost-e09d73030037317c"), 1u);  // "localhost HCA-6"
  EXPECT_EQ(std::count(r.fabric.hosts.begin(), r.fabric.hosts.end(), "localhost"), 0);
  // Two cables from each leaf to each spine: leaf 04-04's ports 35 and 36.
  EXPECT_EQ(r.cables_between("MF0;A09-P1-IBLEAF-04-04:MQM9701/U1", "MF0;A10-P1-IBSPINE-02:MQM9701/U1"), 2u);
  EXPECT_EQ(r.warnings.size(), 3u);
  EXPECT_NE(r.warning(": 40 SHARP aggregation nodes"), "");
  EXPECT_NE(r.warning(": 69 CAs have no host name"), "");
  EXPECT_NE(r.warning(": 5 CAs carry a host name that names no single machine (localhost x3, ubuntu x2)"), "");
}

TEST(IbnetReader, X5HostsNamedThroughTheNodeGuidMap) {
  const auto path = ibnet_data("hpctoolset_X5.topofile");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read_file(path, ibnet_data("hpctoolset_X5.map"));
  EXPECT_EQ(r.fabric.switches.size(), 11u);  // SOURCES.md
  EXPECT_EQ(r.fabric.hosts.size(), 89u);     // 89 CAs, one each
  // The map's 86 H-GUIDs are node GUIDs (caguid=), none is a port GUID:
  //   comm -12 <(grep -v '^#' D/hpctoolset_X5.map | awk '{print $1}' | sort)
  //            <(grep '^Ca' D/hpctoolset_X5.topofile | grep -o '"H-[0-9a-f]*"' | tr -d '"' | sort) | wc -l
  EXPECT_EQ(r.fabric.hosts.size() - r.hosts_named_from_guid(), 86u);
  EXPECT_EQ(r.ports_of("H-78e7d1030024535c"), 1u);  // one of the 3 the map lacks
  EXPECT_EQ(r.ports_of("sl390lin1"), 1u);
  EXPECT_EQ(r.fabric.host_ports.size(), 89u);
  EXPECT_EQ(r.fabric.cables.size(), 70u);  // SOURCES.md: 159 links, 70 switch-switch
  // awk '/^Ca/{c=1;next} /^Switch/{c=0} c && /^\[/' D/hpctoolset_X5.topofile | awk '{print $NF}' | sort | uniq -c
  EXPECT_EQ(r.host_ports_at(16.0), 23u);  // 4xDDR
  EXPECT_EQ(r.host_ports_at(32.0), 66u);  // 4xQDR
  EXPECT_EQ(r.cables_at(32.0), 70u);
  // Six parallel cables: S-...200b50 (4 switches share its description) to S-...108c5c.
  EXPECT_EQ(r.cables_between("Voltaire 4036 - 36 QDR ports switch-0008f10500200b50", "Voltaire 4036 # 4036-8C5C"), 6u);
  EXPECT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warning(": 3 CAs have no host name in their description nor in"), "");
}

TEST(IbnetReader, X5WithoutTheMapNamesEveryHostFromItsGuid) {
  const auto path = ibnet_data("hpctoolset_X5.topofile");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read_file(path);
  EXPECT_EQ(r.hosts_named_from_guid(), 89u);  // every CA says "MT25408 ConnectX Mellanox Technologies"
  EXPECT_NE(r.warning(": 89 CAs have no host name in their description: named from their GUID"), "");
}

TEST(IbnetReader, IbtopowebRocket) {
  const auto path = ibnet_data("ibtopoweb_topo");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read_file(path);
  EXPECT_EQ(r.fabric.switches.size(), 8u);  // SOURCES.md
  EXPECT_EQ(r.fabric.hosts.size(), 144u);
  // 192 links (SOURCES.md): 145 CA port lines (tank1 has 2 ports) + 94 / 2 switch port lines:
  //   awk '/^Ca/{c=1;next} /^Switch/{c=0} c && /^\[/' D/ibtopoweb_topo | wc -l
  EXPECT_EQ(r.fabric.host_ports.size(), 145u);
  EXPECT_EQ(r.fabric.cables.size(), 47u);
  EXPECT_EQ(r.ports_of("tank1"), 2u);
  EXPECT_EQ(r.cables_at(40.0), 47u);  // 4xFDR10
  EXPECT_EQ(r.host_ports_at(32.0), 145u);  // 4xQDR
  EXPECT_EQ(r.sw("MF0;ib5:SX6036/U1"), 0u);
  EXPECT_EQ(r.warnings.size(), 0u);
}

TEST(IbnetReader, ManPageSampleWithDisagreeingEnds) {
  const auto path = ibnet_data("ibtopotool_1.topo");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read_file(path);
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"ISR9024 Voltaire", "SW-6IB4 Voltaire"}));
  EXPECT_EQ(r.hosts_named_from_guid(), 4u);  // factory descriptions only
  EXPECT_EQ(r.fabric.hosts.size(), 4u);
  EXPECT_EQ(r.fabric.host_ports.size(), 5u);
  EXPECT_EQ(r.ports_of("H-0008f10403960558"), 2u);  // a 2-port HCA, both ports to the ISR9024
  EXPECT_EQ(r.cables_between("ISR9024 Voltaire", "SW-6IB4 Voltaire"), 2u);
  // Switch port 10 says 4xSDR, its peer 1xSDR; so does host port 12: the lower is kept.
  EXPECT_EQ(r.cables_at(2.0), 1u);
  EXPECT_EQ(r.host_ports_at(2.0), 1u);
  EXPECT_EQ(r.warnings.size(), 2u);
  EXPECT_NE(r.warning(": 2 cables whose two ends report different rates"), "");
  EXPECT_NE(r.warning(": 4 CAs have no host name"), "");
}

TEST(IbnetReader, OneSwitchTwoHosts) {
  const auto path = ibnet_data("ibtopotool_2.topo");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read_file(path);
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"MT43132 Mellanox Technologies"}));
  EXPECT_EQ(r.fabric.hosts, (std::vector<std::string>{"compute-00-01", "compute-00-00"}));  // block order
  EXPECT_EQ(r.fabric.host_ports.size(), 2u);
  EXPECT_EQ(r.host_ports_at(8.0), 2u);  // 4xSDR
  EXPECT_TRUE(r.fabric.cables.empty());
  EXPECT_TRUE(r.warnings.empty());
}

TEST(IbnetReader, ErrorLineLoopbacksAndTwoHcaHost) {
  const auto path = ibnet_data("ibtopotool_3.topo");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read_file(path);
  EXPECT_EQ(r.fabric.switches.size(), 2u);
  // r-ufm216, r-ufm111, r-ufm101 (HCA-1 and HCA-2), r-ufm100, r-ufm96
  EXPECT_EQ(r.fabric.hosts.size(), 5u);
  EXPECT_EQ(r.ports_of("r-ufm101"), 2u);
  EXPECT_EQ(r.fabric.host_ports.size(), 6u);
  // One cable between the two switches (4xFDR); ports 1-2, 19-21, 29-30 of the SwitchIB loop back.
  EXPECT_EQ(r.cables_between("SwitchIB Mellanox Technologies", "MF0;switch-de779e:SX6012/U1"), 1u);
  EXPECT_EQ(r.cables_at(4 * 14.0625 * 64 / 66), 1u);
  EXPECT_EQ(r.fabric.cables.size(), 1u);
  EXPECT_EQ(r.warnings.size(), 2u);
  EXPECT_NE(r.warning(": 3 cables join two ports of one switch (loopbacks): skipped"), "");
  EXPECT_NE(r.warning(": 1 lines of no ibnetdiscover form ignored (first: line 1: 'src/query_smp.c:195;"), "");
}

TEST(IbnetReader, BlankLineOfOneSpace) {
  const auto path = ibnet_data("ibtopotool_4.topo");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read_file(path);
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"Sun DCS 36 QDR switch localhost"}));
  EXPECT_EQ(r.fabric.hosts, (std::vector<std::string>{"nsn33-43"}));
  EXPECT_EQ(r.host_ports_at(32.0), 1u);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(IbnetReader, CutFileIsRefused) {
  const auto path = ibnet_data("topograph_example-bad.out");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  EXPECT_EQ(error_of(path),
            path + ":10: the file ends inside the block of Ca 'dgx-gb200-n01-c1 HCA-1' (no port lines): is it cut?");
}

// Real files cut short, as an interrupted copy leaves them: in the middle of a line (an
// unknown last line, a description never closed, a port-list line without its "' )"), or at
// a line's end, which loses the blocks after the cut.
TEST(IbnetReader, RealFilesCutShortAreRefused) {
  const auto plain = ibnet_data("ibtopoweb_topo");
  const auto ports = ibnet_data("hwloc-netloc_plafrim_ib-subnet-fe80_0000_0000_0000.txt");
  TASKMAP_REQUIRE_SHARED_DATA(plain);
  TASKMAP_REQUIRE_SHARED_DATA(ports);
  const std::string plain_text = io::read_text_file(plain), ports_text = io::read_text_file(ports);
  auto cut = [](const std::string& text, std::size_t bytes, const std::string& name) {
    const std::string path = testing::TempDir() + name;
    std::ofstream(path, std::ios::binary) << text.substr(0, bytes);
    return path;
  };
  auto last_line = [](const std::string& text, std::size_t bytes) {
    return std::to_string(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bytes), '\n') + 1);
  };
  // Within "sysimgguid=...": only its first letter is left.
  const std::size_t in_word = plain_text.find("sysimgguid", 29000) + 1;
  const auto a = cut(plain_text, in_word, "cut_word.topo");
  EXPECT_EQ(error_of(a), a + ":" + last_line(plain_text, in_word) + ": the file ends inside 's': is it cut?");
  // Five characters into the 100th description.
  std::size_t in_description = 0;
  for (int k = 0; k < 100; ++k) in_description = plain_text.find("# \"", in_description) + 3;
  in_description += 5;
  const auto b = cut(plain_text, in_description, "cut_description.topo");
  EXPECT_EQ(error_of(b), b + ":" + last_line(plain_text, in_description) +
                            ": the description after '#' has no closing '\"': is the line cut?");
  // A port-list line cut inside its peer's description.
  const std::size_t in_peer = ports_text.find("' - '", 36000) + 10;
  const auto c = cut(ports_text, in_peer, "cut_ports.txt");
  EXPECT_EQ(error_of(c), c + ":" + last_line(ports_text, in_peer) +
                            ": expected 'TYPE LID PORT 0xGUID WIDTH SPEED [- TYPE LID PORT 0xGUID ( 'DESC' - 'DESC' "
                            ")]'");
  // The first 600 lines, whole: the blocks read are those whose header comes before the cut.
  std::size_t end = 0;
  for (int k = 0; k < 600; ++k) end = plain_text.find('\n', end) + 1;
  std::istringstream head(plain_text.substr(0, end));
  std::size_t blocks = 0;
  for (std::string line; std::getline(head, line);) blocks += line.rfind("Switch", 0) == 0 || line.rfind("Ca", 0) == 0;
  const auto d = cut(plain_text, end, "cut_lines.topo");
  const std::string error = error_of(d);
  EXPECT_EQ(error.rfind(d + ": port lines lead to ", 0), 0u) << error;
  EXPECT_NE(error.find(fmt::format(" nodes that have no block of their own, {} blocks read (first: line ", blocks)),
            std::string::npos)
      << error;
  EXPECT_TRUE(error.ends_with("): is the file cut?")) << error;
}

struct PortListCase {
  const char* file;
  std::size_t switches, hosts, cables, unconnected;
};

// Port lists: SOURCES.md gives CAs / switches / links; cables = (links - CAs), as each CA has one
// cabled port; unconnected = lines with no peer:
//   grep -v '^DR path' FILE | awk '$7 != "-"' | wc -l
TEST(IbnetReader, PortListsOfNetloc) {
  const PortListCase cases[] = {
      {"hwloc-netloc_avakas_ib-subnet-fe80_0000_0000_0000.txt.gz", 25, 281, 569 - 281, 43},
      {"hwloc-netloc_plafrim_ib-subnet-fe80_0000_0000_0000.txt", 9, 125, 201 - 125, 35},
      {"hwloc-netloc_plafrim2_ib-subnet-fe80_0000_0000_0000.txt", 7, 96, 155 - 96, 38},
      {"hwloc-netloc_plafrim2_ib-subnet-fe80_0000_0000_0001.txt", 1, 23, 0, 13},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const auto path = ibnet_data(c.file);
    TASKMAP_REQUIRE_SHARED_DATA(path);
    const auto r = read_file(path);
    EXPECT_EQ(r.fabric.switches.size(), c.switches);
    EXPECT_EQ(r.fabric.hosts.size(), c.hosts);
    EXPECT_EQ(r.fabric.host_ports.size(), c.hosts);
    EXPECT_EQ(r.fabric.cables.size(), c.cables);
    EXPECT_NE(r.warning(fmt::format(": {} ports listed with no peer", c.unconnected)), "");
  }
}

TEST(IbnetReader, AvakasDirectorAsicsAreSwitches) {
  const auto path = ibnet_data("hwloc-netloc_avakas_ib-subnet-fe80_0000_0000_0000.txt.gz");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read_file(path);
  r.sw("QLogic 12800-180 GUID=0x00066a00e8001310 L112");
  r.sw("QLogic 12800-180 GUID=0x00066a00e8001310 S201A");
  // grep DDR: node008's port is the one 4x DDR link (listed from both ends).
  EXPECT_EQ(r.host_ports_at(16.0), 1u);
  EXPECT_EQ(r.ports_of("node008"), 1u);
  EXPECT_EQ(r.warnings.size(), 1u);  // the unconnected ports; the 834 DR path lines are skipped quietly
}

TEST(IbnetReader, PlafrimSecondSubnetFactoryNames) {
  const auto path = ibnet_data("hwloc-netloc_plafrim2_ib-subnet-fe80_0000_0000_0001.txt");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  const auto r = read_file(path);
  EXPECT_EQ(r.hosts_named_from_guid(), 21u);  // SOURCES.md: 21 of 23 CAs carry the factory description
  EXPECT_NE(r.warning(": 21 CAs have no host name"), "");
  EXPECT_EQ(r.ports_of("sirocco06"), 1u);
  EXPECT_EQ(r.ports_of("H-f4521403007a6d21"), 1u);  // named from its port GUID
}

TEST(IbnetReader, NetlocProcessedFileIsNotAnIbnetdiscoverOutput) {
  const auto path = test::shared_data("topologies/other/hwloc-netloc_plafrim2_IB-fe80_0000_0000_0001-nodes.txt");
  TASKMAP_REQUIRE_SHARED_DATA(path);
  EXPECT_EQ(error_of(path), path +
                                ":559: no Switch, Ca or Rt block and no port-list line: is it an ibnetdiscover "
                                "output?");  // wc -l: 559 lines
}

// Hand-made: a leaf and a spine with two cables, a spine loopback, "cn01 mlx5_0" on two CAs, a
// port to GUID 0x999 that has no block, cn02's port at "8xZZZ".
TEST(IbnetReader, HandMadeOddities) {
  const auto r = read_file(test::instance("ibnet/oddities.topo"));
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"leaf", "spine"}));
  EXPECT_EQ(r.fabric.hosts, (std::vector<std::string>{"cn01-0000000000000100", "cn01-0000000000000200", "cn02"}));
  ASSERT_EQ(r.fabric.host_ports.size(), 3u);
  EXPECT_EQ(r.fabric.host_ports[0].sw, 0u);
  EXPECT_EQ(r.fabric.host_ports[0].gbps, 100.0);  // 4xEDR
  EXPECT_EQ(r.fabric.host_ports[2].gbps, 0.0);
  ASSERT_EQ(r.fabric.cables.size(), 2u);
  EXPECT_EQ(r.cables_between("leaf", "spine"), 2u);
  EXPECT_EQ(r.cables_at(200.0), 2u);  // 4xHDR
  EXPECT_EQ(r.warnings.size(), 4u);
  const auto file = test::instance("ibnet/oddities.topo");
  EXPECT_EQ(r.warning("GUID that has no block"),
            file +
                ": 1 port lines lead to a GUID that has no block of its own: skipped (first: line 10: GUID "
                "0000000000000999)");
  EXPECT_EQ(
      r.warning("loopbacks"),
      file + ": 1 cables join two ports of one switch (loopbacks): skipped (first: line 17: 'spine' ports 7 and 8)");
  EXPECT_EQ(r.warning("single machine"),
            file +
                ": 2 CAs carry a host name that names no single machine (cn01 x2): named NAME-GUID (first: line "
                "21: 'cn01 mlx5_0' -> cn01-0000000000000100)");
  EXPECT_EQ(r.warning("rate"), file + ": 1 cables have a rate not recognised: taken as the fabric's most common cable "
                                     "rate (first: line 11: '8xZZZ')");
}

TEST(IbnetReader, ByteOrderMarkAndCrlf) {
  const auto r = read_file(test::instance("ibnet/bom_crlf.topo"));
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"leaf"}));
  EXPECT_EQ(r.fabric.hosts, (std::vector<std::string>{"cn01"}));
  EXPECT_EQ(r.host_ports_at(100.0), 1u);  // 4xEDR read without its '\r'
  EXPECT_TRUE(r.warnings.empty());
}

// A dump saved with the shell prompt of its run as line 1 ("[root@...]# ibnetdiscover", as in a
// DGX SuperPOD dump): the prompt is not a port line.
TEST(IbnetReader, ShellPromptAboveTheDump) {
  const auto file = test::instance("ibnet/prompt.topo");
  const auto r = read_file(file);
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"leaf"}));
  EXPECT_EQ(r.fabric.hosts, (std::vector<std::string>{"cn01"}));
  EXPECT_EQ(r.warnings, (std::vector<std::string>{
                            file + ": 1 lines of no ibnetdiscover form ignored (first: line 1: '[root@head01 ~]# "
                                   "ibnetdiscover')"}));
}

TEST(IbnetReader, MapMatchesPortGuids) {
  const auto r = read_file(test::instance("ibnet/oddities.topo"), test::instance("ibnet/oddities.map"));
  EXPECT_EQ(r.fabric.hosts[2], "gpu07");
}

// Hand-made port list: cn01's two CAs on one leaf (one host, two rails), a router cabled to the
// leaf (read as a switch), a port listed with a second peer, an unconnected port.
TEST(IbnetReader, HandMadePortList) {
  const auto r = read_file(test::instance("ibnet/ports.txt"));
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"leaf"}));
  // cn01: two CAs (mlx5_0, mlx5_1); cn02: one CA whose two ports the list shows apart.
  EXPECT_EQ(r.fabric.hosts, (std::vector<std::string>{"cn01", "cn02"}));
  EXPECT_EQ(r.ports_of("cn01"), 2u);
  EXPECT_EQ(r.ports_of("cn02"), 2u);
  EXPECT_TRUE(r.fabric.cables.empty());  // the one cable leads to a router
  EXPECT_EQ(r.warnings.size(), 3u);
  EXPECT_NE(r.warning(": 1 port lines give a port a second, different peer: skipped (first: line 6)"), "");
  EXPECT_NE(r.warning(": 1 ports listed with no peer (not cabled, or down): skipped (first: line 7: port 9 of "
                      "0x0000000000000010)"),
            "");
  EXPECT_NE(r.warning(": 1 routers (Rt) join subnets and no route inside this one crosses them: skipped with their "
                      "cables (first: line 4: 'router')"),
            "");
}

TEST(IbnetReader, GroupedFullOutputWithARouter) {
  // ibnetdiscover -g --full: "[ext N]" after port numbers, " s= w= v=" after the rates; a router
  // between the two leaves; switch descriptions holding quotes; cn02's CA keeps its factory
  // description, and only the leaf's port line names it (as --node-name-map writes it).
  const auto path = test::instance("ibnet/grouped_full_router.topo");
  const auto r = read_file(path);
  EXPECT_EQ(r.fabric.switches, (std::vector<std::string>{"ib-spine01", "leaf \"A\" row 1", "leaf \"B\" row 2"}));
  EXPECT_EQ(r.fabric.hosts, (std::vector<std::string>{"cn01", "cn02", "cn03", "cn04"}));
  EXPECT_EQ(r.cables_between("ib-spine01", "leaf \"A\" row 1"), 1u);
  EXPECT_EQ(r.cables_between("ib-spine01", "leaf \"B\" row 2"), 1u);
  EXPECT_EQ(r.fabric.cables.size(), 2u);        // none through the router
  EXPECT_EQ(r.cables_at(4 * 50.0), 2u);         // 4xHDR
  EXPECT_EQ(r.host_ports_at(4 * 25.0), 4u);      // 4xEDR
  EXPECT_EQ(r.warnings, std::vector<std::string>{path + ": 1 routers (Rt) join subnets and no route inside this one "
                                                        "crosses them: skipped with their cables (first: line 65: "
                                                        "'ib-router01 ib2ib')"});
}

TEST(IbnetReader, RefusesWhatHasNoMeaning) {
  const auto bad = [](const std::string& f) { return test::instance("ibnet/" + f); };
  EXPECT_EQ(error_of(bad("bad_port.topo")), bad("bad_port.topo") + ":3: port 300: cabled ports are numbered 1 to 255");
  EXPECT_EQ(error_of(bad("bad_port_count.topo")),
            bad("bad_port_count.topo") + ":1: 1000000000000 ports: a node has 1 to 255 ports");
  EXPECT_EQ(
      error_of(bad("no_block.topo")),
      bad("no_block.topo") + ":2: no Switch, Ca or Rt block and no port-list line: is it an ibnetdiscover output?");
  EXPECT_EQ(error_of(bad("bad_lid.txt")), bad("bad_lid.txt") + ":1: LID 99999: LIDs are 0 to 65535");
  EXPECT_EQ(error_of(bad("node_list.txt")), bad("node_list.txt") + ":1: a node list (ibnetdiscover -l, -H or -S) names "
                                                                   "no cable: give ibnetdiscover's default output or -p");
  // Inside a block, a '[' line that is no port line is refused where it is (a prompt is
  // forgiven only above the first block).
  EXPECT_EQ(error_of(bad("bad_port_number.topo")),
            bad("bad_port_number.topo") + ":3: expected a port line '[PORT] \"GUID\"[PORT] # ...'");
  EXPECT_EQ(error_of(bad("missing.topo")).find("cannot open"), 0u);
}

}  // namespace
}  // namespace taskmap
