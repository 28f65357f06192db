#pragma once
// Pattern specs as given on the command line: "halo2d:64x64", "halo2d:32x32,periodic=false",
// "halo3d:16x16x16,points=27", "transpose:64x64", "alltoall:N",
// "localmix:16x8,alpha=0.3", "npb-cg:N", "npb-bt:N", "npb-sp:N", "llm:tp=8,pp=4,dp=16",
// "file:PATH[,format=F][,tasks=N]".
#include <string>
#include <string_view>
#include <vector>

#include "taskmap/workload/comm_graph.h"
#include "taskmap/workload/llm.h"
#include "taskmap/workload/readers.h"

namespace taskmap {

enum class PatternKind { Halo2d, Halo3d, Transpose, AllToAll, LocalMix, NpbCg, NpbBt, NpbSp, Llm, File };

struct PatternSpec {
  std::string text;
  PatternKind kind = PatternKind::Halo2d;
  std::vector<std::uint32_t> dims;  // grid sizes (halo, transpose) or {N} (alltoall, npb-*)
  std::uint32_t points = 0;
  bool periodic = true;
  double alpha = 0;  // LocalMix
  std::string path;
  PatternFormat format = PatternFormat::EdgeList;
  std::uint32_t min_tasks = 0;
  LlmOptions llm;  // Llm
};

PatternSpec parse_pattern_spec(std::string_view text);
CommGraph build_pattern(const PatternSpec& spec);

}  // namespace taskmap
