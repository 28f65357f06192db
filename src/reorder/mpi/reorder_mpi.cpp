// libtaskmap-reorder-<mpi>.so: MPI's topology constructors with reorder = true return a
// communicator whose rank order places the described graph well on the machine
// (TASKMAP_MACHINE). Interposed through the MPI profiling interface: LD_PRELOAD into a
// dynamically linked program, or link it before the MPI library. The first process of each
// node computes the order together (plan_reorder, auto's jobs spread over them), rank 0
// broadcasts it; every process then joins MPI_Comm_split with its new rank
// as the key and calls the real constructor on that communicator with reorder = false, so
// every topology query and neighbourhood collective is MPI's own, on the new order. Rank 0 says
// what it did in one line; whatever fails inside keeps the identity order, with one warning
// line on rank 0.
#include <mpi.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fortran_constants.h"
#include "other_mpi.h"
#include "planning_processes.h"
#include "taskmap/core/atomic_file.h"
#include "taskmap/core/error.h"
#include "taskmap/core/progress.h"
#include "taskmap/reorder/reorder_plan.h"

namespace {

// A program of the other MPI stops with one line (other_mpi.h): at load, before the program's
// main, and again at each constructor, for an MPI loaded later (dlopen). The reorder the user
// asked for cannot happen there, and running on without it would pass unnoticed.
const char anchor = 0;
void refuse_the_other_mpi() {
  taskmap::other_mpi::stop_under_other_mpi("taskmap reorder", "libtaskmap-reorder", &anchor);
}
[[gnu::constructor]] void refuse_the_other_mpi_at_load() { refuse_the_other_mpi(); }

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// One directed edge of the described graph, between vertices (ranks of the new communicator).
struct Edge {
  int src, dst;
  double weight;
};

// Each process's place: world rank, host, CPU; gathered on rank 0 of `comm`.
struct Places {
  std::vector<int> world_ranks, cpus;
  std::vector<std::string> hosts;
};

Places gather_places(MPI_Comm comm, int size, int rank) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  PMPI_Get_processor_name(name, &length);
  int world = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world);
  int mine[2] = {world, sched_getcpu()};
  Places p;
  std::vector<int> pairs(rank == 0 ? 2 * size : 0);
  std::vector<char> names(rank == 0 ? static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME : 0);
  PMPI_Gather(mine, 2, MPI_INT, pairs.data(), 2, MPI_INT, 0, comm);
  PMPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm);
  if (rank != 0) return p;
  for (int i = 0; i < size; ++i) {
    p.world_ranks.push_back(pairs[2 * i]);
    p.cpus.push_back(pairs[2 * i + 1]);
    const char* n = &names[static_cast<std::size_t>(i) * MPI_MAX_PROCESSOR_NAME];
    p.hosts.emplace_back(n, strnlen(n, MPI_MAX_PROCESSOR_NAME));
  }
  return p;
}

// What rank 0 says and writes when the identity order stays, and why.
std::vector<int> keep_identity(const char* call, int size, int vertices, const std::string& why) {
  std::fprintf(stderr, "taskmap reorder: %s keeps the identity order: %s\n", call, why.c_str());
  if (const std::string report_path = env("TASKMAP_REORDER_REPORT"); !report_path.empty()) {
    try {
      taskmap::io::write_file_atomically(report_path,
                                         nlohmann::json{{"call", call}, {"kept", "identity"}, {"error", why}}.dump(2) + "\n");
    } catch (const std::exception&) {
    }
  }
  std::vector<int> vertex_of_process(static_cast<std::size_t>(size), -1);
  for (int p = 0; p < vertices; ++p) vertex_of_process[static_cast<std::size_t>(p)] = p;
  return vertex_of_process;
}

// Each process's node: its processor name, or TASKMAP_FAKE_HOST's (throws Error on a value it
// cannot read).
std::vector<std::string> hosts_of(const Places& places) {
  std::vector<std::string> hosts = places.hosts;
  if (const std::string fake = env("TASKMAP_FAKE_HOST"); !fake.empty()) {
    int world_size = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    const std::vector<std::string> by_world_rank = taskmap::fake_hosts(fake, world_size);
    for (std::size_t p = 0; p < hosts.size(); ++p) hosts[p] = by_world_rank[places.world_ranks[p]];
  }
  return hosts;
}

