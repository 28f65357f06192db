#pragma once
// The reorder library's planning processes (one per node) as dist::Processes, over a
// communicator of their own: what auto spreads its jobs and the evaluator its work over. Every
// operation is nonblocking underneath and waited for asleep (tested every 0.1 to 10 ms), so a
// process that waits for another's job does not take a core from it.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <span>

#include "nonblocking.h"
#include "taskmap/core/error.h"
#include "taskmap/dist/processes.h"

namespace taskmap::reorder_mpi {

class PlanningProcesses final : public dist::Processes {
 public:
  // `comm`: the planning processes' communicator (kept, not freed); `alone`: this process's.
  PlanningProcesses(MPI_Comm comm, const dist::Processes& alone) : comm_(comm), alone_(alone) {
    PMPI_Comm_rank(comm, &rank_);
    PMPI_Comm_size(comm, &size_);
    PMPI_Type_contiguous(2, MPI_UINT64_T, &int128_);
    PMPI_Type_commit(&int128_);
    PMPI_Op_create(&mpi_nonblocking::add_int128, 1, &sum_int128_);
  }
  ~PlanningProcesses() override {
    PMPI_Op_free(&sum_int128_);
    PMPI_Type_free(&int128_);
  }
  PlanningProcesses(const PlanningProcesses&) = delete;
  PlanningProcesses& operator=(const PlanningProcesses&) = delete;

  using dist::Processes::broadcast;  // the string and vector helpers beside the override below
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const dist::Processes& alone() const override { return alone_; }

  void sum(std::span<std::uint64_t> values) const override { reduce(values.data(), values.size(), MPI_UINT64_T, MPI_SUM); }
  void sum(std::span<dist::Int128> values) const override { reduce(values.data(), values.size(), int128_, sum_int128_); }
  void max(std::span<double> values) const override { reduce(values.data(), values.size(), MPI_DOUBLE, MPI_MAX); }
  void min(std::span<double> values) const override { reduce(values.data(), values.size(), MPI_DOUBLE, MPI_MIN); }
  void broadcast(void* data, std::uint64_t bytes, int root) const override {
    constexpr std::uint64_t kPiece = std::uint64_t{1} << 30;  // MPI counts are ints
    for (std::uint64_t at = 0; at < bytes; at += kPiece) {
      MPI_Request request = MPI_REQUEST_NULL;
      PMPI_Ibcast(static_cast<char*>(data) + at, static_cast<int>(std::min(kPiece, bytes - at)), MPI_BYTE, root, comm_,
                  &request);
      wait(request);
    }
  }

  // Completes `request`, sleeping between tests (0.1 ms, doubling up to 10 ms).
  static void wait(MPI_Request& request) { mpi_nonblocking::wait_asleep(request, 100'000, 10'000'000); }

 private:
  void reduce(void* data, std::size_t count, MPI_Datatype type, MPI_Op op) const {
    if (count > static_cast<std::size_t>(1 << 30)) fail("a reduction of {} values is too large for the planners", count);
    MPI_Request request = MPI_REQUEST_NULL;
    PMPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(count), type, op, comm_, &request);
    wait(request);
  }

  MPI_Comm comm_;
  const dist::Processes& alone_;
  int rank_ = 0, size_ = 1;
  MPI_Datatype int128_ = MPI_DATATYPE_NULL;
  MPI_Op sum_int128_ = MPI_OP_NULL;
};

}  // namespace taskmap::reorder_mpi
