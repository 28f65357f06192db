#include "step_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <new>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "taskmap/core/error.h"

namespace taskmap::portfolio {

StepRunner::StepRunner(const MappingProblem& problem, const Evaluator& evaluator, std::uint32_t workers,
                       io::Progress& progress)
    : problem_(problem), evaluator_(evaluator), progress_(progress) {
  const int processes = problem.processes().size();
  workers_ = processes > 1 ? static_cast<std::uint32_t>(processes) : std::max<std::uint32_t>(1, workers);
  workers_ = std::min(workers_, kMostWorkers);
  seconds_.assign(workers_, 0.0);
}

StepOutcome StepRunner::attempt(const StepJob& job, const MappingProblem& problem, bool evaluate) {
  progress_.status(job.spec);
  const auto start = std::chrono::steady_clock::now();
  StepOutcome outcome;
  try {
    problem.stop_if_cancelled();
    Mapping m = job.map(problem);
    validate_mapping(m, problem.machine(), problem.graph().num_tasks(), job.spec, problem.tasks_per_slot());
    Metrics metrics = evaluate ? evaluator_.evaluate(problem.graph(), m) : Metrics{};
    outcome = StepResult{job.spec, std::move(m), std::move(metrics)};
  } catch (const Error& e) {
    outcome = fmt::format("{}: {}", job.spec, e.what());
  } catch (const std::bad_alloc&) {  // what it held is freed: the others may still fit
    outcome = fmt::format("{}: out of memory", job.spec);
  } catch (const Cancelled&) {
    // Alone, the run stops here. Over processes the others wait for this job's outcome, so it
    // is one that stopped; the caller learns of the cancellation from the problem.
    if (problem.processes().size() == 1 && problem_.processes().size() == 1) throw;
    outcome = fmt::format("{}: cancelled", job.spec);
  }
  seconds_[job.worker] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress_.advance();
  return outcome;
}

std::vector<StepOutcome> StepRunner::run(const std::vector<StepJob>& jobs, int concurrent) {
  std::vector<StepOutcome> outcomes(jobs.size());
  const dist::Processes& processes = problem_.processes();
  if (processes.size() == 1) {
    // Every worker's jobs here. One worker: at once, as the memory allows; several: one after
    // the other, so that each job's time is a core's, as on a worker of its own.
    tbb::task_arena arena(workers_ > 1 ? 1 : std::max(1, concurrent));
    arena.execute([&] {
      tbb::parallel_for(std::size_t{0}, jobs.size(), [&](std::size_t k) {
        tbb::this_task_arena::isolate([&] { outcomes[k] = attempt(jobs[k], problem_, true); });
      });
    });
    return outcomes;
  }
  // Over the processes: each maps its own jobs alone; then, job by job, the owner hands its
  // mapping (or the reason it failed) to every process, and all of them evaluate it together.
  const MappingProblem alone = problem_.on_processes(processes.alone());
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    if (static_cast<int>(jobs[k].worker) == processes.rank()) outcomes[k] = attempt(jobs[k], alone, false);
  }
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const int owner = static_cast<int>(jobs[k].worker);
    std::string error = owner == processes.rank() && std::holds_alternative<std::string>(outcomes[k])
                            ? std::get<std::string>(outcomes[k])
                            : "";
    processes.broadcast(error, owner);
    if (!error.empty()) {
      outcomes[k] = error;
      continue;
    }
    Mapping mapping;
    if (owner == processes.rank()) mapping = std::move(std::get<StepResult>(outcomes[k]).mapping);
    broadcast_mapping(mapping, processes, owner);
    Metrics metrics = evaluator_.evaluate(problem_.graph(), mapping);
    outcomes[k] = StepResult{jobs[k].spec, std::move(mapping), std::move(metrics)};
  }
  return outcomes;
}

}  // namespace taskmap::portfolio
