// The cluster day end to end through the CLI: a Slurm fabric, the job's nodes from --nodes or
// the scheduler's environment, launcher files with the real host names, the gain over the
// launchers' defaults.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "test_support.h"

namespace taskmap {
namespace {

std::string fabric() { return "slurm:" + test::instance("cluster/two-leaves.conf") + ",ppn=2"; }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(ClusterCommands, MapOnTheJobsNodesWritesTheirNames) {
  const std::string out = testing::TempDir() + "rankfile";
  const auto r = test::run_taskmap("map --machine '" + fabric() + "' --nodes 'cn[02-04]' --pattern halo2d:2x3 " +
                                   "--mapper scotch+refine-hb --out-format openmpi-rankfile --out '" + out + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");  // stdout stays free for --out -
  const auto err = lines_of(r.err);
  EXPECT_NE(std::find(err.begin(), err.end(), "taskmap: allocation from --nodes: 3 nodes, 6 slots"), err.end()) << r.err;
  for (const char* prefix : {"scotch+refine-hb:", "hostname-order (launcher default):", "cyclic (launcher default):"}) {
    EXPECT_EQ(std::count_if(err.begin(), err.end(), [&](const std::string& l) { return l.rfind(prefix, 0) == 0; }), 1)
        << prefix << "\n" << r.err;
  }
  std::ifstream in(out);
  std::set<std::string> hosts;
  std::set<std::pair<std::string, std::string>> slots;
  int ranks = 0;
  for (std::string line; std::getline(in, line); ++ranks) {
    const auto eq = line.find('='), sp = line.find(' ', eq);
    hosts.insert(line.substr(eq + 1, sp - eq - 1));
    slots.insert({line.substr(eq + 1, sp - eq - 1), line.substr(sp + 1)});
  }
  EXPECT_EQ(ranks, 6);
  EXPECT_EQ(hosts, (std::set<std::string>{"cn02", "cn03", "cn04"}));
  EXPECT_EQ(slots.size(), 6u);  // every (host, core) once
}

// auto's concurrent searches stay within --threads: no TBB warning on stderr about a request
// for more workers than allowed.
TEST(ClusterCommands, OneThreadLeavesStderrToTaskmap) {
  const auto r = test::run_taskmap("map --machine '" + fabric() + "' --pattern halo2d:4x3 --threads 1 --out-format plain --out -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("TBB"), std::string::npos) << r.err;  // its warning came with up to 4 searches at once
}

TEST(ClusterCommands, TheSchedulersEnvironmentGivesTheNodes) {
  const std::string env = "SLURM_JOB_NODELIST='cn[01,05]' SLURM_TASKS_PER_NODE='2,1' ";
  const auto r = test::run_command(env + TASKMAP_BINARY + std::string(" info --machine '") + fabric() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("taskmap: allocation from $SLURM_JOB_NODELIST with $SLURM_TASKS_PER_NODE: 2 nodes, 3 slots"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("3 on 2 nodes (1 to 2 per node)"), std::string::npos) << r.out;
  // --nodes wins over the environment; a synthetic machine ignores it.
  const auto given = test::run_command(env + TASKMAP_BINARY + std::string(" info --machine '") + fabric() +
                                       "' --nodes cn03");
  EXPECT_NE(given.err.find("allocation from --nodes: 1 node, 2 slots"), std::string::npos) << given.err;
  const auto torus = test::run_command(env + TASKMAP_BINARY + std::string(" info --machine torus:2x2"));
  EXPECT_EQ(torus.exit_code, 0);
  EXPECT_EQ(torus.err, "");
}

TEST(ClusterCommands, NodesFromAFileWhosePathHoldsSpecialCharacters) {
  const auto dir = std::filesystem::path(testing::TempDir()) / "N=64,ppn=2 'x' é";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "hosts") << "cn01 slots=1\ncn06 slots=2\n";
  const std::string arg = "@" + (dir / "hosts").string();
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  const auto r = test::run_taskmap("info --machine '" + fabric() + "' --nodes " + quoted);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("3 slots"), std::string::npos) << r.err;
  std::filesystem::remove(dir / "hosts");
  const auto missing = test::run_taskmap("info --machine '" + fabric() + "' --nodes " + quoted);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find((dir / "hosts").string()), std::string::npos) << missing.err;
}

TEST(ClusterCommands, BadAllocationsGetOneLine) {
  struct Case {
    std::string args, error;
  };
  const std::string m = "info --machine '" + fabric() + "' ";
  const std::vector<Case> cases = {
      {m + "--nodes 'cn[01-'", "taskmap: error: --nodes: host list 'cn[01-': unclosed '['\n"},
      {m + "--nodes 'cn[05-03]'", "taskmap: error: --nodes: host list 'cn[05-03]': reversed range 05-03\n"},
      {m + "--nodes cn07", "taskmap: error: --nodes: host 'cn07' is not in machine '" + fabric() +
                               "' (closest: cn01, cn02, cn03)\n"},
      {m + "--nodes @" + test::instance("cluster/bad-count.hosts"),
       "taskmap: error: " + test::instance("cluster/bad-count.hosts") +
           ":2: slots='two' is not a slot count (1 to 1048576)\n"},
      {"info --machine torus:2x2 --nodes cn01",
       "taskmap: error: --nodes: machine 'torus:2x2' has no host names; an allocation needs a machine read from the "
       "cluster's files (slurm:, ibnet:, aries:)\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const auto r = test::run_taskmap(c.args);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, c.error);
  }
}

// Slips of a scheduler's environment or of the user, each one line: a Slurm count of 0 tasks,
// an empty --nodes (command-line misuse), counts above an explicit ppn=, a $PBS_NODEFILE that
// does not exist. A fully qualified name is found by its short name, with a warning.
TEST(ClusterCommands, AllocationSlipsAreNamed) {
  const std::string info = std::string(TASKMAP_BINARY) + " info --machine '" + fabric() + "'";
  const auto zero = test::run_command("SLURM_JOB_NODELIST='cn[01-02]' SLURM_TASKS_PER_NODE='1,0' " + info);
  EXPECT_EQ(zero.exit_code, 1);
  EXPECT_EQ(zero.err, "taskmap: error: $SLURM_TASKS_PER_NODE '1,0' gives host 'cn02' 0 slots\n");
  const auto empty = test::run_taskmap("info --machine '" + fabric() + "' --nodes ''");
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("an empty host list"), std::string::npos) << empty.err;
  const std::string hosts = testing::TempDir() + "three.hosts";
  std::ofstream(hosts) << "cn01 slots=3\n";
  const auto over = test::run_taskmap("info --machine '" + fabric() + "' --nodes @" + hosts);
  EXPECT_EQ(over.exit_code, 1);
  EXPECT_EQ(over.err, "taskmap: error: " + hosts + ":1: host 'cn01' is given 3 slots but machine '" + fabric() +
                          "' has 2 per node (ppn=2); give no ppn= to take the allocation's counts\n");
  const std::string no_ppn = "slurm:" + test::instance("cluster/two-leaves.conf");
  const auto taken = test::run_taskmap("info --machine '" + no_ppn + "' --nodes @" + hosts);
  EXPECT_EQ(taken.exit_code, 0) << taken.err;
  EXPECT_NE(taken.err.find("1 node, 3 slots"), std::string::npos) << taken.err;
  const auto pbs = test::run_command("PBS_NODEFILE=/nonexistent/nodes " + info);
  EXPECT_EQ(pbs.exit_code, 1);
  EXPECT_EQ(pbs.err, "taskmap: error: $PBS_NODEFILE names '/nonexistent/nodes', which does not exist\n");
  const auto qualified = test::run_taskmap("info --machine '" + fabric() + "' --nodes cn01.cluster.local,cn02");
  EXPECT_EQ(qualified.exit_code, 0) << qualified.err;
  EXPECT_EQ(qualified.err, "taskmap: warning: --nodes: 1 host found by the name before the first '.', e.g. "
                           "'cn01.cluster.local' as 'cn01'\ntaskmap: allocation from --nodes: 2 nodes, 4 slots\n");
}

// More slips, each one line: a mistyped key after the fabric's path (read as part of the path,
// which then does not exist), a rankfile naming a host outside the allocation or one core twice
// (named as the file names it), a control byte of a host file (shown escaped, not sent to the
// terminal). `--nodes all` leaves the scheduler's environment aside.
TEST(ClusterCommands, SlipsNameTheKeyTheHostAndTheCore) {
  const std::string conf = test::instance("cluster/two-leaves.conf");
  const auto key = test::run_taskmap("info --machine 'slurm:" + conf + ",PPN=2'");
  EXPECT_EQ(key.exit_code, 1);
  EXPECT_EQ(key.err, "taskmap: error: --machine 'slurm:" + conf + ",PPN=2': slurm: unknown parameter 'PPN'; did you "
                     "mean 'ppn'?\n");
  // A name too long for the file system is no key typo: the reader says the file cannot be opened.
  const auto overlong = test::run_taskmap("info --machine 'graph:/tmp/" + std::string(300, 'a') + ",foo=1'");
  EXPECT_EQ(overlong.exit_code, 1);
  EXPECT_NE(overlong.err.find("cannot open"), std::string::npos) << overlong.err;

  const std::string rankfile = testing::TempDir() + "outside.rankfile";
  std::ofstream(rankfile) << "rank 0=cn01 slot=0\nrank 1=cn01 slot=1\nrank 2=cn05 slot=0\nrank 3=cn01 slot=1\n";
  const std::string eval = "eval --machine '" + fabric() + "' --pattern halo2d:2x2 --mapping-format openmpi-rankfile "
                           "--mapping " + rankfile;
  const auto outside = test::run_taskmap(eval + " --nodes 'cn[01-02]'");
  EXPECT_EQ(outside.exit_code, 1);
  EXPECT_TRUE(outside.err.ends_with("\ntaskmap: error: " + rankfile + ":3: host cn05 is not one of the job's nodes (it "
                                    "has no slot in this run's allocation)\n")) << outside.err;
  const auto twice = test::run_taskmap(eval + " --nodes cn01,cn05");
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_TRUE(twice.err.ends_with("\ntaskmap: error: " + rankfile + ":4: cn01 slot=1 is already taken by task 1 (line 2)\n"))
      << twice.err;
  // Without --nodes, a rankfile's hosts are the job's nodes: the launchers' defaults it is
  // compared with run there too (cn01 and cn05, one leaf apart: both orders cut the 2x2 halo
  // the same way).
  std::ofstream(rankfile) << "rank 0=cn05 slot=0\nrank 1=cn05 slot=1\nrank 2=cn01 slot=0\nrank 3=cn01 slot=1\n";
  const auto own = test::run_taskmap(eval);
  ASSERT_EQ(own.exit_code, 0) << own.err;
  EXPECT_NE(own.err.find("taskmap: allocation from the hosts of " + rankfile + ": 2 nodes, 4 slots\n"),
            std::string::npos) << own.err;
  std::ofstream(rankfile) << "rank 0=cn05 slot=0\nrank 1=cn05 slot=1\nrank 2=cn99 slot=0\nrank 3=cn01 slot=1\n";
  const auto unknown = test::run_taskmap(eval);
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "taskmap: error: " + rankfile + ":3: host 'cn99' is not in machine '" + fabric() +
                             "' (closest: cn01, cn02, cn03)\n");

