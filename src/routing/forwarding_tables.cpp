// Forwarding tables: reading a site's dumps, writing them as ibroute does, and checking that
// they lead every switch to every LID.
#include "taskmap/routing/forwarding_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <numeric>
#include <optional>

#include "table_walk.h"
#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"

namespace taskmap {
namespace {

std::string switch_name(const ib::Node& n) { return fmt::format("0x{:016x} '{}'", n.guid, n.description); }

// A kind of oddity met while reading: how many, and the first one for the warning.
struct Oddity {
  std::size_t count = 0;
  std::string first;
  void note(std::string example) {
    if (count++ == 0) first = std::move(example);
  }
};

// "0x1f", "31" -> 31; up to 16 hex digits (a GUID), a decimal number not negative.
std::optional<std::uint64_t> parse_number(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) {
    std::uint64_t value = 0;
    if (text.size() == 2 || text.size() > 18) return std::nullopt;
    for (char c : text.substr(2)) {
      const int digit = c >= '0' && c <= '9'   ? c - '0'
                        : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                               : -1;
      if (digit < 0) return std::nullopt;
      value = value * 16 + static_cast<std::uint64_t>(digit);
    }
    return value;
  }
  const auto decimal = io::parse_int(text);
  if (!decimal || *decimal < 0) return std::nullopt;
  return static_cast<std::uint64_t>(*decimal);
}

// One pass over the dumps: every table read into `tables_`, the subnet's switches matched by GUID.
class TableReader final {
 public:
  TableReader(const std::string& path, const ib::Subnet& subnet, const WarningSink& warn)
      : path_(path), subnet_(subnet), warn_(warn) {
    tables_.port.resize(subnet.nodes.size());
    tables_.origin.resize(subnet.nodes.size());
    for (std::uint32_t i = 0; i < subnet.nodes.size(); ++i) {
      const ib::Node& n = subnet.nodes[i];
      if (n.is_switch()) switch_of_guid_.emplace(n.guid, i);
      for (std::uint32_t p = n.is_switch() ? 0 : 1; p < n.ports.size() && (p == 0 || !n.is_switch()); ++p) {
        if (n.ports[p].lid != 0) lid_of_port_guid_.emplace(n.ports[p].guid, n.ports[p].lid);
      }
    }
  }

  ForwardingTables run() {
    auto files = io::read_text_files(path_);
    for (io::TextFile& file : files) read(std::move(file));
    if (read_tables_ == 0) fail("{}: no forwarding table ('Unicast lids [...] of switch ... guid 0x...:') in it", path_);
    report();
    return std::move(tables_);
  }

 private:
  void read(io::TextFile file) {
    io::LineCursor cur(std::move(file.name), std::move(file.text));
    bool in_multicast = false;
    while (auto raw = cur.next_content_line("")) {
      if (open_ && raw->starts_with("0x")) {  // an entry: most lines, read without splitting
        entry(cur, *raw);
        continue;
      }
      const auto fields = io::split_fields(*raw);
      if (raw->starts_with("Unicast lids")) {
        close_table(cur, /*at_end=*/false);
        in_multicast = false;
        open_table(cur, *raw);
      } else if (raw->starts_with("Multicast mlids")) {
        close_table(cur, false);
        in_multicast = true;  // multicast tables route no unicast traffic
      } else if (in_multicast) {
        continue;
      } else if (!open_) {
        ignored_.note(fmt::format("{}:{}: '{}'", cur.source(), cur.line_number(), io::printable(*raw)));
      } else if (fields.size() >= 2 && (fields[0] == "Lid" || fields[0] == "Port")) {
        continue;  // the column headings
      } else if (fields.size() >= 3 && (fields[1] == "valid" || fields[1] == "lids") && fields.back() == "dumped") {
        footer(cur, fields);
      } else if (raw->find("iberror:") != std::string_view::npos) {
        // ibroute stopped with an error after the entries it printed (seen at real sites: "iberror:
        // failed: dump tables: linear forwarding table get failed"): its entries stand.
        error_ends_.note(fmt::format("{}:{}: '{}'", cur.source(), cur.line_number(), io::printable(*raw)));
        open_.reset();
      } else {
        entry(cur, *raw);
      }
    }
    close_table(cur, true);
  }

  // "Unicast lids [0x0-0x6a] of switch Lid 3 guid 0x00066a00e3006cb2 (ibcore01):", or
  // "... of switch DR path slid 0; dlid 0; 0,1 guid 0x...", or OpenSM's "[0-16] ... ('desc'):".
  void open_table(io::LineCursor& cur, std::string_view line) {
    const auto at = line.find(" guid ");
    const auto end = at == std::string_view::npos ? at : line.find_first_of(" :", at + 6);
    const auto guid_text = at == std::string_view::npos ? std::string_view{} : line.substr(at + 6, end - at - 6);
    const auto guid = parse_number(guid_text);
    if (!guid_text.starts_with("0x") || !guid) {
      cur.fail_here("expected 'Unicast lids [FIRST-LAST] of switch ... guid 0xGUID ...:'");
    }
    const auto node = switch_of_guid_.find(static_cast<std::uint64_t>(*guid));
    if (node == switch_of_guid_.end()) {
      cur.fail_here(fmt::format("switch GUID {} is not a switch of {}", guid_text, subnet_.source));
    }
    if (!tables_.origin[node->second].empty()) {
      cur.fail_here(fmt::format("a second table for switch {} (the first at {})", switch_name(subnet_.nodes[node->second]),
                                tables_.origin[node->second]));
    }
    tables_.origin[node->second] = fmt::format("{}:{}", cur.source(), cur.line_number());
    open_ = node->second;
    entries_ = 0;
    ++read_tables_;
  }

