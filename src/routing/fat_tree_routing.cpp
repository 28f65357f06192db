// D-mod-k routing on a k-ary n-tree, as SimGrid's FAT_TREE cluster routes: one path per pair.
// Going up from level c >= 1, the parent taken is the one whose digit c is digit c-1 of the
// destination (the destination's index divided by k^(c-1), mod k), so traffic towards one
// destination converges on one top switch. The way up stops at the first switch above the
// destination; the way down is then unique.
#include "routing_impl.h"

namespace taskmap::detail {
namespace {

class DModKRouting final : public Routing {
 public:
  explicit DModKRouting(const Machine& m) : machine_(m), s_(std::get<FatTreeShape>(m.shape)) {}

  void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const override {
    const std::uint32_t k = s_.k;
    // Compute node -> its leaf switch.
    RouterId cur = follow(s_.up_of[std::size_t(src) * k], out);
    std::uint32_t level = 1;
    std::uint64_t weight = 1;  // k^(level-1)
    auto position = [&](RouterId r) { return (r - s_.hosts) % s_.per_level; };
    while (position(cur) / weight != dst / (weight * k)) {  // dst not below cur
      cur = follow(s_.up_of[std::size_t(cur) * k + dst / weight % k], out);
      ++level;
      weight *= k;
    }
    for (; level >= 1; --level, weight /= k) cur = follow(s_.down_of[std::size_t(cur) * k + dst / weight % k], out);
  }

 private:
  RouterId follow(ChannelId c, std::vector<ChannelShare>& out) const {
    out.push_back({c, 1.0});
    return machine_.channels[c].dst;
  }

  const Machine& machine_;
  const FatTreeShape& s_;
};

}  // namespace

std::unique_ptr<Routing> make_fat_tree_routing(const Machine& m) { return std::make_unique<DModKRouting>(m); }

}  // namespace taskmap::detail
