#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "taskmap/routing/routing.h"
#include "taskmap/topology/machine.h"

namespace taskmap::rahtm {

// Routes of router pairs under the machine's routing, computed on first use and kept (with
// each share divided by the channel's bandwidth). Safe to call from several threads. The
// returned range stays valid for the cache's lifetime, except when the cache is full: then it
// is valid until the calling thread's next call.
class RouteCache {
 public:
  struct Share {
    ChannelId channel;
    float load;  // fraction / bandwidth
  };
  RouteCache(const Machine& machine, const Routing& routing);
  std::pair<const Share*, const Share*> route(RouterId u, RouterId v);
  std::size_t num_channels() const { return inv_bandwidth_.size(); }

 private:
  const Routing& routing_;
  std::uint32_t routers_;
  std::vector<double> inv_bandwidth_;
  // Per pair: first share (published last; null = not computed yet) and count.
  std::unique_ptr<std::atomic<const Share*>[]> begin_;
  std::vector<std::uint32_t> count_;
  std::mutex mutex_;  // guards chunks_, room_ and the publication of a pair
  std::vector<std::unique_ptr<Share[]>> chunks_;  // stable storage, filled front to back
  std::size_t used_ = 0, room_ = 0, pooled_ = 0;
};

}  // namespace taskmap::rahtm
