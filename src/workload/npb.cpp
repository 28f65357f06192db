// Communication structure of the NAS Parallel Benchmarks CG, BT and SP (MPI versions),
// as RAHTM [RAHTM] profiles them. Sources: NPB 3.3 MPI, CG/cg.f (setup_submatrix_info:
// process grid, reduce_exch_proc, exch_proc) and BT|SP/make_set.f (successor/predecessor on
// the multi-partition grid), x_solve.f (message sizes of the solve sweeps).
#include <fmt/format.h>

#include <bit>

#include "taskmap/core/error.h"
#include "taskmap/core/memory.h"
#include "taskmap/workload/generators.h"

namespace taskmap {

CommGraph make_npb_cg(std::uint32_t ranks) {
  if (ranks < 2 || !std::has_single_bit(ranks)) fail("npb-cg needs a power-of-two rank count >= 2, not {}", ranks);
  // npcols = nprows when log2(ranks) is even, else npcols = 2 * nprows; rank = row * npcols + col.
  const int log2p = std::countr_zero(ranks);
  const std::uint32_t nprows = 1u << (log2p / 2), npcols = ranks / nprows;
  const std::string name = fmt::format("npb-cg:{}", ranks);
  if (ranks > kMaxTaskCount) throw LimitError(fmt::format("{} has more than {} tasks (task ids are 32-bit)", name, kMaxTaskCount));
  // Per rank: log2(npcols) halving partners and the transpose partner.
  const std::uint64_t flows = std::uint64_t(ranks) * (std::countr_zero(npcols) + 1);
  check_memory(name, CommGraph::estimated_bytes(ranks, flows), format_count(flows) + " flows");
  std::vector<CommEdge> edges;
  for (std::uint32_t me = 0; me < ranks; ++me) {
    const std::uint32_t row = me / npcols, col = me % npcols;
    // Sum-reduce across the row by recursive halving: partners col ^ npcols/2, ..., col ^ 1.
    for (std::uint32_t half = npcols / 2; half >= 1; half /= 2) edges.push_back({me, row * npcols + (col ^ half), 1.0});
    // Exchange with the transpose processor; the diagonal ranks send to themselves.
    const std::uint32_t exch = nprows == npcols ? (me % nprows) * nprows + me / nprows
                                                : 2 * ((me / 2 % nprows) * nprows + me / 2 / nprows) + me % 2;
    edges.push_back({me, exch, 1.0});
  }
  CommGraph g = CommGraph::from_edges(ranks, std::move(edges));
  g.set_grid({nprows, npcols});
  return g;
}

CommGraph make_npb_multipartition(std::uint32_t ranks, NpbSolver solver) {
  const char* kind = solver == NpbSolver::BT ? "npb-bt" : "npb-sp";
  std::uint64_t p = 1;
  while (p * p < ranks) ++p;
  if (ranks < 4 || p * p != ranks) fail("{} needs a square rank count >= 4, not {}", kind, ranks);
  const std::string name = fmt::format("{}:{}", kind, ranks);
  if (ranks > kMaxTaskCount) throw LimitError(fmt::format("{} has more than {} tasks (task ids are 32-bit)", name, kMaxTaskCount));
  const std::uint64_t flows = 6 * std::uint64_t(ranks);  // three successors, three predecessors
  check_memory(name, CommGraph::estimated_bytes(ranks, flows), format_count(flows) + " flows");
  // Words per face point: copy_faces sends 2 layers x 5 variables to all six neighbours; the
  // forward sweep sends BT's 5x5 block + 5 (SP: 22) to the successor, back-substitution
  // BT's 5 (SP: 10) to the predecessor.
  const double copy = 10, forward = solver == NpbSolver::BT ? 30 : 22, backward = solver == NpbSolver::BT ? 5 : 10;
  std::vector<CommEdge> edges;
  for (std::uint32_t j = 0; j < p; ++j)
    for (std::uint32_t i = 0; i < p; ++i) {
      const TaskId me = static_cast<TaskId>(i + p * j);
      const auto id = [&](std::uint64_t x, std::uint64_t y) { return TaskId(x % p + p * (y % p)); };
      const TaskId successor[3] = {id(i + 1, j), id(i, j + 1), id(i + p - 1, j + 1)};
      const TaskId predecessor[3] = {id(i + p - 1, j), id(i, j + p - 1), id(i + 1, j + p - 1)};
      for (int d = 0; d < 3; ++d) {
        edges.push_back({me, successor[d], copy + forward});
        edges.push_back({me, predecessor[d], copy + backward});
      }
    }
  CommGraph g = CommGraph::from_edges(ranks, std::move(edges));
  g.set_grid({static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(p)});  // rank = i + p * j: j is the slow coordinate
  return g;
}

}  // namespace taskmap
