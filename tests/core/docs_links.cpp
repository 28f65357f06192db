// The docs hold together: every relative link of README.md and docs/ (pages, images, schema)
// leads to a file that exists, and a link to a heading (`page.md#anchor`) to a heading of that
// page, anchors spelled as GitHub spells them; the README lists every page of docs/, and its
// citation gives the version of CMakeLists.txt.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace taskmap {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = TASKMAP_SOURCE_DIR;

std::vector<fs::path> markdown_files() {
  std::vector<fs::path> files = {kSource / "README.md"};
  for (const auto& entry : fs::recursive_directory_iterator(kSource / "docs")) {
    if (entry.path().extension() == ".md") files.push_back(entry.path());
  }
  return files;
}

// The lines of a page outside fenced code blocks (a `# comment` in a shell block is no heading).
std::vector<std::string> prose_lines(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  bool fenced = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    if (!fenced) lines.push_back(line);
  }
  return lines;
}

// GitHub's anchor of a heading: lower case, punctuation dropped (letters, digits, '-', '_' and
// bytes of non-ASCII letters kept), spaces to '-'; a repeated anchor gets -1, -2, ...
std::string slug(const std::string& heading) {
  std::string out;
  for (char c : heading) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || std::isalnum(u) || c == '-' || c == '_') {
      out += static_cast<char>(u < 0x80 ? std::tolower(u) : u);
    } else if (c == ' ') {
      out += '-';
    }
  }
  return out;
}

std::set<std::string> anchors_of(const fs::path& file) {
  std::set<std::string> anchors;
  std::map<std::string, int> seen;
  const std::regex heading(R"(^#{1,6} +(.*?) *$)");
  for (const std::string& line : prose_lines(file)) {
    std::smatch m;
    if (!std::regex_match(line, m, heading)) continue;
    const std::string base = slug(m[1]);
    const int n = seen[base]++;
    anchors.insert(n == 0 ? base : base + "-" + std::to_string(n));
  }
  return anchors;
}

TEST(Docs, EveryRelativeLinkLeadsToAFileAndItsHeading) {
  // [text](target) and ![alt](target), outside code spans and blocks.
  const std::regex link(R"(\]\(([^)\s]+)\))");
  const std::regex code_span("`[^`]*`");
  std::map<fs::path, std::set<std::string>> anchors;
  std::size_t links = 0, with_anchor = 0;
  for (const fs::path& file : markdown_files()) {
    for (const std::string& raw : prose_lines(file)) {
      const std::string line = std::regex_replace(raw, code_span, "``");
      for (auto it = std::sregex_iterator(line.begin(), line.end(), link); it != std::sregex_iterator(); ++it) {
        const std::string target = (*it)[1];
        if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
        SCOPED_TRACE(fs::relative(file, kSource).string() + ": " + target);
        ++links;
        EXPECT_EQ(target.find('\\'), std::string::npos);
        EXPECT_NE(target.front(), '/') << "links stay relative";
        const std::size_t hash = target.find('#');
        const std::string path = target.substr(0, hash);
        const fs::path resolved = path.empty() ? file : (file.parent_path() / path).lexically_normal();
        if (!fs::exists(resolved)) {
          ADD_FAILURE() << "no such file: " << resolved;
          continue;
        }
        if (hash == std::string::npos) continue;
        ++with_anchor;
        auto [at, fresh] = anchors.try_emplace(resolved);
        if (fresh) at->second = anchors_of(resolved);
        EXPECT_TRUE(at->second.count(target.substr(hash + 1)))
            << "no heading '" << target.substr(hash + 1) << "' in " << fs::relative(resolved, kSource);
      }
    }
  }
  // The README alone links a dozen pages; a parser that finds none would pass anything.
  EXPECT_GE(links, 100u);
  EXPECT_GE(with_anchor, 10u);
}

TEST(Docs, AnchorsAreSpelledAsGitHubSpellsThem) {
  EXPECT_EQ(slug("2. In-job reordering with `LD_PRELOAD`"), "2-in-job-reordering-with-ld_preload");
  EXPECT_EQ(slug("Scotch targets as machines (tgt:FILE)"), "scotch-targets-as-machines-tgtfile");
  EXPECT_EQ(slug("The job's nodes"), "the-jobs-nodes");
}

TEST(Docs, TheReadmeListsEveryDocsPage) {
  std::ifstream in(kSource / "README.md");
  std::stringstream text;
  text << in.rdbuf();
  std::size_t pages = 0;
  for (const fs::path& file : markdown_files()) {
    if (file.filename() == "README.md") continue;
    const std::string relative = fs::relative(file, kSource).generic_string();
    EXPECT_NE(text.str().find("](" + relative + ")"), std::string::npos) << "README.md does not link " << relative;
    ++pages;
  }
  EXPECT_GE(pages, 20u);
}

// "How to cite" in the README gives the version `project(taskmap VERSION ...)` sets.
TEST(Docs, TheReadmeCitesTheProjectVersion) {
  std::ifstream cmakelists(kSource / "CMakeLists.txt"), readme(kSource / "README.md");
  std::stringstream cmake, text;
  cmake << cmakelists.rdbuf();
  text << readme.rdbuf();
  std::smatch project, cited;
  const std::string c = cmake.str(), r = text.str();
  ASSERT_TRUE(std::regex_search(c, project, std::regex(R"(project\(taskmap VERSION ([0-9.]+))")));
  ASSERT_TRUE(std::regex_search(r, cited, std::regex(R"(version = \{([0-9.]+)\})"))) << "README.md cites no version";
  EXPECT_EQ(cited[1], project[1]);
  EXPECT_NE(r.find("`taskmap " + project[1].str() + " (git COMMIT)`"), std::string::npos);
}

}  // namespace
}  // namespace taskmap
