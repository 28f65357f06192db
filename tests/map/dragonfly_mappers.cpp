// Dragonfly mappers: B-BAC and the blocked baseline (BSM).
#include <gtest/gtest.h>

#include <algorithm>
#include <queue>
#include <set>
#include <unistd.h>

#include "taskmap/core/error.h"
#include "taskmap/map/catalog/mapper_catalog.h"
#include "taskmap/map/structured/coloring.h"
#include "taskmap/workload/generators.h"
#include "test_support.h"

namespace taskmap {
namespace {

using test::run_mapper;

// The mapper named `mapper` on the machine under its default routing.
Mapping run_mapper(const Machine& m, const CommGraph& g, const std::string& mapper) {
  return test::run_mapper(mapper, m, g);
}

// ---- Dragonfly mappers and UGAL ----

std::vector<std::uint32_t> group_of_tasks(const Machine& m, const Mapping& map) {
  const auto& s = std::get<DragonflyShape>(m.shape);
  std::vector<std::uint32_t> groups;
  for (SlotId slot : map.slot_of_task) groups.push_back(m.router_of_node(m.node_of_slot(slot)) / s.a);
  return groups;
}

TEST(DragonflyBbac, FigureThreeSystemsUseAllButOneGroupEvenly) {
  for (auto [p, n] : {std::pair{2u, 8u}, {4u, 32u}, {6u, 72u}, {8u, 128u}, {10u, 200u}}) {
    SCOPED_TRACE(n);
    const Machine m = make_machine(fmt::format("dragonfly:p={},a={},h={}", p, 2 * p, p));
    const CommGraph g = make_halo2d(n, n, 5, false);
    const Mapping map = run_mapper(m, g, "dragonfly-bbac");
    validate_mapping(map, m, g.num_tasks(), "test");
    const auto groups = group_of_tasks(m, map);
    const auto& s = std::get<DragonflyShape>(m.shape);
    std::vector<std::uint32_t> count(s.g, 0);
    for (std::uint32_t grp : groups) ++count[grp];
    EXPECT_EQ(std::count(count.begin(), count.end(), 0), 1);  // all but one group
    EXPECT_EQ(*std::max_element(count.begin(), count.end()), n);
    // Every 2x2 unit stays in one group, and the groups of the units form a balanced colouring.
    Coloring units((n / 2) * (n / 2));
    for (std::uint32_t r = 0; r < n; r += 2)
      for (std::uint32_t c = 0; c < n; c += 2) {
        const std::uint32_t grp = groups[r * n + c];
        ASSERT_EQ(groups[r * n + c + 1], grp);
        ASSERT_EQ(groups[(r + 1) * n + c + 1], grp);
        units[(r / 2) * (n / 2) + c / 2] = grp;
      }
    auto check = check_balanced_adjacency(units, {n / 2, n / 2}, n);
    EXPECT_TRUE(check.ok) << check.problem;
  }
}

TEST(DragonflyBsm, BlocksAndSubBlocksAreContiguous) {
  const Machine m = make_machine("dragonfly:p=2,a=4,h=2");  // 8 slots per group, 2 per router
  const CommGraph g = make_halo2d(8, 8, 5, false);
  const Mapping map = run_mapper(m, g, "dragonfly-bsm");
  const auto groups = group_of_tasks(m, map);
  // 2 x 4 blocks: group = (r / 2) * 2 + c / 4; routers get 1 x 2 sub-blocks.
  for (std::uint32_t r = 0; r < 8; ++r)
    for (std::uint32_t c = 0; c < 8; ++c) EXPECT_EQ(groups[r * 8 + c], (r / 2) * 2 + c / 4);
  EXPECT_EQ(map.slot_of_task[0] / 2, map.slot_of_task[1] / 2);
  EXPECT_NE(map.slot_of_task[0] / 2, map.slot_of_task[8] / 2);
}

TEST(DragonflyBbac, RefusesNonSquareAndOddGrids) {
  const Machine m = make_machine("dragonfly:p=4,a=8,h=4");
  EXPECT_THROW(run_mapper(m, make_halo2d(16, 32, 5, false), "dragonfly-bbac"), Error);
  EXPECT_THROW(run_mapper(m, make_halo2d(15, 15, 5, false), "dragonfly-bbac"), Error);
  EXPECT_THROW(run_mapper(m, make_halo2d(6, 6, 5, false), "dragonfly-bbac"), Error);  // 3x3 units, 2n colours
  EXPECT_NO_THROW(run_mapper(m, make_halo2d(6, 6, 5, false), "dragonfly-bbac:colors=n"));
}

}  // namespace
}  // namespace taskmap
