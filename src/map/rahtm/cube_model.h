#pragma once
// The even-split model of a cube sub-problem, shared by its solvers.
#include <cstdint>
#include <vector>

#include "taskmap/map/rahtm/cube.h"

namespace taskmap::rahtm {

struct CubeFlow {
  std::uint32_t src, dst;
  double volume;
};

// The sub-problem's flows (non-zero traffic between different clusters), row by row. Throws
// Error when the traffic matrix or the capacities do not fit the dimension count.
std::vector<CubeFlow> cube_flows(const CubeProblem& problem);

// Adds to load[v * dims + d] (the channel leaving corner v along dimension d) the even split
// of `volume` from corner s to corner t over all minimal paths, each share over the capacity.
void add_even_split(const CubeProblem& problem, std::uint32_t s, std::uint32_t t, double volume,
                    std::vector<double>& load);

}  // namespace taskmap::rahtm
