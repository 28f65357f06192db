#pragma once
// Presenting evaluation results: human tables, JSON, per-channel CSV.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "taskmap/eval/evaluator.h"
#include "taskmap/topology/distance.h"
#include "taskmap/topology/partial_cube.h"

namespace taskmap {

// One shape for the metrics in every JSON output (eval, compare, validate, map, the reorder
// report; docs/schema/taskmap-output.schema.json): `classes` an object keyed by class name,
// `bottleneck_class` an array of class names.
nlohmann::json metrics_to_json(const Metrics& m);

// The physical units of a run's numbers, when known: pattern volumes in bytes
// (--bytes-per-unit) and link bandwidths in bytes/s (Machine::link_bytes_per_s). A channel's
// load is then in bytes and its utilization (load / bandwidth) in seconds: the time the channel
// takes to carry its load once at its bandwidth.
struct Units {
  double bytes_per_unit = 0;    // 0: the pattern's own units
  double link_bytes_per_s = 0;  // of a link of class bandwidth 1; 0: bandwidths are relative

  bool volume_in_bytes() const { return bytes_per_unit > 0; }
  bool utilization_in_seconds() const { return bytes_per_unit > 0 && link_bytes_per_s > 0; }
  // Loads: x pattern units -> x * load_factor() load_unit().
  double load_factor() const { return volume_in_bytes() ? bytes_per_unit : 1; }
  std::string load_unit() const { return volume_in_bytes() ? "bytes" : "pattern units"; }
  // Utilizations (pattern units per bandwidth unit) -> x * utilization_factor() utilization_unit().
  double utilization_factor() const;
  std::string utilization_unit() const;
  // Bandwidths of class bandwidth x -> x * link_bytes_per_s B/s, when known.
  std::string bandwidth_unit() const { return link_bytes_per_s > 0 ? "B/s" : "relative"; }
};
// {"volume": "bytes" or "pattern units", "bytes_per_unit", "link_bytes_per_s", "utilization"}
// (null where unknown).
nlohmann::json units_to_json(const Units& units);

std::string metrics_table(const Metrics& m);

struct CompareRow {
  std::string mapper;
  Metrics metrics;
  double seconds = 0;   // mapping time
  std::string skipped;  // why the mapper does not apply (then no metrics); empty: it ran
};
std::string compare_table(const std::vector<CompareRow>& rows);
nlohmann::json compare_to_json(const std::vector<CompareRow>& rows);

// "channel,src_router,dst_router,class,bandwidth,load,utilization" per channel.
std::string channel_loads_csv(const Machine& machine, const std::vector<double>& loads);

// What `taskmap info` reports beyond the machine itself.
struct MachineInfo {
  TopologyStats stats;
  std::string routing;              // the default routing's name
  PartialCubeAnswer partial_cube;
  // The table's partial-cube line: always (info --verbose), else only where TiMEr applies (a
  // partial cube) on a machine without host names (not a cluster's fabric). The JSON has the
  // answer always.
  bool verbose = false;
};
std::string machine_info_table(const Machine& machine, const MachineInfo& info);
nlohmann::json machine_info_json(const Machine& machine, const MachineInfo& info);

}  // namespace taskmap