// Rank 0's request from the gathered places and the settings (rank 0's environment); throws
// Error on a setting it cannot read.
taskmap::ReorderRequest request_on_root(const char* call, int vertices, const std::vector<Edge>& edges, const Places& places) {
  taskmap::ReorderRequest request;
  request.call = call;
  std::vector<taskmap::CommEdge> graph_edges;
  for (const Edge& e : edges) {
    graph_edges.push_back({static_cast<taskmap::TaskId>(e.src), static_cast<taskmap::TaskId>(e.dst), e.weight});
  }
  request.graph = taskmap::CommGraph::from_edges(static_cast<std::uint32_t>(vertices), std::move(graph_edges));
  request.cpus = places.cpus;
  request.hosts = hosts_of(places);
  request.machine = env("TASKMAP_MACHINE");
  request.node_topology = env("TASKMAP_NODE_TOPOLOGY");
  request.routing = env("TASKMAP_ROUTING");
  request.mapper = env("TASKMAP_MAPPER");
  if (const std::string s = env("TASKMAP_REORDER_SECONDS"); !s.empty()) {
    char* end = nullptr;
    request.seconds = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || *end != '\0' || !(request.seconds > 0)) {
      taskmap::fail("TASKMAP_REORDER_SECONDS '{}' is not a positive number", s);
    }
  }
  return request;
}

// Rank 0 after a plan: the report, the line (TASKMAP_REORDER_QUIET=1 silences it, not the
// warnings), and the vertex of each process (-1: none).
std::vector<int> finish_on_root(const taskmap::ReorderPlan& plan, int size, int vertices) {
  const std::string report_path = env("TASKMAP_REORDER_REPORT");
  if (!report_path.empty()) taskmap::io::write_file_atomically(report_path, plan.report.dump(2) + "\n");
  if (const std::string quiet = env("TASKMAP_REORDER_QUIET"); quiet.empty() || quiet == "0") {
    std::fprintf(stderr, "%s\n", taskmap::reorder_summary(plan.report, report_path).c_str());
  }
  std::vector<int> vertex_of_process(static_cast<std::size_t>(size), -1);
  for (int v = 0; v < vertices; ++v) vertex_of_process[plan.process_of_vertex[v]] = v;
  return vertex_of_process;
}

std::string limit_text(double seconds) {
  char text[96];
  std::snprintf(text, sizeof text, "the mapping took longer than TASKMAP_REORDER_SECONDS (%g s)", seconds);
  return text;
}

// Rank 0 planning alone: the default mapper's work is sized to fit the limit (reorder_mapper);
// the limit itself is the last guard. The plan runs on its own thread so that it can be kept:
// past it, the plan is cancelled, and stops at its mappers' next check (a call into Scotch or
// METIS ends first); the thread owns everything it touches, so it is not waited for beyond a
// second. Returns the vertex of each process (-1: none), or the identity with a warning.
std::vector<int> plan_on_root(const char* call, int vertices, const std::vector<Edge>& edges, const Places& places) {
  taskmap::io::disable_progress();  // the application's stderr is not ours to draw on
  const int size = static_cast<int>(places.hosts.size());
  try {
    auto request = std::make_shared<taskmap::ReorderRequest>(request_on_root(call, vertices, edges, places));
    request->cancel = std::make_shared<std::atomic<bool>>(false);
    auto task = std::make_shared<std::packaged_task<taskmap::ReorderPlan()>>([request] { return taskmap::plan_reorder(*request); });
    std::future<taskmap::ReorderPlan> result = task->get_future();
    std::thread([task] { (*task)(); }).detach();
    if (result.wait_for(std::chrono::duration<double>(request->seconds)) != std::future_status::ready) {
      request->cancel->store(true);
      const bool stopped = result.wait_for(std::chrono::seconds(1)) == std::future_status::ready;
      return keep_identity(call, size, vertices, limit_text(request->seconds) + (stopped ? "" : "; it ends at its next check"));
    }
    return finish_on_root(result.get(), size, vertices);
  } catch (const std::exception& e) {
    return keep_identity(call, size, vertices, e.what());
  }
}

