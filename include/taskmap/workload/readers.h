#pragma once
// One reader per communication-data format. Each names the file and line of any problem.
#include <optional>
#include <string>
#include <vector>

#include "taskmap/workload/comm_graph.h"

namespace taskmap {

enum class PatternFormat { Metis, MatrixMarket, Scotch, EdgeList, Dense, Hopbyte };

// Chooses the format from the file name (.graph/.metis, .mtx, .grf, .csv, *hopbyte*, else an
// edge list); ".xz"/".gz" suffixes are looked through.
PatternFormat guess_pattern_format(const std::string& path);
std::optional<PatternFormat> pattern_format_from_name(const std::string& name);

// min_tasks: the graph has at least this many tasks (for ranks that never communicate).
CommGraph read_pattern_file(const std::string& path, PatternFormat format, std::uint32_t min_tasks = 0);

CommGraph read_metis(const std::string& path);
CommGraph read_matrix_market(const std::string& path);
CommGraph read_scotch_grf(const std::string& path);
CommGraph read_edge_list(const std::string& path, std::uint32_t min_tasks = 0);  // "src dst volume [messages]"
CommGraph read_dense_matrix(const std::string& path);                           // CSV or whitespace

// The Blue Gene/Q traces of shared/data/bgq: "src dst bytes hops" per line.
struct HopbyteRecord {
  TaskId src = 0, dst = 0;
  double bytes = 0;
  std::uint32_t hops = 0;
};
struct HopbyteTrace {
  std::vector<HopbyteRecord> records;
  CommGraph graph;
};
HopbyteTrace read_hopbyte_trace(const std::string& path, std::uint32_t min_tasks = 0);

}  // namespace taskmap
