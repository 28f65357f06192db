// The default ibnetdiscover output: one block per node,
//   Switch  36 "S-0008f10500200b50"  # "Voltaire 4036 - 36 QDR ports switch" enhanced port 0 lid 9 lmc 0
//   [1]     "S-0008f10500108c5c"[15]                     # "Voltaire 4036 # 4036-8C5C" lid 16 4xQDR
//   [4]     "H-003048c749cd0000"[1](3048c749cd0001)      # "MT25408 ConnectX ..." lid 72 4xDDR
//   Ca      2 "H-0002c903003421b0"  # "r-ufm111 HCA-1"
//   [2](2c903003421b2)  "S-e41d2d030003e470"[35]  # lid 3 lmc 0 "SwitchIB ..." lid 268 4xFDR
// (Rt blocks for routers), preceded by vendid=/devid=/sysimgguid=/...guid= lines; every cable is
// listed from both ends. Fields are separated by tabs or spaces.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include "ibnet_dump.h"
#include "taskmap/core/error.h"

namespace taskmap::ibnet {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// Reads a port line left to right.
class Scanner final {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  // The text up to `c` (consumed), or nullopt when `c` does not follow.
  std::optional<std::string_view> until(char c) {
    const auto end = text_.find(c, pos_);
    if (end == std::string_view::npos) return std::nullopt;
    auto part = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return part;
  }
  std::string_view rest() const { return text_.substr(pos_); }
  // After a '#', the text from the first '"' to the line's last '"' (descriptions may hold
  // quotes), consumed; nullopt, consuming nothing, when the line has no such pair.
  std::optional<std::string_view> description() {
    const auto hash = text_.find('#', pos_);
    const auto open = hash == std::string_view::npos ? hash : text_.find('"', hash);
    const auto close = text_.rfind('"');
    if (open == std::string_view::npos || close == open) return std::nullopt;
    pos_ = close + 1;
    return text_.substr(open + 1, close - open - 1);
  }
  // Consumes `word` when it follows (after spaces).
  bool eat_word(std::string_view word) {
    skip_space();
    if (!text_.substr(pos_).starts_with(word)) return false;
    pos_ += word.size();
    return true;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

struct PendingPort {
  PortEnd end;
  std::string peer_guid;
  std::uint32_t peer_port = 0;
  std::string peer_port_guid;  // a CA peer's port GUID, for the GUID map
  std::string peer_description;
  std::string rate;
  std::uint32_t peer_lid = 0;
  std::size_t line = 0;
};

class PlainParser final {
 public:
  explicit PlainParser(io::LineCursor& cursor) : cur_(cursor) {}

  Dump run() {
    while (auto raw = cur_.next_content_line("#")) {
      const auto line = trim(*raw);
      if (line.starts_with('[') && (block_ || is_port_line(line))) {  // a bad one inside a block is an error
        if (!block_) cur_.fail_here("a port line outside any Switch, Ca or Rt block");
        read_port_line(line);
        continue;
      }
      close_block();
      if (is_header(line)) {
        open_block(line);
      } else if (line.starts_with("sysimgguid=")) {
        // The system image GUID of the block that follows (a chassis's nodes share one).
        const auto guid = canonical_guid(trim(line.substr(11)));
        system_guid_ = guid.value_or("");
      } else if (!is_known_filler(line)) {
        if (cur_.in_unterminated_last_line()) cur_.fail_here(fmt::format("the file ends inside '{}': is it cut?", line));
        dump_.ignored_lines.note(fmt::format("line {}: '{}'", cur_.line_number(), line));
      }
    }
    dump_.last_line = cur_.line_number();
    if (block_ && ports_in_block_ == 0) {
      const auto& node = dump_.nodes[*block_];
      fail("{}:{}: the file ends inside the block of {} '{}' (no port lines): is it cut?", cur_.source(), node.line,
           kind_word_, node.description.empty() ? node.guid : node.description);
    }
    close_block();
    resolve_ports();
    return std::move(dump_);
  }

 private:
  // "[12]..." or "[12](guid)...": a bracket with a port number. Outside a block, a shell prompt
  // pasted above the dump ("[root@head ~]# ibnetdiscover") also starts with '[': it is filler.
  static bool is_port_line(std::string_view line) {
    const auto close = line.find(']');
    return line.starts_with('[') && close != std::string_view::npos && close > 1 &&
           line.substr(1, close - 1).find_first_not_of("0123456789") == std::string_view::npos;
  }
  static bool is_header(std::string_view line) {
    const auto f = io::split_fields(line);
    return !f.empty() && (f[0] == "Switch" || f[0] == "Ca" || f[0] == "Rt");
  }
  // Node attributes, grouping banners and discovery traces: nothing to read in them.
  static bool is_known_filler(std::string_view line) {
    for (std::string_view prefix : {"vendid=", "devid=", "sysimgguid=", "switchguid=", "caguid=", "rtguid=", "routerguid=",
                                    "Chassis", "Non-Chassis Nodes", "Max of", "DR path"}) {
      if (line.starts_with(prefix)) return true;
    }
    return false;
  }

  // Switch 36 "S-0008f10500200b50"  # "description" ...
  void open_block(std::string_view line) {
    const auto fields = io::split_fields(line);
    if (fields.size() >= 2 && fields[1].starts_with(':')) {
      cur_.fail_here("a node list (ibnetdiscover -l, -H or -S) names no cable: give ibnetdiscover's default output or -p");
    }
    const auto ports = fields.size() >= 3 ? io::parse_int(fields[1]) : std::nullopt;
    Scanner scan(line);
    (void)scan.until('"');
    const auto name = scan.until('"');
    if (!ports || !name) cur_.fail_here(fmt::format("expected '{} PORTS \"GUID\" # \"DESCRIPTION\"'", fields[0]));
    const std::int64_t port_count = ports.value_or(0);
    if (port_count < 1 || port_count > kMaxPort) {
      cur_.fail_here(fmt::format("{} ports: a node has 1 to {} ports", port_count, kMaxPort));
    }
    const auto guid = name->size() > 2 ? canonical_guid(name->substr(2)) : std::nullopt;
    if (!guid) cur_.fail_here(fmt::format("'{}' is not a node GUID (\"S-\", \"H-\" or \"R-\" and hex digits)", *name));
    std::string description(described(line, scan).value_or(""));

    auto [it, added] = node_of_guid_.emplace(*guid, static_cast<std::uint32_t>(dump_.nodes.size()));
    if (!added) {
      cur_.fail_here(fmt::format("node {} is defined twice (first on line {})", *name, dump_.nodes[it->second].line));
    }
    kind_word_ = std::string(fields[0]);
    Node node;
    node.kind = fields[0] == "Ca" ? NodeKind::kCa : fields[0] == "Rt" ? NodeKind::kRouter : NodeKind::kSwitch;
    node.guid = *guid;
    node.description = std::move(description);
    node.line = cur_.line_number();
    node.port_count = static_cast<std::uint32_t>(port_count);
    node.system_guid = std::exchange(system_guid_, {});
    // "... enhanced port 0 lid 9 lmc 0": a switch's LID is its port 0's.
    if (node.kind == NodeKind::kSwitch) {
      const auto [lid, lmc] = lid_words(scan.rest());
      node.note_address(0, node.guid, lid, lmc);
    }
    dump_.nodes.push_back(std::move(node));
    block_ = it->second;
    ports_in_block_ = 0;
  }

  void close_block() {
    if (block_ && ports_in_block_ == 0) {
      const auto& node = dump_.nodes[*block_];
      dump_.portless_blocks.note(fmt::format("line {}: {} '{}'", node.line, kind_word_, node.description));
    }
    block_.reset();
  }

  std::uint32_t port_number(Scanner& scan) {
    const auto text = scan.eat('[') ? scan.until(']') : std::nullopt;
    const auto port = text ? io::parse_int(*text) : std::nullopt;
    if (!port) cur_.fail_here("expected a port line '[PORT] \"GUID\"[PORT] # ...'");
    if (*port < 1 || *port > kMaxPort) {
      cur_.fail_here(fmt::format("port {}: cabled ports are numbered 1 to {}", *port, kMaxPort));
    }
    // "[7][ext 3]": ibnetdiscover -g adds the chassis's external port number.
    if (scan.eat_word("[ext") && !scan.until(']')) cur_.fail_here("expected ']' after '[ext'");
    return static_cast<std::uint32_t>(*port);
  }

  // The description after the line's '#' (Scanner::description); one opened and never closed
  // is a line cut short.
  std::optional<std::string_view> described(std::string_view line, Scanner& scan) const {
    const auto hash = line.find('#');
    const bool opened = hash != std::string_view::npos && line.find('"', hash) != std::string_view::npos;
    const auto description = scan.description();
    if (opened && !description) cur_.fail_here("the description after '#' has no closing '\"': is the line cut?");
    return description;
  }

  // "(8f10403960559)" after a CA's port number: that port's GUID.
  std::string port_guid(Scanner& scan) {
    if (!scan.eat('(')) return {};
    const auto text = scan.until(')');
    const auto guid = text ? canonical_guid(*text) : std::nullopt;
    if (!guid) cur_.fail_here("expected a port GUID in '(...)'");
    return *guid;
  }

  // [p](portguid) "S-guid"[q](portguid)  # ... lid N 4xQDR
  void read_port_line(std::string_view line) {
    Scanner scan(line);
    PendingPort pending;
    pending.end = {*block_, port_number(scan)};
    const std::string own_guid = port_guid(scan);
    if (!own_guid.empty()) dump_.nodes[*block_].port_guids.push_back(own_guid);
    // A CA's own LID comes between the '#' and the peer's description: "# lid 3 lmc 0 "...".
    if (dump_.nodes[*block_].kind != NodeKind::kSwitch) {
      const auto hash = line.find('#');
      const auto open = hash == std::string_view::npos ? hash : line.find('"', hash);
      if (open != std::string_view::npos) {
        const auto [lid, lmc] = lid_words(line.substr(hash + 1, open - hash - 1));
        dump_.nodes[*block_].note_address(pending.end.port, own_guid, lid, lmc);
      }
    }
    const auto peer = scan.eat('"') ? scan.until('"') : std::nullopt;
    const auto peer_guid =
        peer && peer->size() > 2 && (*peer)[1] == '-' ? canonical_guid(peer->substr(2)) : std::nullopt;
    if (!peer_guid) cur_.fail_here("expected the peer '\"S-GUID\"[PORT]' after the port number");
    pending.peer_guid = *peer_guid;
    pending.peer_port = port_number(scan);
    pending.peer_port_guid = port_guid(scan);
    // "# "description" lid 12 4xEDR", with " s=4 w=2 v=4" after the rate from ibnetdiscover --full.
    pending.peer_description = std::string(described(line, scan).value_or(""));
    const auto words = io::split_fields(scan.rest());
    for (auto w = words.rbegin(); w != words.rend() && pending.rate.empty(); ++w) {
      if (w->find('=') == std::string_view::npos) pending.rate = std::string(*w);
    }
    // "... lid 72 4xDDR": the peer port's LID (a switch peer's port 0 LID).
    std::tie(pending.peer_lid, std::ignore) = lid_words(scan.rest());
    pending.line = cur_.line_number();
    pending_.push_back(std::move(pending));
    ++ports_in_block_;
  }

  // Peers are known once every block is read (a block names nodes defined after it). A node
  // that did not answer ibnetdiscover may leave a port line or two leading nowhere; a tenth of
  // the nodes without a block is a file cut short (its last blocks lost), not such a node.
  void resolve_ports() {
    std::set<std::string_view> missing;
    for (auto& p : pending_) {
      const auto it = node_of_guid_.find(p.peer_guid);
      if (it == node_of_guid_.end()) {
        dump_.undefined_peers.note(fmt::format("line {}: GUID {}", p.line, p.peer_guid));
        missing.insert(p.peer_guid);
        continue;
      }
      auto& peer = dump_.nodes[it->second];
      if (peer.peer_description.empty()) peer.peer_description = p.peer_description;
      if (peer.kind == NodeKind::kSwitch) {
        peer.note_address(0, peer.guid, p.peer_lid, 0);
      } else {
        peer.note_address(p.peer_port, p.peer_port_guid, p.peer_lid, 0);
      }
      if (!p.peer_port_guid.empty() &&
          std::find(peer.port_guids.begin(), peer.port_guids.end(), p.peer_port_guid) == peer.port_guids.end()) {
        peer.port_guids.push_back(p.peer_port_guid);
      }
      dump_.links.add(p.end, {it->second, p.peer_port}, p.rate, p.line);
    }
    if (missing.size() >= kCutMissingNodes && missing.size() * 10 >= missing.size() + dump_.nodes.size()) {
      fail("{}: port lines lead to {} nodes that have no block of their own, {} blocks read (first: {}): is the "
           "file cut?",
           cur_.source(), missing.size(), dump_.nodes.size(), dump_.undefined_peers.first);
    }
  }
  static constexpr std::size_t kCutMissingNodes = 2;

  // The values of the words "lid N" and "lmc M" in `text` (0 when absent).
  std::pair<std::uint32_t, std::uint32_t> lid_words(std::string_view text) const {
    const auto words = io::split_fields(text);
    std::uint32_t lid = 0, lmc = 0;
    for (std::size_t w = 0; w + 1 < words.size(); ++w) {
      if (words[w] != "lid" && words[w] != "lmc") continue;
      const auto value = io::parse_int(words[w + 1]);
      if (!value) continue;
      if (words[w] == "lid") {
        if (*value < 0 || *value > kMaxLid) cur_.fail_here(fmt::format("LID {}: LIDs are 0 to {}", *value, kMaxLid));
        lid = static_cast<std::uint32_t>(*value);
      } else {
        if (*value < 0 || *value > 7) cur_.fail_here(fmt::format("LMC {}: an LMC is 0 to 7", *value));
        lmc = static_cast<std::uint32_t>(*value);
      }
    }
    return {lid, lmc};
  }

  io::LineCursor& cur_;
  Dump dump_;
  std::map<std::string, std::uint32_t, std::less<>> node_of_guid_;
  std::vector<PendingPort> pending_;
  std::optional<std::uint32_t> block_;  // the node whose port lines follow
  std::string kind_word_;               // "Switch", "Ca", "Rt" of that block
  std::size_t ports_in_block_ = 0;
  std::string system_guid_;             // from the sysimgguid= line before the next block
};

}  // namespace

Dump parse_plain(io::LineCursor& cursor) { return PlainParser(cursor).run(); }

}  // namespace taskmap::ibnet
