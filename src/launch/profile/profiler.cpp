// libtaskmap-profile-<mpi>.so: a PMPI interposition library. Loaded with LD_PRELOAD into an
// unmodified MPI program, it counts bytes and messages per (sender, receiver) of every
// point-to-point send (blocking, non-blocking, persistent, sendrecv), with ranks in
// MPI_COMM_WORLD, and at MPI_Finalize rank 0 writes them to $TASKMAP_PROFILE_OUT (default
// taskmap-profile.txt) as "src dst bytes messages" lines, which `taskmap --pattern file:PATH`
// reads. The file is written to a temporary name and renamed, so a crashed run leaves none
// (a device or FIFO is written in place; a symbolic link's target is replaced). An output
// that cannot be written stops the job with one line: at MPI_Init when its directory is
// missing or not writable, at MPI_Finalize when the write fails. Its last line "# end of taskmap-profile: L lines" lets the reader spot a cut copy.
//
// Collectives are recorded on request, as the point-to-point messages of a named algorithm
// (TASKMAP_PROFILE_COLLECTIVES, see collective_algorithms.h): MPI libraries run collectives
// below the MPI_Send layer, so without this their traffic is invisible.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "collective_algorithms.h"

namespace {

struct Counts {
  std::uint64_t bytes = 0, messages = 0;
};

struct PersistentSend {
  int world_dest;
  std::uint64_t bytes;
};

// Process-wide state; MPI programs call from one thread unless they asked for more, and the
// counters are only touched inside MPI calls.
struct Profile {
  int world_rank = -1, world_size = 0;
  std::vector<Counts> to;                                  // by world destination
  std::map<MPI_Comm, std::vector<int>> world_of;           // communicator rank -> world rank
  std::unordered_map<MPI_Request, PersistentSend> persistent;
  taskmap::profile::CollectiveChoice collectives;
  bool ready = false;
  bool failed = false;  // the profile could not be written at MPI_Finalize
};

Profile& profile() {
  static Profile p;
  return p;
}

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

void start() {
  Profile& p = profile();
  if (p.ready) return;
  PMPI_Comm_rank(MPI_COMM_WORLD, &p.world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &p.world_size);
  p.to.assign(static_cast<std::size_t>(p.world_size), Counts{});
  const char* env = std::getenv("TASKMAP_PROFILE_COLLECTIVES");
  std::string error;
  if (!taskmap::profile::parse_collective_choice(env ? env : "", p.collectives, error)) {
    // A profile silently missing the traffic the user asked for would mislead the mapping.
    if (p.world_rank == 0) std::fprintf(stderr, "taskmap-profile: TASKMAP_PROFILE_COLLECTIVES: %s\n", error.c_str());
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

// The world rank of `rank` in `comm` (its remote group for an inter-communicator), or -1.
int world_rank(MPI_Comm comm, int rank) {
  Profile& p = profile();
  if (rank < 0) return -1;  // MPI_PROC_NULL and friends
  if (comm == MPI_COMM_WORLD) return rank;
  auto it = p.world_of.find(comm);
  if (it == p.world_of.end()) {
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    MPI_Group group, world;
    if (inter) PMPI_Comm_remote_group(comm, &group);
    else PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    int size = 0;
    PMPI_Group_size(group, &size);
    std::vector<int> ranks(static_cast<std::size_t>(size)), in_world(static_cast<std::size_t>(size));
    for (int i = 0; i < size; ++i) ranks[static_cast<std::size_t>(i)] = i;
    PMPI_Group_translate_ranks(group, size, ranks.data(), world, in_world.data());
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    it = p.world_of.emplace(comm, std::move(in_world)).first;
  }
  return rank < static_cast<int>(it->second.size()) ? it->second[static_cast<std::size_t>(rank)] : -1;
}

std::uint64_t bytes_of(int count, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return count > 0 && size > 0 ? std::uint64_t(count) * std::uint64_t(size) : 0;
}

void record(int world_dest, std::uint64_t bytes) {
  Profile& p = profile();
  if (!p.ready || world_dest < 0 || world_dest >= p.world_size) return;
  Counts& c = p.to[static_cast<std::size_t>(world_dest)];
  c.bytes += bytes;
  c.messages += 1;
}

void record_send(const void*, int count, MPI_Datatype type, int dest, MPI_Comm comm) {
  start();
  record(world_rank(comm, dest), bytes_of(count, type));
}

void remember_persistent(int count, MPI_Datatype type, int dest, MPI_Comm comm, MPI_Request request) {
  start();
  profile().persistent[request] = {world_rank(comm, dest), bytes_of(count, type)};
}

// Persistent sends count when started, not when created: creating one only remembers it.
int remembered(int rc, int count, MPI_Datatype type, int dest, MPI_Comm comm, MPI_Request* request) {
  if (rc == MPI_SUCCESS) remember_persistent(count, type, dest, comm, *request);
  return rc;
}

void started(MPI_Request request) {
  auto& persistent = profile().persistent;
  auto it = persistent.find(request);
  if (it != persistent.end()) record(it->second.world_dest, it->second.bytes);
}

// The collective's messages this rank sends, when the user asked for that collective;
// inter-communicator collectives are not expanded.
template <typename Sends>
void record_collective(taskmap::profile::Collective c, MPI_Comm comm, Sends&& sends) {
  start();
  const taskmap::profile::Algorithm a = profile().collectives[c];
  if (a == taskmap::profile::Algorithm::Off) return;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return;
  int rank = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  for (const taskmap::profile::Send& s : sends(a, rank, size)) record(world_rank(comm, s.dest), s.bytes);
}

std::uint64_t type_size(MPI_Datatype type) { return bytes_of(1, type); }

// Gathers every rank's counts on rank 0, which writes the file.
void write_profile() {
  Profile& p = profile();
  std::vector<unsigned long long> mine;  // dst, bytes, messages
  for (int d = 0; d < p.world_size; ++d) {
    const Counts& c = p.to[static_cast<std::size_t>(d)];
    if (c.messages == 0) continue;
    mine.insert(mine.end(), {static_cast<unsigned long long>(d), c.bytes, c.messages});
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
    profile().failed = true;
  };
  std::FILE* out = std::fopen(temporary.c_str(), "w");
  if (!out) return cannot_write(errno);
  std::fprintf(out, "# taskmap-profile: %d ranks (MPI_COMM_WORLD); src dst bytes messages\n", p.world_size);
  std::fprintf(out, "# collectives: %s\n", taskmap::profile::describe(p.collectives).c_str());
  int lines = 1;
  for (int n : lengths) lines += n / 3;
  // A zero line of the last rank makes the job size explicit even when it never sent.
  std::fprintf(out, "%d %d 0 0\n", p.world_size - 1, p.world_size - 1);
  for (std::size_t r = 0; r < lengths.size(); ++r)
    for (int i = 0; i < lengths[r]; i += 3) {
      const unsigned long long* row = &all[static_cast<std::size_t>(offsets[r] + i)];
      std::fprintf(out, "%zu %llu %llu %llu\n", r, row[0], row[1], row[2]);
    }
  std::fprintf(out, "# end of taskmap-profile: %d lines\n", lines);
  int error = std::fflush(out) == 0 && !std::ferror(out) ? 0 : (errno ? errno : EIO);
  if (std::fclose(out) != 0 && error == 0) error = errno;
  if (error == 0 && !in_place && std::rename(temporary.c_str(), target.c_str()) != 0) error = errno;
  if (error != 0) cannot_write(error);
}

}  // namespace

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) start();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) start();
  return rc;
}

