#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <regex>
#include <sstream>

#include "taskmap/core/error.h"
#include "taskmap/validate/simgrid.h"

namespace taskmap {

double run_simgrid(const std::string& dir) {
  const char* env = std::getenv("TASKMAP_SMPIRUN");
  const std::string smpirun = env && *env ? env : "smpirun";
  const std::string log = dir + "/simgrid.log";
  const std::string command =
      fmt::format("SMPIRUN='{}' sh '{}/run.sh' > '{}' 2>&1", smpirun, dir, log);
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  const std::string output = text.str();
  static const std::regex simulated(R"(Simulated time: ([0-9.eE+-]+) seconds)");
  std::smatch match;
  if (status != 0 || !std::regex_search(output, match, simulated)) {
    std::string last;
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty()) last = line;
    }
    if (output.find("not found") != std::string::npos && output.find(smpirun) != std::string::npos) {
      fail("SimGrid's {} was not found (Debian: apt install libsimgrid-dev)", smpirun);
    }
    fail("SimGrid failed on {} (exit {}): {}", dir, status, last.empty() ? "no output" : last);
  }
  return std::stod(match[1].str());
}

std::optional<double> spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) return std::nullopt;
  auto ranks = [](const std::vector<double>& v) {
    std::vector<std::size_t> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return v[i] < v[j]; });
    std::vector<double> r(v.size());
    for (std::size_t i = 0; i < order.size();) {
      std::size_t j = i;
      while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
      for (std::size_t k = i; k <= j; ++k) r[order[k]] = static_cast<double>(i + j) / 2 + 1;  // average rank of the tie
      i = j + 1;
    }
    return r;
  };
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n, mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double cov = 0, va = 0, vb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (va == 0 || vb == 0) return std::nullopt;
  return cov / std::sqrt(va * vb);
}

}  // namespace taskmap
