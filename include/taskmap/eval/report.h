#pragma once
// Presenting evaluation results: human tables, JSON, per-channel CSV.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "taskmap/eval/evaluator.h"
#include "taskmap/topology/distance.h"
#include "taskmap/topology/partial_cube.h"

namespace taskmap {

nlohmann::json metrics_to_json(const Metrics& m);
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
};
std::string machine_info_table(const Machine& machine, const MachineInfo& info);
nlohmann::json machine_info_json(const Machine& machine, const MachineInfo& info);

}  // namespace taskmap
