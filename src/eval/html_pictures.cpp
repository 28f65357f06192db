// Pictures of the machine's structure in the HTML report: a torus's dimension pairs, a
// Dragonfly's groups, a tree's levels. Each draws every channel of its kind once, folded by
// max where several share a mark.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <deque>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "html_charts.h"

namespace taskmap::html {
namespace {

// Positions 0 .. n-1 in blocks of `per` consecutive ones, at most kMaxBoxesPerRow blocks.
struct Blocks {
  std::size_t n = 0, per = 1;
  explicit Blocks(std::size_t count) : n(count), per(std::max<std::size_t>(1, (count + kMaxBoxesPerRow - 1) / kMaxBoxesPerRow)) {}
  std::size_t count() const { return (n + per - 1) / per; }
  std::size_t of(std::size_t i) const { return i / per; }
  std::string name(std::size_t b) const {
    const std::size_t first = b * per, last = std::min(n, first + per) - 1;
    return first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last);
  }
};

std::string svg_open(const std::string& kind, const ChartContext& ctx, double w, double h, const std::string& more = "") {
  return fmt::format(
      "<figure><svg class=\"chart {}\" data-column=\"{}\"{} xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" font-family=\"sans-serif\" font-size=\"10\">\n",
      kind, ctx.column, more, w, h);
}

// ---- torus and mesh -------------------------------------------------------------------

// One panel per pair of torus dimensions (i, j): dimension j across, i down. A link between
// neighbouring positions is drawn in the colour of the busiest channel, either direction,
// among all links that project onto it (the other dimensions are folded by max). Above
// kMaxBoxesPerRow positions in a dimension, cells of several positions show the busiest
// channel of those dimensions leaving their routers.
std::string torus_panel(const ChartContext& ctx, const TorusShape& t, std::size_t di, std::size_t dj,
                        const std::vector<double>& loads) {
  const Machine& m = ctx.machine;
  const std::uint32_t H = t.sizes[di], W = t.sizes[dj];
  const Blocks rows(H), cols(W);
  const bool blocked = rows.per > 1 || cols.per > 1;
  const std::size_t shown_h = rows.count(), shown_w = cols.count();
  const double cell = std::clamp(300.0 / static_cast<double>(std::max(shown_w, shown_h)), 8.0, 40.0);
  const double ox = 46, oy = 14, grid_w = static_cast<double>(shown_w) * cell, grid_h = static_cast<double>(shown_h) * cell;
  const double w = ox + grid_w + 16, h = oy + grid_h + 46;
  auto cx = [&](double x) { return ox + (x + 0.5) * cell; };
  auto cy = [&](double y) { return oy + (y + 0.5) * cell; };
  std::string out = svg_open("heatmap", ctx, w, h, fmt::format(" data-dims=\"{}{}\"", t.letters[di], t.letters[dj]));
  if (blocked) {
    std::vector<double> value(shown_h * shown_w, 0);
    for (RouterId r = 0; r < m.num_routers; ++r) {
      double& v = value[rows.of(t.coord(r, di)) * shown_w + cols.of(t.coord(r, dj))];
      for (std::size_t d : {di, dj}) {
        for (int dir = 0; dir < 2; ++dir) {
          if (const ChannelId c = t.channel(r, d, dir); c != kNoChannel) v = std::max(v, utilization(m, loads, c));
        }
      }
    }
    for (std::size_t y = 0; y < shown_h; ++y) {
      for (std::size_t x = 0; x < shown_w; ++x) {
        const double v = value[y * shown_w + x];
        out += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" data-util=\"{:.17g}\">"
            "<title>{} {}, {} {}: {}</title></rect>\n",
            ox + static_cast<double>(x) * cell, oy + static_cast<double>(y) * cell, cell, cell, colour(v, ctx.scale), v,
            t.letters[di], rows.name(y), t.letters[dj], cols.name(x), ctx.shown(v));
      }
    }
  } else {
    // value[(dim_is_j, y, x)] for the link leaving (y, x) in the + direction of that dimension.
    std::map<std::tuple<int, std::uint32_t, std::uint32_t>, double> link;
    for (RouterId r = 0; r < m.num_routers; ++r) {
      const std::uint32_t y = t.coord(r, di), x = t.coord(r, dj);
      for (int which = 0; which < 2; ++which) {
        const std::size_t d = which ? dj : di;
        const std::uint32_t size = t.sizes[d];
        for (int dir = 0; dir < 2; ++dir) {
          const ChannelId c = t.channel(r, d, dir);
          if (c == kNoChannel) continue;
          // The + link of the lower end: from r itself for "+", from the neighbour for "-".
          std::uint32_t ly = y, lx = x;
          if (dir == 1) (which ? lx : ly) = ((which ? x : y) + size - 1) % size;
          double& v = link[{which, ly, lx}];
          v = std::max(v, utilization(m, loads, c));
        }
      }
    }
    const double stroke = std::max(2.0, cell * 0.28);
    for (const auto& [key, v] : link) {
      const auto [which, y, x] = key;
      const std::uint32_t size = which ? W : H;
      const bool wraps = (which ? x : y) == size - 1;
      const std::string col = colour(v, ctx.scale);
      // A copy: clang 14 cannot capture a structured binding in a lambda (the fuzz build uses it).
      auto seg = [&, util = v](double x1, double y1, double x2, double y2) {
        out += fmt::format(
            "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{:.1f}\" "
            "data-util=\"{:.17g}\"><title>{}</title></line>\n",
            x1, y1, x2, y2, col, stroke, util, ctx.shown(util));
      };
      if (!wraps) {
        seg(cx(x), cy(y), cx(which ? x + 1 : x), cy(which ? y : y + 1));
      } else if (which) {  // wraparound in j: leave right, re-enter left
        seg(cx(x), cy(y), ox + grid_w + 9, cy(y));
        seg(ox - 9, cy(y), cx(0), cy(y));
      } else {
        seg(cx(x), cy(y), cx(x), oy + grid_h + 9);
        seg(cx(x), oy - 9, cx(x), cy(0));
      }
    }
    for (std::uint32_t y = 0; y < H; ++y) {
      for (std::uint32_t x = 0; x < W; ++x) {
        out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#444\"/>\n",
                           cx(x) - cell * 0.18, cy(y) - cell * 0.18, cell * 0.36, cell * 0.36);
      }
    }
  }
  // Coordinates along both axes, a label every few positions.
  const std::size_t every_x = std::max<std::size_t>(1, (shown_w + 9) / 10), every_y = std::max<std::size_t>(1, (shown_h + 9) / 10);
  for (std::size_t x = 0; x < shown_w; x += every_x) {
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", cx(static_cast<double>(x)),
                       oy + grid_h + 20, cols.name(x));
  }
  for (std::size_t y = 0; y < shown_h; y += every_y) {
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", ox - 12, cy(static_cast<double>(y)) + 3,
                       rows.name(y));
  }
  auto axis = [](char letter, const Blocks& b) {
    return b.per > 1 ? fmt::format("{} (router coordinate, {} per cell)", letter, b.per)
                     : fmt::format("{} (router coordinate)", letter);
  };
  out += axis_label(ox + grid_w / 2, oy + grid_h + 38, axis(t.letters[dj], cols));
  out += axis_label(10, oy + grid_h / 2, axis(t.letters[di], rows), true);
  out += "</svg>";
  std::string folded;
  for (std::size_t d = 0; d < t.dims(); ++d) {
    if (d != di && d != dj) folded += t.letters[d];
  }
  out += fmt::format("<figcaption>{} down, {} across{}; colour: the busiest channel's utilization ({})</figcaption></figure>\n",
                     t.letters[di], t.letters[dj], folded.empty() ? "" : ", max over " + folded,
                     ctx.units.utilization_unit());
  return out;
}

