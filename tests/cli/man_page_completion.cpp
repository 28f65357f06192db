// taskmap(1) and the bash completion script, as the build writes them (build/share/...): the
// page renders without a warning and holds every command, option and catalog entry that
// `taskmap --help` and `taskmap list` show; the script, sourced into a real bash, completes
// commands, options and every catalog's values, also through readline on a terminal.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace taskmap {
namespace {

const std::string kManPage = TASKMAP_MAN_PAGE;
const std::string kCompletion = TASKMAP_BASH_COMPLETION;

#define REQUIRE_MAN() TASKMAP_REQUIRE_TOOL("man --version && groff --version", "man-db and groff")

// Lines of `text` that start with `indent` then text (not a space): the first word of each.
std::vector<std::string> help_section(const std::string& help, const std::string& heading) {
  std::vector<std::string> words;
  std::istringstream in(help);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == heading + ":") {
      inside = true;
    } else if (inside && line.starts_with("  ") && line[2] != ' ') {
      words.push_back(line.substr(2, line.find(' ', 2) - 2));
    } else if (inside && !line.empty() && line[0] != ' ') {
      inside = false;
    }
  }
  return words;
}

// The commands `taskmap --help` lists, and their nested ones ("export simgrid").
std::vector<std::string> commands_from_help() {
  std::vector<std::string> commands;
  for (const std::string& name : help_section(test::run_taskmap("--help").out, "Subcommands")) {
    commands.push_back(name);
    for (const std::string& sub : help_section(test::run_taskmap(name + " --help").out, "Subcommands")) {
      commands.push_back(name + " " + sub);
    }
  }
  return commands;
}

// The page as `man` shows it, lines never wrapped.
std::string rendered_page() {
  const auto r = test::run_command("MANWIDTH=1000 man -l " + kManPage);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// The text of the page's section for `command` (from its heading to the next command's or the
// next section's).
std::string command_section(const std::string& page, const std::string& command) {
  const std::size_t start = page.find("\n   taskmap " + command + "\n");
  if (start == std::string::npos) return "";
  const std::regex next(R"(\n(   taskmap |[A-Z]))");
  std::smatch m;
  const std::string rest = page.substr(start + 1);
  return std::regex_search(rest.cbegin() + 1, rest.cend(), m, next) ? rest.substr(0, m.position(0) + 1) : rest;
}

// Whether `text` has a line that starts, at the indentation of a .TP tag, with `tag` alone
// (or followed by its text on the same line, for a tag narrower than the indentation).
bool has_tag(const std::string& text, const std::string& tag) {
  const std::string at = "\n       " + tag;
  for (std::size_t p = text.find(at); p != std::string::npos; p = text.find(at, p + 1)) {
    const char after = p + at.size() < text.size() ? text[p + at.size()] : '\n';
    if (after == '\n' || after == ' ') return true;
  }
  return false;
}

nlohmann::json catalog_entries(const std::string& plural) {
  const auto r = test::run_taskmap("list " + plural + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out)["entries"];
}

const std::vector<std::string> kCatalogs = {"machines", "routings", "patterns", "mappers", "formats"};

TEST(ManPage, RendersWithoutWarnings) {
  REQUIRE_MAN();
  // Every groff warning (-ww), and what man-db itself says.
  const auto groff = test::run_command("groff -man -Tutf8 -ww -z " + kManPage);
  EXPECT_EQ(groff.exit_code, 0);
  EXPECT_EQ(groff.err, "");
  const auto man = test::run_command("MANWIDTH=80 man -l " + kManPage);
  EXPECT_EQ(man.exit_code, 0);
  EXPECT_EQ(man.err, "");
  EXPECT_TRUE(man.out.starts_with("TASKMAP(1)")) << man.out.substr(0, 200);
  for (const char* section : {"\nNAME\n", "\nSYNOPSIS\n", "\nDESCRIPTION\n", "\nCOMMANDS\n", "\nENVIRONMENT\n",
                              "\nFILES\n", "\nEXIT STATUS\n", "\nEXAMPLES\n", "\nSEE ALSO\n"}) {
    EXPECT_NE(man.out.find(section), std::string::npos) << section;
  }
  // No line of the 80-column page is wider than 80 columns (a spec string broken at its commas).
  std::istringstream lines(man.out);
  std::string line;
  while (std::getline(lines, line)) {
    std::size_t columns = 0;
    for (unsigned char c : line) columns += (c & 0xC0) != 0x80;  // UTF-8: count the first byte of each
    EXPECT_LE(columns, 80u) << line;
  }
}

TEST(ManPage, HoldsEveryCommandAndOptionOfHelp) {
  REQUIRE_MAN();
  const std::string page = rendered_page();
  const std::vector<std::string> commands = commands_from_help();
  // info routes eval map compare reorder-plan export validate reproduce list, and export simgrid.
  ASSERT_EQ(commands.size(), 11u);
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    const std::string section = command_section(page, command);
    ASSERT_NE(section, "") << "no section for taskmap " << command;
    const std::string help = test::run_taskmap(command + " --help").out;
    std::size_t options = 0;
    for (const std::string& names : help_section(help, "Options")) {
      if (names == "-h,--help" || names == "--help-all") continue;
      EXPECT_TRUE(has_tag(section, names)) << names;
      ++options;
    }
    for (const std::string& positional : help_section(help, "Positionals")) {
      EXPECT_TRUE(has_tag(section, positional)) << positional;
      ++options;
    }
    if (command != "export") {  // export has only its subcommand
      EXPECT_GT(options, 0u);
      // The command's synopsis line.
      EXPECT_NE(page.find("\n       taskmap " + command + " "), std::string::npos);
    }
  }
  // map's --out-format: its default, from --help's "=plain on machines without host names; ...".
  const std::string map = command_section(page, "map");
  EXPECT_NE(map.find("--out-format FORMAT\n"), std::string::npos);
  EXPECT_NE(map.find("Default: plain on machines without host names;"), std::string::npos);
  // The hidden command that writes the page is not in it.
  EXPECT_EQ(page.find("taskmap generate"), std::string::npos);
}

