#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "taskmap/core/atomic_file.h"
#include "taskmap/core/error.h"
#include "taskmap/core/temp_files.h"
#include "taskmap/validate/simgrid.h"

namespace taskmap {
namespace {

std::string host_name(NodeId n) { return fmt::format("node-{}", n); }

// SimGrid's clusters give every link one bandwidth.
bool uniform_bandwidth(const Machine& m) {
  return std::all_of(m.classes.begin(), m.classes.end(),
                     [&](const LinkClass& c) { return c.bandwidth == m.classes.front().bandwidth; });
}

std::string reversed(const std::string& s) { return std::string(s.rbegin(), s.rend()); }

// A TORUS cluster numbers hosts with its first dimension fastest and routes that dimension
// first; taskmap's router ids put the first letter slowest. With the sizes given last letter
// first, host i is router i and SimGrid's dimension order is taskmap's letters reversed.
bool torus_cluster_matches(const Machine& m, const RoutingSpec& r) {
  const TorusShape* t = m.torus();
  return t != nullptr && m.nodes_per_router == 1 && uniform_bandwidth(m) &&
         std::all_of(t->wrap.begin(), t->wrap.end(), [](bool w) { return w; }) &&
         r.kind == RoutingKind::DimensionOrder && r.ties == TieRule::SimGrid &&
         r.dimension_order == reversed(t->letters);
}

bool fat_tree_cluster_matches(const Machine& m, const RoutingSpec& r) {
  return std::holds_alternative<FatTreeShape>(m.shape) && uniform_bandwidth(m) && r.kind == RoutingKind::DModK;
}

std::string bandwidth(double bytes_per_second) { return fmt::format("{:.10g}Bps", bytes_per_second); }
std::string latency(double seconds) { return fmt::format("{:.10g}s", seconds); }

std::string cluster_xml(const Machine& m, const SimGridOptions& o, const std::string& topology,
                        const std::string& parameters) {
  return fmt::format(
      "  <cluster id=\"taskmap\" prefix=\"node-\" suffix=\"\" radical=\"0-{}\" speed=\"1Gf\" bw=\"{}\" lat=\"{}\" "
      "sharing_policy=\"SPLITDUPLEX\" loopback_bw=\"{}\" loopback_lat=\"0s\" topology=\"{}\" "
      "topo_parameters=\"{}\"/>\n",
      m.num_nodes() - 1, bandwidth(o.link_bandwidth * m.classes.front().bandwidth), latency(o.link_latency),
      bandwidth(o.link_bandwidth * 1000), topology, parameters);
}

// One link per channel and one route per ordered pair of nodes that hold ranks, following
// taskmap's routing; nodes of one router (and a node to itself) talk through a fat-pipe
// loopback that never limits.
std::string explicit_routes_xml(const Machine& m, const RoutingSpec& spec, const std::vector<NodeId>& nodes,
                                const SimGridOptions& o) {
  if (m.num_nodes() > kMaxExplicitRouteNodes) {
    fail("export simgrid: machine '{}' has {} nodes; SimGrid has no cluster with taskmap's routing for it, and "
         "explicit routes are written for at most {} nodes ({} routes here)",
         m.description, m.num_nodes(), kMaxExplicitRouteNodes, std::uint64_t(nodes.size()) * nodes.size());
  }
  const auto routing = make_routing(m, spec);
  std::string out = "  <zone id=\"taskmap\" routing=\"Full\">\n";
  for (NodeId n : nodes) out += fmt::format("    <host id=\"{}\" speed=\"1Gf\"/>\n", host_name(n));
  for (ChannelId c = 0; c < m.channels.size(); ++c) {
    out += fmt::format("    <link id=\"c{}\" bandwidth=\"{}\" latency=\"{}\"/>\n", c,
                       bandwidth(o.link_bandwidth * m.classes[m.channels[c].link_class].bandwidth),
                       latency(o.link_latency));
  }
  out += fmt::format("    <link id=\"loopback\" bandwidth=\"{}\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n",
                     bandwidth(o.link_bandwidth * 1000));
  std::vector<ChannelShare> shares;
  for (NodeId a : nodes) {
    for (NodeId b : nodes) {
      out += fmt::format("    <route src=\"{}\" dst=\"{}\" symmetrical=\"NO\">", host_name(a), host_name(b));
      const RouterId ra = m.router_of_node(a), rb = m.router_of_node(b);
      if (ra == rb) {
        out += "<link_ctn id=\"loopback\"/>";
      } else {
        shares.clear();
        routing->route(ra, rb, shares);
        for (const ChannelShare& s : shares) {
          if (std::abs(s.fraction - 1.0) > 1e-12) {
            fail("export simgrid: routing '{}' splits the flow from router {} to router {} over several paths; "
                 "SimGrid routes each pair on one path",
                 spec.text, ra, rb);
          }
          out += fmt::format("<link_ctn id=\"c{}\"/>", s.channel);
        }
      }
      out += "</route>\n";
    }
  }
  return out + "  </zone>\n";
}

}  // namespace

RoutingSpec simgrid_routing(const Machine& machine) {
  if (const TorusShape* t = machine.torus()) return parse_routing_spec("dor:" + reversed(t->letters) + ",ties=simgrid");
  if (std::holds_alternative<FatTreeShape>(machine.shape)) return parse_routing_spec("dmodk");
  return default_routing(machine);
}

SimGridExport export_simgrid(const Machine& m, const RoutingSpec& spec, const CommGraph& graph, const Mapping& mapping,
                             const SimGridOptions& o) {
  SimGridExport e;
  e.ranks = graph.num_tasks();
  std::vector<NodeId> nodes;  // nodes holding ranks, ascending
  {
    std::vector<bool> used(m.num_nodes(), false);
    for (SlotId s : mapping.slot_of_task) used[m.node_of_slot(s)] = true;
    for (NodeId n = 0; n < m.num_nodes(); ++n) {
      if (used[n]) nodes.push_back(n);
    }
  }
  std::string zone;
  if (torus_cluster_matches(m, spec)) {
    const TorusShape& t = *m.torus();
    std::string sizes;
    for (std::size_t d = t.dims(); d-- > 0;) sizes += fmt::format("{}{}", sizes.empty() ? "" : ",", t.sizes[d]);
    e.platform_kind = "TORUS cluster";
    zone = cluster_xml(m, o, "TORUS", sizes);
  } else if (fat_tree_cluster_matches(m, spec)) {
    const FatTreeShape& f = std::get<FatTreeShape>(m.shape);
    std::string down, up, count;
    for (std::uint32_t l = 0; l < f.n; ++l) {
      const char* sep = l ? "," : "";
      down += fmt::format("{}{}", sep, f.k);
      up += fmt::format("{}{}", sep, l == 0 ? 1 : f.k);
      count += fmt::format("{}1", sep);
    }
    e.platform_kind = "FAT_TREE cluster";
    zone = cluster_xml(m, o, "FAT_TREE", fmt::format("{};{};{};{}", f.n, down, up, count));
  } else {
    e.platform_kind = "explicit routes";
    zone = explicit_routes_xml(m, spec, nodes, o);
  }
  e.platform_xml = fmt::format(
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<!-- taskmap export of {} ({} routing, {}) -->\n<platform version=\"4.1\">\n{}</platform>\n",
      m.description, spec.text, e.platform_kind, zone);
  for (TaskId t = 0; t < graph.num_tasks(); ++t) e.hostfile += host_name(m.node_of_slot(mapping.slot_of_task[t])) + "\n";

  // One iteration of the pattern: every rank posts its receives, then its sends, then waits.
  std::vector<std::string> receives(graph.num_tasks()), sends(graph.num_tasks());
  std::vector<std::uint32_t> requests(graph.num_tasks(), 0);
  for (TaskId s = 0; s < graph.num_tasks(); ++s) {
    const auto targets = graph.targets(s);
    const auto volumes = graph.volumes(s);
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const TaskId d = targets[i];
      const double bytes = std::round(volumes[i] * o.bytes_per_unit);
      if (d == s || !(bytes >= 1)) continue;
      sends[s] += fmt::format("{} isend {} 0 {:.0f}\n", s, d, bytes);
      receives[d] += fmt::format("{} irecv {} 0 {:.0f}\n", d, s, bytes);
      ++requests[s];
      ++requests[d];
    }
  }
  for (TaskId t = 0; t < graph.num_tasks(); ++t) {
    e.traces.push_back(fmt::format("{} init\n{}{}{} waitall {}\n{} finalize\n", t, receives[t], sends[t], t,
                                   requests[t], t));
  }
  return e;
}