// ---- Dragonfly ------------------------------------------------------------------------

// The group of each router on a Dragonfly (balanced or a fabric's), -1 for a host's own router.
std::vector<std::int64_t> dragonfly_groups(const Machine& m, std::uint32_t* groups) {
  std::vector<std::int64_t> group;
  if (const auto* d = std::get_if<DragonflyShape>(&m.shape)) {
    for (RouterId r = 0; r < m.num_routers; ++r) group.push_back(r / d->a);
    *groups = d->g;
  } else if (const auto* f = std::get_if<FabricShape>(&m.shape); f && !f->dragonfly.group_of.empty()) {
    group.assign(f->dragonfly.group_of.begin(), f->dragonfly.group_of.end());
    for (RouterId r = 0; r < f->first_switch; ++r) group[r] = -1;
    *groups = f->dragonfly.num_groups();
  }
  return group;
}


// ---- the job's hosts in a tree --------------------------------------------------------

// A job's allocation leaves the machine's other nodes without slots. Per box of the hosts'
// row and of the leaves' row: the nodes below it (a leaf's: on the hosts' routers linked to
// it, or on the leaf itself), each counted once per box, and those of them that are the job's.
struct JobHosts {
  bool partial = false;  // some nodes are not the job's: the picture marks those that are
  std::uint64_t job_nodes = 0, nodes = 0;
  std::vector<std::vector<NodeId>> on_router;      // nodes per router
  std::vector<std::vector<RouterId>> hosts_below;  // per leaf, the hosts' routers linked to it
  std::vector<std::size_t> stamp;                  // per node: the last box that counted it