TEST(ManPage, HoldsEveryCatalogEntry) {
  REQUIRE_MAN();
  const std::string page = rendered_page();
  for (const std::string& plural : kCatalogs) {
    const nlohmann::json entries = catalog_entries(plural);
    // As many entries as docs/PLURAL.md has sections.
    EXPECT_EQ(entries.size(), test::count_of(test::read_text(std::string(TASKMAP_SOURCE_DIR) + "/docs/" + plural + ".md"),
                                             "\n## "))
        << plural;
    for (const auto& e : entries) {
      // The entry's synopsis as `taskmap list` prints it, e.g. "dor[:ORDER][,ties=split|simgrid]".
      EXPECT_TRUE(has_tag(page, e["synopsis"].get<std::string>())) << plural << ": " << e["synopsis"];
      EXPECT_NE(page.find("Example: " + e["example"].get<std::string>() + "\n"), std::string::npos) << e["example"];
    }
  }
  // A parameter with its default: torus's ppn (docs/machines.md: int, default 1).
  EXPECT_NE(page.find("ppn    int, default 1, [1, 1048576]: slots (cores) per node"), std::string::npos);
}

TEST(ManPage, EnvironmentNamesEveryVariableTheSourcesRead) {
  REQUIRE_MAN();
  const std::string page = rendered_page();
  const std::size_t start = page.find("\nENVIRONMENT\n"), end = page.find("\nFILES\n");
  ASSERT_LT(start, end);
  const std::string environment = page.substr(start, end - start);
  // getenv("NAME") anywhere in src/, and the reorder library's env("NAME").
  const std::regex read(R"re((?:getenv|\benv)\("([A-Z][A-Z_]+)"\))re");
  std::set<std::string> names;
  for (const auto& file : std::filesystem::recursive_directory_iterator(std::string(TASKMAP_SOURCE_DIR) + "/src")) {
    if (file.path().extension() != ".cpp") continue;
    const std::string text = test::read_text(file.path().string());
    for (auto m = std::sregex_iterator(text.begin(), text.end(), read); m != std::sregex_iterator(); ++m) {
      names.insert((*m)[1]);
    }
  }
  EXPECT_TRUE(names.count("TASKMAP_PROGRESS") && names.count("SLURM_JOB_NODELIST") && names.count("TASKMAP_MACHINE"));
  for (const std::string& name : names) EXPECT_TRUE(has_tag(environment, name)) << name;
}

