// read_aries_links: a Cray XC (Aries Dragonfly) from the router-port list Cray's `rtr` tools
// print, one line per port: "c0-0c0s0a0l00(0:0:0) green -> c0-0c0s6a0l10(0:0:6)" (port
// cname(group:row:column) colour -> peer), "... blue -> unused", "... ptile -> processor".
// The nodes are named from an xtdb2proc table when one is given, else by Cray's numbering.
// A file in taskmap's plain Dragonfly format goes to read_dragonfly_file.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cray_xc.h"
#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"
#include "taskmap/topology/fabric.h"

namespace taskmap {
namespace {

using detail::CrayBlade;

// Data rates per direction of an Aries port (a tile of 3 lanes): rank-1 (green, chassis
// backplane) and rank-2 (black, copper cables within a group) lanes signal at 14 Gb/s, rank-3
// (blue, optical between groups) at 12.5 Gb/s (Cray XC series network, as NeSI documents its
// XC50; "4.7 to 5.25 GB/s per direction per port", Alverson et al., Cray XC Series Network).
constexpr double kGreenGbps = 3 * 14.0;
constexpr double kBlackGbps = 3 * 14.0;
constexpr double kBlueGbps = 3 * 12.5;
// Each Aries NIC (one per node) uses two of the router's 8 processor tiles.
constexpr std::uint32_t kPtilesPerRouter = 2 * detail::kXcNodesPerBlade;
constexpr std::uint32_t kTilesPerRouter = 48;  // 6 rows of 8

enum class Colour { Green, Black, Blue, Ptile };

std::optional<Colour> parse_colour(std::string_view word) {
  if (word == "green") return Colour::Green;
  if (word == "black") return Colour::Black;
  if (word == "blue") return Colour::Blue;
  if (word == "ptile") return Colour::Ptile;
  return std::nullopt;
}

const char* colour_name(Colour colour) {
  switch (colour) {
    case Colour::Green: return "green";
    case Colour::Black: return "black";
    case Colour::Blue: return "blue";
    case Colour::Ptile: return "ptile";
  }
  return "?";
}

double colour_gbps(Colour colour) {
  return colour == Colour::Blue ? kBlueGbps : colour == Colour::Black ? kBlackGbps : kGreenGbps;
}

// Position of a router in the Dragonfly, "(group:row:column)".
struct Coordinates {
  std::uint32_t group = 0, row = 0, column = 0;
  bool operator==(const Coordinates&) const = default;
};

// "c0-0c0s0a0l00(0:0:0)": blade, tile "lRC" (row R 0-5, column C 0-7), coordinates.
struct PortToken {
  CrayBlade blade;
  std::uint32_t tile = 0;
  Coordinates at;
};

class Scanner final {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}
  bool literal(char c) {
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  std::optional<std::uint32_t> number(std::size_t max_digits = 6) {
    std::uint32_t value = 0;
    std::size_t digits = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9' && digits < max_digits) {
      value = value * 10 + static_cast<std::uint32_t>(text_[pos_++] - '0');
      ++digits;
    }
    return digits > 0 ? std::optional(value) : std::nullopt;
  }
  bool done() const { return pos_ == text_.size(); }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

std::optional<PortToken> parse_port(std::string_view token) {
  Scanner s(token);
  PortToken port;
  std::optional<std::uint32_t> column, row, chassis, slot, aries, tile_row, tile_column, group, grow, gcolumn;
  if (!s.literal('c') || !(column = s.number()) || !s.literal('-') || !(row = s.number()) || !s.literal('c') ||
      !(chassis = s.number()) || !s.literal('s') || !(slot = s.number()) || !s.literal('a') || !(aries = s.number()) ||
      !s.literal('l') || !(tile_row = s.number(1)) || !(tile_column = s.number(1)) || !s.literal('(') ||
      !(group = s.number()) || !s.literal(':') || !(grow = s.number()) || !s.literal(':') || !(gcolumn = s.number()) ||
      !s.literal(')') || !s.done()) {
    return std::nullopt;
  }
  if (*chassis >= detail::kXcChassisPerCabinet || *slot >= detail::kXcSlotsPerChassis || *aries != 0 ||
      *tile_row >= 6 || *tile_column >= 8) {
    return std::nullopt;
  }
  port.blade = {*column, *row, *chassis, *slot};
  port.tile = *tile_row * 8 + *tile_column;
  port.at = {*group, *grow, *gcolumn};
  return port;
}

struct Router {
  CrayBlade blade;
  std::string name;
  Coordinates at;
  std::size_t line = 0;  // where it first appears
  std::uint32_t ptiles = 0;
};

struct PortEnd {
  enum class Kind { Wired, Unused, Processor } kind = Kind::Unused;
  std::uint64_t peer = 0;  // port key of the other end, when wired
  Colour colour = Colour::Green;
  std::size_t line = 0;
};

// A kind of oddity: how often, and the first example.
struct Oddity {
  std::size_t count = 0;
  std::string example;
  void add(std::string text) {
    if (count++ == 0) example = std::move(text);
  }
};

class AriesWiring final {
 public:
  AriesWiring(const std::string& path, const std::string& text) : path_(path) {
    io::LineCursor cursor(path, text);
    while (auto line = cursor.next_content_line("#")) read_line(cursor, *line);
    if (routers_.empty()) cursor.fail_at_end("no router port line (expected 'c0-0c0s0a0l00(0:0:0) green -> ...')");
  }

