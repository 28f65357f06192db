// Cray XC names and the xtdb2proc node table (see cray_xc.h).
#include <fmt/format.h>

#include <map>
#include <optional>
#include <string_view>
#include <tuple>

#include "cray_xc.h"
#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"

namespace taskmap::detail {

std::string blade_name(const CrayBlade& blade) {
  return fmt::format("c{}-{}c{}s{}", blade.column, blade.row, blade.chassis, blade.slot);
}

std::string aries_router_name(const CrayBlade& blade) { return blade_name(blade) + "a0"; }

std::string nid_name(std::uint64_t nid) { return fmt::format("nid{:05d}", nid); }

std::uint64_t cray_nid(const CrayBlade& blade, std::uint32_t node, std::uint32_t columns) {
  const std::uint64_t cabinet = std::uint64_t{blade.row} * columns + blade.column;
  return ((cabinet * kXcChassisPerCabinet + blade.chassis) * kXcSlotsPerChassis + blade.slot) * kXcNodesPerBlade + node;
}

namespace {

// The fields of one record: "key=value" pairs separated by commas.
class Record final {
 public:
  Record(const io::LineCursor& cursor, std::string_view line) : cursor_(cursor) {
    for (const auto pair : io::split_fields(line, /*commas_too=*/true)) {
      const auto equals = pair.find('=');
      if (equals == std::string_view::npos || equals == 0) {
        cursor_.fail_here(fmt::format("expected KEY=VALUE fields, found '{}'", pair));
      }
      fields_.emplace(pair.substr(0, equals), pair.substr(equals + 1));
    }
  }

  std::string_view text(std::string_view key) const {
    const auto it = fields_.find(key);
    if (it == fields_.end()) cursor_.fail_here(fmt::format("the record has no '{}' field", key));
    auto value = it->second;
    if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') value = value.substr(1, value.size() - 2);
    return value;
  }

  // An integer in [0, limit).
  std::uint32_t number(std::string_view key, std::int64_t limit) const {
    const auto value = io::parse_int(text(key));
    if (!value || *value < 0 || *value >= limit) {
      cursor_.fail_here(fmt::format("{}={} is not a number in [0, {})", key, text(key), limit));
    }
    return static_cast<std::uint32_t>(*value);
  }

 private:
  const io::LineCursor& cursor_;
  std::map<std::string_view, std::string_view, std::less<>> fields_;
};

}  // namespace

std::vector<CrayNode> read_xtdb2proc(const std::string& path) {
  io::LineCursor cursor(path, io::read_text_file(path));
  std::vector<CrayNode> nodes;
  std::map<std::uint32_t, std::size_t> line_of_nid;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>, std::size_t>
      line_of_place;
  while (auto line = cursor.next_content_line("#")) {
    const Record record(cursor, *line);
    CrayNode node;
    node.line = cursor.line_number();
    node.nid = record.number("processor_id", std::int64_t{1} << 31);
    node.blade.column = record.number("cab_position", 1 << 16);
    node.blade.row = record.number("cab_row", 1 << 16);
    node.blade.chassis = record.number("cage", kXcChassisPerCabinet);
    node.blade.slot = record.number("slot", kXcSlotsPerChassis);
    node.node = record.number("cpu", kXcNodesPerBlade);
    node.compute = record.text("processor_type") == "compute";
    if (const auto [it, added] = line_of_nid.emplace(node.nid, node.line); !added) {
      cursor.fail_here(fmt::format("nid {} is listed twice (first at line {})", node.nid, it->second));
    }
    const auto place =
        std::make_tuple(node.blade.column, node.blade.row, node.blade.chassis, node.blade.slot, node.node);
    if (const auto [it, added] = line_of_place.emplace(place, node.line); !added) {
      cursor.fail_here(
          fmt::format("node {}n{} is listed twice (first at line {})", blade_name(node.blade), node.node, it->second));
    }
    nodes.push_back(node);
  }
  if (nodes.empty()) cursor.fail_at_end("no node record (expected xtdb2proc lines 'cpu=0,slot=2,cage=0,...')");
  return nodes;
}

}  // namespace taskmap::detail
