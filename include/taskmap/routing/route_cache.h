#pragma once
// A cache of routes shared by the mappers that evaluate many placements (RAHTM, refine-mcl).
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "taskmap/routing/routing.h"
#include "taskmap/topology/machine.h"

namespace taskmap {

// Routes of router pairs under the machine's routing, computed on first use and kept (with
// each share divided by the channel's bandwidth). Safe to call from several threads. The
// returned range stays valid for the cache's lifetime, except when the cache is full: then it
// is valid until the calling thread's next call. Load is float where memory matters more than
// the 7th digit (RAHTM's merge), double where loads are updated incrementally (refine-mcl).
template <typename Load>
class BasicRouteCache {
 public:
  struct Share {
    ChannelId channel;
    Load load;  // fraction / bandwidth
  };
  BasicRouteCache(const Machine& machine, const Routing& routing);
  std::pair<const Share*, const Share*> route(RouterId u, RouterId v);
  std::size_t num_channels() const { return inv_bandwidth_.size(); }

 private:
  const Routing& routing_;
  std::vector<std::uint32_t> index_;  // router -> its index among the routers with slots
  std::uint32_t routers_;
  std::vector<double> inv_bandwidth_;
  // Per pair: first share (published last; null = not computed yet) and count.
  std::unique_ptr<std::atomic<const Share*>[]> begin_;
  std::vector<std::uint32_t> count_;
  std::mutex mutex_;  // guards chunks_, room_ and the publication of a pair
  std::vector<std::unique_ptr<Share[]>> chunks_;  // stable storage, filled front to back
  std::size_t used_ = 0, room_ = 0, pooled_ = 0, max_pooled_ = 0;
};

using RouteCache = BasicRouteCache<float>;
using ExactRouteCache = BasicRouteCache<double>;

}  // namespace taskmap
