// Route caches beyond the pair table: keyed by offset on tori and meshes, computed on every
// call elsewhere; either way the shares Routing::route gives the pair.
#include <gtest/gtest.h>

#include <random>

#include "taskmap/routing/route_cache.h"
#include "test_support.h"

namespace taskmap {
namespace {

// The cache's shares for u -> v: exactly route()'s, divided by the bandwidth.
template <typename Cache>
void expect_cached_routes(const Machine& m, const Routing& routing, Cache& cache, std::minstd_rand& random, int pairs) {
  for (int i = 0; i < pairs; ++i) {
    const RouterId u = static_cast<RouterId>(random() % m.num_routers), v = static_cast<RouterId>(random() % m.num_routers);
    std::vector<ChannelShare> shares;
    if (u != v) routing.route(u, v, shares);
    for (int twice = 0; twice < 2; ++twice) {  // computed, then kept
      auto [first, last] = cache.route(u, v);
      ASSERT_EQ(static_cast<std::size_t>(last - first), shares.size()) << m.description << " " << u << " -> " << v;
      for (std::size_t k = 0; k < shares.size(); ++k) {
        EXPECT_EQ(first[k].channel, shares[k].channel);
        const double bandwidth = m.classes[m.channels[shares[k].channel].link_class].bandwidth;
        EXPECT_EQ(first[k].load, static_cast<decltype(first[k].load)>(shares[k].fraction * (1.0 / bandwidth)));
      }
    }
  }
}

TEST(RouteCache, UpToThePairTableRoutesAreKeptPerPair) {
  std::minstd_rand random(2);
  for (const char* spec : {"torus:4x4x4", "dragonfly:p=2,a=4,h=2", "percs:ns=4,nd=8"}) {
    const Machine m = make_machine(spec);
    const auto routing = make_routing(m, default_routing(m));
    ExactRouteCache cache(m, *routing);
    expect_cached_routes(m, *routing, cache, random, 40);
  }
}

TEST(RouteCache, BeyondPairsTorusRoutesAreKeptByOffset) {
  // Over 2,048 routers the pair table gives way: routes of tori and meshes are kept once per
  // offset and moved to each pair (wrap-around, mesh borders, 2-wide rings, k/2 ties); sizes
  // all powers of two take the bit-field translation, the others the per-dimension one.
  std::minstd_rand random(11);
  for (const char* spec : {"torus:17x17x17", "torus:20x16x16,mesh=A", "torus:2x48x48", "mesh:70x70", "torus:16x2x8x16",
                           "torus:8x32x16,mesh=B", "mesh:64x64", "torus:4x4x8x16x2"}) {
    const Machine m = make_machine(spec);
    ASSERT_GT(m.num_routers, ExactRouteCache::kMaxPairRouters);
    for (const char* name : {"minimal", "dor"}) {
      const auto routing = make_routing(m, parse_routing_spec(name));
      ASSERT_TRUE(routing->translation_invariant());
      ExactRouteCache exact(m, *routing);
      expect_cached_routes(m, *routing, exact, random, 30);
      RouteCache coarse(m, *routing);
      expect_cached_routes(m, *routing, coarse, random, 30);
      // Pairs of one offset: the second is the first's route moved.
      const RouterId u = 5, v = 5 + m.torus()->strides[0] + 1, w = 3 * m.torus()->strides[1], x = w + v - u;
      for (auto [a, b] : {std::pair{u, v}, std::pair{w, x}}) {
        std::vector<ChannelShare> shares;
        routing->route(a, b, shares);
        auto [first, last] = exact.route(a, b);
        ASSERT_EQ(static_cast<std::size_t>(last - first), shares.size());
        for (std::size_t k = 0; k < shares.size(); ++k) EXPECT_EQ(first[k].channel, shares[k].channel);
      }
    }
  }
}

TEST(RouteCache, BeyondPairsOtherRoutingsAreComputedOnEveryCall) {
  // SimGrid's tie rule depends on the coordinates, not only the offset.
  std::minstd_rand random(5);
  const Machine m = make_machine("torus:70x70");
  const auto routing = make_routing(m, parse_routing_spec("dor:ties=simgrid"));
  EXPECT_FALSE(routing->translation_invariant());
  ExactRouteCache cache(m, *routing);
  expect_cached_routes(m, *routing, cache, random, 50);
}

}  // namespace
}  // namespace taskmap
