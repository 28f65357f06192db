// taskmap's OpenSM engines against OpenSM itself: every InfiniBand fabric of ../shared/data and
// generated fat trees, routed by OpenSM 3.3 on a fabric simulated by ibsim
// (scripts/opensm_routes.sh: its tables as dump_fts reads them back from the switches) and by
// `taskmap routes --routing opensm:ENGINE`. Where OpenSM ran the engine, every (switch, LID)
// entry must be identical; where it gave up and fell back to minhop (its log says so), taskmap
// must refuse with one line. The tables are compared here by a reader of their own, not
// taskmap's.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>

#include "test_support.h"
#include "taskmap/core/text_source.h"

namespace taskmap {
namespace {

namespace fs = std::filesystem;

using Tables = std::map<std::pair<std::uint64_t, std::uint32_t>, int>;  // (switch GUID, LID) -> port

Tables read_tables(const std::string& path) {
  static const std::regex header("^Unicast lids .* guid 0x([0-9a-f]+) ");
  static const std::regex entry("^0x([0-9a-f]{4}) ([0-9]{3}) :");
  Tables t;
  std::ifstream in(path);
  std::uint64_t guid = 0;
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, header)) guid = std::stoull(m[1], nullptr, 16);
    else if (std::regex_search(line, m, entry)) t[{guid, std::stoul(m[1], nullptr, 16)}] = std::stoi(m[2]);
  }
  return t;
}

// One line of OpenSM's summary ("engine used: minhop"), or "".
std::string summary_field(const std::string& summary, const std::string& key) {
  std::ifstream in(summary);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(key + ": ")) return line.substr(key.size() + 2);
  }
  return "";
}

// A k-ary n-tree (k hosts per leaf switch; levels of k^(n-1) switches; switch w of level l
// cabled to the k switches of level l+1 that differ from w in digit l) as ibnetdiscover prints
// it, with LIDs: switches first, then hosts. `cut` removes one cable between levels 0 and 1;
// `sibling` (a level) cables switches 0 and 1 of that level together on an extra port 2k + 1.
std::string fat_tree(std::uint32_t k, std::uint32_t n, bool cut = false, int sibling = -1) {
  std::uint32_t per_level = 1;
  for (std::uint32_t i = 1; i < n; ++i) per_level *= k;
  auto sw_guid = [&](std::uint32_t level, std::uint32_t w) { return 0x1000u + level * 0x100u + w; };
  auto sw_lid = [&](std::uint32_t level, std::uint32_t w) { return 1 + level * per_level + w; };
  auto host_lid = [&](std::uint32_t leaf, std::uint32_t h) { return 1 + n * per_level + leaf * k + h; };
  auto digit = [&](std::uint32_t w, std::uint32_t l) {
    for (std::uint32_t i = 0; i < l; ++i) w /= k;
    return w % k;
  };
  auto with_digit = [&](std::uint32_t w, std::uint32_t l, std::uint32_t d) {
    std::uint32_t p = 1;
    for (std::uint32_t i = 0; i < l; ++i) p *= k;
    return w - digit(w, l) * p + d * p;
  };
  auto skip = [&](std::uint32_t level, std::uint32_t w, std::uint32_t up) { return cut && level == 0 && w == 0 && up == 0; };
  std::string out;
  for (std::uint32_t level = 0; level < n; ++level) {
    for (std::uint32_t w = 0; w < per_level; ++w) {
      const bool paired = static_cast<int>(level) == sibling && w < 2;
      out += fmt::format("Switch\t{} \"S-{:016x}\"\t\t# \"sw-{}-{}\" enhanced port 0 lid {} lmc 0\n", 2 * k + 1,
                         sw_guid(level, w), level, w, sw_lid(level, w));
      if (paired) {
        out += fmt::format("[{}]\t\"S-{:016x}\"[{}]\t\t# \"sw-{}-{}\" lid {} 4xEDR\n", 2 * k + 1, sw_guid(level, 1 - w),
                           2 * k + 1, level, 1 - w, sw_lid(level, 1 - w));
      }
      for (std::uint32_t d = 0; d < k; ++d) {  // down: hosts, or the level below
        if (level == 0) {
          out += fmt::format("[{}]\t\"H-{:016x}\"[1]({:016x})\t\t# \"h{}-{} mlx5_0\" lid {} 4xEDR\n", d + 1,
                             0x100000u + w * k + d, 0x100000u + w * k + d + 1, w, d, host_lid(w, d));
        } else {
          const std::uint32_t below = with_digit(w, level - 1, d);
          if (skip(level - 1, below, digit(w, level - 1))) continue;
          out += fmt::format("[{}]\t\"S-{:016x}\"[{}]\t\t# \"sw-{}-{}\" lid {} 4xEDR\n", d + 1, sw_guid(level - 1, below),
                             k + 1 + digit(w, level - 1), level - 1, below, sw_lid(level - 1, below));
        }
      }
      if (level + 1 == n) continue;
      for (std::uint32_t u = 0; u < k; ++u) {  // up
        if (skip(level, w, u)) continue;
        const std::uint32_t above = with_digit(w, level, u);
        out += fmt::format("[{}]\t\"S-{:016x}\"[{}]\t\t# \"sw-{}-{}\" lid {} 4xEDR\n", k + 1 + u, sw_guid(level + 1, above),
                           digit(w, level) + 1, level + 1, above, sw_lid(level + 1, above));
      }
    }
  }
  for (std::uint32_t w = 0; w < per_level; ++w) {
    for (std::uint32_t d = 0; d < k; ++d) {
      out += fmt::format("\nCa\t1 \"H-{:016x}\"\t\t# \"h{}-{} mlx5_0\"\n", 0x100000u + w * k + d, w, d);
      out += fmt::format("[1]({:016x}) \t\"S-{:016x}\"[{}]\t\t# lid {} lmc 0 \"sw-0-{}\" lid {} 4xEDR\n",
                         0x100000u + w * k + d + 1, sw_guid(0, w), d + 1, host_lid(w, d), w, sw_lid(0, w));
    }
  }
  return out;
}