  const std::string hosts = testing::TempDir() + "control.hosts";
  std::ofstream(hosts) << "cn01 oops\rtaskmap: all fine\n";
  const auto control = test::run_taskmap("info --machine '" + fabric() + "' --nodes @" + hosts);
  EXPECT_EQ(control.exit_code, 1);
  EXPECT_EQ(control.err.find('\r'), std::string::npos) << control.err;
  EXPECT_NE(control.err.find("oops\\x0dtaskmap"), std::string::npos) << control.err;

  const std::string env = "SLURM_JOB_NODELIST='cn[01,05]' SLURM_TASKS_PER_NODE='2,1' ";
  const auto all = test::run_command(env + TASKMAP_BINARY + " info --machine '" + fabric() + "' --nodes all");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.err, "");  // no allocation: every node of the fabric
  EXPECT_NE(all.out.find("12 on 6 nodes"), std::string::npos) << all.out;
}

// The hand-made Dragonfly of tests/routing/dragonfly_files.cpp, one slot per router, flows
// a00 -> b0 and a01 -> b0 placed by `default` on routers 0, 1 and 4: the MCL and the mean
// routed hops derived there for each routing (ecmp, the default, 2 and 1.5: both flows take
// a01 -> b0; minimal 1 and 2.5; valiant 2 and (4 + 3) / 2; ugal 1 and (2.5 + 3) / 2).
TEST(ClusterCommands, DragonflyFilesTakeTheDragonflyRoutings) {
  const std::string base = "eval --machine aries:" + test::instance("aries/three-groups.dragonfly") +
                           " --pattern file:" + test::instance("aries/two-flows.edges") +
                           ",format=edges,tasks=7 --mapper default --format json";
  struct Case {
    const char* routing;
    const char* mcl;
    const char* hops;
  };
  for (const Case& c : {Case{"", "2.0", "1.5"}, Case{"minimal", "1.0", "2.5"}, Case{"valiant", "2.0", "3.5"},
                        Case{"ugal", "1.0", "2.75"}}) {
    SCOPED_TRACE(c.routing);
    const auto r = test::run_taskmap(base + (*c.routing ? std::string(" --routing ") + c.routing : ""));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(fmt::format("\n  \"mcl\": {},\n", c.mcl)), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(fmt::format("\"avg_routed_hops\": {},", c.hops)), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(fmt::format("\"routing\": \"{}\"", *c.routing ? c.routing : "ecmp")), std::string::npos);
  }
}