int MPI_Finalize() {
  if (profile().ready) write_profile();
  const int rc = PMPI_Finalize();
  if (profile().failed) std::exit(1);
  return rc;
}

int MPI_Comm_free(MPI_Comm* comm) {
  profile().world_of.erase(*comm);  // the handle may be reused for another communicator
  return PMPI_Comm_free(comm);
}

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  record_send(buf, count, type, dest, comm);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}
int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  record_send(buf, count, type, dest, comm);
  return PMPI_Bsend(buf, count, type, dest, tag, comm);
}
int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  record_send(buf, count, type, dest, comm);
  return PMPI_Ssend(buf, count, type, dest, tag, comm);
}
int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  record_send(buf, count, type, dest, comm);
  return PMPI_Rsend(buf, count, type, dest, tag, comm);
}
int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  record_send(buf, count, type, dest, comm);
  return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}
int MPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  record_send(buf, count, type, dest, comm);
  return PMPI_Ibsend(buf, count, type, dest, tag, comm, request);
}
int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  record_send(buf, count, type, dest, comm);
  return PMPI_Issend(buf, count, type, dest, tag, comm, request);
}
int MPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  record_send(buf, count, type, dest, comm);
  return PMPI_Irsend(buf, count, type, dest, tag, comm, request);
}
int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  record_send(sendbuf, sendcount, sendtype, dest, comm);
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                       comm, status);
}
int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                         MPI_Comm comm, MPI_Status* status) {
  record_send(buf, count, type, dest, comm);
  return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
}