// The planning processes together (one per node): rank 0 hands its request to the others
// (MessagePack), every one of them plans with the mapper's jobs spread over all (auto's
// workers, the evaluations too), and all get the same plan. Each stops its own jobs at the time
// limit (a clock on a thread of its own sets the cancellation); then the plan is given up on
// every one of them, and rank 0 keeps the identity. Returns rank 0's vertex of each process.
std::vector<int> plan_together(MPI_Comm planning, const char* call, int vertices, const std::vector<Edge>& edges,
                               const Places& places) {
  taskmap::io::disable_progress();
  int rank = 0, planners = 0;
  PMPI_Comm_rank(planning, &rank);
  PMPI_Comm_size(planning, &planners);
  taskmap::reorder_mpi::PlanningProcesses processes(planning, taskmap::dist::this_process_only());
  const int size = rank == 0 ? static_cast<int>(places.hosts.size()) : 0;
  // Rank 0's request, or the reason it has none, to every planner.
  std::string packed, error;
  taskmap::ReorderRequest request;
  if (rank == 0) {
    try {
      request = request_on_root(call, vertices, edges, places);
      nlohmann::json j = {{"call", request.call},           {"vertices", vertices},         {"hosts", request.hosts},
                          {"cpus", request.cpus},           {"machine", request.machine},   {"node_topology", request.node_topology},
                          {"routing", request.routing},     {"mapper", request.mapper},     {"seconds", request.seconds}};
      std::vector<std::uint32_t> src, dst;
      std::vector<double> volume;
      for (taskmap::TaskId t = 0; t < request.graph.num_tasks(); ++t) {
        const auto targets = request.graph.targets(t);
        const auto volumes = request.graph.volumes(t);
        for (std::size_t i = 0; i < targets.size(); ++i) src.push_back(t), dst.push_back(targets[i]), volume.push_back(volumes[i]);
      }
      j["src"] = src, j["dst"] = dst, j["volume"] = volume;
      const std::vector<std::uint8_t> bytes = nlohmann::json::to_msgpack(j);
      packed.assign(bytes.begin(), bytes.end());
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  processes.broadcast(error, 0);
  if (!error.empty()) return rank == 0 ? keep_identity(call, size, vertices, error) : std::vector<int>{};
  processes.broadcast(packed, 0);
  if (rank != 0) {
    const nlohmann::json j = nlohmann::json::from_msgpack(packed);
    request.call = j.at("call").get<std::string>();
    request.hosts = j.at("hosts").get<std::vector<std::string>>();
    request.cpus = j.at("cpus").get<std::vector<int>>();
    request.machine = j.at("machine").get<std::string>();
    request.node_topology = j.at("node_topology").get<std::string>();
    request.routing = j.at("routing").get<std::string>();
    request.mapper = j.at("mapper").get<std::string>();
    request.seconds = j.at("seconds").get<double>();
    const auto src = j.at("src").get<std::vector<std::uint32_t>>(), dst = j.at("dst").get<std::vector<std::uint32_t>>();
    const auto volume = j.at("volume").get<std::vector<double>>();
    std::vector<taskmap::CommEdge> graph_edges;
    for (std::size_t i = 0; i < src.size(); ++i) graph_edges.push_back({src[i], dst[i], volume[i]});
    request.graph = taskmap::CommGraph::from_edges(j.at("vertices").get<std::uint32_t>(), std::move(graph_edges));
  }
  request.processes = &processes;
  request.workers = static_cast<std::uint32_t>(planners);
  request.cancel = std::make_shared<std::atomic<bool>>(false);
  // The clock: sets the cancellation at the limit unless the plan ends first.
  std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  std::thread clock([&] {
    std::unique_lock lock(mutex);
    if (!ended.wait_for(lock, std::chrono::duration<double>(request.seconds), [&] { return done; })) request.cancel->store(true);
  });
  std::optional<taskmap::ReorderPlan> plan;
  try {
    plan = taskmap::plan_reorder(request);
  } catch (const std::exception& e) {
    error = e.what();
  }
  {
    std::lock_guard lock(mutex);
    done = true;
  }
  ended.notify_one();
  clock.join();
  // Given up on every planner when the time ran out on any of them.
  double late = request.cancel->load() ? 1.0 : 0.0;
  if (error.empty()) processes.max(std::span<double>(&late, 1));
  if (rank != 0) return {};
  if (!error.empty()) return keep_identity(call, size, vertices, error);
  if (late > 0) return keep_identity(call, size, vertices, limit_text(request.seconds));
  return finish_on_root(*plan, size, vertices);
}

// The planning processes: the first process of each node (by the hosts rank 0 gathered), or
// rank 0 alone with TASKMAP_REORDER_WORKERS=1 (or a node's worth of processes on one node).
std::vector<int> planners_of(const Places& places) {
  std::vector<int> planner(places.hosts.size(), 0);
  planner[0] = 1;
  if (env("TASKMAP_REORDER_WORKERS") == "1") return planner;
  std::vector<std::string> hosts;
  try {
    hosts = hosts_of(places);
  } catch (const std::exception&) {  // rank 0 alone: its plan reports it
    return planner;
  }
  std::set<std::string> seen = {hosts[0]};
  for (std::size_t p = 1; p < hosts.size(); ++p) planner[p] = seen.insert(hosts[p]).second ? 1 : 0;
  return planner;
}

// The plan, broadcast from rank 0. The other processes wait for it asleep, testing the
// broadcast every few milliseconds, rather than inside MPI_Bcast: MPI libraries poll there at
// full speed (MPICH over UCX does), and on a node whose cores are shared (more processes than
// cores, hardware threads) those polls take rank 0's time while it plans: 35 polling MPICH
// processes made a 36-process job's plan take 30 s instead of 1.
void wait_for_plan(std::vector<int>& vertex_of_process, MPI_Comm comm, int rank) {
  MPI_Request request = MPI_REQUEST_NULL;
  PMPI_Ibcast(vertex_of_process.data(), static_cast<int>(vertex_of_process.size()), MPI_INT, 0, comm, &request);
  if (rank == 0) {
    PMPI_Wait(&request, MPI_STATUS_IGNORE);
    return;
  }
  taskmap::reorder_mpi::PlanningProcesses::wait(request);
}

// The new rank of every process, decided on rank 0 and broadcast; then the communicator whose
// rank order is that, or MPI_COMM_NULL for a process without a vertex.
MPI_Comm reordered(MPI_Comm comm, const char* call, int vertices, const std::function<std::vector<Edge>()>& edges) {
  int size = 0, rank = 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(comm, &rank);
  Places places = gather_places(comm, size, rank);
  std::vector<int> planner(static_cast<std::size_t>(size), 0);
  if (rank == 0) planner = planners_of(places);
  PMPI_Bcast(planner.data(), size, MPI_INT, 0, comm);
  std::vector<int> vertex_of_process(static_cast<std::size_t>(size));
  if (std::count(planner.begin(), planner.end(), 1) == 1) {
    if (rank == 0) vertex_of_process = plan_on_root(call, vertices, edges(), places);
  } else {
    MPI_Comm planning = MPI_COMM_NULL;
    PMPI_Comm_split(comm, planner[static_cast<std::size_t>(rank)] ? 0 : MPI_UNDEFINED, rank, &planning);
    if (planning != MPI_COMM_NULL) {
      std::vector<int> planned = plan_together(planning, call, vertices, rank == 0 ? edges() : std::vector<Edge>{}, places);
      if (rank == 0) vertex_of_process = std::move(planned);
      PMPI_Comm_free(&planning);
    }
  }
  wait_for_plan(vertex_of_process, comm, rank);
  const int vertex = vertex_of_process[static_cast<std::size_t>(rank)];
  MPI_Comm split = MPI_COMM_NULL;
  PMPI_Comm_split(comm, vertex >= 0 ? 0 : MPI_UNDEFINED, vertex, &split);
  return split;
}

bool plain_intracommunicator(MPI_Comm comm) {
  int inter = 0;
  return comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter;
}

int communicator_size(MPI_Comm comm) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  return size;
}

// Every process's list, concatenated in rank order on every process.
std::vector<int> all_gathered(MPI_Comm comm, const std::vector<int>& mine, std::vector<int>* counts_out = nullptr) {
  const int size = communicator_size(comm);
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  int count = static_cast<int>(mine.size());
  PMPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
  std::vector<int> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  PMPI_Allgatherv(mine.data(), count, MPI_INT, all.data(), counts.data(), offsets.data(), MPI_INT, comm);
  if (counts_out) *counts_out = std::move(counts);
  return all;
}

// The adjacency of every vertex of a distributed graph, from its edges.
struct Adjacency {
  std::vector<std::vector<int>> sources, source_weights, destinations, destination_weights;
  explicit Adjacency(int vertices)
      : sources(vertices), source_weights(vertices), destinations(vertices), destination_weights(vertices) {}
  void add(int src, int dst, int weight) {
    destinations[src].push_back(dst), destination_weights[src].push_back(weight);
    sources[dst].push_back(src), source_weights[dst].push_back(weight);
  }
};

int create_dist_graph(MPI_Comm split, const Adjacency& adjacency, bool weighted, MPI_Info info, MPI_Comm* out) {
  int v = 0;
  PMPI_Comm_rank(split, &v);
  const auto& in = adjacency.sources[v];
  const auto& out_list = adjacency.destinations[v];
  auto weights = [&](const std::vector<int>& w) -> const int* {
    if (!weighted) return MPI_UNWEIGHTED;
    return w.empty() ? MPI_WEIGHTS_EMPTY : w.data();
  };
  const int rc = PMPI_Dist_graph_create_adjacent(split, static_cast<int>(in.size()), in.data(),
                                                 weights(adjacency.source_weights[v]), static_cast<int>(out_list.size()),
                                                 out_list.data(), weights(adjacency.destination_weights[v]), info, 0, out);
  return rc;
}

}  // namespace