struct Case {
  std::string name, fabric, engine, roots;  // roots: a file of GUIDs (0x...), for -a and roots=
  bool irreproducible = false;  // OpenSM runs the engine, but taskmap must refuse (one line)
  int lmc = 0;                   // OpenSM's -l, taskmap's lmc=
};

// Runs OpenSM on every case (two at a time) and compares.
void expect_opensm_tables(const std::vector<Case>& cases, const std::string& dir) {
  std::string jobs;
  for (const Case& c : cases) {
    jobs += fmt::format("'{}' '{}' '{}/{}.osm'{}{}\n", c.fabric, c.engine, dir, c.name,
                        c.roots.empty() ? "" : fmt::format(" -a '{}'", c.roots), c.lmc ? fmt::format(" -l {}", c.lmc) : "");
  }
  std::ofstream(dir + "/jobs") << jobs;
  const auto runs = test::run_command(fmt::format("xargs -P 2 -L 1 bash '{}/scripts/opensm_routes.sh' < '{}/jobs'",
                                                  TASKMAP_SOURCE_DIR, dir));
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string osm = dir + "/" + c.name + ".osm", ours = dir + "/" + c.name + ".taskmap";
    const std::string used = summary_field(osm + ".log-summary", "engine used");
    const auto r = test::run_taskmap(fmt::format("routes --machine 'ibnet:{}' --routing 'opensm:{}{}' --out '{}'", c.fabric,
                                                 c.engine, (c.roots.empty() ? "" : ",roots=" + c.roots) + (c.lmc ? fmt::format(",lmc={}", c.lmc) : ""), ours));
    if (used != c.engine || c.irreproducible) {  // OpenSM gave up and used minhop, or its tables are not reproducible
      EXPECT_EQ(summary_field(osm + ".log-summary", "status"), c.irreproducible ? "ran" : "fell back");
      // One error line (after the fabric reader's warnings, if any), naming the engine.
      EXPECT_EQ(r.exit_code, 1) << r.err;
      const auto error = r.err.find("taskmap: error: ");
      EXPECT_EQ(r.err.find("taskmap: error: opensm:" + c.engine + ": "), error) << r.err;
      EXPECT_EQ(r.err.find('\n', error), r.err.size() - 1) << r.err;
      continue;
    }
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Tables theirs = read_tables(osm), mine = read_tables(ours);
    ASSERT_FALSE(theirs.empty());
    std::size_t same = 0;
    std::string first_difference;
    for (const auto& [key, port] : theirs) {
      const auto it = mine.find(key);
      if (it != mine.end() && it->second == port) {
        ++same;
      } else if (first_difference.empty()) {
        first_difference = fmt::format("switch 0x{:016x} LID {}: OpenSM {}, taskmap {}", key.first, key.second, port,
                                       it == mine.end() ? -1 : it->second);
      }
    }
    EXPECT_EQ(same, theirs.size()) << first_difference;
    EXPECT_EQ(mine.size(), theirs.size());
  }
}