  // Routers become the switches; each wired pair of port ends becomes one cable.
  void fill(Fabric& fabric, const WarningSink& warn) const;
  const std::vector<Router>& routers() const { return routers_; }

 private:
  static std::uint64_t key(std::uint32_t router, std::uint32_t tile) {
    return std::uint64_t{router} * kTilesPerRouter + tile;
  }
  std::string port_name(std::uint64_t port) const {
    const auto tile = static_cast<std::uint32_t>(port % kTilesPerRouter);
    return fmt::format("{}l{}{}", routers_[port / kTilesPerRouter].name, tile / 8, tile % 8);
  }

  std::uint32_t router_of(const io::LineCursor& cursor, const PortToken& port) {
    const std::string name = detail::aries_router_name(port.blade);
    const auto [it, added] = index_.emplace(name, static_cast<std::uint32_t>(routers_.size()));
    if (added) {
      routers_.push_back({port.blade, name, port.at, cursor.line_number(), 0});
    } else if (routers_[it->second].at != port.at) {
      const auto& first = routers_[it->second];
      cursor.fail_here(fmt::format("router {} is at ({}:{}:{}) here but at ({}:{}:{}) on line {}", name, port.at.group,
                                   port.at.row, port.at.column, first.at.group, first.at.row, first.at.column,
                                   first.line));
    }
    return it->second;
  }

  void read_line(io::LineCursor& cursor, std::string_view line) {
    const auto fields = io::split_fields(line.substr(0, line.find('#')));  // '#' starts a comment
    if (fields.size() != 4 || fields[2] != "->") {
      cursor.fail_here("expected 'PORT(GROUP:ROW:COLUMN) COLOUR -> PEER', the peer a port, 'unused' or 'processor'");
    }
    const auto source = parse_port(fields[0]);
    if (!source) cursor.fail_here(fmt::format("'{}' is not an Aries port like c0-0c0s0a0l00(0:0:0)", fields[0]));
    const auto colour = parse_colour(fields[1]);
    if (!colour) cursor.fail_here(fmt::format("unknown colour '{}' (expected green, black, blue or ptile)", fields[1]));
    const std::uint32_t router = router_of(cursor, *source);
    PortEnd end{PortEnd::Kind::Unused, 0, *colour, cursor.line_number()};
    if (fields[3] == "processor") {
      if (*colour != Colour::Ptile) cursor.fail_here(fmt::format("a {} port cannot lead to a processor", fields[1]));
      end.kind = PortEnd::Kind::Processor;
      ++routers_[router].ptiles;
    } else if (fields[3] != "unused") {
      if (*colour == Colour::Ptile) cursor.fail_here("a ptile port leads to 'processor' or is 'unused'");
      const auto peer = parse_port(fields[3]);
      if (!peer) cursor.fail_here(fmt::format("'{}' is not an Aries port like c0-0c0s0a0l00(0:0:0)", fields[3]));
      end.kind = PortEnd::Kind::Wired;
      end.peer = key(router_of(cursor, *peer), peer->tile);
    }
    const auto [it, added] = ports_.emplace(key(router, source->tile), end);
    if (!added) cursor.fail_here(fmt::format("port {} is listed twice (first on line {})", fields[0], it->second.line));
  }