  JobHosts(const Machine& m, const std::vector<std::uint32_t>& level)
      : on_router(m.num_routers), hosts_below(m.num_routers), stamp(m.num_nodes(), SIZE_MAX) {
    for (NodeId n = 0; n < m.num_nodes(); ++n) {
      if (m.gpu_links) {  // a GPU node hangs on the leaves by its NICs
        const GpuNodeLinks::Node& node = m.gpu_links->nodes[n];
        for (RouterId r = node.first_nic; r < node.first_nic + node.nics; ++r) on_router[r].push_back(n);
      } else {
        on_router[m.router_of_node(n)].push_back(n);
      }
      ++nodes;
      if (m.slots_of_node(n) > 0) ++job_nodes;
    }
    partial = job_nodes < nodes;
    for (const Channel& c : m.channels) {
      if (level[c.src] == 0 && level[c.dst] == 1) hosts_below[c.dst].push_back(c.src);
    }
    for (auto& below : hosts_below) {  // parallel cables and rails: a router once
      std::sort(below.begin(), below.end());
      below.erase(std::unique(below.begin(), below.end()), below.end());
    }
  }

  // {hosts, the job's} below the routers of one box (`box` numbers the boxes of the page).
  std::pair<std::uint64_t, std::uint64_t> count(const Machine& m, const std::vector<RouterId>& routers, std::size_t box) {
    std::uint64_t all = 0, job = 0;
    auto add = [&](RouterId r) {
      for (NodeId n : on_router[r]) {
        if (stamp[n] == box) continue;
        stamp[n] = box, ++all;
        if (m.slots_of_node(n) > 0) ++job;
      }
    };
    for (RouterId r : routers) {
      add(r);
      for (RouterId h : hosts_below[r]) add(h);
    }
    return {all, job};
  }
};

constexpr const char* kJobColour = "#d95f02";  // apart from the utilization ramp's blues, greens, yellows

}  // namespace

std::string torus_pictures(const ChartContext& ctx, const std::vector<double>& loads) {
  const TorusShape* torus = ctx.machine.torus();
  if (torus == nullptr || torus->dims() < 2) return "";
  std::string out = "<h3>Link loads per dimension pair</h3>\n";
  for (std::size_t i = 0; i < torus->dims(); ++i) {
    for (std::size_t j = i + 1; j < torus->dims(); ++j) out += torus_panel(ctx, *torus, i, j, loads);
  }
  return out;
}

