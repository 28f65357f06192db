#pragma once
// The processes a run spreads its work over: this process alone (the serial program), or the
// processes of an MPI launch (`mpirun -np K taskmap eval|map|compare ...`), reached through the
// MPI plugin of launch.h. Every operation is collective: all processes call it, in the same
// order. Results are the same on every process and do not depend on the order in which MPI
// combines them: sums are of integers (exact), maxima and minima of doubles (exact).
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace taskmap::dist {

// A signed 128-bit integer: the accumulator of exact fixed-point sums (exact_sum.h).
__extension__ using Int128 = __int128;

// A slice of a symmetric graph for the distributed partition: this process's vertices
// first .. first + offsets.size() - 2, in CSR with global vertex numbers as targets.
struct GraphSlice {
  std::uint64_t first = 0;
  std::vector<std::int32_t> offsets{0};
  std::vector<std::int32_t> targets;
  std::vector<std::int32_t> weights;  // >= 1, one per target
};

class Processes {
 public:
  virtual ~Processes() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Rank 0: the process that prints and writes the run's output.
  bool leader() const { return rank() == 0; }
  // This process alone, within the same run (e.g. a compare row's mapper on one process).
  virtual const Processes& alone() const = 0;

  // Element-wise over the processes, in place.
  virtual void sum(std::span<std::uint64_t> values) const = 0;
  virtual void sum(std::span<Int128> values) const = 0;
  virtual void max(std::span<double> values) const = 0;
  virtual void min(std::span<double> values) const = 0;
  // `root`'s `bytes` bytes at `data` to every process's `data`.
  virtual void broadcast(void* data, std::uint64_t bytes, int root) const = 0;

  // Whether partition() is PT-Scotch's distributed mapping (Open MPI's plugin).
  virtual bool distributed_partition() const { return false; }
  // PT-Scotch's distributed mapping of the graph whose slices the processes hold, in rank order,
  // onto parts weighing part_weights (their sizes follow the weights to within `imbalance`):
  // the part of each vertex of this process's slice. Throws Error when the processes have no
  // distributed partition or PT-Scotch fails.
  virtual std::vector<std::int32_t> partition(const GraphSlice& slice, std::span<const std::int32_t> part_weights,
                                              double imbalance) const;

  // Helpers over broadcast: the root's value to every process.
  void broadcast(std::string& text, int root) const;
  template <typename T>
  void broadcast(std::vector<T>& values, int root) const {
    std::uint64_t n = values.size();
    broadcast(&n, sizeof n, root);
    values.resize(n);
    broadcast(values.data(), n * sizeof(T), root);
  }
};

// Runs `work` on the leader only. An Error it throws there is thrown on every process, with the
// same message, so that all processes stop together instead of waiting for the leader.
void on_leader(const Processes& processes, const std::function<void()>& work);

// The serial program's processes: this one alone. Every operation returns at once.
const Processes& this_process_only();

// The half-open range of `total` items the process `rank` of `size` owns: consecutive slices in
// rank order, of sizes differing by at most one.
struct Slice {
  std::uint64_t begin = 0, end = 0;
};
Slice slice_of(std::uint64_t total, int rank, int size);

}  // namespace taskmap::dist