extern "C" {

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm* comm_cart) {
  refuse_the_other_mpi();
  long long vertices = 1;
  for (int d = 0; d < ndims && vertices > 0; ++d) vertices = dims[d] > 0 ? vertices * dims[d] : 0;
  if (!reorder || ndims <= 0 || !plain_intracommunicator(comm_old) || vertices <= 0 ||
      vertices > communicator_size(comm_old)) {
    return PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart);  // MPI's own checks and errors
  }
  // Row-major ranks, as MPI numbers a Cartesian grid; one unit of traffic to each neighbour
  // (taskmap reorder-plan --cart builds the same graph).
  auto edges = [&] {
    const taskmap::CommGraph graph = taskmap::cart_graph(std::span<const int>(dims, static_cast<std::size_t>(ndims)),
                                                         std::span<const int>(periods, static_cast<std::size_t>(ndims)));
    std::vector<Edge> list;
    for (taskmap::TaskId t = 0; t < graph.num_tasks(); ++t) {
      const auto targets = graph.targets(t);
      const auto volumes = graph.volumes(t);
      for (std::size_t i = 0; i < targets.size(); ++i) {
        list.push_back({static_cast<int>(t), static_cast<int>(targets[i]), volumes[i]});
      }
    }
    return list;
  };
  MPI_Comm split = reordered(comm_old, "MPI_Cart_create", static_cast<int>(vertices), edges);
  if (split == MPI_COMM_NULL) {
    *comm_cart = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  const int rc = PMPI_Cart_create(split, ndims, dims, periods, 0, comm_cart);
  PMPI_Comm_free(&split);
  return rc;
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm* comm_graph) {
  refuse_the_other_mpi();
  if (!reorder || nnodes <= 0 || !plain_intracommunicator(comm_old) || nnodes > communicator_size(comm_old)) {
    return PMPI_Graph_create(comm_old, nnodes, index, edges, reorder, comm_graph);
  }
  auto list = [&] {
    std::vector<Edge> out;
    for (int v = 0; v < nnodes; ++v) {
      for (int i = v == 0 ? 0 : index[v - 1]; i < index[v]; ++i) {
        if (edges[i] >= 0 && edges[i] < nnodes) out.push_back({v, edges[i], 1.0});
      }
    }
    return out;
  };
  MPI_Comm split = reordered(comm_old, "MPI_Graph_create", nnodes, list);
  if (split == MPI_COMM_NULL) {
    *comm_graph = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  const int rc = PMPI_Graph_create(split, nnodes, index, edges, 0, comm_graph);
  PMPI_Comm_free(&split);
  return rc;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* comm_dist_graph) {
  refuse_the_other_mpi();
  if (!reorder || !plain_intracommunicator(comm_old) || indegree < 0 || outdegree < 0) {
    return PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                                           destweights, info, reorder, comm_dist_graph);
  }
  const int size = communicator_size(comm_old);
  const bool weighted = destweights != MPI_UNWEIGHTED;
  // Each process is the vertex of its rank: its out-edges (and their weights) make the graph;
  // the process that becomes that vertex gets its lists as given, in their order.
  auto pairs = [&](int degree, const int* ranks, const int* weights) {
    std::vector<int> list;
    const bool given = weighted && weights != MPI_WEIGHTS_EMPTY;
    for (int i = 0; i < degree; ++i) list.push_back(ranks[i]), list.push_back(given ? weights[i] : 1);
    return list;
  };
  std::vector<int> in_counts, out_counts;
  const std::vector<int> all_in = all_gathered(comm_old, pairs(indegree, sources, sourceweights), &in_counts);
  const std::vector<int> all_out = all_gathered(comm_old, pairs(outdegree, destinations, destweights), &out_counts);
  Adjacency adjacency(size);
  std::vector<Edge> edges;
  for (int p = 0, at = 0; p < size; ++p) {
    for (int i = 0; i < in_counts[p]; i += 2, at += 2) {
      adjacency.sources[p].push_back(all_in[at]), adjacency.source_weights[p].push_back(all_in[at + 1]);
    }
  }
  for (int p = 0, at = 0; p < size; ++p) {
    for (int i = 0; i < out_counts[p]; i += 2, at += 2) {
      const int dst = all_out[at], w = all_out[at + 1];
      adjacency.destinations[p].push_back(dst), adjacency.destination_weights[p].push_back(w);
      if (dst >= 0 && dst < size) edges.push_back({p, dst, weighted ? static_cast<double>(w) : 1.0});
    }
  }
  MPI_Comm split = reordered(comm_old, "MPI_Dist_graph_create_adjacent", size, [&] { return edges; });
  const int rc = create_dist_graph(split, adjacency, weighted, info, comm_dist_graph);
  PMPI_Comm_free(&split);
  return rc;
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm* comm_dist_graph) {
  refuse_the_other_mpi();
  if (!reorder || !plain_intracommunicator(comm_old) || n < 0) {
    return PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info, reorder,
                                  comm_dist_graph);
  }
  const int size = communicator_size(comm_old);
  const bool weighted = weights != MPI_UNWEIGHTED;
  std::vector<int> mine;  // (src, dst, weight) triples
  for (int i = 0, at = 0; i < n; ++i) {
    for (int j = 0; j < degrees[i]; ++j, ++at) {
      mine.insert(mine.end(), {sources[i], destinations[at], weighted && weights != MPI_WEIGHTS_EMPTY ? weights[at] : 1});
    }
  }
  const std::vector<int> all = all_gathered(comm_old, mine);
  Adjacency adjacency(size);
  std::vector<Edge> edges;
  for (std::size_t at = 0; at + 3 <= all.size(); at += 3) {
    const int src = all[at], dst = all[at + 1], w = all[at + 2];
    if (src < 0 || src >= size || dst < 0 || dst >= size) continue;
    adjacency.add(src, dst, w);
    edges.push_back({src, dst, weighted ? static_cast<double>(w) : 1.0});
  }
  MPI_Comm split = reordered(comm_old, "MPI_Dist_graph_create", size, [&] { return edges; });
  const int rc = create_dist_graph(split, adjacency, weighted, info, comm_dist_graph);
  PMPI_Comm_free(&split);
  return rc;
}

