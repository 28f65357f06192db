#include "taskmap/map/refine/region_moves.h"

#include <algorithm>
#include <numeric>

namespace taskmap {

RegionMoves::RegionMoves(const Machine& machine) : machine_(machine), hosts_(machine.num_host_routers()) {
  if (const TorusShape* torus = machine.torus()) {
    std::vector<std::size_t> active;
    for (std::size_t d = 0; d < torus->dims(); ++d)
      if (torus->sizes[d] >= 2) active.push_back(d);
    if (active.size() == 2 || active.size() == 3) {
      add_box_families(*torus, active);
    } else if (active.size() > 3) {
      for (std::size_t a = 0; a < active.size(); ++a)
        for (std::size_t b = a + 1; b < active.size(); ++b)
          for (std::size_t c = b + 1; c < active.size(); ++c) add_box_families(*torus, {active[a], active[b], active[c]});
    }
  }
  if (const TorusShape* torus = machine.torus()) {
    for (std::size_t d = 0; d < torus->dims(); ++d) {
      const std::uint64_t k = torus->sizes[d];
      if (k >= 2) families_.push_back(Family{Kind::SwapPlanes, {d}, {}, {}, 0, 0, k * k});
    }
  }
  Family routers{Kind::SwapRouters, {}, {}, {}, 0, 0, std::uint64_t(hosts_) * hosts_};
  families_.push_back(routers);
  for (const Family& f : families_) total_ += f.count;
}

void RegionMoves::add_box_families(const TorusShape& torus, const std::vector<std::size_t>& dims) {
  Family turn{Kind::TurnBox, dims, {}, {}, 1, 0, 0};
  std::vector<std::size_t> perm(dims.size());
  std::iota(perm.begin(), perm.end(), 0);
  do turn.perms.push_back(perm);
  while (std::next_permutation(perm.begin(), perm.end()));
  turn.symmetries = turn.perms.size() << dims.size();
  Family swap{Kind::SwapBoxes, dims, {}, {}, 1, 0, 0};
  for (std::size_t d = 0; d < torus.dims(); ++d) {
    const std::uint32_t k = torus.sizes[d];
    const bool in_box = std::find(dims.begin(), dims.end(), d) != dims.end();
    // A box corner may sit at every coordinate of a ring longer than 2, else short of the end.
    turn.ranges.push_back(!in_box ? k : (torus.wrap[d] && k > 2 ? k : k - 1));
    swap.ranges.push_back(in_box ? k / 2 : k);
  }
  for (std::uint32_t r : turn.ranges) turn.positions *= r;
  for (std::uint32_t r : swap.ranges) swap.positions *= r;
  turn.count = turn.positions * (turn.symmetries - 1);
  swap.count = swap.positions * swap.positions;
  families_.push_back(std::move(turn));
  families_.push_back(std::move(swap));
}

void RegionMoves::box_routers(const Family& f, std::uint64_t position, std::vector<RouterId>& out) const {
  const TorusShape& torus = *machine_.torus();
  const bool aligned = f.kind == Kind::SwapBoxes;
  std::vector<std::uint32_t> corner(torus.dims());
  for (std::size_t d = torus.dims(); d-- > 0;) {
    corner[d] = static_cast<std::uint32_t>(position % f.ranges[d]);
    position /= f.ranges[d];
  }
  for (std::size_t d : f.dims)
    if (aligned) corner[d] *= 2;
  out.clear();
  for (std::uint32_t cell = 0; cell < (1u << f.dims.size()); ++cell) {
    RouterId r = 0;
    for (std::size_t d = 0; d < torus.dims(); ++d) {
      std::uint32_t c = corner[d];
      const auto at = std::find(f.dims.begin(), f.dims.end(), d);
      if (at != f.dims.end()) c = (c + ((cell >> (at - f.dims.begin())) & 1)) % torus.sizes[d];
      r += c * torus.strides[d];
    }
    out.push_back(r);
  }
}

bool RegionMoves::get(std::uint64_t i, std::vector<std::pair<RouterId, RouterId>>& pairs) const {
  pairs.clear();
  std::size_t fi = 0;
  while (i >= families_[fi].count) i -= families_[fi++].count;
  const Family& f = families_[fi];
  switch (f.kind) {
    case Kind::SwapRouters: {
      const RouterId a = static_cast<RouterId>(i / hosts_), b = static_cast<RouterId>(i % hosts_);
      if (a >= b) return false;
      pairs = {{a, b}, {b, a}};
      return true;
    }
    case Kind::SwapPlanes: {
      const TorusShape& torus = *machine_.torus();
      const std::size_t d = f.dims.front();
      const std::uint32_t k = torus.sizes[d], a = static_cast<std::uint32_t>(i / k), b = static_cast<std::uint32_t>(i % k);
      if (a >= b) return false;
      // Every router of plane a with its twin in plane b (the same coordinates elsewhere).
      const std::uint64_t stride = torus.strides[d], block = stride * k;
      for (std::uint64_t high = 0; high < hosts_; high += block)
        for (std::uint64_t low = 0; low < stride; ++low) {
          const auto ra = static_cast<RouterId>(high + a * stride + low), rb = static_cast<RouterId>(high + b * stride + low);
          pairs.push_back({ra, rb}), pairs.push_back({rb, ra});
        }
      return true;
    }
    case Kind::SwapBoxes: {
      const std::uint64_t a = i / f.positions, b = i % f.positions;
      if (a >= b) return false;
      std::vector<RouterId> box_a, box_b;
      box_routers(f, a, box_a);
      box_routers(f, b, box_b);
      for (std::size_t c = 0; c < box_a.size(); ++c) pairs.push_back({box_a[c], box_b[c]}), pairs.push_back({box_b[c], box_a[c]});
      return true;
    }
    case Kind::TurnBox: {
      const std::uint64_t position = i / (f.symmetries - 1), symmetry = i % (f.symmetries - 1) + 1;
      const std::size_t n = f.dims.size();
      const std::vector<std::size_t>& perm = f.perms[symmetry >> n];
      const std::uint32_t reflect = static_cast<std::uint32_t>(symmetry & ((1u << n) - 1));
      std::vector<RouterId> box;
      box_routers(f, position, box);
      for (std::uint32_t cell = 0; cell < box.size(); ++cell) {
        std::uint32_t image = 0;
        for (std::size_t b = 0; b < n; ++b) image |= (((cell >> perm[b]) & 1) ^ ((reflect >> b) & 1)) << b;
        pairs.push_back({box[cell], box[image]});
      }
      return true;
    }
  }
  return false;
}

}  // namespace taskmap
