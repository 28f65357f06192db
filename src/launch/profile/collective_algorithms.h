#pragma once
// Collectives as point-to-point messages: which messages one rank sends under a named
// algorithm of the kind MPI libraries use. No MPI here, so the suite tests it directly; the
// profiler calls it with communicator ranks and translates them to MPI_COMM_WORLD.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace taskmap::profile {

enum class Collective { Bcast, Reduce, Allreduce, Allgather, Alltoall, Gather, Scatter };
inline constexpr std::size_t kCollectives = 7;

enum class Algorithm { Off, Binomial, Linear, RecursiveDoubling, Ring, Pairwise };

// What TASKMAP_PROFILE_COLLECTIVES asked for, one algorithm per collective (Off: not recorded).
struct CollectiveChoice {
  std::array<Algorithm, kCollectives> algorithm{};
  Algorithm operator[](Collective c) const { return algorithm[static_cast<std::size_t>(c)]; }
};

// "" or "none": nothing; "all": every collective with its default algorithm; else a comma
// list of NAME[:ALGORITHM] (e.g. "allreduce:ring,bcast"). False with `error` set on an unknown
// name or an algorithm the collective does not have.
bool parse_collective_choice(const std::string& text, CollectiveChoice& out, std::string& error);
// "allreduce:recursive-doubling,bcast:binomial" (or "none"), for the profile's header.
std::string describe(const CollectiveChoice& choice);

struct Send {
  int dest;  // rank in the collective's communicator
  std::uint64_t bytes;
};

// The messages rank `rank` of `size` sends. `bytes` is the whole buffer (count x type size);
// for allreduce's ring the count and type size are apart because the buffer is cut into
// `size` chunks of whole elements.
std::vector<Send> bcast_sends(Algorithm a, int rank, int size, int root, std::uint64_t bytes);
std::vector<Send> reduce_sends(Algorithm a, int rank, int size, int root, std::uint64_t bytes);
std::vector<Send> allreduce_sends(Algorithm a, int rank, int size, std::uint64_t count, std::uint64_t type_size);
std::vector<Send> allgather_sends(Algorithm a, int rank, int size, std::uint64_t block_bytes);
// bytes_to[d]: this rank's block for rank d (alltoall: all equal; alltoallv: per rank).
std::vector<Send> alltoall_sends(int rank, const std::vector<std::uint64_t>& bytes_to);
std::vector<Send> gather_sends(int rank, int root, std::uint64_t bytes);
std::vector<Send> scatter_sends(int rank, int size, int root, std::uint64_t bytes);

}  // namespace taskmap::profile
