#pragma once
// Maps of InfiniBand GUIDs to host names, as sites keep them next to their fabric files:
// "host: 0xGUID" lines (Azure CycleCloud's nodes_guids) or "H-GUID host" lines (ibnetdiscover
// node-name maps, "#" comments). Several GUIDs may name one host (one per HCA).
#include <map>
#include <optional>
#include <string>
#include <cstdint>
#include <string_view>

namespace taskmap {

// "0x0002C903000A1B2C", "H-0002c903000a1b2c", "S-...", "0002c903000a1b2c" -> "2c903000a1b2c";
// nullopt when the text is not a GUID (1 to 16 hex digits after the optional prefix).
std::optional<std::string> normalize_guid(std::string_view text);
// The same spellings as a number, or nullopt.
std::optional<std::uint64_t> guid_value(std::string_view text);

class GuidMap {
 public:
  // Throws Error "FILE:LINE: problem" on a line of neither form or a GUID mapped twice to
  // different hosts.
  static GuidMap read(const std::string& path);
  // The host of a GUID (any spelling normalize_guid accepts), or nullopt.
  std::optional<std::string> host_of(std::string_view guid) const;
  std::size_t size() const { return hosts_.size(); }
  bool empty() const { return hosts_.empty(); }
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::map<std::string, std::string, std::less<>> hosts_;  // normalized GUID -> host
};

}  // namespace taskmap
