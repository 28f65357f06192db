// The spec grammar (docs/spec-strings.md): items, quoted and unquoted paths, '@FILE'
// arguments; paths read from real files, whatever they contain.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "taskmap/core/error.h"
#include "taskmap/core/spec.h"
#include "taskmap/topology/machine_spec.h"
#include "taskmap/workload/pattern_spec.h"

namespace taskmap {
namespace {

namespace fs = std::filesystem;

// Rules of an entry "file:PATH[,format=F][,tasks=N]" with one non-path key, "tasks".
io::SpecLexRules file_rules() {
  io::SpecLexRules r;
  r.is_key = [](std::string_view k) { return k == "format" || k == "tasks"; };
  r.is_path_key = [](std::string_view) { return false; };
  r.bare_allowed = true;
  r.bare_is_path = true;
  return r;
}

std::vector<std::pair<std::string, std::string>> lex(std::string_view items, const io::SpecLexRules& rules) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const io::SpecItem& i : io::lex_spec_items(items, rules)) out.emplace_back(i.key, i.value);
  return out;
}

using Items = std::vector<std::pair<std::string, std::string>>;

std::string lex_error(std::string_view items, const io::SpecLexRules& rules) {
  try {
    io::lex_spec_items(items, rules);
  } catch (const io::SpecSyntaxError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SpecGrammar, UnquotedPathRunsToTheFirstKnownKey) {
  const auto rules = file_rules();
  EXPECT_EQ(lex("run=1/g.graph", rules), (Items{{"", "run=1/g.graph"}}));
  EXPECT_EQ(lex("a,b.graph", rules), (Items{{"", "a,b.graph"}}));
  EXPECT_EQ(lex("N=64,ppn=16/g.graph,format=edges", rules),
            (Items{{"", "N=64,ppn=16/g.graph"}, {"format", "edges"}}));
  EXPECT_EQ(lex("x.graph,tasks=8,format=metis", rules), (Items{{"", "x.graph"}, {"tasks", "8"}, {"format", "metis"}}));
  EXPECT_EQ(lex("format=metis", rules), (Items{{"format", "metis"}}));  // a known key first: no bare path
  EXPECT_EQ(lex("a b/ü ñ:x.graph", rules), (Items{{"", "a b/ü ñ:x.graph"}}));
}

TEST(SpecGrammar, QuotedValues) {
  const auto rules = file_rules();
  EXPECT_EQ(lex("'a,b.graph'", rules), (Items{{"", "a,b.graph"}}));
  EXPECT_EQ(lex("'it''s.graph'", rules), (Items{{"", "it's.graph"}}));
  EXPECT_EQ(lex("'x,tasks=3.graph',tasks=4", rules), (Items{{"", "x,tasks=3.graph"}, {"tasks", "4"}}));
  EXPECT_EQ(lex("''''", rules), (Items{{"", "'"}}));
  EXPECT_EQ(lex("it's.graph", rules), (Items{{"", "it's.graph"}}));  // a quote not at the start is a character
  EXPECT_EQ(lex_error("'abc", rules), "unterminated quote in 'abc (a quote inside is written twice: '')");
  EXPECT_EQ(lex_error("'a'b,tasks=2", rules), "unexpected 'b' after the closing quote of 'a'");
}

TEST(SpecGrammar, ItemsOfEntriesWithoutPaths) {
  io::SpecLexRules rules;
  rules.is_key = [](std::string_view k) { return k == "ppn"; };
  rules.is_path_key = [](std::string_view) { return false; };
  rules.bare_allowed = true;
  EXPECT_EQ(lex("4x4,ppn=2", rules), (Items{{"", "4x4"}, {"ppn", "2"}}));
  EXPECT_EQ(lex("ppn=2", rules), (Items{{"ppn", "2"}}));
  EXPECT_EQ(lex("'4x4'", rules), (Items{{"", "'4x4'"}}));  // quotes are for paths and strings only
  EXPECT_EQ(lex_error("4x4,,ppn=2", rules), "empty item");
  EXPECT_EQ(lex_error("4x4,", rules), "empty item");
  EXPECT_EQ(lex_error("", rules), "empty item");
  EXPECT_EQ(lex_error("4x4,8", rules), "'8' is not of the form key=value");
  EXPECT_EQ(lex_error("4x4,=2", rules), "'=2' has no key");
  rules.bare_allowed = false;
  EXPECT_EQ(lex_error("4x4", rules), "'4x4' is not of the form key=value");
}

TEST(SpecGrammar, QuotingRoundTrips) {
  const auto rules = file_rules();
  for (std::string value : {"plain.graph", "a,b", "it's", "'", "x,format=metis", "N=64", "ü,ñ 'q'", ",", "''"}) {
    const std::string quoted = io::quote_spec_value(value);
    EXPECT_EQ(lex(quoted + ",tasks=2", rules), (Items{{"", value}, {"tasks", "2"}})) << quoted;
  }
  EXPECT_EQ(io::quote_spec_value("plain.graph"), "plain.graph");
  EXPECT_EQ(io::quote_spec_value("it's"), "'it''s'");
}

TEST(SpecGrammar, AtFileTakesTheWholeRest) {
  EXPECT_EQ(io::at_file_argument("@a,b=c 'd'.txt"), "a,b=c 'd'.txt");
  EXPECT_EQ(io::at_file_argument("@"), "");
  EXPECT_EQ(io::at_file_argument("a@b"), std::nullopt);
  EXPECT_EQ(io::at_file_argument(""), std::nullopt);
}

// A directory of files whose names need the grammar's rules.
class SpecPaths : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("taskmap_spec_paths_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes a METIS path graph of n vertices (n - 1 edges of weight 1) at `name`.
  std::string write_path_graph(const std::string& name, int n) {
    std::string text = fmt::format("{} {}\n", n, n - 1);
    for (int v = 1; v <= n; ++v) {
      if (v > 1) text += fmt::format("{}", v - 1);
      if (v < n) text += fmt::format("{}{}", v > 1 ? " " : "", v + 1);
      text += "\n";
    }
    return write(name, text);
  }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::string dir() const { return dir_.string(); }

 private:
  fs::path dir_;
};

std::uint32_t tasks_of(const std::string& pattern) { return build_pattern(parse_pattern_spec(pattern)).num_tasks(); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST_F(SpecPaths, FilePatternsWithCommasEqualsColonsSpacesQuotesAndNonAscii) {
  // Each file has its own task count, so reading the wrong one shows.
  const std::vector<std::string> names = {"a,b.graph",     "run=1/g.graph", "N=64,ppn=16/g.graph", "it's.graph",
                                          "sp ace/x y.graph", "c:o:l.graph",  "ü-ñ/グラフ.graph",      "q'',x=1.graph"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    SCOPED_TRACE(names[i]);
    const int n = static_cast<int>(i) + 3;
    const std::string path = write_path_graph(names[i], n);
    EXPECT_EQ(tasks_of("file:" + io::quote_spec_value(path)), static_cast<std::uint32_t>(n));
    EXPECT_EQ(tasks_of("file:" + io::quote_spec_value(path) + ",format=metis"), static_cast<std::uint32_t>(n));
    if (path.find(",format=") == std::string::npos && path.find(",tasks=") == std::string::npos && path[0] != '\'') {
      EXPECT_EQ(tasks_of("file:" + path), static_cast<std::uint32_t>(n));  // unquoted
      EXPECT_EQ(tasks_of("file:" + path + ",format=metis"), static_cast<std::uint32_t>(n));
    }
  }
}

TEST_F(SpecPaths, TheDocumentedExamples) {
  // file:N=64,ppn=16/g.graph,format=edges: the name says METIS, format=edges must win.
  const std::string edges = write("N=64,ppn=16/g.graph", "0 1 5\n1 2 7\n");
  const CommGraph g = build_pattern(parse_pattern_spec("file:" + edges + ",format=edges"));
  EXPECT_EQ(g.num_tasks(), 3u);
  EXPECT_DOUBLE_EQ(g.total_volume(), 12.0);
  EXPECT_EQ(tasks_of("file:" + edges + ",format=edges,tasks=10"), 10u);  // ranks that never communicate
  EXPECT_EQ(tasks_of("file:'" + edges + "',tasks=10,format=edges"), 10u);
  write("it's.graph", "2 1\n2\n1\n");
  EXPECT_EQ(tasks_of("file:'" + dir() + "/it''s.graph'"), 2u);
}

TEST_F(SpecPaths, GraphMachinesWithQuotedAndUnquotedPaths) {
  const std::string topo = "routers 4\nclass wire 2\nlink 0 1 wire\nlink 1 2 wire\nlink 2 3 wire\nlink 3 0 wire\n";
  const std::string path = write("N=64/to,po.txt", topo);
  Machine quoted = make_machine("graph:'" + path + "',conc=2");
  EXPECT_EQ(quoted.num_routers, 4u);
  EXPECT_EQ(quoted.channels.size(), 8u);
  EXPECT_EQ(quoted.num_slots(), 8u);
  Machine unquoted = make_machine("graph:" + path + ",conc=2,ppn=3");
  EXPECT_EQ(unquoted.num_slots(), 24u);
  // ",ppn=" is a key of graph: a path holding it must be quoted.
  const std::string tricky = write("x,ppn=2.topo", topo);
  EXPECT_EQ(make_machine("graph:'" + tricky + "'").num_slots(), 4u);
  EXPECT_EQ(error_of([&] { make_machine("graph:" + tricky); }),
            "--machine 'graph:" + tricky + "': graph: ppn='2.topo' is not an integer");
}

TEST_F(SpecPaths, AMistypedKeyAfterAnUnquotedPathIsNamedAndAQuotedPathIsTakenWhole) {
  // Unquoted, a path runs to the first ",KEY=" of a known key, so ",TASKS=5" reads as part of
  // the path: the path does not exist, the part before the comma does, so the item is named.
  const std::string graph = write_path_graph("g.graph", 4);
  EXPECT_EQ(error_of([&] { tasks_of("file:" + graph + ",TASKS=5"); }),
            "--pattern 'file:" + graph + ",TASKS=5': file: unknown parameter 'TASKS'; did you mean 'tasks'?");
  // Quoted, it is the path as written (the fuzz target spec_quoting found it taken for a key).
  EXPECT_EQ(error_of([&] { tasks_of("file:'" + graph + ",TASKS=5'"); }),
            "cannot open '" + graph + ",TASKS=5': No such file or directory");
  EXPECT_EQ(parse_machine_spec("slurm:'/,''''2''''i''='").fabric_path, "/,''2''i'=");
}

TEST_F(SpecPaths, MissingFilesAreNamedExactly) {
  const std::string missing = dir() + "/run=1/g.graph";
  EXPECT_EQ(error_of([&] { tasks_of("file:" + missing); }), "cannot open '" + missing + "': No such file or directory");
  EXPECT_EQ(error_of([&] { tasks_of("file:'" + dir() + "/a,b.graph'"); }),
            "cannot open '" + dir() + "/a,b.graph': No such file or directory");
  EXPECT_EQ(error_of([&] { make_machine("graph:" + dir() + "/N=64/t.topo,conc=2"); }),
            "cannot open '" + dir() + "/N=64/t.topo': No such file or directory");
  EXPECT_EQ(error_of([&] { tasks_of("file:" + dir()); }), "cannot open '" + dir() + "': Is a directory");
}

}  // namespace
}  // namespace taskmap