// Persistent sends count when started, not when created (remembered()).
int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  return remembered(PMPI_Send_init(buf, count, type, dest, tag, comm, request), count, type, dest, comm, request);
}
int MPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return remembered(PMPI_Bsend_init(buf, count, type, dest, tag, comm, request), count, type, dest, comm, request);
}
int MPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return remembered(PMPI_Ssend_init(buf, count, type, dest, tag, comm, request), count, type, dest, comm, request);
}
int MPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return remembered(PMPI_Rsend_init(buf, count, type, dest, tag, comm, request), count, type, dest, comm, request);
}
int MPI_Start(MPI_Request* request) {
  started(*request);
  return PMPI_Start(request);
}
int MPI_Startall(int count, MPI_Request requests[]) {
  for (int i = 0; i < count; ++i) started(requests[i]);
  return PMPI_Startall(count, requests);
}
int MPI_Request_free(MPI_Request* request) {
  profile().persistent.erase(*request);
  return PMPI_Request_free(request);
}

// Collectives, recorded as the point-to-point messages of the chosen algorithm.
using taskmap::profile::Algorithm;
using taskmap::profile::Collective;

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  record_collective(Collective::Bcast, comm, [&](Algorithm a, int rank, int size) {
    return taskmap::profile::bcast_sends(a, rank, size, root, bytes_of(count, type));
  });
  return PMPI_Bcast(buf, count, type, root, comm);
}
int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  record_collective(Collective::Reduce, comm, [&](Algorithm a, int rank, int size) {
    return taskmap::profile::reduce_sends(a, rank, size, root, bytes_of(count, type));
  });
  return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}
int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  record_collective(Collective::Allreduce, comm, [&](Algorithm a, int rank, int size) {
    return taskmap::profile::allreduce_sends(a, rank, size, count > 0 ? std::uint64_t(count) : 0, type_size(type));
  });
  return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  const std::uint64_t block =
      sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  record_collective(Collective::Allgather, comm, [&](Algorithm a, int rank, int size) {
    return taskmap::profile::allgather_sends(a, rank, size, block);
  });
  return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  const std::uint64_t block =
      sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  record_collective(Collective::Alltoall, comm, [&](Algorithm, int rank, int size) {
    return taskmap::profile::alltoall_sends(rank, std::vector<std::uint64_t>(static_cast<std::size_t>(size), block));
  });
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  record_collective(Collective::Alltoall, comm, [&](Algorithm, int rank, int size) {
    std::vector<std::uint64_t> bytes(static_cast<std::size_t>(size));
    for (int d = 0; d < size; ++d) {
      bytes[static_cast<std::size_t>(d)] = in_place ? bytes_of(recvcounts[d], recvtype) : bytes_of(sendcounts[d], sendtype);
    }
    return taskmap::profile::alltoall_sends(rank, bytes);
  });
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  record_collective(Collective::Gather, comm, [&](Algorithm, int rank, int) {
    return taskmap::profile::gather_sends(rank, root, bytes_of(sendcount, sendtype));
  });
  return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  record_collective(Collective::Scatter, comm, [&](Algorithm, int rank, int size) {
    return taskmap::profile::scatter_sends(rank, size, root, bytes_of(sendcount, sendtype));
  });
  return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

}  // extern "C"