  // Green links join routers of one chassis (a row of the group), black ones routers of one
  // slot position across the group's chassis (a column), blue ones two groups.
  bool colour_fits(Colour colour, const Coordinates& a, const Coordinates& b) const {
    switch (colour) {
      case Colour::Green: return a.group == b.group && a.row == b.row;
      case Colour::Black: return a.group == b.group && a.column == b.column;
      case Colour::Blue: return a.group != b.group;
      case Colour::Ptile: return false;
    }
    return false;
  }

  std::string path_;
  std::vector<Router> routers_;
  std::map<std::string, std::uint32_t, std::less<>> index_;
  std::map<std::uint64_t, PortEnd> ports_;
};

void AriesWiring::fill(Fabric& fabric, const WarningSink& warn) const {
  fabric.rates_in_gbps = true;
  for (const auto& router : routers_) fabric.switches.push_back(router.name);
  // Dragonfly groups by the group number of the routers' (group:row:column), in number order;
  // a number no router has (Edison has no group 12) is no group.
  std::map<std::uint32_t, std::uint32_t> group_index;
  for (const auto& router : routers_) group_index.emplace(router.at.group, 0);
  for (auto& [number, index] : group_index) {
    index = static_cast<std::uint32_t>(fabric.group_names.size());
    fabric.group_names.push_back(std::to_string(number));
  }
  for (const auto& router : routers_) fabric.switch_group.push_back(group_index.at(router.at.group));
  Oddity one_ended, colour_differs, colour_misfits, loops;
  for (const auto& [port, end] : ports_) {
    if (end.kind != PortEnd::Kind::Wired) continue;
    const auto a = static_cast<std::uint32_t>(port / kTilesPerRouter);
    const auto b = static_cast<std::uint32_t>(end.peer / kTilesPerRouter);
    const auto other = ports_.find(end.peer);
    if (other != ports_.end() && (other->second.kind != PortEnd::Kind::Wired || other->second.peer != port)) {
      const auto& o = other->second;
      fail("{}:{}: port {} leads to {}, but {} leads to {} (line {})", path_, end.line, port_name(port),
           port_name(end.peer), port_name(end.peer),
           o.kind == PortEnd::Kind::Wired    ? port_name(o.peer)
           : o.kind == PortEnd::Kind::Unused ? "unused"
                                             : "processor",
           o.line);
    }
    if (other == ports_.end()) {
      one_ended.add(fmt::format("{} -> {} (line {})", port_name(port), port_name(end.peer), end.line));
    } else if (port > end.peer) {
      continue;  // the cable was counted from its other end
    } else if (other->second.colour != end.colour) {
      colour_differs.add(fmt::format("line {} says {}, line {} {}", end.line, colour_name(end.colour),
                                     other->second.line, colour_name(other->second.colour)));
    }
    if (a == b) {
      loops.add(fmt::format("{} -> {} (line {})", port_name(port), port_name(end.peer), end.line));
      continue;
    }
    if (!colour_fits(end.colour, routers_[a].at, routers_[b].at)) {
      colour_misfits.add(fmt::format("line {}: {} {} -> {}", end.line, port_name(port), colour_name(end.colour),
                                     port_name(end.peer)));
    }
    fabric.cables.push_back({a, b, colour_gbps(end.colour)});
  }
  if (one_ended.count > 0) {
    warn(fmt::format("{}: {} links are listed from one end only (counted as cables), e.g. {}", path_, one_ended.count,
                     one_ended.example));
  }
  if (colour_differs.count > 0) {
    warn(fmt::format("{}: {} links have a different colour at each end (the first end's is used), e.g. {}", path_,
                     colour_differs.count, colour_differs.example));
  }
  if (colour_misfits.count > 0) {
    warn(fmt::format("{}: {} links have a colour their routers' (group:row:column) do not fit, e.g. {}", path_,
                     colour_misfits.count, colour_misfits.example));
  }
  if (loops.count > 0) {
    warn(
        fmt::format("{}: {} links join two ports of one router (ignored), e.g. {}", path_, loops.count, loops.example));
  }
}

Fabric::HostPort port_of(std::uint32_t host, std::uint32_t sw) { return {host, sw, 0.0}; }

// Nodes by Cray's numbering: the 4 nodes of every router that has processor tiles.
void add_numbered_nodes(Fabric& fabric, const AriesWiring& wiring, const WarningSink& warn) {
  std::uint32_t columns = 0;
  for (const auto& router : wiring.routers()) columns = std::max(columns, router.blade.column + 1);
  Oddity odd_ptiles;
  for (std::uint32_t sw = 0; sw < wiring.routers().size(); ++sw) {
    const auto& router = wiring.routers()[sw];
    if (router.ptiles != kPtilesPerRouter) odd_ptiles.add(fmt::format("{} has {}", router.name, router.ptiles));
    if (router.ptiles == 0) continue;
    for (std::uint32_t node = 0; node < detail::kXcNodesPerBlade; ++node) {
      fabric.host_ports.push_back(port_of(static_cast<std::uint32_t>(fabric.hosts.size()), sw));
      fabric.hosts.push_back(detail::nid_name(detail::cray_nid(router.blade, node, columns)));
    }
  }
  if (odd_ptiles.count > 0) {
    warn(fmt::format("{}: {} routers do not have {} processor tiles (4 nodes; none without tiles), e.g. {}",
                     fabric.source, odd_ptiles.count, kPtilesPerRouter, odd_ptiles.example));
  }
}

// Nodes from an xtdb2proc table: its compute nodes, named by their nid, in nid order.
void add_listed_nodes(Fabric& fabric, const std::string& nodes_path, const WarningSink& warn) {
  auto nodes = detail::read_xtdb2proc(nodes_path);
  std::sort(nodes.begin(), nodes.end(), [](const auto& x, const auto& y) { return x.nid < y.nid; });
  std::map<std::string, std::uint32_t, std::less<>> switch_of;
  for (std::uint32_t sw = 0; sw < fabric.switches.size(); ++sw) switch_of.emplace(fabric.switches[sw], sw);
  Oddity elsewhere;
  std::size_t compute = 0;
  for (const auto& node : nodes) {
    if (!node.compute) continue;  // login and I/O nodes run no job
    ++compute;
    const std::string router = detail::aries_router_name(node.blade);
    const auto it = switch_of.find(router);
    if (it == switch_of.end()) {
      elsewhere.add(fmt::format("{} on {} (line {})", detail::nid_name(node.nid), router, node.line));
      continue;
    }
    fabric.host_ports.push_back(port_of(static_cast<std::uint32_t>(fabric.hosts.size()), it->second));
    fabric.hosts.push_back(detail::nid_name(node.nid));
  }
  if (fabric.hosts.empty()) {
    fail("{}: none of its {} compute nodes is on a router of {} (nodes of another machine?)", nodes_path, compute,
         fabric.source);
  }
  if (elsewhere.count > 0) {
    warn(fmt::format("{}: {} compute nodes are on routers {} does not list (skipped), e.g. {}", nodes_path,
                     elsewhere.count, fabric.source, elsewhere.example));
  }
}

// taskmap's own format starts with a "router", "link" or "nodes" line.
bool is_plain_dragonfly(const std::string& path, const std::string& text) {
  io::LineCursor cursor(path, text);
  const auto line = cursor.next_content_line("#");
  if (!line) return false;
  const auto fields = io::split_fields(*line);
  return !fields.empty() && (fields[0] == "router" || fields[0] == "link" || fields[0] == "nodes");
}

}  // namespace

Fabric read_aries_links(const std::string& links_path, const std::string& nodes_path, const WarningSink& warn) {
  const std::string text = io::read_text_file(links_path);
  if (is_plain_dragonfly(links_path, text)) {
    if (!nodes_path.empty()) {
      fail("{}: a Dragonfly file in taskmap's format names its own nodes; no node table ('{}') goes with it",
           links_path, nodes_path);
    }
    return read_dragonfly_file(links_path, warn);
  }
  const AriesWiring wiring(links_path, text);
  Fabric fabric;
  fabric.source = links_path;
  fabric.hosts_on_switches = true;
  wiring.fill(fabric, warn);
  if (nodes_path.empty()) {
    add_numbered_nodes(fabric, wiring, warn);
  } else {
    add_listed_nodes(fabric, nodes_path, warn);
  }
  return fabric;
}

}  // namespace taskmap
