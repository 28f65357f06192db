#include "profile_recorder.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "other_mpi.h"

namespace taskmap::profile {
namespace {

struct Counts {
  std::uint64_t bytes = 0, messages = 0;
};

struct PersistentSend {
  int world_dest;
  std::uint64_t bytes;
};

// Process-wide state. MPI programs call from one thread unless they asked for more, and the
// counters are only touched inside MPI calls.
struct Profile {
  int world_rank = -1, world_size = 0;
  std::vector<Counts> to;                          // by world destination
  std::vector<Counts> from;                        // by world source: one-sided reads
  std::map<MPI_Comm, std::vector<int>> world_of;   // communicator rank -> world rank
  std::map<MPI_Win, std::vector<int>> window_world_of;
  std::unordered_map<MPI_Request, PersistentSend> persistent;
  CollectiveChoice collectives;
  bool ready = false;
  bool recording = true;
  bool paused_once = false;  // MPI_Pcontrol(0) was called: the header says so
  bool failed = false;       // the profile could not be written at MPI_Finalize
};

Profile& state() {
  static Profile p;
  return p;
}

thread_local int call_depth = 0;

std::string profile_path() {
  const char* env = std::getenv("TASKMAP_PROFILE_OUT");
  return env && *env ? env : "taskmap-profile.txt";
}

// `path` with symbolic links followed to the last one's target (which is replaced, the link
// stays).
std::string resolved(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    char target[4096];
    const ssize_t n = ::readlink(p.c_str(), target, sizeof target);
    if (n < 0 || n == static_cast<ssize_t>(sizeof target)) break;
    std::string link(target, static_cast<std::size_t>(n));
    if (link[0] == '/') p = link;
    else {
      const std::size_t slash = p.rfind('/');
      p = slash == std::string::npos ? link : p.substr(0, slash + 1) + link;
    }
  }
  return p;
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Why the profile cannot be written to `path` ("" when it can): checked at MPI_Init, so a
// run is not profiled for nothing.
std::string unwritable(const std::string& path) {
  const std::string target = resolved(path);
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return std::strerror(EISDIR);
    if (::access(target.c_str(), W_OK) != 0) return std::strerror(errno);
    if (!S_ISREG(st.st_mode)) return "";  // a device or FIFO, written in place
  }
  const std::string dir = directory_of(target);
  if (::stat(dir.c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return std::strerror(ENOTDIR);
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return std::strerror(errno);
  return "";
}

// World ranks of a group's members, in group order.
std::vector<int> world_ranks_of(MPI_Group group) {
  MPI_Group world;
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  int size = 0;
  PMPI_Group_size(group, &size);
  std::vector<int> ranks(static_cast<std::size_t>(size)), in_world(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) ranks[static_cast<std::size_t>(i)] = i;
  PMPI_Group_translate_ranks(group, size, ranks.data(), world, in_world.data());
  PMPI_Group_free(&world);
  return in_world;
}

int lookup(const std::vector<int>& world_of, int rank) {
  return rank >= 0 && rank < static_cast<int>(world_of.size()) ? world_of[static_cast<std::size_t>(rank)] : -1;
}

// The world rank of `rank` in `comm` (its remote group for an inter-communicator), or -1.
int world_rank(MPI_Comm comm, int rank) {
  if (rank < 0) return -1;  // MPI_PROC_NULL and friends
  if (comm == MPI_COMM_WORLD) return rank;
  auto& cache = state().world_of;
  auto it = cache.find(comm);
  if (it == cache.end()) {
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    MPI_Group group;
    if (inter) PMPI_Comm_remote_group(comm, &group);
    else PMPI_Comm_group(comm, &group);
    it = cache.emplace(comm, world_ranks_of(group)).first;
    PMPI_Group_free(&group);
  }
  return lookup(it->second, rank);
}

int window_world_rank(MPI_Win win, int rank) {
  if (rank < 0) return -1;
  auto& cache = state().window_world_of;
  auto it = cache.find(win);
  if (it == cache.end()) {
    MPI_Group group;
    PMPI_Win_get_group(win, &group);
    it = cache.emplace(win, world_ranks_of(group)).first;
    PMPI_Group_free(&group);
  }
  return lookup(it->second, rank);
}

void add(std::vector<Counts>& counts, int world, std::uint64_t bytes) {
  Profile& p = state();
  if (!p.ready || !p.recording || world < 0 || world >= p.world_size) return;
  Counts& c = counts[static_cast<std::size_t>(world)];
  c.bytes += bytes;
  c.messages += 1;
}

// comm's destinations in neighbourhood-collective order (communicator ranks, MPI_PROC_NULL
// kept so block numbers line up), or none when comm has no virtual topology.
std::vector<int> neighbour_destinations(MPI_Comm comm) {
  int kind = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &kind);
  std::vector<int> out;
  if (kind == MPI_CART) {
    int ndims = 0;
    PMPI_Cartdim_get(comm, &ndims);
    for (int d = 0; d < ndims; ++d) {
      int source = MPI_PROC_NULL, dest = MPI_PROC_NULL;
      PMPI_Cart_shift(comm, d, 1, &source, &dest);
      out.push_back(source);
      out.push_back(dest);
    }
  } else if (kind == MPI_GRAPH) {
    int rank = 0, degree = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, &degree);
    out.resize(static_cast<std::size_t>(degree));
    PMPI_Graph_neighbors(comm, rank, degree, out.data());
  } else if (kind == MPI_DIST_GRAPH) {
    int in = 0, outdegree = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &outdegree, &weighted);
    // Weight arrays of the right length whether or not the graph is weighted: MPI may write them.
    std::vector<int> sources(static_cast<std::size_t>(in) + 1), source_weights(sources.size());
    std::vector<int> dest_weights(static_cast<std::size_t>(outdegree) + 1);
    out.resize(static_cast<std::size_t>(outdegree) + 1);
    PMPI_Dist_graph_neighbors(comm, in, sources.data(), source_weights.data(), outdegree, out.data(),
                              dest_weights.data());
    out.resize(static_cast<std::size_t>(outdegree));
  }
  return out;
}