std::string dragonfly_pictures(const ChartContext& ctx, const std::vector<double>& loads) {
  const Machine& m = ctx.machine;
  std::uint32_t g = 0;
  const std::vector<std::int64_t> group = dragonfly_groups(m, &g);
  if (group.empty() || g == 0) return "";
  const Blocks blocks(g);
  const std::size_t nb = blocks.count();
  // Per group: the busiest local channel and the busiest global one leaving it; per pair of
  // group blocks the busiest global channel between them (-1: none).
  std::vector<double> local(nb, 0), global(nb, 0), matrix(nb * nb, -1);
  double local_max = 0, global_max = 0;
  std::set<std::string> local_classes, global_classes;
  for (ChannelId c = 0; c < m.channels.size(); ++c) {
    const Channel& ch = m.channels[c];
    const std::int64_t a = group[ch.src], b = group[ch.dst];
    if (a < 0 || b < 0) continue;  // a host's own link
    const double u = utilization(m, loads, c);
    const std::size_t ba = blocks.of(static_cast<std::size_t>(a)), bb = blocks.of(static_cast<std::size_t>(b));
    if (a == b) {
      local[ba] = std::max(local[ba], u), local_max = std::max(local_max, u);
      local_classes.insert(m.classes[ch.link_class].name);
    } else {
      global[ba] = std::max(global[ba], u), global_max = std::max(global_max, u);
      double& cell = matrix[ba * nb + bb];
      cell = std::max(cell, u);
      global_classes.insert(m.classes[ch.link_class].name);
    }
  }
  std::string out = "<h3>Dragonfly groups: local and global links</h3>\n";
  const char* bottleneck = global_max > local_max ? "global" : local_max > global_max ? "local" : "";
  out += fmt::format(
      "<p class=\"dragonfly-bottleneck\" data-bottleneck=\"{}\">{}. Busiest global link: {} (class {}); busiest local "
      "link: {} (class {}).</p>\n",
      *bottleneck ? bottleneck : "tie",
      *bottleneck ? fmt::format("The {} links are the bottleneck", bottleneck)
                  : std::string(local_max > 0 ? "Local and global links are equally loaded" : "No link is loaded"),
      ctx.shown(global_max), fmt::join(global_classes, ", "), ctx.shown(local_max), fmt::join(local_classes, ", "));

  // The global channel matrix: cell (G, H) is the busiest global channel from G to H.
  const double cell = std::clamp(360.0 / static_cast<double>(nb), 3.0, 30.0), ox = 46, oy = 14;
  const double size = static_cast<double>(nb) * cell;
  out += svg_open("group-matrix", ctx, ox + size + 14, oy + size + 46);
  for (std::size_t G = 0; G < nb; ++G) {
    for (std::size_t H = 0; H < nb; ++H) {
      const double v = matrix[G * nb + H];
      if (v < 0) continue;
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" data-util=\"{:.17g}\">"
          "<title>group {} -> {}: {}</title></rect>\n",
          ox + static_cast<double>(H) * cell, oy + static_cast<double>(G) * cell, cell, cell, colour(v, ctx.scale), v,
          blocks.name(G), blocks.name(H), ctx.shown(v));
    }
  }
  const std::size_t every = std::max<std::size_t>(1, (nb + 9) / 10);
  for (std::size_t k = 0; k < nb; k += every) {
    const double mid = (static_cast<double>(k) + 0.5) * cell;
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", ox + mid, oy + size + 14,
                       blocks.name(k));
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", ox - 4, oy + mid + 3,
                       blocks.name(k));
  }
  const std::string per = blocks.per > 1 ? fmt::format(", {} groups per cell", blocks.per) : "";
  out += axis_label(ox + size / 2, oy + size + 34, "to group" + per);
  out += axis_label(10, oy + size / 2, "from group" + per, true);
  out += fmt::format("</svg><figcaption>global channels, group to group; colour: utilization ({})</figcaption></figure>\n",
                     ctx.units.utilization_unit());

  // Per group, its busiest local and global links side by side.
  BarChart bars;
  bars.kind = "group-loads";
  bars.value_attribute = "data-util";
  for (std::size_t b = 0; b < nb; ++b) bars.categories.push_back(blocks.name(b));
  bars.series.push_back({"local", local, {"#21918c"}});
  bars.series.push_back({"global", global, {"#440154"}});
  bars.x_label = blocks.per > 1 ? fmt::format("group ({} per bar pair)", blocks.per) : "group";
  bars.y_label = "busiest link's utilization";
  bars.y_unit = ctx.units.utilization_unit();
  bars.y_factor = ctx.units.utilization_factor();
  bars.caption = "each group's busiest local link and busiest global link leaving it";
  return out + bar_chart(ctx, bars);
}

