// Recognition and labelling follow [TiMEr §3]: bipartiteness, then one Djoković class per
// not yet classified edge {x, y} (the edges with one end closer to x and the other closer to
// y), failing on overlap; bit j of a vertex says whether it is closer to y than to x. The
// resulting labels are checked against BFS distances, which makes the test exact.
#include "taskmap/topology/partial_cube.h"

#include <algorithm>
#include <bit>
#include <deque>

#include <fmt/format.h>

#include "taskmap/core/error.h"

namespace taskmap {
namespace {

constexpr std::uint32_t kUnreached = UINT32_MAX;
// All-pairs verification costs vertices x edges; above this the theorem (bipartite and the
// classes partition the edges) is trusted instead.
constexpr std::uint32_t kVerifyUpTo = 8192;
// partial_cube_answer() runs the full test up to this many routers x channels.
constexpr std::uint64_t kTestUpTo = std::uint64_t{1} << 24;

struct Graph {
  std::vector<std::uint32_t> offsets, targets;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;  // u < v, unique
};

Graph simple_graph(std::uint32_t n, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& input,
                   const std::string& name) {
  Graph g;
  for (auto [u, v] : input) {
    if (u >= n || v >= n) fail("{}: edge ({}, {}) names a vertex outside [0, {})", name, u, v, n);
    if (u != v) g.edges.emplace_back(std::min(u, v), std::max(u, v));
  }
  std::sort(g.edges.begin(), g.edges.end());
  g.edges.erase(std::unique(g.edges.begin(), g.edges.end()), g.edges.end());
  g.offsets.assign(n + 1, 0);
  for (auto [u, v] : g.edges) ++g.offsets[u + 1], ++g.offsets[v + 1];
  for (std::uint32_t i = 0; i < n; ++i) g.offsets[i + 1] += g.offsets[i];
  g.targets.resize(g.offsets.back());
  std::vector<std::uint32_t> next(g.offsets.begin(), g.offsets.end() - 1);
  for (auto [u, v] : g.edges) g.targets[next[u]++] = v, g.targets[next[v]++] = u;
  return g;
}

void bfs(const Graph& g, std::uint32_t source, std::vector<std::uint32_t>& dist) {
  dist.assign(g.offsets.size() - 1, kUnreached);
  std::deque<std::uint32_t> queue{source};
  dist[source] = 0;
  while (!queue.empty()) {
    const std::uint32_t u = queue.front();
    queue.pop_front();
    for (std::uint32_t i = g.offsets[u]; i < g.offsets[u + 1]; ++i) {
      const std::uint32_t v = g.targets[i];
      if (dist[v] == kUnreached) dist[v] = dist[u] + 1, queue.push_back(v);
    }
  }
}

}  // namespace

PartialCube PartialCube::of_graph(std::uint32_t n, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& input,
                                  const std::string& name) {
  if (n == 0) fail("{} is not a partial cube: it has no vertices", name);
  const Graph g = simple_graph(n, input, name);
  std::vector<std::uint32_t> dx, dy;
  bfs(g, 0, dx);
  for (std::uint32_t v = 0; v < n; ++v)
    if (dx[v] == kUnreached) fail("{} is not a partial cube: it is not connected (vertex {} cannot reach vertex 0)", name, v);
  // Bipartite: BFS levels from vertex 0 alternate along every edge.
  for (auto [u, v] : g.edges) {
    if (dx[u] % 2 == dx[v] % 2) {
      fail("{} is not a partial cube: it is not bipartite (edge {}-{} closes an odd cycle)", name, u, v);
    }
  }
  constexpr std::uint32_t kNone = UINT32_MAX;
  std::vector<std::uint32_t> class_of(g.edges.size(), kNone);
  std::vector<std::vector<bool>> closer_to_y;  // per class, per vertex
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    if (class_of[e] != kNone) continue;
    const auto [x, y] = g.edges[e];
    bfs(g, x, dx);
    bfs(g, y, dy);
    const std::uint32_t j = static_cast<std::uint32_t>(closer_to_y.size());
    std::vector<bool> side(n);
    for (std::uint32_t v = 0; v < n; ++v) side[v] = dy[v] < dx[v];  // never equal: bipartite
    for (std::size_t f = 0; f < g.edges.size(); ++f) {
      const auto [a, b] = g.edges[f];
      if (side[a] == side[b]) continue;
      if (class_of[f] != kNone) {
        const auto [p, q] = g.edges[std::find(class_of.begin(), class_of.end(), class_of[f]) - class_of.begin()];
        fail("{} is not a partial cube: the Djoković classes of edges {}-{} and {}-{} overlap in edge {}-{}", name, p,
             q, x, y, a, b);
      }
      class_of[f] = j;
    }
    closer_to_y.push_back(std::move(side));
  }
  PartialCube pc;
  pc.vertices_ = n;
  pc.dims_ = static_cast<std::uint32_t>(closer_to_y.size());
  pc.words_ = std::max(1u, (pc.dims_ + 63) / 64);
  pc.bits_.assign(std::size_t(n) * pc.words_, 0);
  for (std::uint32_t j = 0; j < pc.dims_; ++j)
    for (std::uint32_t v = 0; v < n; ++v)
      if (closer_to_y[j][v]) pc.bits_[std::size_t(v) * pc.words_ + j / 64] |= std::uint64_t(1) << (j % 64);
  if (n <= kVerifyUpTo) {
    for (std::uint32_t s = 0; s < n; ++s) {
      bfs(g, s, dx);
      for (std::uint32_t v = 0; v < n; ++v) {
        if (pc.hamming(s, v) != dx[v]) {
          fail("{} is not a partial cube: its labelling gives vertices {} and {} distance {}, but they are {} hops "
               "apart",
               name, s, v, pc.hamming(s, v), dx[v]);
        }
      }
    }
  }
  return pc;
}

