#pragma once
// Shared pieces of the mapper implementations; not part of the public interface.
#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "taskmap/core/error.h"
#include "taskmap/map/mapper.h"

namespace taskmap::detail {

// The mappers that place a job with more tasks than slots (several per slot, within the
// balance), named where a one-task-per-slot mapper refuses such a job. The catalog's
// applicability checks must agree (tests/map/mapper_catalog.cpp checks it).
inline constexpr const char* kSeveralTasksPerSlot =
    "auto, default, hostname-order, file, scotch, ptscotch, metis, greedy, rb, ml, timer, refine-hb, refine-mcl "
    "or refine-inject";

void check_fits(const Machine& m, const CommGraph& g);

// The default order: task i on slot i; with more tasks than slots, consecutive blocks of floor
// or ceil(tasks / slots) tasks per slot (the `default` mapper's placement).
Mapping default_order(const Machine& m, std::uint32_t tasks);

// Fails with "--mapper 'SPEC': PROBLEM".
template <typename... Args>
[[noreturn]] void refuse(const MapperLabel& label, fmt::format_string<Args...> problem, Args&&... args) {
  fail("--mapper '{}': {}", label.text, fmt::format(problem, std::forward<Args>(args)...));
}

struct NoOptions {};

// A mapper with its label and its family's options.
template <typename Options = NoOptions>
class ConfiguredMapper : public Mapper {
 public:
  explicit ConfiguredMapper(MapperLabel label, Options options = {})
      : label_(std::move(label)), options_(std::move(options)) {}

 protected:
  MapperLabel label_;
  Options options_;
};

// The machine's shape of the family a mapper needs; fails with "needs WHAT, not KIND".
template <typename Shape>
const Shape& required_shape(const MapperLabel& label, const Machine& m, const char* what) {
  const auto* shape = std::get_if<Shape>(&m.shape);
  if (!shape) refuse(label, "needs {}, not {}", what, m.kind_name());
  return *shape;
}

// The task grid a structured mapper works on: grid= if given, else the pattern's own; it must
// have one of the allowed dimension counts.
std::vector<std::uint32_t> task_grid(const MapperLabel& label, const CommGraph& g, std::size_t min_dims,
                                     std::size_t max_dims);

// Fisher-Yates with an explicit unbiased draw, so a seed gives the same order on every platform.
template <typename T>
void seeded_shuffle(std::vector<T>& items, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (std::size_t i = items.size(); i > 1; --i) {
    const std::uint64_t bound = i, limit = UINT64_MAX - UINT64_MAX % bound;
    std::uint64_t x;
    do x = rng();
    while (x >= limit);
    std::swap(items[i - 1], items[x % bound]);
  }
}

}  // namespace taskmap::detail
