// Tree routing on a hier machine: up from the source to the switch of the lowest group holding
// both ends, then down to the destination; the one path of a tree.
#include <algorithm>

#include "routing_impl.h"

namespace taskmap::detail {
namespace {

class TreeRouting final : public Routing {
 public:
  explicit TreeRouting(const Machine& m) : machine_(m), s_(std::get<HierShape>(m.shape)) {}

  void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const override {
    const std::uint32_t top = s_.common_level(src, dst);
    for (RouterId r = src; s_.level_of(r) < top; r = parent(r)) out.push_back({s_.up_of[r], 1.0});
    // The way down, found from the destination up and put in path order (an exported route
    // lists its links in order).
    const std::size_t down = out.size();
    for (RouterId r = dst; s_.level_of(r) < top; r = parent(r)) out.push_back({s_.down_of[r], 1.0});
    std::reverse(out.begin() + static_cast<std::ptrdiff_t>(down), out.end());
  }

 private:
  RouterId parent(RouterId r) const { return machine_.channels[s_.up_of[r]].dst; }

  const Machine& machine_;
  const HierShape& s_;
};

}  // namespace

std::unique_ptr<Routing> make_tree_routing(const Machine& m) { return std::make_unique<TreeRouting>(m); }

}  // namespace taskmap::detail