// Fortran: Open MPI's bindings (mpif.h, use mpi, use mpi_f08) and MPICH's mpi_f08 call the
// library's internal entry points, not the C functions above, so their symbols are interposed
// too, each converting its arguments and calling the C function above. Arguments by
// reference; a TYPE(MPI_Comm) holds the Fortran handle; LOGICAL is nonzero when true; an
// absent optional ierror is a null pointer.
namespace {

void fortran_cart_create(const MPI_Fint* comm_old, const MPI_Fint* ndims, const MPI_Fint* dims,
                         const MPI_Fint* periods, const MPI_Fint* reorder, MPI_Fint* comm_cart, MPI_Fint* ierror) {
  const int n = *ndims > 0 ? *ndims : 0;
  std::vector<int> sizes(dims, dims + n), wrap(static_cast<std::size_t>(n));
  for (int d = 0; d < n; ++d) wrap[d] = periods[d] != 0;
  MPI_Comm result = MPI_COMM_NULL;
  const int rc = MPI_Cart_create(MPI_Comm_f2c(*comm_old), *ndims, sizes.data(), wrap.data(), *reorder != 0, &result);
  *comm_cart = MPI_Comm_c2f(result);
  if (ierror) *ierror = rc;
}

void fortran_graph_create(const MPI_Fint* comm_old, const MPI_Fint* nnodes, const MPI_Fint* index,
                          const MPI_Fint* edges, const MPI_Fint* reorder, MPI_Fint* comm_graph, MPI_Fint* ierror) {
  const int n = *nnodes > 0 ? *nnodes : 0;
  std::vector<int> offsets(index, index + n);
  std::vector<int> targets(edges, edges + (n > 0 ? index[n - 1] : 0));
  MPI_Comm result = MPI_COMM_NULL;
  const int rc =
      MPI_Graph_create(MPI_Comm_f2c(*comm_old), *nnodes, offsets.data(), targets.data(), *reorder != 0, &result);
  *comm_graph = MPI_Comm_c2f(result);
  if (ierror) *ierror = rc;
}

// Fortran's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY (addresses, fortran_constants.h) as C's.
const int* c_weights(const MPI_Fint* weights) {
  using taskmap::mpi_fortran::Constant;
  if (taskmap::mpi_fortran::is_constant(weights, Constant::Unweighted)) return MPI_UNWEIGHTED;
  if (taskmap::mpi_fortran::is_constant(weights, Constant::WeightsEmpty)) return MPI_WEIGHTS_EMPTY;
  return weights;
}

void fortran_dist_graph_create_adjacent(const MPI_Fint* comm_old, const MPI_Fint* indegree, const MPI_Fint* sources,
                                        const MPI_Fint* sourceweights, const MPI_Fint* outdegree,
                                        const MPI_Fint* destinations, const MPI_Fint* destweights,
                                        const MPI_Fint* info, const MPI_Fint* reorder, MPI_Fint* comm_dist_graph,
                                        MPI_Fint* ierror) {
  MPI_Comm result = MPI_COMM_NULL;
  const int rc = MPI_Dist_graph_create_adjacent(MPI_Comm_f2c(*comm_old), *indegree, sources, c_weights(sourceweights),
                                                *outdegree, destinations, c_weights(destweights),
                                                MPI_Info_f2c(*info), *reorder != 0, &result);
  *comm_dist_graph = MPI_Comm_c2f(result);
  if (ierror) *ierror = rc;
}

void fortran_dist_graph_create(const MPI_Fint* comm_old, const MPI_Fint* n, const MPI_Fint* sources,
                               const MPI_Fint* degrees, const MPI_Fint* destinations, const MPI_Fint* weights,
                               const MPI_Fint* info, const MPI_Fint* reorder, MPI_Fint* comm_dist_graph,
                               MPI_Fint* ierror) {
  MPI_Comm result = MPI_COMM_NULL;
  const int rc = MPI_Dist_graph_create(MPI_Comm_f2c(*comm_old), *n, sources, degrees, destinations, c_weights(weights),
                                       MPI_Info_f2c(*info), *reorder != 0, &result);
  *comm_dist_graph = MPI_Comm_c2f(result);
  if (ierror) *ierror = rc;
}

}  // namespace

