#include "taskmap/routing/routing.h"

namespace taskmap {

std::uint64_t Routing::add_flows_to(RouterId dst, std::span<const SourceFlow> flows, std::span<double> loads) const {
  thread_local std::vector<ChannelShare> shares;
  std::uint64_t additions = 0;
  for (const SourceFlow& f : flows) {
    shares.clear();
    route(f.src, dst, shares);
    for (const ChannelShare& s : shares) loads[s.channel] += f.volume * s.fraction;
    additions += shares.size();
  }
  return additions;
}

}  // namespace taskmap
