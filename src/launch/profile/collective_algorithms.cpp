#include "collective_algorithms.h"

#include <utility>

namespace taskmap::profile {
namespace {

struct NamedCollective {
  Collective collective;
  const char* name;
  std::vector<std::pair<Algorithm, const char*>> algorithms;  // the first is the default
};

const std::vector<NamedCollective>& table() {
  static const std::vector<NamedCollective> t = {
      {Collective::Bcast, "bcast", {{Algorithm::Binomial, "binomial"}, {Algorithm::Linear, "linear"}}},
      {Collective::Reduce, "reduce", {{Algorithm::Binomial, "binomial"}, {Algorithm::Linear, "linear"}}},
      {Collective::Allreduce, "allreduce",
       {{Algorithm::RecursiveDoubling, "recursive-doubling"}, {Algorithm::Ring, "ring"}}},
      {Collective::Allgather, "allgather",
       {{Algorithm::Ring, "ring"}, {Algorithm::RecursiveDoubling, "recursive-doubling"}}},
      {Collective::Alltoall, "alltoall", {{Algorithm::Pairwise, "pairwise"}}},
      {Collective::Gather, "gather", {{Algorithm::Linear, "linear"}}},
      {Collective::Scatter, "scatter", {{Algorithm::Linear, "linear"}}},
  };
  return t;
}

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// Rank `relative` of a tree rooted at 0, back to a communicator rank.
int absolute(int relative, int size, int root) { return (relative + root) % size; }

}  // namespace

bool parse_collective_choice(const std::string& text, CollectiveChoice& out, std::string& error) {
  out = CollectiveChoice{};
  if (text.empty() || text == "none") return true;
  if (text == "all") {
    for (const NamedCollective& c : table()) out.algorithm[static_cast<std::size_t>(c.collective)] = c.algorithms[0].first;
    return true;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t colon = item.find(':');
    const std::string name = item.substr(0, colon), algorithm = colon == std::string::npos ? "" : item.substr(colon + 1);
    const NamedCollective* found = nullptr;
    std::string names;
    for (const NamedCollective& c : table()) {
      if (!names.empty()) names += ", ";
      names += c.name;
      if (name == c.name) found = &c;
    }
    if (found == nullptr) {
      error = "unknown collective '" + name + "' (use none, all, or a list of " + names + ", each NAME[:ALGORITHM])";
      return false;
    }
    Algorithm chosen = Algorithm::Off;
    std::string algorithms;
    for (const auto& [a, a_name] : found->algorithms) {
      if (!algorithms.empty()) algorithms += ", ";
      algorithms += a_name;
      if (algorithm.empty() ? chosen == Algorithm::Off : algorithm == a_name) chosen = a;
    }
    if (chosen == Algorithm::Off) {
      error = "collective '" + name + "' has no algorithm '" + algorithm + "' (use " + algorithms + ")";
      return false;
    }
    out.algorithm[static_cast<std::size_t>(found->collective)] = chosen;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return true;
}

std::string describe(const CollectiveChoice& choice) {
  std::string out;
  for (const NamedCollective& c : table()) {
    const Algorithm a = choice[c.collective];
    if (a == Algorithm::Off) continue;
    for (const auto& [alg, name] : c.algorithms) {
      if (alg != a) continue;
      if (!out.empty()) out += ",";
      out += std::string(c.name) + ":" + name;
    }
  }
  return out.empty() ? "none" : out;
}

// Binomial tree rooted at relative rank 0: a rank receives from the rank that differs in its
// lowest set bit, then sends to relative + mask for every smaller power of two mask.
std::vector<Send> bcast_sends(Algorithm a, int rank, int size, int root, std::uint64_t bytes) {
  std::vector<Send> out;
  if (a == Algorithm::Linear) {
    if (rank == root) {
      for (int d = 0; d < size; ++d) {
        if (d != root) out.push_back({d, bytes});
      }
    }
    return out;
  }
  const int relative = (rank - root + size) % size;
  int mask = 1;
  while (mask < size && !(relative & mask)) mask <<= 1;
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (relative + mask < size) out.push_back({absolute(relative + mask, size, root), bytes});
  }
  return out;
}

// The broadcast tree run backwards: every rank but the root sends its partial result once,
// to the rank that differs in its lowest set bit.
std::vector<Send> reduce_sends(Algorithm a, int rank, int size, int root, std::uint64_t bytes) {
  if (rank == root) return {};
  if (a == Algorithm::Linear) return {{root, bytes}};
  const int relative = (rank - root + size) % size;
  const int lowest = relative & -relative;
  return {{absolute(relative - lowest, size, root), bytes}};
}

std::vector<Send> allreduce_sends(Algorithm a, int rank, int size, std::uint64_t count, std::uint64_t type_size) {
  std::vector<Send> out;
  if (size < 2) return out;
  const std::uint64_t bytes = count * type_size;
  if (a == Algorithm::Ring) {
    // Reduce-scatter then allgather around the ring: step s sends chunk (rank - s) in the
    // first phase and chunk (rank + 1 - s) in the second, each to rank + 1.
    auto chunk = [&](int i) {
      const std::uint64_t base = count / size, extra = count % size;
      return (base + (std::uint64_t(i) < extra ? 1 : 0)) * type_size;
    };
    const int next = (rank + 1) % size;
    for (int s = 0; s < size - 1; ++s) out.push_back({next, chunk(((rank - s) % size + size) % size)});
    for (int s = 0; s < size - 1; ++s) out.push_back({next, chunk(((rank + 1 - s) % size + size) % size)});
    return out;
  }
  // Recursive doubling over the largest power of two pof2 <= size; the first 2 x rem ranks
  // (rem = size - pof2) pair up first: each even one hands its data to the odd one above it
  // and gets the result back at the end.
  int pof2 = 1;
  while (pof2 * 2 <= size) pof2 *= 2;
  const int rem = size - pof2;
  int newrank;
  if (rank < 2 * rem) {
    if (rank % 2 == 0) return {{rank + 1, bytes}};
    newrank = rank / 2;
  } else {
    newrank = rank - rem;
  }
  for (int mask = 1; mask < pof2; mask <<= 1) {
    const int partner = newrank ^ mask;
    out.push_back({partner < rem ? partner * 2 + 1 : partner + rem, bytes});
  }
  if (rank < 2 * rem) out.push_back({rank - 1, bytes});
  return out;
}

std::vector<Send> allgather_sends(Algorithm a, int rank, int size, std::uint64_t block_bytes) {
  std::vector<Send> out;
  if (a == Algorithm::RecursiveDoubling && is_power_of_two(size)) {
    for (int mask = 1; mask < size; mask <<= 1) out.push_back({rank ^ mask, block_bytes * std::uint64_t(mask)});
    return out;
  }
  // Ring (also recursive doubling's stand-in when size is not a power of two).
  for (int s = 0; s + 1 < size; ++s) out.push_back({(rank + 1) % size, block_bytes});
  return out;
}

std::vector<Send> alltoall_sends(int rank, const std::vector<std::uint64_t>& bytes_to) {
  std::vector<Send> out;
  for (int d = 0; d < static_cast<int>(bytes_to.size()); ++d) {
    if (d != rank && bytes_to[static_cast<std::size_t>(d)] > 0) out.push_back({d, bytes_to[static_cast<std::size_t>(d)]});
  }
  return out;
}

std::vector<Send> gather_sends(int rank, int root, std::uint64_t bytes) {
  if (rank == root) return {};
  return {{root, bytes}};
}

std::vector<Send> scatter_sends(int rank, int size, int root, std::uint64_t bytes) {
  std::vector<Send> out;
  if (rank != root) return out;
  for (int d = 0; d < size; ++d) {
    if (d != root) out.push_back({d, bytes});
  }
  return out;
}

}  // namespace taskmap::profile
