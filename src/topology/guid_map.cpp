#include "taskmap/topology/guid_map.h"

#include <fmt/format.h>

#include <cctype>

#include "taskmap/core/text_source.h"

namespace taskmap {

std::optional<std::string> normalize_guid(std::string_view text) {
  if (text.starts_with("H-") || text.starts_with("S-") || text.starts_with("0x") || text.starts_with("0X")) {
    text.remove_prefix(2);
  }
  if (text.empty() || text.size() > 16) return std::nullopt;
  std::string out;
  for (char c : text) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    if (out.empty() && c == '0') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out.empty() ? std::string("0") : out;
}

std::optional<std::uint64_t> guid_value(std::string_view text) {
  const auto digits = normalize_guid(text);
  if (!digits) return std::nullopt;
  return std::stoull(*digits, nullptr, 16);
}

GuidMap GuidMap::read(const std::string& path) {
  GuidMap map;
  map.source_ = path;
  io::LineCursor cur(path, io::read_text_file(path));
  while (auto line = cur.next_content_line("#")) {
    const auto f = io::split_fields(*line);
    std::string_view host, guid;
    if (f.size() == 2 && f[0].size() > 1 && f[0].back() == ':') {  // "host: 0xGUID"
      host = f[0].substr(0, f[0].size() - 1);
      guid = f[1];
    } else if (f.size() >= 2 && normalize_guid(f[0]) && (f[0].starts_with("H-") || f[0].starts_with("0x"))) {
      guid = f[0];  // "H-GUID host" (anything after the host name is a comment)
      host = f[1];
    } else {
      cur.fail_here("expected 'HOST: 0xGUID' or 'H-GUID HOST'");
    }
    const auto key = normalize_guid(guid);
    if (!key) cur.fail_here(fmt::format("'{}' is not a GUID", guid));
    auto [it, added] = map.hosts_.emplace(*key, std::string(host));
    if (!added && it->second != host) {
      cur.fail_here(fmt::format("GUID {} is mapped to '{}' and to '{}'", guid, it->second, host));
    }
  }
  if (map.hosts_.empty()) cur.fail_at_end("maps no GUID");
  return map;
}

std::optional<std::string> GuidMap::host_of(std::string_view guid) const {
  const auto key = normalize_guid(guid);
  if (!key) return std::nullopt;
  auto it = hosts_.find(*key);
  if (it == hosts_.end()) return std::nullopt;
  return it->second;
}

}  // namespace taskmap