#define TASKMAP_FORTRAN_DIST_GRAPH_ADJACENT(name)                                                                   \
  void name(const MPI_Fint* c, const MPI_Fint* in, const MPI_Fint* s, const MPI_Fint* sw, const MPI_Fint* out,     \
            const MPI_Fint* d, const MPI_Fint* dw, const MPI_Fint* i, const MPI_Fint* r, MPI_Fint* g, MPI_Fint* e) { \
    fortran_dist_graph_create_adjacent(c, in, s, sw, out, d, dw, i, r, g, e);                                       \
  }
#define TASKMAP_FORTRAN_DIST_GRAPH(name)                                                                            \
  void name(const MPI_Fint* c, const MPI_Fint* n, const MPI_Fint* s, const MPI_Fint* deg, const MPI_Fint* d,       \
            const MPI_Fint* w, const MPI_Fint* i, const MPI_Fint* r, MPI_Fint* g, MPI_Fint* e) {                   \
    fortran_dist_graph_create(c, n, s, deg, d, w, i, r, g, e);                                                      \
  }
TASKMAP_FORTRAN_DIST_GRAPH_ADJACENT(mpi_dist_graph_create_adjacent_)
TASKMAP_FORTRAN_DIST_GRAPH_ADJACENT(mpi_dist_graph_create_adjacent__)
TASKMAP_FORTRAN_DIST_GRAPH_ADJACENT(mpi_dist_graph_create_adjacent)
TASKMAP_FORTRAN_DIST_GRAPH_ADJACENT(MPI_DIST_GRAPH_CREATE_ADJACENT)
TASKMAP_FORTRAN_DIST_GRAPH_ADJACENT(mpi_dist_graph_create_adjacent_f08_)
TASKMAP_FORTRAN_DIST_GRAPH(mpi_dist_graph_create_)
TASKMAP_FORTRAN_DIST_GRAPH(mpi_dist_graph_create__)
TASKMAP_FORTRAN_DIST_GRAPH(mpi_dist_graph_create)
TASKMAP_FORTRAN_DIST_GRAPH(MPI_DIST_GRAPH_CREATE)
TASKMAP_FORTRAN_DIST_GRAPH(mpi_dist_graph_create_f08_)