  // "0x0003 022 : (Switch portguid ...)", or OpenSM's "0x0003 022 # Switch portguid ...".
  void entry(io::LineCursor& cur, std::string_view line) {
    // "0xLID PORT ...": the two first words.
    const auto first_end = line.find_first_of(" \t");
    const std::string_view lid_text = line.substr(0, first_end);
    std::string_view rest = first_end == std::string_view::npos ? std::string_view{} : line.substr(first_end);
    rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
    const std::string_view port_text = rest.substr(0, rest.find_first_of(" \t"));
    const auto lid = lid_text.starts_with("0x") ? parse_number(lid_text) : std::nullopt;
    const auto port = port_text.empty() ? std::nullopt : io::parse_int(port_text);
    if (!lid || !port) {
      if (cur.in_unterminated_last_line()) cur.fail_here("the file ends inside a table's line: is it cut?");
      cur.fail_here(fmt::format("expected 'LID PORT : (...)' in the table of switch {}", switch_name(node())));
    }
    const std::uint64_t lid_value = lid.value_or(0);
    const std::int64_t port_value = port.value_or(0);
    if (lid_value < 1 || lid_value > ib::kMaxLid) {
      cur.fail_here(fmt::format("LID {}: unicast LIDs are 0x0001 to 0x{:04x}", lid_text, ib::kMaxLid));
    }
    if (port_value < 0 || port_value > node().num_ports()) {
      cur.fail_here(fmt::format("port {}: switch {} has ports 0 to {}", port_value, switch_name(node()), node().num_ports()));
    }
    auto& table = tables_.port[*open_];
    auto l = static_cast<std::size_t>(lid_value);
    // The destination the line names ("portguid 0x...") and its LID in the fabric's file.
    const auto named = destination_lid(line);
    if (named && *named < table.size() && table[*named] == port_value && (*named != l || table[l] == port_value)) {
      // The entry of the destination the line names, printed again (ibroute at a real site
      // repeated entries under a stuck LID).
      misprinted_.note(fmt::format("{}:{}: LID {} again, for portguid LID {}", cur.source(), cur.line_number(), lid_text,
                                   *named));
      return;
    }
    if (named && *named != l) {
      if (l < table.size() && table[l] != ib::kNoPort && (*named >= table.size() || table[*named] == ib::kNoPort)) {
        // ibroute at a real site printed one LID over and over for the entries that followed
        // it, each naming its own destination: the destination's LID is the entry's.
        misprinted_.note(fmt::format("{}:{}: LID {} again, for portguid LID {}", cur.source(), cur.line_number(), lid_text,
                                     *named));
        l = *named;
      } else {
        moved_.note(fmt::format("{}:{}: LID {} names a port whose LID in {} is {}", cur.source(), cur.line_number(),
                                lid_text, subnet_.source, *named));
      }
    }
    if (table.size() <= l) table.resize(l + 1, ib::kNoPort);
    if (table[l] != ib::kNoPort) {
      cur.fail_here(fmt::format("LID {} is given twice in the table of switch {}", lid_text, switch_name(node())));
    }
    table[l] = static_cast<std::uint8_t>(port_value);
    ++entries_;
  }

  // The LID, in the subnet, of the port an entry names ("(Channel Adapter portguid 0x...: ...)");
  // nullopt when it names none the subnet knows.
  std::optional<std::size_t> destination_lid(std::string_view line) const {
    const auto at = line.find("portguid 0x");
    if (at == std::string_view::npos) return std::nullopt;
    const auto end = line.find_first_of(": )", at + 9);
    const auto guid = parse_number(line.substr(at + 9, end - at - 9));
    if (!guid) return std::nullopt;
    const auto it = lid_of_port_guid_.find(static_cast<std::uint64_t>(*guid));
    if (it == lid_of_port_guid_.end()) return std::nullopt;
    return it->second;
  }

  // "103 valid lids dumped" (ibroute, dump_fts: the entries printed) or "16 lids dumped"
  // (OpenSM: the table's size, not its entries).
  void footer(io::LineCursor& cur, const std::vector<std::string_view>& fields) {
    const auto count = io::parse_int(fields[0]);
    if (fields[1] == "valid" && count && static_cast<std::uint64_t>(*count) != entries_) {
      cur.fail_here(fmt::format("the table of switch {} has {} entries but says '{} valid lids dumped': is it cut?",
                                switch_name(node()), entries_, *count));
    }
    open_.reset();
  }