TEST(ManPageAndCompletion, BuildCopiesAreCurrent) {
  // What the build wrote is what this taskmap writes now (the build reruns it when taskmap changes).
  EXPECT_EQ(test::read_text(kManPage), test::run_taskmap("generate man").out);
  EXPECT_EQ(test::read_text(kCompletion), test::run_taskmap("generate bash-completion").out);
  const auto misuse = test::run_taskmap("generate html");
  EXPECT_EQ(misuse.exit_code, 2);
  EXPECT_EQ(misuse.err, "taskmap: error: generate 'html': unknown; use man or bash-completion (see taskmap --help)\n");
}

// ---- Completion ----------------------------------------------------------------------------------

const char* kDriver = R"bash(
# complete LINE: what the completion function gives for LINE (the cursor at its end), one a
# line. COMP_WORDS is split as bash splits it: at whitespace, and at runs of the word-break
# characters that occur in taskmap's words (':', '=', '@').
source "$COMPLETION" || exit 3
set -f
complete_line() {
  local -a words=()
  local token
  for token in $1; do
    while [[ $token =~ ^([^:=@]*)([:=@]+)(.*)$ ]]; do
      [[ -n ${BASH_REMATCH[1]} ]] && words+=("${BASH_REMATCH[1]}")
      words+=("${BASH_REMATCH[2]}")
      token=${BASH_REMATCH[3]}
    done
    [[ -n $token ]] && words+=("$token")
  done
  [[ $1 == *" " ]] && words+=("")
  COMP_LINE=$1 COMP_POINT=${#1} COMP_WORDS=("${words[@]}") COMP_CWORD=$((${#words[@]} - 1))
  COMPREPLY=()
  _taskmap
  ((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}"
}
)bash";

class Completion : public ::testing::Test {
 protected:
  void SetUp() override {
    TASKMAP_REQUIRE_TOOL("bash --version", "bash");
    // Files to complete: topology.conf, hosts, nodes/node.xml.
    std::filesystem::create_directories(dir_ + "/nodes");
    std::ofstream(dir_ + "/topology.conf") << "SwitchName=s0 Nodes=cn1\n";
    std::ofstream(dir_ + "/hosts") << "cn1\n";
    std::ofstream(dir_ + "/nodes/node.xml") << "\n";
    std::ofstream(dir_ + "/driver.bash") << kDriver;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The completions of `line`, sorted, one string each.
  std::set<std::string> complete(const std::string& line) {
    const auto r = test::run_command(fmt::format("cd '{}' && COMPLETION='{}' bash --norc --noprofile -c "
                                                 "'source driver.bash && complete_line \"$1\"' complete '{}'",
                                                 dir_, kCompletion, line));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "") << line;
    std::set<std::string> words;
    std::istringstream in(r.out);
    for (std::string w; std::getline(in, w);) words.insert(w);
    return words;
  }

  // A catalog's entries as completion offers them: NAME, or NAME: when a parameter is required.
  static std::set<std::string> offered(const std::string& plural) {
    std::set<std::string> words;
    for (const auto& e : catalog_entries(plural)) {
      bool required = false;
      for (const auto& p : e["params"]) required = required || p["required"].get<bool>();
      words.insert(e["name"].get<std::string>() + (required ? ":" : ""));
    }
    return words;
  }

  const std::string dir_ = test::temp_path("completion", "dir");
};

TEST_F(Completion, RegistersWithComplete) {
  const auto r = test::run_command(fmt::format("bash --norc --noprofile -c 'source {}; complete -p taskmap'", kCompletion));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "complete -F _taskmap taskmap\n");
  // Every function and variable the script adds (compgen lists them) is named _taskmap...
  const auto added = test::run_command(fmt::format(
      "cd '{}' && bash --norc --noprofile -c 'compgen -A function >f0; compgen -v >v0; source {}; "
      "compgen -A function >f1; compgen -v >v1; comm -13 <(sort f0) <(sort f1); comm -13 <(sort v0) <(sort v1)'",
      dir_, kCompletion));
  ASSERT_EQ(added.exit_code, 0) << added.err;
  std::istringstream in(added.out);
  std::size_t count = 0;
  for (std::string name; std::getline(in, name); ++count) EXPECT_TRUE(name.starts_with("_taskmap")) << name;
  EXPECT_GE(count, 8u);  // _taskmap, its helpers and its tables (12 now)
}