#define TASKMAP_FORTRAN_CART(name)                                                                                 \
  void name(const MPI_Fint* c, const MPI_Fint* n, const MPI_Fint* d, const MPI_Fint* p, const MPI_Fint* r,        \
            MPI_Fint* out, MPI_Fint* e) {                                                                          \
    fortran_cart_create(c, n, d, p, r, out, e);                                                                    \
  }
#define TASKMAP_FORTRAN_GRAPH(name)                                                                                \
  void name(const MPI_Fint* c, const MPI_Fint* n, const MPI_Fint* i, const MPI_Fint* g, const MPI_Fint* r,        \
            MPI_Fint* out, MPI_Fint* e) {                                                                          \
    fortran_graph_create(c, n, i, g, r, out, e);                                                                   \
  }
TASKMAP_FORTRAN_CART(mpi_cart_create_)
TASKMAP_FORTRAN_CART(mpi_cart_create__)
TASKMAP_FORTRAN_CART(mpi_cart_create)
TASKMAP_FORTRAN_CART(MPI_CART_CREATE)
TASKMAP_FORTRAN_CART(mpi_cart_create_f08_)
TASKMAP_FORTRAN_GRAPH(mpi_graph_create_)
TASKMAP_FORTRAN_GRAPH(mpi_graph_create__)
TASKMAP_FORTRAN_GRAPH(mpi_graph_create)
TASKMAP_FORTRAN_GRAPH(MPI_GRAPH_CREATE)
TASKMAP_FORTRAN_GRAPH(mpi_graph_create_f08_)

}  // extern "C"