void check_simgrid_export_dir(const std::string& dir, std::string_view option) {
  io::check_output_path(dir, io::OutputKind::Directory, option);
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_empty(dir, ec)) {
    fail("{} {}: exists and is not an empty directory", option, dir);
  }
}

std::string write_simgrid_export(const SimGridExport& e, const std::string& dir) {
  namespace fs = std::filesystem;
  check_simgrid_export_dir(dir);
  std::error_code ec;
  const fs::path temp = fmt::format("{}.tmp-{}", dir, ::getpid());
  fs::remove_all(temp, ec);
  // Removed with what it holds if the run is interrupted.
  const io::TempPathGuard guard(temp.string(), true);
  if (!fs::create_directories(temp / "trace", ec)) fail("--out {}: cannot create ({})", dir, ec.message());
  const std::string command = fmt::format(
      "${{SMPIRUN:-smpirun}} -np {} -platform platform.xml -hostfile hostfile.txt -replay traces.txt {}", e.ranks,
      kSimGridModelOptions);
  try {
    auto write = [&](const fs::path& path, const std::string& text) {
      std::ofstream out(path, std::ios::binary);
      out << text;
      out.close();
      if (!out) fail("--out {}: cannot write {} ({})", dir, path.filename().string(), std::strerror(errno));
    };
    write(temp / "platform.xml", e.platform_xml);
    write(temp / "hostfile.txt", e.hostfile);
    std::string list;
    for (std::size_t r = 0; r < e.traces.size(); ++r) {
      const std::string name = fmt::format("trace/rank-{}.txt", r);
      write(temp / name, e.traces[r]);
      list += name + "\n";
    }
    write(temp / "traces.txt", list);
    write(temp / "run.sh", "#!/bin/sh\n# Replays the exported iteration under SimGrid; prints the simulated time.\n"
                           "cd \"$(dirname \"$0\")\" && exec " + command + "\n");
    fs::remove(dir, ec);  // an empty directory given as --out
    fs::rename(temp, dir);
  } catch (const std::exception&) {
    fs::remove_all(temp, ec);
    throw;
  }
  return command;
}

}  // namespace taskmap