TEST_F(Completion, CommandsAndOptions) {
  EXPECT_EQ(complete("taskmap ma"), std::set<std::string>({"map"}));
  const std::vector<std::string> commands = commands_from_help();
  std::set<std::string> top;
  for (const std::string& c : commands) {
    if (c.find(' ') == std::string::npos) top.insert(c);
  }
  EXPECT_EQ(complete("taskmap "), top);
  EXPECT_EQ(complete("taskmap export "), std::set<std::string>({"simgrid"}));
  EXPECT_EQ(complete("taskmap map --mach"), std::set<std::string>({"--machine"}));
  EXPECT_EQ(complete("taskmap --"), std::set<std::string>({"--help", "--help-all", "--version"}));
  // Each command's options are those its --help lists.
  for (const std::string& command : commands) {
    std::set<std::string> expected;
    for (const std::string& names : help_section(test::run_taskmap(command + " --help").out, "Options")) {
      expected.insert(names == "-h,--help" ? "--help" : names);
    }
    EXPECT_EQ(complete("taskmap " + command + " --"), expected) << command;
  }
  EXPECT_EQ(complete("taskmap list "), std::set<std::string>({"machines", "node-topologies", "routings", "patterns", "mappers", "formats"}));
  EXPECT_EQ(complete("taskmap reproduce rtt-f"), std::set<std::string>({"rtt-fig5", "rtt-fig6"}));
}

TEST_F(Completion, CatalogValues) {
  EXPECT_EQ(complete("taskmap map --machine tor"), std::set<std::string>({"torus:"}));
  EXPECT_EQ(complete("taskmap map --machine=tor"), std::set<std::string>({"torus:"}));
  EXPECT_EQ(complete("taskmap map --mapper sc"), std::set<std::string>({"scotch"}));
  // After "default," readline replaces the whole word (',' breaks no word).
  EXPECT_EQ(complete("taskmap compare --mappers default,sc"), std::set<std::string>({"default,scotch"}));
  EXPECT_EQ(complete("taskmap map --mapper scotch+refine-h"), std::set<std::string>({"scotch+refine-hb"}));
  // Every entry of each catalog, from `taskmap list`.
  EXPECT_EQ(complete("taskmap map --machine "), offered("machines"));
  EXPECT_EQ(complete("taskmap info --routing "), offered("routings"));
  EXPECT_EQ(complete("taskmap validate --routing "), offered("routings"));
  EXPECT_EQ(complete("taskmap eval --pattern "), offered("patterns"));
  EXPECT_EQ(complete("taskmap eval --mapper "), offered("mappers"));
  EXPECT_EQ(complete("taskmap map --out-format "), offered("formats"));
  // The formats taskmap reads back (docs/formats.md).
  EXPECT_EQ(complete("taskmap eval --mapping-format "),
            std::set<std::string>({"plain", "scotch", "metis-part", "openmpi-rankfile"}));
  EXPECT_EQ(complete("taskmap map --format "), std::set<std::string>({"table", "json"}));
  EXPECT_EQ(complete("taskmap list --format "), std::set<std::string>({"table", "json", "markdown"}));
  // Keys and their choices; readline replaces what follows the word's last ':' or '='.
  EXPECT_EQ(complete("taskmap map --machine torus:4x4,me"), std::set<std::string>({"4x4,mesh="}));
  EXPECT_EQ(complete("taskmap map --machine hypercube:"), std::set<std::string>({"d=", "conc=", "ppn="}));
  EXPECT_EQ(complete("taskmap map --routing dor:EDCBA,ties="), std::set<std::string>({"split", "simgrid"}));
  EXPECT_EQ(complete("taskmap compare --mappers rb:tries=3,sp"), std::set<std::string>({"3,split="}));
  EXPECT_EQ(complete("taskmap map --pattern halo3d:8x8x8,points="), std::set<std::string>({"7", "27"}));
  // A number has nothing to complete.
  EXPECT_EQ(complete("taskmap map --imbalance "), std::set<std::string>());
}