std::string tree_pictures(const ChartContext& ctx, const std::vector<double>& loads) {
  const Machine& m = ctx.machine;
  // Level of each router: 0 for the hosts' own routers, 1 for leaf switches, up to the top.
  std::vector<std::uint32_t> level(m.num_routers, UINT32_MAX);
  std::vector<std::string> names(m.num_routers);
  if (const auto* t = std::get_if<FatTreeShape>(&m.shape)) {
    for (RouterId r = 0; r < m.num_routers; ++r) {
      level[r] = r < t->hosts ? 0 : 1 + (r - t->hosts) / t->per_level;
      names[r] = r < t->hosts ? fmt::format("node {}", r) : fmt::format("switch {}.{}", level[r], (r - t->hosts) % t->per_level);
    }
  } else if (const auto* f = std::get_if<FabricShape>(&m.shape); f && f->dragonfly.group_of.empty()) {
    std::deque<RouterId> queue;
    for (RouterId r = 0; r < f->first_switch; ++r) level[r] = 0;
    for (const Channel& c : m.channels) {  // leaves: the switches the hosts' links reach
      if (c.src < f->first_switch && c.dst >= f->first_switch && level[c.dst] == UINT32_MAX) {
        level[c.dst] = 1, queue.push_back(c.dst);
      }
    }
    if (f->first_switch == 0) {  // hosts on switch routers: the routers holding nodes
      for (NodeId n = 0; n < m.num_nodes(); ++n) {
        const RouterId r = m.router_of_node(n);
        if (level[r] == UINT32_MAX) level[r] = 1, queue.push_back(r);
      }
    }
    std::vector<std::vector<RouterId>> up(m.num_routers);
    for (const Channel& c : m.channels) {
      if (c.src >= f->first_switch && c.dst >= f->first_switch) up[c.src].push_back(c.dst);
    }
    while (!queue.empty()) {
      const RouterId r = queue.front();
      queue.pop_front();
      for (RouterId x : up[r]) {
        if (level[x] == UINT32_MAX) level[x] = level[r] + 1, queue.push_back(x);
      }
    }
    for (RouterId r = 0; r < m.num_routers; ++r) {
      // Below first_switch, router r is host r's own (node r), or inside a GPU node one of its.
      const NodeId node = m.gpu_links ? m.gpu_links->node_of_router[r] : r;
      names[r] = r < f->first_switch ? m.node_name(node) : f->switch_names[r - f->first_switch];
    }
  } else {
    return "";
  }
  // Rows: the routers of each level in id order, in blocks.
  std::uint32_t top = 0;
  for (std::uint32_t l : level) {
    if (l != UINT32_MAX) top = std::max(top, l);
  }
  std::vector<std::vector<RouterId>> row(top + 1);
  for (RouterId r = 0; r < m.num_routers; ++r) {
    if (level[r] != UINT32_MAX) row[level[r]].push_back(r);
  }
  std::vector<std::size_t> position(m.num_routers, 0);
  std::vector<Blocks> blocks;
  for (const auto& routers : row) {
    blocks.emplace_back(routers.size());
    for (std::size_t i = 0; i < routers.size(); ++i) position[routers[i]] = i;
  }
  // Links between boxes, both directions folded: the busiest channel, up and down apart.
  struct Link {
    double up = 0, down = 0;
    std::uint64_t channels = 0;
  };
  std::map<std::tuple<std::uint32_t, std::size_t, std::uint32_t, std::size_t>, Link> links;
  for (ChannelId c = 0; c < m.channels.size(); ++c) {
    const Channel& ch = m.channels[c];
    if (level[ch.src] == UINT32_MAX || level[ch.dst] == UINT32_MAX) continue;
    auto a = std::tuple(level[ch.src], blocks[level[ch.src]].of(position[ch.src]));
    auto b = std::tuple(level[ch.dst], blocks[level[ch.dst]].of(position[ch.dst]));
    const bool upward = b > a;
    if (!upward) std::swap(a, b);
    Link& l = links[{std::get<0>(a), std::get<1>(a), std::get<0>(b), std::get<1>(b)}];
    const double u = utilization(m, loads, c);
    (upward ? l.up : l.down) = std::max(upward ? l.up : l.down, u);
    ++l.channels;
  }
  const std::uint32_t lowest = row[0].empty() ? 1 : 0;
  JobHosts job(m, level);
  const double left = 120, width = 760, row_gap = 70, oy = job.partial ? 40 : 26;
  const double height = oy + (top - lowest) * row_gap + 60;
  auto box_x = [&](std::uint32_t l, std::size_t b) {
    return left + (static_cast<double>(b) + 0.5) * width / static_cast<double>(blocks[l].count());
  };
  auto row_y = [&](std::uint32_t l) { return oy + static_cast<double>(top - l) * row_gap; };
  std::string out = "<h3>Switches by tree level</h3>\n";
  // The boxes of the hosts' and the leaves' rows, with their hosts and the job's among them.
  struct HostBox {
    std::vector<RouterId> routers;
    std::uint64_t hosts = 0, job = 0;
  };
  std::vector<std::vector<HostBox>> host_boxes(std::min<std::uint32_t>(top, 1) + 1);
  std::size_t box_id = 0, job_leaves = 0, leaves = top >= 1 ? row[1].size() : 0;
  for (std::uint32_t l = lowest; l < host_boxes.size(); ++l) {
    const Blocks& b = blocks[l];
    for (std::size_t k = 0; k < b.count(); ++k) {
      HostBox box;
      box.routers.assign(row[l].begin() + static_cast<std::ptrdiff_t>(k * b.per),
                         row[l].begin() + static_cast<std::ptrdiff_t>(std::min(b.n, (k + 1) * b.per)));
      std::tie(box.hosts, box.job) = job.count(m, box.routers, box_id++);
      host_boxes[l].push_back(std::move(box));
    }
  }
  if (job.partial && top >= 1) {
    for (RouterId r : row[1]) job_leaves += job.count(m, {r}, box_id++).second > 0;
    out += fmt::format(
        "<p class=\"job-hosts\" data-job-hosts=\"{}\" data-job-leaves=\"{}\">The job has {} of the {} hosts, under {} of "
        "the {} leaf switches: a box's <span style=\"color:{}\">orange</span> share is its hosts that are the job's, and "
        "the leaves holding them are outlined.</p>\n",
        job.job_nodes, job_leaves, job.job_nodes, job.nodes, job_leaves, leaves, kJobColour);
  }
  out += svg_open("tree", ctx, left + width + 20, height);
  for (const auto& [key, l] : links) {
    const auto [la, ba, lb, bb] = key;
    const double v = std::max(l.up, l.down);
    const double x1 = box_x(la, ba), y1 = row_y(la), x2 = box_x(lb, bb), y2 = row_y(lb);
    const double stroke = 1 + 5 * (ctx.scale > 0 ? v / ctx.scale : 0);
    const std::string title =
        fmt::format("{} channels; busiest up {}, down {}", l.channels, ctx.shown(l.up), ctx.shown(l.down));
    if (la == lb) {  // links inside a level: an arc above the row
      out += fmt::format(
          "<path d=\"M{:.1f} {:.1f} Q{:.1f} {:.1f} {:.1f} {:.1f}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{:.1f}\" "
          "data-util=\"{:.17g}\" data-links=\"{}\"><title>{}</title></path>\n",
          x1, y1, (x1 + x2) / 2, y1 - 24, x2, y2, colour(v, ctx.scale), stroke, v, l.channels, title);
    } else {
      out += fmt::format(
          "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{:.1f}\" "
          "data-util=\"{:.17g}\" data-links=\"{}\"><title>{}</title></line>\n",
          x1, y1, x2, y2, colour(v, ctx.scale), stroke, v, l.channels, title);
    }
  }
  for (std::uint32_t l = lowest; l <= top; ++l) {
    const Blocks& b = blocks[l];
    const bool marked = job.partial && l < host_boxes.size();
    const double box_w = std::clamp(width / static_cast<double>(b.count()) * 0.7, 2.0, 36.0), box_h = marked ? 16 : 10;
    std::uint64_t job_boxes = 0;
    for (std::size_t k = 0; k < b.count(); ++k) {
      const std::size_t first = k * b.per, last = std::min(b.n, first + b.per) - 1;
      std::string what = first == last ? names[row[l][first]]
                                       : fmt::format("{} .. {} ({})", names[row[l][first]], names[row[l][last]],
                                                     last - first + 1);
      const double x = box_x(l, k) - box_w / 2, y = row_y(l) - box_h / 2;
      if (!marked) {
        out += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#444\" data-level=\"{}\" "
            "data-routers=\"{}\"><title>{}</title></rect>\n",
            x, y, box_w, box_h, l, last - first + 1, escape(what));
        continue;
      }
      const HostBox& hb = host_boxes[l][k];
      job_boxes += hb.job > 0;
      what += fmt::format(": {} of {} hosts are the job's", hb.job, hb.hosts);
      // A leaf box holding the job's hosts is outlined; the share of its hosts that are the
      // job's fills it from the bottom.
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#d0d0d0\" stroke=\"{}\" "
          "stroke-width=\"{}\" data-level=\"{}\" data-routers=\"{}\" data-hosts=\"{}\" data-job-hosts=\"{}\"><title>{}</title>"
          "</rect>\n",
          x, y, box_w, box_h, l == 1 && hb.job > 0 ? kJobColour : "#888", l == 1 && hb.job > 0 ? 2 : 0.5, l,
          last - first + 1, hb.hosts, hb.job, escape(what));
      if (hb.job > 0) {
        const double h = box_h * static_cast<double>(hb.job) / static_cast<double>(hb.hosts);
        out += fmt::format(
            "<rect class=\"job-share\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"><title>{}"
            "</title></rect>\n",
            x, y + box_h - h, box_w, h, kJobColour, escape(what));
      }
    }
    const std::string row_name = l == 0 ? "hosts" : l == top ? fmt::format("level {} (top)", l)
                                                 : l == 1 ? "level 1 (leaves)" : fmt::format("level {}", l);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", left - 8, row_y(l) + 3, row_name);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" fill=\"#666\">{} {}</text>", left - 8,
                       row_y(l) + 15, b.n, b.per > 1 ? fmt::format("in {} boxes", b.count()) : "");
    if (marked) {
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" fill=\"{}\">{} with the job's</text>",
                         left - 8, row_y(l) + 27, kJobColour, b.per > 1 ? fmt::format("{} boxes", job_boxes)
                                                                           : fmt::format("{}", job_boxes));
    }
  }
  if (job.partial) {  // the legend, top right
    const double x = left + width - 330;
    out += fmt::format(
        "<g class=\"job-legend\"><rect x=\"{0:.1f}\" y=\"4\" width=\"10\" height=\"10\" fill=\"{2}\"/><text x=\"{1:.1f}\" "
        "y=\"13\">the job's hosts</text><rect x=\"{3:.1f}\" y=\"4\" width=\"10\" height=\"10\" fill=\"#d0d0d0\"/><text "
        "x=\"{4:.1f}\" y=\"13\">other hosts</text><rect x=\"{5:.1f}\" y=\"4\" width=\"10\" height=\"10\" fill=\"#d0d0d0\" "
        "stroke=\"{2}\" stroke-width=\"2\"/><text x=\"{6:.1f}\" y=\"13\">a leaf above the job's hosts</text></g>\n",
        x, x + 14, kJobColour, x + 100, x + 114, x + 180, x + 194);
  }
  std::size_t per = 1;
  for (const Blocks& b : blocks) per = std::max(per, b.per);
  out += axis_label(left + width / 2, height - 10,
                    per > 1 ? fmt::format("switches in the machine's order (up to {} per box)", per)
                            : "switches in the machine's order");
  out += axis_label(12, (row_y(top) + row_y(lowest)) / 2, "tree level", true);
  return out + fmt::format(
                   "</svg><figcaption>links between levels: colour and width by the busiest channel, either "
                   "direction ({})</figcaption></figure>\n",
                   ctx.units.utilization_unit());
}

}  // namespace taskmap::html
