#pragma once
// The torus and mesh flow models of [RAHTM] (dimension order; the even split over every
// minimal path, a k/2 offset of a wrap dimension split between both directions) computed on
// router coordinates, one flow at a time or every flow towards one destination at once.
//
// The even split over minimal paths is a Markov chain whose state is (router, destination):
// at a router whose remaining offset to the destination is (x_1 .. x_n), the flow steps in
// dimension i with probability |x_i| / sum_j |x_j| (towards the destination; from an offset of
// exactly k/2 in a wrap dimension half of that each way). So the flows towards one
// destination merge wherever they meet: add_merged injects every source's volume at its
// router and pushes the mass to the neighbours in decreasing distance to the destination, once
// per router of the box spanned by the sources (relative to the destination), instead of once
// per point of every flow's own box of minimal paths. The loads are the same up to rounding.
#include <cstdint>
#include <span>
#include <vector>

#include "taskmap/routing/routing.h"
#include "taskmap/topology/machine.h"

namespace taskmap {

class TorusFlows {
 public:
  // `order`: every dimension once, in routing order (dimension order routing). `minimal`: the
  // even split over minimal paths instead. `ties`: dimension order's rule for k/2 offsets.
  // The machine must be a torus or mesh (Machine::torus()) and outlive this object.
  TorusFlows(const Machine& machine, bool minimal, std::vector<std::uint32_t> order, TieRule ties);

  bool minimal() const { return minimal_; }
  TieRule ties() const { return ties_; }

  // Routing::route's shares of the flow src -> dst.
  void route(RouterId src, RouterId dst, std::vector<ChannelShare>& out) const;
  // Adds volume x fraction of the flow src -> dst to loads, per channel crossed; returns the
  // number of additions.
  std::uint64_t add_pair(RouterId src, RouterId dst, double volume, std::span<double> loads) const;
  // Minimal split only: every flow towards dst in one pass over the box the sources span
  // around dst (the chain described above); returns the number of load additions.
  std::uint64_t add_merged(RouterId dst, std::span<const SourceFlow> flows, std::span<double> loads) const;
  // add_merged when its box is smaller than the flows' own boxes of minimal paths together,
  // else add_pair flow by flow.
  std::uint64_t add_flows_to(RouterId dst, std::span<const SourceFlow> flows, std::span<double> loads) const;

 private:
  template <typename Sink>
  void for_each_share(RouterId src, RouterId dst, Sink&& sink) const;
  // Per flow and dimension, the offset of its source from dst: the coordinates' difference on
  // a mesh; on a ring the shorter way, in (-k/2, k/2] (k/2: both ways are minimal).
  void offsets_to(RouterId dst, std::span<const SourceFlow> flows, std::vector<std::int64_t>& out) const;
  // add_merged, given offsets_to's offsets.
  std::uint64_t merge(RouterId dst, std::span<const SourceFlow> flows, std::span<const std::int64_t> offsets,
                      std::span<double> loads) const;

  const Machine& machine_;
  const TorusShape& shape_;
  bool minimal_;
  std::vector<std::uint32_t> order_;
  TieRule ties_;
  std::vector<double> inverse_;  // inverse_[s] = 1 / s, for remaining hop counts s >= 1
  // Channel ids are (router * dims + dimension) * 2 + direction: every channel of a full torus
  // is present (no mesh borders, no ring of size 1).
  bool dense_ = false;
};

}  // namespace taskmap