// Gathers every process's (src, dst, bytes, messages) rows on rank 0, which writes the file.
void write_profile() {
  Profile& p = state();
  std::vector<unsigned long long> mine;
  for (int other = 0; other < p.world_size; ++other) {
    const Counts& to = p.to[static_cast<std::size_t>(other)];
    const auto me = static_cast<unsigned long long>(p.world_rank), them = static_cast<unsigned long long>(other);
    if (to.messages) mine.insert(mine.end(), {me, them, to.bytes, to.messages});
    const Counts& from = p.from[static_cast<std::size_t>(other)];
    if (from.messages) mine.insert(mine.end(), {them, me, from.bytes, from.messages});
  }
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(p.world_rank == 0 ? static_cast<std::size_t>(p.world_size) : 0);
  PMPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(lengths.size(), 0);
  std::vector<unsigned long long> all;
  if (p.world_rank == 0) {
    int total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) offsets[r] = total, total += lengths[r];
    all.resize(static_cast<std::size_t>(total));
  }
  PMPI_Gatherv(mine.data(), length, MPI_UNSIGNED_LONG_LONG, all.data(), lengths.data(), offsets.data(),
               MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  if (p.world_rank != 0) return;
  // A pair may come from both ends (a send recorded by its sender, a one-sided read by its
  // reader): merged, in (src, dst) order.
  std::map<std::pair<unsigned long long, unsigned long long>, std::pair<unsigned long long, unsigned long long>> rows;
  for (std::size_t at = 0; at + 4 <= all.size(); at += 4) {
    auto& [bytes, messages] = rows[{all[at], all[at + 1]}];
    bytes += all[at + 2];
    messages += all[at + 3];
  }
  const std::string path = profile_path();
  const std::string target = resolved(path);
  // A regular file (or a new one) is written to a temporary and renamed over it; a device or
  // a FIFO is written in place, since a rename would replace the node.
  struct stat st {};
  const bool in_place = ::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
  const std::string temporary = in_place ? target : target + ".tmp" + std::to_string(static_cast<long>(getpid()));
  // The job must not report a success without its profile: rank 0 exits with status 1 after
  // MPI_Finalize (MPI_Abort from inside MPI_Finalize can leave Open MPI's mpirun hanging).
  auto cannot_write = [&](int error) {
    std::fprintf(stderr, "taskmap-profile: cannot write the profile %s (%s)\n", path.c_str(), std::strerror(error));
    if (!in_place) std::remove(temporary.c_str());
    p.failed = true;
  };
  std::FILE* out = std::fopen(temporary.c_str(), "w");
  if (!out) return cannot_write(errno);
  std::fprintf(out, "# taskmap-profile: %d ranks (MPI_COMM_WORLD); src dst bytes messages\n", p.world_size);
  std::fprintf(out, "# collectives: %s\n", describe(p.collectives).c_str());
  if (p.paused_once) std::fprintf(out, "# MPI_Pcontrol(0) paused the recording during part of the run\n");
  // A zero line of the last rank makes the job size explicit even when it never sent.
  std::fprintf(out, "%d %d 0 0\n", p.world_size - 1, p.world_size - 1);
  for (const auto& [pair, volume] : rows) {
    std::fprintf(out, "%llu %llu %llu %llu\n", pair.first, pair.second, volume.first, volume.second);
  }
  std::fprintf(out, "# end of taskmap-profile: %zu lines\n", rows.size() + 1);
  int error = std::fflush(out) == 0 && !std::ferror(out) ? 0 : (errno ? errno : EIO);
  if (std::fclose(out) != 0 && error == 0) error = errno;
  if (error == 0 && !in_place && std::rename(temporary.c_str(), target.c_str()) != 0) error = errno;
  if (error != 0) cannot_write(error);
}

}  // namespace

