#pragma once
// How auto runs the independent jobs of one of its steps (the first round's candidates, then
// the refinements of each kind): on this process, or spread over the processes of the run
// (MappingProblem::processes(): `mpirun -np K taskmap map`), each job on the worker the step
// assigned it, its mapping then handed to every process and evaluated by all of them at once.
// The outcomes come back in the jobs' order and are the same whichever way the jobs ran, for
// the same workers: a process alone given W workers runs every worker's jobs itself, one after
// the other, and measures each worker's share of the time, as W processes would spend it.
#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "taskmap/core/progress.h"
#include "taskmap/eval/evaluator.h"
#include "taskmap/problem/problem.h"

namespace taskmap::portfolio {

// Workers that get jobs, at most: a step has about a dozen candidates or refinements to share,
// and each result is evaluated by every process, so more would add evaluations, not speed. The
// processes beyond them evaluate with the others and get no job of their own; a run of K > 16
// processes gives the placement of 16.
inline constexpr std::uint32_t kMostWorkers = 16;

struct StepJob {
  std::string spec;                                   // the spec of its result
  std::function<Mapping(const MappingProblem&)> map;  // on the problem it is given
  std::uint32_t worker = 0;                           // 0 .. workers - 1
};

struct StepResult {
  std::string spec;
  Mapping mapping;
  Metrics metrics;
};
// A result, or "SPEC: why it was left out" (an Error of its own, the memory the system refused).
using StepOutcome = std::variant<StepResult, std::string>;

class StepRunner {
 public:
  // `workers` 0: one per process of the problem's run. A run over several processes always has
  // one worker per process, up to kMostWorkers.
  StepRunner(const MappingProblem& problem, const Evaluator& evaluator, std::uint32_t workers, io::Progress& progress);

  std::uint32_t workers() const { return workers_; }
  // `concurrent`: how many of its jobs this process may run at once on threads when it runs
  // them all with one worker (each isolated: a thread waiting inside one does not take up
  // another's work on its stack). With several workers on one process, one at a time.
  std::vector<StepOutcome> run(const std::vector<StepJob>& jobs, int concurrent);
  // The seconds each worker's jobs took so far, mapping and evaluation, where they ran: on one
  // process, every worker's; over processes, this process's own worker's alone.
  const std::vector<double>& worker_seconds() const { return seconds_; }

 private:
  StepOutcome attempt(const StepJob& job, const MappingProblem& problem, bool evaluate);

  const MappingProblem& problem_;
  const Evaluator& evaluator_;
  std::uint32_t workers_;
  io::Progress& progress_;
  std::vector<double> seconds_;
};

}  // namespace taskmap::portfolio
