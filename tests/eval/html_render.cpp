// The HTML report as a browser shows it: headless Chromium (Debian chromium) renders pages of
// eval --report and compare --report. A probe script appended to a copy of the page writes
// where each chart landed; --dump-dom reads that back with the charts and their axis labels,
// and the screenshot of the same page at the same size must have drawn pixels in every chart
// the window shows.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "test_support.h"

namespace taskmap {
namespace {

namespace fs = std::filesystem;

constexpr int kWidth = 1400, kHeight = 2400;

// Headless Chromium with the network closed off (without these flags it waits on lookups)
// and a profile of its own; `what` is --dump-dom or --screenshot=PATH.
test::CommandResult chromium(const std::string& page, const std::string& what) {
  const fs::path profile = fs::temp_directory_path() / ("taskmap_chromium_" + std::to_string(::getpid()));
  fs::create_directories(profile);
  const auto r = test::run_command(fmt::format(
      "timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync --hide-scrollbars "
      "--force-device-scale-factor=1 --user-data-dir={} --window-size={},{} --virtual-time-budget=5000 {} file://{}",
      profile.string(), kWidth, kHeight, what, page));
  fs::remove_all(profile);
  return r;
}

struct Box {
  std::string kind;
  double x, y, w, h;
};

// Renders `html`: the charts' boxes from the DOM after the probe ran, and the screenshot. The
// page's title (h1) is listed as a box of kind "title", and the page's whole width as one of
// kind "document": both with their scroll widths, wider than the window when text runs past its edge.
void render(const std::string& html, std::vector<Box>* boxes, std::string* dom, test::Image* shot) {
  // The probe lists "KIND X Y W H" per chart in a hidden <pre> at the end, changing no layout.
  const std::string probe =
      "<script>const lines = [...document.querySelectorAll('svg.chart')].map(s => { const r = "
      "s.getBoundingClientRect(); return s.getAttribute('class').split(' ')[1] + ' ' + [r.x, r.y, r.width, "
      "r.height].join(' '); }); const t = document.querySelector('h1'), h = t.getBoundingClientRect(); "
      "lines.push('title ' + [h.x, h.y, t.scrollWidth, h.height].join(' ')); const d = document.documentElement; "
      "lines.push('document 0 0 ' + d.scrollWidth + ' ' + d.scrollHeight); "
      "document.body.insertAdjacentHTML('beforeend', '<pre id=\"boxes\" "
      "style=\"display:none\">' + lines.join('\\n') + '</pre>');</script>";
  const std::string page = (fs::temp_directory_path() / ("taskmap_render_" + std::to_string(::getpid()) + ".html")).string();
  std::ofstream(page) << std::regex_replace(html, std::regex("</body>"), probe + "</body>");
  const auto dumped = chromium(page, "--dump-dom");
  ASSERT_EQ(dumped.exit_code, 0) << dumped.err;
  *dom = dumped.out;
  // The last one: the first is the probe's own text.
  const std::size_t start = dom->rfind("<pre id=\"boxes\" style=\"display:none\">");
  ASSERT_NE(start, std::string::npos) << "the probe did not run";
  std::istringstream lines(dom->substr(dom->find('>', start) + 1, dom->find("</pre>", start) - dom->find('>', start) - 1));
  Box b;
  while (lines >> b.kind >> b.x >> b.y >> b.w >> b.h) boxes->push_back(b);
  const std::string png = page + ".png";
  const auto shot_run = chromium(page, "--screenshot=" + png);
  ASSERT_EQ(shot_run.exit_code, 0) << shot_run.err;
  *shot = test::read_png(png);
  fs::remove(png);
  fs::remove(page);
}

// Distinct colours and the share of pixels that are not the page's white inside a box.
std::pair<std::size_t, double> ink(const test::Image& image, const Box& b) {
  std::set<std::uint32_t> colours;
  std::size_t inked = 0, all = 0;
  const auto x1 = static_cast<std::uint32_t>(std::min<double>(image.width, b.x + b.w));
  const auto y1 = static_cast<std::uint32_t>(std::min<double>(image.height, b.y + b.h));
  for (auto y = static_cast<std::uint32_t>(std::max(0.0, b.y)); y < y1; ++y) {
    for (auto x = static_cast<std::uint32_t>(std::max(0.0, b.x)); x < x1; ++x) {
      const std::uint32_t p = image.pixel(x, y);
      colours.insert(p);
      inked += p != 0xffffff;
      ++all;
    }
  }
  return {colours.size(), all ? double(inked) / double(all) : 0};
}

void expect_rendered(const std::string& report, const std::set<std::string>& kinds, const std::vector<std::string>& labels) {
  std::vector<Box> boxes;
  std::string dom;
  test::Image shot;
  render(test::read_text(report), &boxes, &dom, &shot);
  if (::testing::Test::HasFatalFailure()) return;
  ASSERT_EQ(shot.width, static_cast<std::uint32_t>(kWidth));
  // Not blank: the page as a whole has many colours.
  EXPECT_GT(ink(shot, {"page", 0, 0, double(kWidth), double(kHeight)}).first, 20u);
  std::set<std::string> seen;
  std::size_t checked = 0;
  for (const Box& b : boxes) {
    if (b.kind == "title" || b.kind == "document") {  // within the window's width
      EXPECT_LE(b.x + b.w, kWidth) << b.kind;
      continue;
    }
    seen.insert(b.kind);
    EXPECT_GT(b.w, 0) << b.kind;
    EXPECT_GT(b.h, 0) << b.kind;
    if (b.y + b.h > kHeight) continue;  // below the window: not in the screenshot
    const auto [colours, share] = ink(shot, b);
    EXPECT_GE(colours, 3u) << b.kind << " at " << b.x << "," << b.y;
    EXPECT_GT(share, 0.01) << b.kind << " at " << b.x << "," << b.y;
    ++checked;
  }
  EXPECT_GE(checked, 4u);
  for (const std::string& k : kinds) EXPECT_TRUE(seen.count(k)) << "no chart " << k;
  for (const std::string& l : labels) EXPECT_NE(dom.find(">" + l + "</text>"), std::string::npos) << "no axis label " << l;
  EXPECT_NE(dom.find("<p class=\"recommendation"), std::string::npos);
}

TEST(HtmlRender, EvalReportsDrawTheirCharts) {
  TASKMAP_REQUIRE_TOOL("command -v chromium", "chromium (Debian package chromium)");
  struct Case {
    std::string args;
    std::set<std::string> kinds;
    std::vector<std::string> labels;
  };
  const std::vector<Case> cases = {
      {"--machine torus:4x4x4 --pattern halo3d:4x4x4 --mapper random:seed=3",
       {"heatmap", "histogram", "legend"},
       {"B (router coordinate)", "A (router coordinate)", "loaded channels"}},
      {"--machine dragonfly:p=2,a=4,h=2 --pattern halo2d:8x9 --mapper random:seed=1",
       {"group-matrix", "group-loads", "histogram"},
       {"to group", "from group", "busiest link's utilization", "group"}},
      {"--machine fattree:k=4,n=3 --pattern halo2d:8x8 --mapper random:seed=2 --bytes-per-unit 1e6",
       {"tree", "histogram"},
       {"tree level", "utilization, bin's upper end (bytes per bandwidth unit)"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const std::string report = (fs::temp_directory_path() / ("taskmap_render_" + std::to_string(::getpid()) + "_eval.html")).string();
    const auto r = test::run_taskmap("eval " + c.args + " --report " + report);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_rendered(report, c.kinds, c.labels);
    fs::remove(report);
  }
}

TEST(HtmlRender, CompareReportDrawsItsCharts) {
  TASKMAP_REQUIRE_TOOL("command -v chromium", "chromium (Debian package chromium)");
  const std::string report = (fs::temp_directory_path() / ("taskmap_render_" + std::to_string(::getpid()) + "_compare.html")).string();
  const auto r = test::run_taskmap("compare --machine slurm:" + test::instance("reorder/three_leaves.conf") +
                                   ",ppn=2 --pattern halo2d:3x6 --mappers random:seed=1,scotch --report " + report);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_rendered(report, {"tree", "histogram", "legend"}, {"tree level", "loaded channels"});
  fs::remove(report);
}

// A site's topology file deep in a long directory: the page's title names the file, not its
// directories (the full spec is its tooltip), and stays inside the window, as does the page.
// Underscores give the browser no place to break a line: with the whole path, the title ran
// to 4,220 pixels in a window of 1,400.
TEST(HtmlRender, LongMachinePathsFitTheTitle) {
  TASKMAP_REQUIRE_TOOL("command -v chromium", "chromium (Debian package chromium)");
  const fs::path top = fs::temp_directory_path() / ("taskmap_render_" + std::to_string(::getpid()));
  const fs::path dir = top / "site_configuration_repository_of_the_production_partition_generated_by_the_fabric_manager" /
                       "etc" / "slurm";
  fs::create_directories(dir);
  const fs::path conf = dir / "topology_of_the_production_partition_as_generated_by_the_fabric_manager_every_leaf_and_spine.conf";
  fs::copy_file(test::instance("reorder/three_leaves.conf"), conf);
  const std::string report = (top / "report.html").string();
  const auto r = test::run_taskmap("eval --machine slurm:" + conf.string() +
                                   ",ppn=2 --nodes cn[01-04] --pattern halo2d:2x4 --mapper random:seed=1 --report " + report);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = test::read_text(report);
  EXPECT_NE(html.find("<h1 title=\"halo2d:2x4 on slurm:" + conf.string() + ",ppn=2\">halo2d:2x4 on slurm:" +
                      conf.filename().string() + ",ppn=2</h1>"),
            std::string::npos);
  expect_rendered(report, {"tree", "histogram", "legend"}, {"tree level"});
  fs::remove_all(top);
}

}  // namespace
}  // namespace taskmap