  // A table without its count line: a file whose last line is cut is refused; whole lines are
  // taken as read (a real site's ibroute stopped without its count), and its missing entries,
  // if any, show as routes with no next hop.
  void close_table(io::LineCursor& cur, bool at_end) {
    if (!open_) return;
    if (at_end && cur.in_unterminated_last_line()) {
      cur.fail_at_end(fmt::format("the table of switch {} ends inside a line: is the file cut?", switch_name(node())));
    }
    uncounted_.note(fmt::format("{}: switch {} ({} entries)", tables_.origin[*open_], switch_name(node()), entries_));
    open_.reset();
  }

  void report() const {
    auto say = [&](const Oddity& oddity, std::string_view what) {
      if (oddity.count > 0 && warn_) warn_(fmt::format("{}: {} {} (first: {})", path_, oddity.count, what, oddity.first));
    };
    say(ignored_, "lines outside any table ignored");
    say(error_ends_, "tables end with ibroute's error line instead of their count: their entries are taken as read");
    say(uncounted_, "tables end without their 'N valid lids dumped' line: their entries are taken as read");
    say(misprinted_, "entries repeat an earlier LID (as ibroute misprinted them): an entry printed again is skipped, "
                     "one for another destination is taken at that destination's LID");
    say(moved_, "entries name a destination whose LID in the fabric's file is another (the LIDs changed between the "
                "two dumps?): the table's LID is taken");
    Oddity missing;
    std::size_t switches = 0;
    for (std::uint32_t i = 0; i < subnet_.nodes.size(); ++i) {
      if (!subnet_.nodes[i].is_switch()) continue;
      ++switches;
      if (tables_.origin[i].empty()) missing.note(switch_name(subnet_.nodes[i]));
    }
    if (missing.count > 0 && warn_) {
      warn_(fmt::format("{}: {} of the {} switches of {} have no table: routes through them have no next hop (first: {})",
                        path_, missing.count, switches, subnet_.source, missing.first));
    }
  }

  const ib::Node& node() const { return subnet_.nodes[*open_]; }

  const std::string& path_;
  const ib::Subnet& subnet_;
  const WarningSink& warn_;
  ForwardingTables tables_;
  std::map<std::uint64_t, std::uint32_t> switch_of_guid_;
  std::optional<std::uint32_t> open_;  // the switch whose table is being read
  std::uint64_t entries_ = 0;
  std::size_t read_tables_ = 0;
  std::unordered_map<std::uint64_t, std::size_t> lid_of_port_guid_;
  Oddity ignored_, error_ends_, uncounted_, misprinted_, moved_;
};

}  // namespace

ForwardingTables read_forwarding_tables(const std::string& path, const ib::Subnet& subnet, const WarningSink& warn) {
  return TableReader(path, subnet, warn).run();
}

void write_forwarding_tables(std::ostream& out, const ib::Subnet& subnet, const ForwardingTables& tables) {
  std::vector<std::uint32_t> switches;
  for (std::uint32_t i = 0; i < subnet.nodes.size(); ++i) {
    if (subnet.nodes[i].is_switch() && tables.has_table(i)) switches.push_back(i);
  }
  std::sort(switches.begin(), switches.end(),
            [&](std::uint32_t a, std::uint32_t b) { return subnet.nodes[a].guid < subnet.nodes[b].guid; });
  for (std::uint32_t s : switches) {
    const ib::Node& sw = subnet.nodes[s];
    const auto& table = tables.port[s];
    out << fmt::format("Unicast lids [0x0-0x{:x}] of switch Lid {} guid 0x{:016x} ({}):\n", table.size() - 1,
                       sw.ports[0].lid, sw.guid, sw.description);
    out << "  Lid  Out   Destination\n       Port     Info \n";
    std::size_t valid = 0;
    for (std::uint32_t lid = 1; lid < table.size(); ++lid) {
      if (table[lid] == ib::kNoPort) continue;
      ++valid;
      const auto owner = subnet.port_of_lid(lid);
      std::string info = "(unknown LID)";
      if (owner) {
        const ib::Node& n = subnet.nodes[owner->node];
        const char* kind = n.kind == ib::NodeKind::Switch ? "Switch" : n.kind == ib::NodeKind::Router ? "Router"
                                                                                                    : "Channel Adapter";
        info = fmt::format("({} portguid 0x{:016x}: '{}')", kind, subnet.port(*owner).guid, n.description);
      }
      out << fmt::format("0x{:04x} {:03d} : {}\n", lid, table[lid], info);
    }
    out << fmt::format("{} valid lids dumped \n", valid);
  }
}

TableDefects check_forwarding_tables(const ib::Subnet& subnet, const ForwardingTables& tables) {
  TableDefects defects;
  detail::TableWalker walker(subnet, tables);
  for (std::uint32_t lid = 1; lid <= subnet.max_lid(); ++lid) {
    if (!subnet.port_of_lid(lid)) continue;
    walker.resolve_all(lid, defects);
  }
  return defects;
}

}  // namespace taskmap