OuterCall::OuterCall() : outer_(call_depth++ == 0) {}
OuterCall::~OuterCall() { --call_depth; }

void start() {
  Profile& p = state();
  if (p.ready) return;
  static const char anchor = 0;
  other_mpi::stop_under_other_mpi("taskmap-profile", "libtaskmap-profile", &anchor);  // before any handle
  PMPI_Comm_rank(MPI_COMM_WORLD, &p.world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &p.world_size);
  p.to.assign(static_cast<std::size_t>(p.world_size), Counts{});
  p.from.assign(static_cast<std::size_t>(p.world_size), Counts{});
  const char* env = std::getenv("TASKMAP_PROFILE_COLLECTIVES");
  std::string error;
  if (!parse_collective_choice(env ? env : "", p.collectives, error)) {
    // A profile silently missing the traffic the user asked for would mislead the mapping.
    // Rank 0 says why and stops the job; the others leave it the time to say it (an abort from
    // another rank could kill rank 0 before its line is out), then stop it themselves, in case
    // rank 0 saw another environment.
    if (p.world_rank == 0) {
      std::fprintf(stderr, "taskmap-profile: TASKMAP_PROFILE_COLLECTIVES: %s\n", error.c_str());
      std::fflush(stderr);
    } else {
      std::this_thread::sleep_for(std::chrono::seconds(10));
    }
    PMPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (p.world_rank == 0) {
    const std::string path = profile_path();
    const std::string why = unwritable(path);
    if (!why.empty()) {
      std::fprintf(stderr, "taskmap-profile: TASKMAP_PROFILE_OUT=%s: cannot write the profile there (%s)\n",
                   path.c_str(), why.c_str());
      PMPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  p.ready = true;
}

void finish() {
  if (state().ready) write_profile();
}

bool failed() { return state().failed; }

void set_recording(int level) {
  Profile& p = state();
  p.recording = level != 0;
  if (level == 0) p.paused_once = true;
}

std::uint64_t bytes_of(std::int64_t count, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return count > 0 && size > 0 ? std::uint64_t(count) * std::uint64_t(size) : 0;
}

void send(MPI_Comm comm, int dest, std::uint64_t bytes) {
  start();
  add(state().to, world_rank(comm, dest), bytes);
}

void put(MPI_Win win, int target, std::uint64_t bytes) {
  start();
  add(state().to, window_world_rank(win, target), bytes);
}

void fetch(MPI_Win win, int target, std::uint64_t bytes) {
  start();
  add(state().from, window_world_rank(win, target), bytes);
}

void persistent_send(MPI_Request request, MPI_Comm comm, int dest, std::uint64_t bytes) {
  start();
  state().persistent[request] = {world_rank(comm, dest), bytes};
}

void started(MPI_Request request) {
  auto& persistent = state().persistent;
  auto it = persistent.find(request);
  if (it != persistent.end()) add(state().to, it->second.world_dest, it->second.bytes);
}

void request_freed(MPI_Request request) { state().persistent.erase(request); }

void comm_freed(MPI_Comm comm) { state().world_of.erase(comm); }

void win_freed(MPI_Win win) { state().window_world_of.erase(win); }

void neighbour_sends(MPI_Comm comm, const std::function<std::uint64_t(int block)>& bytes) {
  start();
  if (!state().recording) return;
  const std::vector<int> destinations = neighbour_destinations(comm);
  for (std::size_t i = 0; i < destinations.size(); ++i) send(comm, destinations[i], bytes(static_cast<int>(i)));
}

void collective(Collective kind, MPI_Comm comm,
                const std::function<std::vector<Send>(Algorithm, int rank, int size)>& sends) {
  start();
  Profile& p = state();
  const Algorithm a = p.collectives[kind];
  if (a == Algorithm::Off || !p.recording) return;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return;
  int rank = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  for (const Send& s : sends(a, rank, size)) add(p.to, world_rank(comm, s.dest), s.bytes);
}

}  // namespace taskmap::profile