TEST_F(Completion, Files) {
  // A machine read from a file: the path after slurm: (what follows the ':').
  EXPECT_EQ(complete("taskmap map --machine slurm:top"), std::set<std::string>({"topology.conf"}));
  EXPECT_EQ(complete("taskmap map --machine slurm:topology.conf,node=nodes/"), std::set<std::string>({"nodes/node.xml"}));
  EXPECT_EQ(complete("taskmap map --pattern file:ho"), std::set<std::string>({"hosts"}));
  EXPECT_EQ(complete("taskmap map --node-topology hw"), std::set<std::string>({"hwloc:"}));
  EXPECT_EQ(complete("taskmap map --node-topology hwloc:nodes/"), std::set<std::string>({"nodes/node.xml"}));
  // '@' starts the word readline replaces.
  EXPECT_EQ(complete("taskmap map --nodes @ho"), std::set<std::string>({"@hosts"}));
  EXPECT_EQ(complete("taskmap map --out to"), std::set<std::string>({"topology.conf"}));
  EXPECT_EQ(complete("taskmap export simgrid --out no"), std::set<std::string>({"nodes"}));
}

// The same script in an interactive bash on a terminal: readline splits the words, calls the
// function at TAB and puts the completion into the line, which the command then receives.
TEST_F(Completion, ThroughReadline) {
  TASKMAP_REQUIRE_TOOL("/usr/bin/python3 --version", "python3");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"taskmap ma", "map|"},
      {"taskmap map --machine tor", "map|--machine|torus:|"},
      {"taskmap map --machine=hyp", "map|--machine=hypercube:|"},
      {"taskmap map --machine slurm:top", "map|--machine|slurm:topology.conf|"},
      {"taskmap map --machine torus:4x4,me", "map|--machine|torus:4x4,mesh=|"},
      {"taskmap compare --mappers default,sc", "compare|--mappers|default,scotch|"},
      {"taskmap map --routing dor:AB,t", "map|--routing|dor:AB,ties=|"},
      {"taskmap map --nodes @ho", "map|--nodes|@hosts|"},
      {"taskmap map --node-topology hwloc:nodes/n", "map|--node-topology|hwloc:nodes/node.xml|"},
  };
  std::string lines;
  for (const auto& [line, received] : cases) lines += " '" + line + "'";
  const auto r = test::run_command(fmt::format("/usr/bin/python3 {}/tests/cli/complete_in_pty.py {} {}{}",
                                               TASKMAP_SOURCE_DIR, kCompletion, dir_, lines));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  for (const auto& [line, received] : cases) {
    std::string got;
    std::getline(in, got);
    EXPECT_EQ(got, received) << line;
  }
}

}  // namespace
}  // namespace taskmap