std::string make_dir(const std::string& name) {
  const std::string dir = test::temp_path("opensm", name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

const std::vector<std::string> kEngines = {"minhop", "updn", "dnup", "dfsssp", "ftree"};

// Every InfiniBand file of the data, every engine; X5's spine switches (the site's own list) as
// the roots of updn and ftree too. Under the sanitizers, the fabrics of fewer than 150 hosts.
TEST(OpenSmEngines, IdenticalTablesOnEveryRealFabric) {
  const std::string ibnet = test::shared_data("topologies/ibnet/");
  TASKMAP_REQUIRE_SHARED_DATA(ibnet);
  TASKMAP_REQUIRE_TOOL("command -v opensm && command -v ibsim && command -v dump_fts", "opensm, ibsim and dump_fts");
  const std::string dir = make_dir("real");
  std::vector<std::string> fabrics = {"ibtopotool_1.topo", "ibtopotool_2.topo", "ibtopotool_3.topo", "ibtopotool_4.topo",
                                      "hpctoolset_X5.topofile", "hwloc-netloc_plafrim2_ib-subnet-fe80_0000_0000_0001.txt"};
  if (!TASKMAP_TESTS_SANITIZED) {
    for (const char* f : {"ibtopoweb_topo", "topograph_example.out.gz", "hwloc-netloc_avakas_ib-subnet-fe80_0000_0000_0000.txt.gz",
                          "hwloc-netloc_plafrim_ib-subnet-fe80_0000_0000_0000.txt",
                          "hwloc-netloc_plafrim2_ib-subnet-fe80_0000_0000_0000.txt"}) {
      fabrics.emplace_back(f);
    }
  }
  std::vector<Case> cases;
  for (const std::string& f : fabrics) {
    for (const std::string& e : kEngines) cases.push_back({f + "." + e, ibnet + f, e, ""});
  }
  // The site's spine list, in OpenSM's root file form (0x...), for OpenSM and for taskmap.
  std::string roots;
  for (const io::TextFile& spine : io::read_text_files(ibnet + "hpctoolset_X5.spine")) {
    io::LineCursor cur(spine.name, spine.text);
    while (auto line = cur.next_content_line("#")) roots += "0x" + std::string(line->substr(2)) + "\n";
  }
  std::ofstream(dir + "/x5.roots") << roots;
  for (const char* e : {"updn", "ftree"}) {
    cases.push_back({fmt::format("x5-spines.{}", e), ibnet + "hpctoolset_X5.topofile", e, dir + "/x5.roots"});
  }
  // With an LMC, ports whose file LIDs are not aligned move (the subnet manager's own port
  // first: port 1 of the CA that ran the discovery, where the script attaches OpenSM): X5's
  // "Initiated from" line, PlaFRIM2's discovery trace; NDR at LMC 2.
  for (const char* e : {"minhop", "updn", "dfsssp"}) {
    cases.push_back({fmt::format("x5-lmc1.{}", e), ibnet + "hpctoolset_X5.topofile", e, "", false, 1});
  }
  cases.push_back({"plafrim2-1-lmc1.minhop", ibnet + "hwloc-netloc_plafrim2_ib-subnet-fe80_0000_0000_0001.txt", "minhop", "", false, 1});
  if (!TASKMAP_TESTS_SANITIZED) {
    cases.push_back({"ndr-lmc2.minhop", ibnet + "topograph_example.out.gz", "minhop", "", false, 2});
    cases.push_back({"plafrim2-lmc1.dfsssp", ibnet + "hwloc-netloc_plafrim2_ib-subnet-fe80_0000_0000_0000.txt", "dfsssp", "", false, 1});
  }
  expect_opensm_tables(cases, dir);
  fs::remove_all(dir);
}

// sm= names the subnet manager's port: X5's "Initiated from" CA (node 0x0002c90300080e84, port
// ...e85) by either GUID gives the default's tables; at LMC 1 another CA moves other LIDs; a
// GUID the fabric does not have is refused in one line.
TEST(OpenSmEngines, SmPortByGuid) {
  const std::string x5 = test::shared_data("topologies/ibnet/hpctoolset_X5.topofile");
  TASKMAP_REQUIRE_SHARED_DATA(x5);
  const std::string dir = make_dir("sm");
  auto tables = [&](const std::string& options, const std::string& name) {
    const auto r = test::run_taskmap(fmt::format("routes --machine 'ibnet:{}' --routing 'opensm:minhop,lmc=1{}' --out '{}/{}'",
                                                 x5, options, dir, name));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return read_tables(dir + "/" + name);
  };
  const Tables by_default = tables("", "default");
  ASSERT_EQ(by_default.size(), 2079u);
  EXPECT_EQ(tables(",sm=0x0002c90300080e85", "port"), by_default);
  EXPECT_EQ(tables(",sm=H-0002c90300080e84", "node"), by_default);
  EXPECT_NE(tables(",sm=0x0002c90300080d29", "other"), by_default);
  const auto r = test::run_taskmap(fmt::format("routes --machine 'ibnet:{}' --routing 'opensm:minhop,lmc=1,sm=0xdeadbeef' --out '{}/bad'", x5, dir));
  EXPECT_EQ(r.exit_code, 1);
  // One error line, the last (after the reader's warnings), naming the GUID.
  const auto error = r.err.find("taskmap: error: opensm: sm=0x00000000deadbeef: ");
  ASSERT_NE(error, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n', error), r.err.size() - 1) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/bad"));
  fs::remove_all(dir);
}

// Fat trees of 2 and 3 levels, and one with a cable missing (ftree gives up on it without roots
// and routes it with the top level as roots).
TEST(OpenSmEngines, IdenticalTablesOnGeneratedFatTrees) {
  TASKMAP_REQUIRE_TOOL("command -v opensm && command -v ibsim && command -v dump_fts", "opensm, ibsim and dump_fts");
  const std::string dir = make_dir("trees");
  struct Tree {
    std::string name;
    std::uint32_t k, n;
    bool cut;
  };
  std::vector<Case> cases;
  for (const Tree& t : {Tree{"k4n2", 4, 2, false}, Tree{"k4n3", 4, 3, false}, Tree{"k6n2", 6, 2, false},
                        Tree{"k4n3-cut", 4, 3, true}}) {
    const std::string path = dir + "/" + t.name + ".topo";
    std::ofstream(path) << fat_tree(t.k, t.n, t.cut);
    for (const std::string& e : kEngines) cases.push_back({t.name + "." + e, path, e, ""});
  }
  // A cable between two spines: ftree routes it like the others. A cable between two leaves with
  // hosts: OpenSM's ftree orders those leaves' CA ports by its memory addresses; taskmap refuses.
  std::ofstream(dir + "/k4n2-spines.topo") << fat_tree(4, 2, false, 1);
  cases.push_back({"k4n2-spines.ftree", dir + "/k4n2-spines.topo", "ftree", ""});
  std::ofstream(dir + "/k4n2-leaves.topo") << fat_tree(4, 2, false, 0);
  cases.push_back({"k4n2-leaves.ftree", dir + "/k4n2-leaves.topo", "ftree", "", true});
  std::string top;
  for (std::uint32_t w = 0; w < 16; ++w) top += fmt::format("0x{:016x}\n", 0x1000u + 2 * 0x100u + w);
  std::ofstream(dir + "/k4n3.roots") << top;
  cases.push_back({"k4n3-cut.ftree-roots", dir + "/k4n3-cut.topo", "ftree", dir + "/k4n3.roots"});
  expect_opensm_tables(cases, dir);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace taskmap