PartialCube PartialCube::of_machine(const Machine& machine) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  edges.reserve(machine.channels.size());
  for (const Channel& c : machine.channels) edges.emplace_back(c.src, c.dst);
  return of_graph(machine.num_routers, edges, fmt::format("machine '{}'", machine.description));
}

PartialCubeAnswer partial_cube_answer(const Machine& machine) {
  using Verdict = PartialCubeAnswer::Verdict;
  const std::string name = fmt::format("machine '{}'", machine.description);
  if (const auto* t = machine.torus()) {
    PartialCubeAnswer answer{Verdict::Yes, 0, ""};
    for (std::size_t d = 0; d < t->dims(); ++d) {
      const std::uint32_t k = t->sizes[d];
      if (t->wrap[d] && k > 2 && k % 2 == 1) {
        return {Verdict::No, 0,
                fmt::format("{} is not a partial cube: dimension {} is a ring of {} routers, an odd cycle", name,
                            t->letters[d], k)};
      }
      answer.dims += (t->wrap[d] && k > 2) ? k / 2 : k - 1;
    }
    return answer;
  }
  const auto* dragonfly = std::get_if<DragonflyShape>(&machine.shape);
  if ((dragonfly && dragonfly->a >= 3) || std::holds_alternative<PercsShape>(machine.shape)) {
    return {Verdict::No, 0,
            fmt::format("{} is not a partial cube: the routers of a {} are all joined, so three of them form a "
                        "triangle",
                        name, dragonfly ? "group" : "supernode")};
  }
  const std::uint64_t routers = machine.num_routers;
  if (machine.outline) {
    return {Verdict::Untested, 0, fmt::format("not tested on {} routers (too large to build)", routers)};
  }
  if (routers * machine.channels.size() <= kTestUpTo) {
    try {
      return {Verdict::Yes, PartialCube::of_machine(machine).dims(), ""};
    } catch (const Error& e) {
      return {Verdict::No, 0, e.what()};
    }
  }
  // Too large for the classes: bipartiteness alone, one breadth-first search.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  edges.reserve(machine.channels.size());
  for (const Channel& c : machine.channels) edges.emplace_back(c.src, c.dst);
  const Graph g = simple_graph(machine.num_routers, edges, name);
  std::vector<std::uint32_t> level;
  bfs(g, 0, level);
  for (auto [u, v] : g.edges) {
    if (level[u] == kUnreached || level[v] == kUnreached) {
      return {Verdict::No, 0, fmt::format("{} is not a partial cube: it is not connected", name)};
    }
    if (level[u] % 2 == level[v] % 2) {
      return {Verdict::No, 0,
              fmt::format("{} is not a partial cube: it is not bipartite (edge {}-{} closes an odd cycle)", name, u, v)};
    }
  }
  return {Verdict::Untested, 0,
          fmt::format("bipartite; the full test was not run on {} routers and {} channels", routers,
                      machine.channels.size())};
}

std::uint32_t PartialCube::hamming(std::uint32_t a, std::uint32_t b) const {
  std::uint32_t d = 0;
  for (std::uint32_t w = 0; w < words_; ++w)
    d += std::popcount(bits_[std::size_t(a) * words_ + w] ^ bits_[std::size_t(b) * words_ + w]);
  return d;
}

std::string PartialCube::label(std::uint32_t v) const {
  std::string s;
  for (std::uint32_t j = 0; j < dims_; ++j) s += bit(v, j) ? '1' : '0';
  return s;
}

}  // namespace taskmap
