// `eval --report`: the HTML page shows the same numbers as `eval --format json`, for the
// evaluated mapping and for the default beside it, and its pictures cover every channel.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace taskmap {
namespace {

std::string temp_report(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("taskmap_report_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
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
  const std::string open = "<svg class=\"" + svg_class + "\" data-column=\"" + std::to_string(column) + "\"";
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
  for (const auto& [cls, mcl] : j["mcl_by_class"].items()) {
    EXPECT_DOUBLE_EQ(page.at({"mcl_by_class." + cls, column}), mcl.get<double>()) << cls;
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
  const std::string html = slurp(page_path);
  ASSERT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);  // self-contained, no scripts
  EXPECT_EQ(html.find("http://", html.find("<body")), html.find("http://www.w3.org/2000/svg", html.find("<body")));
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
    for (std::size_t k = 0; k < histograms.size(); ++k) {
      double counted = 0;
      for (double n : attribute_values(histograms[k], "data-count")) counted += n;
      EXPECT_EQ(counted, j["classes"][k]["channels"].get<double>());
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
  const std::string html = slurp(page_path);
  expect_page_matches_json(page_metrics(html), 1, jc);
  EXPECT_TRUE(pictures(html, "heatmap", 1).empty());
  const auto matrix = pictures(html, "group-matrix", 1);
  ASSERT_EQ(matrix.size(), 1u);
  // g = a*h + 1 = 9 groups, one global channel per ordered pair of groups.
  const auto cells = attribute_values(matrix[0], "data-util");
  EXPECT_EQ(cells.size(), 9u * 8u);
  EXPECT_DOUBLE_EQ(*std::max_element(cells.begin(), cells.end()), jc["mcl_by_class"]["global"].get<double>());
  std::filesystem::remove(page_path);
}

}  // namespace
}  // namespace taskmap
