// read_ibnetdiscover: either ibnetdiscover output (the default topology or the `-p` port list)
// into a Fabric. The parsers (ibnet_plain.cpp, ibnet_port_list.cpp) give nodes and cables; here
// CAs become hosts and switches get names:
//   - a host is named by the GUID map, else by the first word of its CA's description
//     ("cn0012 mlx5_0" -> cn0012), so several CAs of one host make one multi-rail host;
//   - factory descriptions ("MT4129 ConnectX7   Mellanox Technologies") name no host, unless the
//     switches' port lines name it (ibnetdiscover --node-name-map maps names only there): H-<GUID>;
//   - names many machines share before they get their own ("localhost", "ubuntu"), or one name
//     on two CAs with the same device, name no single machine: NAME-<GUID>, one host per CA;
//   - SHARP aggregation nodes (a CA inside each NDR switch) are not compute hosts: skipped;
//   - routers (Rt) join subnets, and no route inside this one crosses them: skipped;
//   - a switch is named by its description when no other switch has it, else DESCRIPTION-<GUID>.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "ibnet_dump.h"
#include "taskmap/core/error.h"
#include "taskmap/topology/fabric.h"
#include "taskmap/topology/guid_map.h"
#include "taskmap/topology/infiniband.h"

namespace taskmap {

double infiniband_gbps(std::string_view width_speed) {
  std::string text;
  for (char c : width_speed) {
    if (c != ' ' && c != '\t') text += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  const auto x = text.find('X');
  if (x == std::string::npos) return 0;
  const auto lanes = io::parse_int(std::string_view(text).substr(0, x));
  if (!lanes || (*lanes != 1 && *lanes != 2 && *lanes != 4 && *lanes != 8 && *lanes != 12)) return 0;
  // Data rate per lane, in Gb/s: the signalling rate (2.5, 5, 10, 10.3125, 14.0625, 25.78125,
  // 53.125, 106.25, 212.5) less its line code, 8b/10b up to QDR and 64b/66b from FDR10 on; the
  // IBTA's nominal 50, 100 and 200 from HDR on, whose forward error correction takes the rest.
  static constexpr std::pair<std::string_view, double> kLaneGbps[] = {
      {"SDR", 2.0},  {"DDR", 4.0},  {"QDR", 8.0},   {"FDR10", 10.0},
      {"FDR", 14.0625 * 64 / 66},   {"EDR", 25.0}, {"HDR", 50.0}, {"NDR", 100.0}, {"XDR", 200.0}};
  const auto speed = std::string_view(text).substr(x + 1);
  for (const auto& [name, gbps] : kLaneGbps) {
    if (speed == name) return static_cast<double>(*lanes) * gbps;
  }
  return 0;
}

namespace {

using ibnet::Dump;
using ibnet::Link;
using ibnet::Node;
using ibnet::NodeKind;
using ibnet::Oddity;

bool is_sharp_node(const Node& node) { return node.description.find("Aggregation Node") != std::string::npos; }

// Descriptions the adapter carries until a host writes its own: "MT25408 ConnectX Mellanox
// Technologies", "MT23108 InfiniHost Mellanox Technologies".
bool is_factory_description(std::string_view description) {
  const auto words = io::split_fields(description);
  if (words.empty()) return true;
  const auto first = words[0];
  if (first.size() > 2 && first.starts_with("MT") &&
      std::all_of(first.begin() + 2, first.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    return true;
  }
  return description.find("Mellanox Technologies") != std::string_view::npos;
}

// Host names machines carry before they are given their own.
bool is_placeholder_host_name(std::string_view name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "localhost" || lower == "localhost.localdomain" || lower == "ubuntu" || lower == "(none)";
}

enum class LinkUse { kCable, kHostPort, kLoopback, kSharp, kCaToCa, kRouter };

class FabricAssembler final {
 public:
  FabricAssembler(const std::string& source, const Dump& dump, const GuidMap* map, const WarningSink& warn)
      : source_(source), dump_(dump), map_(map), warn_(warn) {}

  Fabric run() {
    if (dump_.nodes.empty()) {
      if (dump_.last_line == 0) fail("{}: the file is empty: no ibnetdiscover output", source_);
      fail("{}:{}: no Switch, Ca or Rt block and no port-list line: is it an ibnetdiscover output?", source_,
           dump_.last_line);
    }
    name_cas();
    classify_links();
    index_switches();
    index_hosts();
    connect();
    build_subnet();
    report();
    if (fabric_.switches.empty()) {
      fail("{}:{}: no switch cabled to anything ({} nodes read): a fabric needs switches", source_, dump_.last_line,
           dump_.nodes.size());
    }
    if (fabric_.hosts.empty()) fail("{}:{}: no compute host is cabled to a switch", source_, dump_.last_line);
    return std::move(fabric_);
  }

 private:
  const Node& node(std::uint32_t i) const { return dump_.nodes[i]; }
  bool is_switch(std::uint32_t i) const { return node(i).kind == NodeKind::kSwitch; }

  std::optional<std::string> mapped_name(const Node& n) const {
    if (map_ == nullptr) return std::nullopt;
    if (auto name = map_->host_of(n.guid)) return name;
    for (const auto& port_guid : n.port_guids) {
      if (auto name = map_->host_of(port_guid)) return name;
    }
    return std::nullopt;
  }

  std::string example(const Node& n) const { return fmt::format("line {}: '{}'", n.line, n.description); }

  // A CA's description, or, when that is the adapter's factory one, how its peers' port lines
  // describe it if that is not a factory one too.
  const std::string& host_description(const Node& n) const {
    return is_factory_description(n.description) && !is_factory_description(n.peer_description) ? n.peer_description
                                                                                                  : n.description;
  }

  void name_cas() {
    ca_name_.resize(dump_.nodes.size());
    std::map<std::string, std::vector<std::uint32_t>> by_description_name;
    for (std::uint32_t i = 0; i < dump_.nodes.size(); ++i) {
      const auto& n = node(i);
      if (n.kind == NodeKind::kRouter) routers_.note(example(n));
      if (n.kind != NodeKind::kCa) continue;
      if (is_sharp_node(n)) {
        sharp_.note(fmt::format("line {}: H-{}", n.line, n.guid));
      } else if (auto name = mapped_name(n)) {
        ca_name_[i] = *name;
      } else if (is_factory_description(host_description(n))) {
        ca_name_[i] = "H-" + n.guid;
        guid_named_.note(fmt::format("{} -> {}", example(n), ca_name_[i]));
      } else {
        by_description_name[std::string(io::split_fields(host_description(n))[0])].push_back(i);
      }
    }
    std::vector<std::string> shared_names;
    for (const auto& [name, cas] : by_description_name) {
      const bool shared = is_placeholder_host_name(name) || repeats_a_description(cas);
      for (auto i : cas) ca_name_[i] = shared ? fmt::format("{}-{}", name, node(i).guid) : name;
      if (!shared) continue;
      shared_names.push_back(fmt::format("{} x{}", name, cas.size()));
      for (auto i : cas) shared_name_.note(fmt::format("{} -> {}", example(node(i)), ca_name_[i]));
    }
    shared_name_list_ = fmt::format("{}", fmt::join(shared_names, ", "));
  }

  // Two CAs "cn01 mlx5_0": two machines answer to cn01. (A port list shows each port of a CA
  // on its own: two ports of one CA have one description and two port numbers.)
  bool repeats_a_description(const std::vector<std::uint32_t>& cas) const {
    std::vector<std::pair<std::string_view, std::uint32_t>> descriptions;
    for (auto i : cas) descriptions.emplace_back(host_description(node(i)), node(i).listed_port);
    std::sort(descriptions.begin(), descriptions.end());
    return std::adjacent_find(descriptions.begin(), descriptions.end()) != descriptions.end();
  }

  void classify_links() {
    const auto& links = dump_.links.links();
    use_.resize(links.size());
    used_.assign(dump_.nodes.size(), false);
    for (std::size_t k = 0; k < links.size(); ++k) {
      const auto& l = links[k];
      const auto a = l.a.node, b = l.b.node;
      if (node(a).kind == NodeKind::kRouter || node(b).kind == NodeKind::kRouter) {
        use_[k] = LinkUse::kRouter;
      } else if (is_switch(a) && is_switch(b)) {
        use_[k] = a == b ? LinkUse::kLoopback : LinkUse::kCable;
      } else if (!is_switch(a) && !is_switch(b)) {
        use_[k] = LinkUse::kCaToCa;
      } else {
        const auto ca = is_switch(a) ? b : a;
        use_[k] = is_sharp_node(node(ca)) ? LinkUse::kSharp : LinkUse::kHostPort;
      }
      if (use_[k] == LinkUse::kLoopback) {
        loopbacks_.note(fmt::format("line {}: '{}' ports {} and {}", l.line, node(a).description, l.a.port, l.b.port));
      } else if (use_[k] == LinkUse::kCaToCa) {
        ca_to_ca_.note(fmt::format("line {}: '{}' - '{}'", l.line, node(a).description, node(b).description));
      }
      if (use_[k] != LinkUse::kCable && use_[k] != LinkUse::kHostPort) continue;
      used_[a] = used_[b] = true;
      if (l.gbps == 0) unknown_rates_.note(fmt::format("line {}: '{}'", l.line, l.rate));
    }
  }

  void index_switches() {
    std::vector<std::uint32_t> switches;
    std::map<std::string, std::size_t> name_count;
    std::vector<std::string> names(dump_.nodes.size());
    for (std::uint32_t i = 0; i < dump_.nodes.size(); ++i) {
      if (!is_switch(i)) continue;
      if (!used_[i]) {
        isolated_switches_.note(example(node(i)));
        continue;
      }
      const auto& n = node(i);
      const auto mapped = map_ != nullptr ? map_->host_of(n.guid) : std::nullopt;
      names[i] = mapped ? *mapped : n.description.empty() ? "S-" + n.guid : n.description;
      ++name_count[names[i]];
      switches.push_back(i);
    }
    index_.assign(dump_.nodes.size(), 0);
    for (auto i : switches) {
      index_[i] = static_cast<std::uint32_t>(fabric_.switches.size());
      fabric_.switches.push_back(name_count[names[i]] > 1 ? fmt::format("{}-{}", names[i], node(i).guid) : names[i]);
    }
  }

  void index_hosts() {
    std::map<std::string, std::uint32_t, std::less<>> host_of_name;
    for (std::uint32_t i = 0; i < dump_.nodes.size(); ++i) {
      if (is_switch(i) || node(i).kind == NodeKind::kRouter || is_sharp_node(node(i))) continue;
      if (!used_[i]) {
        unported_cas_.note(example(node(i)));
        continue;
      }
      auto [it, added] = host_of_name.emplace(ca_name_[i], static_cast<std::uint32_t>(fabric_.hosts.size()));
      if (added) fabric_.hosts.push_back(ca_name_[i]);
      index_[i] = it->second;
    }
  }

  void connect() {
    const auto& links = dump_.links.links();
    for (std::size_t k = 0; k < links.size(); ++k) {
      const auto& l = links[k];
      if (use_[k] == LinkUse::kCable) {
        fabric_.cables.push_back({index_[l.a.node], index_[l.b.node], l.gbps});
        fabric_.subnet_cable.push_back({port_ref(l.a), port_ref(l.b)});
      } else if (use_[k] == LinkUse::kHostPort) {
        const auto [ca, sw] = is_switch(l.a.node) ? std::pair(l.b, l.a) : std::pair(l.a, l.b);
        fabric_.host_ports.push_back({index_[ca.node], index_[sw.node], l.gbps, nic_name(node(ca.node)),
                                      node(ca.node).guid.empty() ? 0 : std::stoull(node(ca.node).guid, nullptr, 16)});
        fabric_.subnet_host_port.push_back(port_ref(ca));
      }
    }
  }

  // The NIC as its host names it: the word after the host name in "cn01 mlx5_0"; empty for a
  // one-word or a factory description.
  std::string nic_name(const Node& n) const {
    const std::string& description = host_description(n);
    if (is_factory_description(description)) return {};
    const auto words = io::split_fields(description);
    return words.size() >= 2 ? std::string(words[1]) : std::string();
  }

  static ib::PortRef port_ref(const ibnet::PortEnd& end) { return {end.node, static_cast<std::uint8_t>(end.port)}; }

  static std::uint64_t guid_value(std::string_view guid) {
    std::uint64_t value = 0;
    for (char c : guid) value = value * 16 + static_cast<std::uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
    return value;
  }

  // The whole subnet, in the dump's node order: every node with its ports, cables (every one,
  // loopbacks and CA-to-CA cables included, as the subnet manager sees them) and addresses.
  void build_subnet() {
    auto subnet = std::make_shared<ib::Subnet>();
    subnet->source = source_;
    subnet->discovering_port = dump_.discovering_port;
    subnet->nodes.resize(dump_.nodes.size());
    for (std::uint32_t i = 0; i < dump_.nodes.size(); ++i) {
      const Node& n = node(i);
      ib::Node& out = subnet->nodes[i];
      out.kind = n.kind == NodeKind::kSwitch ? ib::NodeKind::Switch
                 : n.kind == NodeKind::kRouter ? ib::NodeKind::Router
                                               : ib::NodeKind::Ca;
      out.guid = guid_value(n.guid);
      out.system_guid = n.system_guid.empty() ? out.guid : guid_value(n.system_guid);
      out.description = n.description;
      out.line = n.line;
      std::uint32_t ports = n.port_count;
      if (!n.addresses.empty()) ports = std::max(ports, n.addresses.rbegin()->first);
      out.ports.resize(std::size_t{ports} + 1);
      for (const auto& [port, address] : n.addresses) {
        ib::Port& p = out.ports[port];
        p.guid = address.guid.empty() ? out.guid : guid_value(address.guid);
        p.lid = address.lid;
        p.lmc = static_cast<std::uint8_t>(address.lmc);
      }
      if (out.kind == ib::NodeKind::Switch) {
        for (auto& p : out.ports) p.guid = out.guid;
      }
    }
    for (const auto& l : dump_.links.links()) {
      for (const auto& [from, to] : {std::pair(l.a, l.b), std::pair(l.b, l.a)}) {
        auto& ports = subnet->nodes[from.node].ports;
        if (ports.size() <= from.port) ports.resize(std::size_t{from.port} + 1);
        ports[from.port].peer_node = to.node;
        ports[from.port].peer_port = static_cast<std::uint8_t>(to.port);
        if (ports[from.port].guid == 0) ports[from.port].guid = subnet->nodes[from.node].guid;
      }
    }
    for (std::uint32_t i = 0; i < dump_.nodes.size(); ++i) {
      if (is_switch(i) && used_[i]) fabric_.subnet_switch.push_back(i);
    }
    if (const std::string clash = subnet->index_lids(); !clash.empty() && warn_) {
      warn_(fmt::format("{}: {}: routes by forwarding tables cannot tell these ports apart", source_, clash));
    }
    fabric_.subnet = std::move(subnet);
  }

  void say(const Oddity& oddity, std::string_view what) const {
    if (oddity.count > 0 && warn_)
      warn_(fmt::format("{}: {} {} (first: {})", source_, oddity.count, what, oddity.first));
  }

  void report() const {
    say(dump_.ignored_lines, "lines of no ibnetdiscover form ignored");
    say(dump_.portless_blocks, "blocks with no port line: nothing is cabled to them");
    say(dump_.unconnected_ports, "ports listed with no peer (not cabled, or down): skipped");
    say(dump_.undefined_peers, "port lines lead to a GUID that has no block of its own: skipped");
    say(dump_.links.conflicting_peers, "port lines give a port a second, different peer: skipped");
    say(dump_.links.rate_mismatches, "cables whose two ends report different rates: the lower taken");
    say(loopbacks_, "cables join two ports of one switch (loopbacks): skipped");
    say(ca_to_ca_, "cables join two CAs with no switch between: skipped");
    say(sharp_, "SHARP aggregation nodes (the CA inside a switch) are not compute hosts: skipped");
    say(routers_, "routers (Rt) join subnets and no route inside this one crosses them: skipped with their cables");
    say(guid_named_, map_ != nullptr ? fmt::format("CAs have no host name in their description nor in {}: named from "
                                                   "their GUID",
                                                   map_->source())
                                     : std::string("CAs have no host name in their description: named from their "
                                                   "GUID (a GUID map names them)"));
    say(shared_name_,
        fmt::format("CAs carry a host name that names no single machine ({}): named NAME-GUID", shared_name_list_));
    say(unknown_rates_, "cables have a rate not recognised: taken as the fabric's most common cable rate");
    say(unported_cas_, "CAs have no port cabled to a switch: not hosts");
    say(isolated_switches_, "switches have no cable left: left out");
  }

  const std::string& source_;
  const Dump& dump_;
  const GuidMap* map_;
  const WarningSink& warn_;
  Fabric fabric_;

  std::vector<std::string> ca_name_;  // per node: the host a CA belongs to
  std::vector<LinkUse> use_;          // per link
  std::vector<bool> used_;            // per node: has a cable or host port in the fabric
  std::vector<std::uint32_t> index_;  // per node: its switch or host index in the fabric
  std::string shared_name_list_;
  Oddity sharp_, routers_, guid_named_, shared_name_, loopbacks_, ca_to_ca_, unknown_rates_, unported_cas_,
      isolated_switches_;
};

// The port list's lines start "CA|SW|RT LID PORT"; the topology's blocks "Switch|Ca|Rt PORTS".
bool is_port_list(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const auto fields = io::split_fields(text.substr(pos, end - pos));
    pos = end + 1;
    if (fields.empty()) continue;
    if (fields[0] == "Switch" || fields[0] == "Ca" || fields[0] == "Rt" || fields[0].starts_with("vendid=")) {
      return false;
    }
    if ((fields[0] == "CA" || fields[0] == "SW" || fields[0] == "RT") && fields.size() > 2 &&
        io::parse_int(fields[1]) && io::parse_int(fields[2])) {
      return true;
    }
  }
  return false;
}

// The port that ran the discovery, among the first lines: ibnetdiscover's "# Initiated from
// node NODE_GUID port PORT_GUID" (the port GUID), or the first CA of a discovery trace ("DR path
// ... -> new Channel Adapter {GUID} ...", its node GUID); 0 when neither is there.
std::uint64_t discovering_port(std::string_view text) {
  constexpr std::string_view kInitiated = "# Initiated from node ", kTraceCa = "-> new Channel Adapter {";
  std::size_t start = 0;
  for (int line = 0; line < 64 && start < text.size(); ++line) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = text.substr(start, end - start);
    start = end + 1;
    if (l.starts_with(kInitiated)) {
      const auto fields = io::split_fields(l.substr(kInitiated.size()));
      return fields.size() >= 3 && fields[1] == "port" ? guid_value(fields[2]).value_or(0) : 0;
    }
    if (const auto ca = l.find(kTraceCa); l.starts_with("DR path") && ca != std::string_view::npos) {
      const std::string_view rest = l.substr(ca + kTraceCa.size());
      return guid_value(rest.substr(0, rest.find('}'))).value_or(0);
    }
  }
  return 0;
}

}  // namespace

Fabric read_ibnetdiscover(const std::string& path, const std::string& map_file, const WarningSink& warn) {
  std::optional<GuidMap> map;
  if (!map_file.empty()) map = GuidMap::read(map_file);
  std::string text = io::read_text_file(path);
  const bool port_list = is_port_list(text);
  const std::uint64_t discovered_from = discovering_port(text);
  io::LineCursor cursor(path, std::move(text));
  Dump dump = port_list ? ibnet::parse_port_list(cursor) : ibnet::parse_plain(cursor);
  dump.discovering_port = discovered_from;
  Fabric fabric = FabricAssembler(path, dump, map ? &*map : nullptr, warn).run();
  fabric.source = path;
  fabric.rates_in_gbps = true;  // "4xEDR" and the like, infiniband_gbps
  return fabric;
}

}  // namespace taskmap
