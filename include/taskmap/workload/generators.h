#pragma once
// Synthetic communication patterns. Volumes: every task sends one unit in total in the
// periodic case [PERCS-map §3]: 1/(points-1) to each halo neighbour; for transpose 1/(2Q) to
// each task of its row and 1/(2P) to each task of its column (self included, which is free);
// for all-to-all 1/(N-1) to every other task.
#include <cstdint>

#include "taskmap/workload/comm_graph.h"

namespace taskmap {

// P rows x Q columns, task = row * Q + column. points: 5 or 9.
CommGraph make_halo2d(std::uint32_t rows, std::uint32_t cols, std::uint32_t points, bool periodic);
// X x Y x Z, task = (x * Y + y) * Z + z. points: 7 or 27.
CommGraph make_halo3d(std::uint32_t nx, std::uint32_t ny, std::uint32_t nz, std::uint32_t points, bool periodic);
CommGraph make_transpose(std::uint32_t rows, std::uint32_t cols);
CommGraph make_alltoall(std::uint32_t n);
// The local/global mix of [RTT-map] on a periodic P x Q grid: alpha/4 to each of the 4 torus
// neighbours (summed when a neighbour repeats on a side of size <= 2) and (1 - alpha)/N to
// every task, itself included, so each task sends exactly one unit.
CommGraph make_localmix(std::uint32_t rows, std::uint32_t cols, double alpha);

// NAS CG on its nprows x npcols process grid (npcols = nprows, or 2 nprows when log2 N is
// odd): one unit to each recursive-halving partner in the row and to the transpose partner
// (the diagonal ranks' partner is themselves). N a power of two.
CommGraph make_npb_cg(std::uint32_t ranks);
// NAS BT / SP multi-partition on the sqrt(N) x sqrt(N) grid: to each of the three successors
// and three predecessors, the words per face point of one time step (BT 40 / 15, SP 32 / 20).
enum class NpbSolver { BT, SP };
CommGraph make_npb_multipartition(std::uint32_t ranks, NpbSolver solver);

}  // namespace taskmap
