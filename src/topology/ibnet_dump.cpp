#include "ibnet_dump.h"

#include <fmt/format.h>

#include "taskmap/topology/fabric.h"
#include "taskmap/topology/guid_map.h"

namespace taskmap::ibnet {

std::optional<std::string> canonical_guid(std::string_view text) {
  auto digits = normalize_guid(text);
  if (!digits) return std::nullopt;
  return std::string(16 - digits->size(), '0') + *digits;
}

void LinkSet::add(PortEnd a, PortEnd b, std::string_view rate, std::size_t line) {
  const auto at_a = link_of_end_.find(a);
  const auto at_b = link_of_end_.find(b);
  if (at_a == link_of_end_.end() && at_b == link_of_end_.end()) {
    const double gbps = infiniband_gbps(rate);
    link_of_end_.emplace(a, links_.size());
    link_of_end_.emplace(b, links_.size());
    links_.push_back({a, b, std::string(rate), gbps, line});
    return;
  }
  if (at_a == link_of_end_.end() || at_b == link_of_end_.end() || at_a->second != at_b->second) {
    conflicting_peers.note(fmt::format("line {}", line));
    return;
  }
  // The other end's listing of a known cable: the two ends should agree on the rate.
  auto& link = links_[at_a->second];
  const double gbps = infiniband_gbps(rate);
  if (gbps == 0 || gbps == link.gbps) return;
  if (link.gbps != 0) rate_mismatches.note(fmt::format("lines {} and {}: {} and {}", link.line, line, link.rate, rate));
  if (link.gbps == 0 || gbps < link.gbps) {
    link.rate = std::string(rate);
    link.gbps = gbps;
  }
}

}  // namespace taskmap::ibnet
