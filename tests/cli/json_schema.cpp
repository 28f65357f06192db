// Every command's JSON output is valid against docs/schema/taskmap-output.schema.json, checked
// by python3-jsonschema (Debian) through tests/cli/validate_json.py; outputs bent into another
// shape (the old one among them) are not.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "taskmap/reorder/reorder_plan.h"
#include "test_support.h"

namespace taskmap {
namespace {

const std::string kPython = "/usr/bin/python3";

#define REQUIRE_JSONSCHEMA() TASKMAP_REQUIRE_TOOL(kPython + " -c 'import jsonschema'", "python3-jsonschema")

std::string temp_json(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("taskmap_schema_" + std::to_string(::getpid()) + "_" + name + ".json"))
      .string();
}

// Validates the documents against the schema's $defs/NAME; the validator's exit code and lines.
test::CommandResult validate(const std::string& name, const std::vector<nlohmann::json>& documents) {
  std::string files;
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    paths.push_back(temp_json(name + std::to_string(i)));
    std::ofstream(paths.back()) << documents[i].dump(2);
    files += " " + paths.back();
  }
  const auto r = test::run_command(fmt::format("{} {}/tests/cli/validate_json.py {}/docs/schema/taskmap-output.schema.json {}{}",
                                               kPython, TASKMAP_SOURCE_DIR, TASKMAP_SOURCE_DIR, name, files));
  for (const auto& p : paths) std::filesystem::remove(p);
  return r;
}

nlohmann::json run_json(const std::string& args) {
  const auto r = test::run_taskmap(args);
  EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

const std::string kFabric = "slurm:" + test::instance("reorder/three_leaves.conf") + ",ppn=2";

TEST(JsonSchema, EveryCommandsOutputIsValid) {
  REQUIRE_JSONSCHEMA();
  const std::string torus = "--machine torus:4x4 --pattern halo2d:4x4";
  const std::string fabric = "--machine " + kFabric + " --pattern halo2d:3x6";
  const std::string placement = temp_json("placement");
  struct Case {
    std::string name;
    std::vector<std::string> commands;
  };
  const std::vector<Case> cases = {
      {"info",
       {"info --machine torus:4x4 --format json", "info --machine " + kFabric + " --format json",
        "info --machine " + kFabric + " --node-topology hwloc:" + test::instance("hwloc/partly-allowed.xml") +
            " --format json"}},
      {"eval",
       {"eval " + torus + " --mapper default --format json",
        "eval " + fabric + " --mapper random:seed=1 --bytes-per-unit 1e6 --format json",
        "eval " + torus + " --mapper default --baseline random:seed=2 --format json",
        "eval " + torus + " --mapper random:seed=1 --baseline none --format json"}},
      // A row that does not apply (rtt-map wants an RTT), the baseline outside the rows.
      {"compare",
       {"compare " + torus + " --mappers default,rtt-map,random:seed=1 --format json",
        "compare " + fabric + " --mappers random:seed=1 --format json",
        "compare " + torus + " --mappers random:seed=1 --baseline none --format json"}},
      {"map",
       {"map " + torus + " --mapper random:seed=1 --out " + placement + " --format json",
        "map " + fabric + " --out " + placement + " --out-format openmpi-rankfile --format json",
        "map " + fabric + " --out " + placement + " --out-format srun --format json",
        "map " + torus + " --mapper default --out " + placement + " --baseline none --format json"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<nlohmann::json> documents;
    for (const std::string& command : c.commands) documents.push_back(run_json(command));
    const auto r = validate(c.name, documents);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  std::filesystem::remove(placement);
  std::filesystem::remove(placement + ".cpus");
}

TEST(JsonSchema, ValidateOutputIsValid) {
  REQUIRE_JSONSCHEMA();
  TASKMAP_REQUIRE_TOOL("command -v smpirun", "smpirun (libsimgrid-dev)");
  const auto j = run_json("validate --machine torus:4x4 --pattern halo2d:4x4 --mappers default,random:seed=1 --format json");
  const auto r = validate("validate", {j});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(JsonSchema, ReorderReportIsValid) {
  REQUIRE_JSONSCHEMA();
  ReorderRequest request;
  request.call = "MPI_Cart_create";
  request.graph = CommGraph::from_edges(4, {{0, 1, 100}, {1, 0, 100}, {2, 3, 100}, {3, 2, 100}, {0, 2, 1}, {2, 0, 1}});
  request.hosts = {"cn01", "cn04", "cn01", "cn04"};
  request.cpus = {0, 0, 1, 1};
  request.machine = kFabric;
  const ReorderPlan plan = plan_reorder(request);
  const auto r = validate("reorder", {plan.report});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

// The schema is not a formality: documents bent into another shape fail, each with a line.
TEST(JsonSchema, OtherShapesAreInvalid) {
  REQUIRE_JSONSCHEMA();
  const nlohmann::json eval = run_json("eval --machine torus:4x4 --pattern halo2d:4x4 --mapper default --format json");
  ASSERT_TRUE(eval.is_object());
  ASSERT_EQ(validate("eval", {eval}).exit_code, 0);
  std::vector<nlohmann::json> bent;
  // The shape before: classes as an array, bottleneck_class a comma string, mcl_by_class.
  nlohmann::json old_classes = eval;
  old_classes["classes"] = nlohmann::json::array();
  for (const auto& [name, c] : eval["classes"].items()) {
    nlohmann::json row = c;
    row["class"] = name;
    old_classes["classes"].push_back(row);
  }
  bent.push_back(old_classes);
  nlohmann::json comma = eval;
  comma["bottleneck_class"] = "A+,A-,B+,B-";
  bent.push_back(comma);
  nlohmann::json extra = eval;
  extra["mcl_by_class"] = {{"A+", 0.25}};
  bent.push_back(extra);
  nlohmann::json missing = eval;
  missing.erase("hop_bytes");
  bent.push_back(missing);
  nlohmann::json class_extra = eval;
  class_extra["classes"]["A+"]["utilization"] = 1;
  bent.push_back(class_extra);
  nlohmann::json verdict = eval;
  verdict["recommendation"]["better"] = "no";
  bent.push_back(verdict);
  for (std::size_t i = 0; i < bent.size(); ++i) {
    SCOPED_TRACE(i);
    const auto r = validate("eval", {bent[i]});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    // One line per schema the document fails ($defs/eval and the whole schema).
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2) << r.out;
  }
}

}  // namespace
}  // namespace taskmap
