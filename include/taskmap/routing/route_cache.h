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

// Routes of router pairs under the machine's routing, each share divided by the channel's
// bandwidth, computed on first use and kept. How routes are keyed:
// - per pair of routers holding slots, up to 2,048 such routers (a table of pairs);
// - beyond, under a translation-invariant routing (Routing::translation_invariant: tori and
//   meshes under dimension order or the minimal split), per offset between the routers: the
//   route of an offset is kept once, its channels relative to the source, and moved to each
//   pair that asks (the shares are the ones Routing::route gives that pair);
// - beyond, under other routings, not kept: computed on every call.
// Safe to call from several threads. A returned range of the pair table stays valid for the
// cache's lifetime; any other (an offset's route moved to the pair, a route computed on the
// call, or any route once the pool is full) until the calling thread's next call. Load is
// float where memory matters more than the 7th digit (RAHTM's merge), double where loads are
// updated incrementally (refine-mcl).
template <typename Load>
class BasicRouteCache {
 public:
  struct Share {
    ChannelId channel;
    Load load;  // fraction / bandwidth
  };
  // Routers holding slots up to which routes are kept per pair.
  static constexpr std::uint32_t kMaxPairRouters = 2048;

  BasicRouteCache(const Machine& machine, const Routing& routing);
  std::pair<const Share*, const Share*> route(RouterId u, RouterId v);
  std::size_t num_channels() const { return inv_bandwidth_.size(); }

 private:
  // Offsets keep, per share, the move (dimension * 2 + direction) in place of the channel, and
  // the router it leaves from relative to the source, one coordinate per dimension.
  enum class Keys { Pairs, Offsets, None };
  std::size_t key_of(RouterId u, RouterId v) const;
  // Computes the route u -> v into the given buffers (under Offsets: in moves and positions
  // relative to u).
  void compute(RouterId u, RouterId v, std::vector<Share>& shares,
               std::vector<std::int32_t>& positions) const;
  std::pair<const Share*, const Share*> moved(RouterId u, const Share* first, const std::int32_t* position,
                                              std::size_t count) const;

  const Machine& machine_;
  const Routing& routing_;
  Keys keys_ = Keys::Pairs;
  // Offsets on a torus whose sizes are all powers of two keep one position per share, the
  // offset as bit fields (packed_), and translate it by a field-wise addition.
  bool packed_ = false;
  std::uint32_t high_bits_ = 0;  // the top bit of every coordinate field
  std::size_t position_size() const { return packed_ ? 1 : radix_.size(); }
  std::vector<std::uint32_t> index_;  // Pairs: router -> its index among the routers with slots
  std::uint32_t routers_ = 0;
  std::vector<std::uint32_t> radix_;  // Offsets: per dimension, the offsets it has (k, or 2k - 1 on a mesh)
  std::vector<double> inv_bandwidth_;
  // Per key: first share (published last; null = not computed yet), positions and count.
  std::unique_ptr<std::atomic<const Share*>[]> begin_;
  std::vector<const std::int32_t*> position_;
  std::vector<std::uint32_t> count_;
  std::mutex mutex_;  // guards the pools and the publication of a key
  std::vector<std::unique_ptr<Share[]>> chunks_;  // stable storage, filled front to back
  std::vector<std::unique_ptr<std::int32_t[]>> position_chunks_;
  std::size_t used_ = 0, room_ = 0, position_used_ = 0, position_room_ = 0, pooled_ = 0, max_pooled_ = 0;
};

using RouteCache = BasicRouteCache<float>;
using ExactRouteCache = BasicRouteCache<double>;

}  // namespace taskmap