TEST(ClusterCommands, ANodeTopologyFixesTheSlotsPerNode) {
  const std::string xml = test::instance("hwloc/partly-allowed.xml");
  const auto r = test::run_taskmap("info --machine '" + fabric() + "' --node-topology 'hwloc:" + xml + "' --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string hosts = testing::TempDir() + "too-many.hosts";
  std::ofstream(hosts) << "cn01 slots=64\n";
  const auto bad = test::run_taskmap("info --machine '" + fabric() + "' --node-topology 'hwloc:" + xml +
                                     "' --nodes '@" + hosts + "'");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  EXPECT_NE(bad.err.find("host 'cn01' is given 64 slots but the node topology " + xml + " has"), std::string::npos)
      << bad.err;
}

// partly-allowed.xml allows 2 cores: a ppn= that disagrees is replaced, and said so once; two
// node topologies (machine key and option) are refused.
TEST(ClusterCommands, ANodeTopologyReplacesADisagreeingPpnAndComesFromOnePlace) {
  const std::string xml = test::instance("hwloc/partly-allowed.xml");
  const std::string conf = test::instance("cluster/two-leaves.conf");
  const auto r = test::run_taskmap("info --machine 'slurm:" + conf + ",ppn=4' --node-topology 'hwloc:" + xml +
                                   "' --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Its 3 cores, of which the allowed cpuset (PUs 1 and 2) touches 2.
  EXPECT_EQ(r.err, "taskmap: warning: hwloc:" + xml + " gives 2 slots per node (cores, the 2 of its 3 that the file "
                   "allows: it was written inside a restricted cpuset, as a job's cgroup is): they replace ppn=4\n");
  EXPECT_NE(r.out.find("\"slots_per_node\": 2"), std::string::npos) << r.out;
  const auto agreeing = test::run_taskmap("info --machine 'slurm:" + conf + ",ppn=2,node=hwloc:" + xml + "'");
  ASSERT_EQ(agreeing.exit_code, 0) << agreeing.err;
  EXPECT_EQ(agreeing.err.find("warning"), std::string::npos) << agreeing.err;
  const auto both = test::run_taskmap("info --machine 'slurm:" + conf + ",node=hwloc:" + xml +
                                      "' --node-topology 'hwloc:" + xml + "'");
  EXPECT_EQ(both.exit_code, 2);  // command-line misuse
  EXPECT_EQ(both.err, "taskmap: error: --node-topology hwloc:" + xml + " and --machine's node=hwloc:" + xml +
                          ": two node topologies; give one (see taskmap --help)\n");
  // smt.xml: the same 3 cores of 2 hardware threads, all allowed; the option counts in the
  // machine's slots= unit.
  const std::string smt = test::instance("hwloc/smt.xml");
  for (const auto& [unit, slots] : {std::pair{"", 3}, std::pair{",slots=pu", 6}}) {
    const auto counted = test::run_taskmap("info --machine 'slurm:" + conf + unit + "' --node-topology 'hwloc:" + smt +
                                           "' --format json");
    ASSERT_EQ(counted.exit_code, 0) << counted.err;
    EXPECT_NE(counted.out.find(fmt::format("\"slots_per_node\": {}", slots)), std::string::npos) << unit;
  }
  // Slurm counts the 6 hardware threads as CPUs: 6 slots on 3 cores says how to have them.
  const auto threads = test::run_taskmap("info --machine 'slurm:" + conf + "' --node-topology 'hwloc:" + smt +
                                         "' --nodes @" + test::instance("cluster/six-per-node.hosts"));
  EXPECT_EQ(threads.exit_code, 1);
  EXPECT_EQ(threads.err, "taskmap: error: " + test::instance("cluster/six-per-node.hosts") +
                             ":2: host 'cn01' is given 6 slots but the node topology " + smt +
                             " has 3 (slots=pu in the machine makes its 6 hardware threads the slots)\n");
  // slots=pu without a node topology changes nothing: said.
  const auto flat = test::run_taskmap("info --machine 'slurm:" + conf + ",slots=pu'");
  EXPECT_EQ(flat.exit_code, 0);
  EXPECT_NE(flat.err.find("slots=pu counts a node topology's hardware threads, and no node topology is given"),
            std::string::npos) << flat.err;
  // 7 slots are more than the hardware threads too: no hint then.
  const std::string seven = testing::TempDir() + "seven.hosts";
  std::ofstream(seven) << "cn01 slots=7\n";
  const auto more = test::run_taskmap("info --machine 'slurm:" + conf + "' --node-topology 'hwloc:" + smt + "' --nodes @" + seven);
  EXPECT_EQ(more.err, "taskmap: error: " + seven + ":1: host 'cn01' is given 7 slots but the node topology " + smt + " has 3\n");
}

// smt.xml: 3 cores of 2 hardware threads, PUs P#0-5 in logical order (core c holds 2c, 2c+1).
// With slots=pu, a rankfile's slot= is the PU's logical index, which mpirun reads as such under
// --use-hwthread-cpus (as a core's without it), and map says so; the file reads back.
TEST(ClusterCommands, RankfileSlotsAreHardwareThreadsUnderSlotsPu) {
  const std::string conf = test::instance("cluster/two-leaves.conf");
  const std::string smt = test::instance("hwloc/smt.xml");
  const std::string out = testing::TempDir() + "pu.rankfile";
  const std::string job = "--machine 'slurm:" + conf + ",slots=pu' --node-topology 'hwloc:" + smt +
                          "' --nodes cn01 --pattern halo2d:2x3,periodic=false";
  const auto r = test::run_taskmap("map " + job + " --mapper hostname-order --out-format openmpi-rankfile --out '" +
                                   out + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "rank 0=cn01 slot=0\nrank 1=cn01 slot=1\nrank 2=cn01 slot=2\nrank 3=cn01 slot=3\n"
                  "rank 4=cn01 slot=4\nrank 5=cn01 slot=5\n");
  EXPECT_NE(r.err.find("launch with mpirun --use-hwthread-cpus --rankfile"), std::string::npos) << r.err;
  // A random placement written and read back: eval gives the same table (node hop-bytes
  // depend on which PUs share a core).
  const auto random = test::run_taskmap("map " + job + " --mapper random --out-format openmpi-rankfile --out '" + out + "'");
  ASSERT_EQ(random.exit_code, 0) << random.err;
  const auto back = test::run_taskmap("eval " + job + " --mapping '" + out + "' --mapping-format openmpi-rankfile");
  const auto direct = test::run_taskmap("eval " + job + " --mapper random");
  ASSERT_EQ(back.exit_code, 0) << back.err;
  const auto table = [](const std::string& text) { return text.substr(text.find("\nMCL")); };
  EXPECT_EQ(table(back.out), table(direct.out));
  // Cores as slots: the same ranks two per core is more than the node's 3 slots, and no note.
  const auto cores = test::run_taskmap("map --machine 'slurm:" + conf + "' --node-topology 'hwloc:" + smt +
                                       "' --nodes cn01 --pattern alltoall:3 --mapper hostname-order "
                                       "--out-format openmpi-rankfile --out -");
  ASSERT_EQ(cores.exit_code, 0) << cores.err;
  EXPECT_EQ(cores.out, "rank 0=cn01 slot=0\nrank 1=cn01 slot=1\nrank 2=cn01 slot=2\n");
  EXPECT_EQ(cores.err.find("use-hwthread-cpus"), std::string::npos) << cores.err;
}

// two_planes.topo: leaves under spines P1 and P2, top T1 above P1 only and T2 above P2 only, a
// management host on each spine. Up*/down* cannot route m1 -> m2: map fails in one line and
// writes no placement; a job of the leaves' hosts routes.
TEST(ClusterCommands, AnUnroutableFlowLeavesNoPlacement) {
  const std::string machine = "ibnet:" + test::instance("ibnet/two_planes.topo");
  const std::string out = testing::TempDir() + "two_planes.map";
  std::filesystem::remove(out);
  const auto all = test::run_taskmap("map --machine '" + machine + "' --pattern halo2d:2x5 --routing updn --out-format plain --out " + out);
  EXPECT_EQ(all.exit_code, 1);
  EXPECT_EQ(all.err, "taskmap: error: " + machine +
                         ": up*/down* from the 2 top switches has no route from host 'm1' to host 'm2' (no top switch "
                         "is above both); use ecmp, or a job without one of them (--nodes)\n");
  EXPECT_FALSE(std::filesystem::exists(out));
  const auto leaves = test::run_taskmap("map --machine '" + machine +
                                        "' --nodes 'a[1-4],b[1-4]' --pattern halo2d:2x4 --routing updn --out-format plain --out " + out);
  EXPECT_EQ(leaves.exit_code, 0) << leaves.err;
  EXPECT_TRUE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace taskmap
