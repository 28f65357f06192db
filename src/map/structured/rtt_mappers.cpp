// [RTT-map] mappings of a logical 2D torus onto RT(a) / RTT(a): concentration functions
// f_c^h, f_c^v, f_c^t applied left to right, then the mapping function id or the diagonal
// shift f^d. The logical P x Q grid is the paper's rectangle with x < P (the first size) and
// y < Q; the machine's routers are (x, y) in 2a x a, router id = x + 2a*y. Tasks that land on
// one router fill its slots in task order.
#include "taskmap/map/mapper_support.h"
#include "taskmap/map/structured/structured_mappers.h"

namespace taskmap {
namespace detail {
namespace {

class RttMapper final : public ConfiguredMapper<RttMapOptions> {
 public:
  using ConfiguredMapper::ConfiguredMapper;

  Mapping run(const MappingProblem& problem) const override {
    const Machine& m = problem.machine();
    const CommGraph& g = problem.graph();
    const auto* shape = &required_shape<RectTorusShape>(label_, m, "an rt or rtt machine");
    check_fits(m, g);
    auto grid = task_grid(label_, g, 2, 2);
    std::uint32_t width = grid[0], height = grid[1];
    std::uint32_t per_router = 1;
    for (const Concentration& step : options_.concentration) {
      const std::uint32_t c = step.factor;
      const bool ok = step.kind == 'h' ? width % c == 0 : height % c == 0 && (step.kind == 'v' || width % 2 == 0);
      if (!ok) {
        refuse(label_, "f_{}^{} does not divide the {}x{} grid{}", c, step.kind, width, height,
               step.kind == 't' ? " (it needs the height divisible by c and an even width)" : "");
      }
      (step.kind == 'h' ? width : height) /= c;
      per_router *= c;
    }
    if (width != shape->width() || height != shape->height()) {
      refuse(label_, "the concentrated grid is {}x{} but the machine has {}x{} routers", width, height,
             shape->width(), shape->height());
    }
    const std::uint32_t capacity = m.nodes_per_router * m.slots_per_node;
    if (per_router > capacity) {
      refuse(label_, "concentration {} puts more tasks on a router than its {} slots", per_router, capacity);
    }
    std::vector<std::uint32_t> filled(m.num_routers, 0);
    Mapping map;
    map.slot_of_task.resize(g.num_tasks());
    for (TaskId t = 0; t < g.num_tasks(); ++t) {
      auto [x, y] = place(t / grid[1], t % grid[1], grid[0], grid[1]);
      const RouterId router = x + shape->width() * y;
      map.slot_of_task[t] = router * capacity + filled[router]++;
    }
    return map;
  }

 private:
  // The router (x, y) of logical task (x, y) on the W x H logical grid.
  std::pair<std::uint32_t, std::uint32_t> place(std::uint32_t x, std::uint32_t y, std::uint32_t W,
                                                std::uint32_t H) const {
    for (const Concentration& step : options_.concentration) {
      const std::uint32_t c = step.factor;
      if (step.kind == 'h') {
        x /= c;
        W /= c;
      } else if (step.kind == 'v') {
        y /= c;
        H /= c;
      } else {  // f_c^t(x, y) = (x + floor(y/n) m/2 mod m, y mod n), n = H/c, m = W
        const std::uint32_t n = H / c;
        x = (x + (y / n) * (W / 2)) % W;
        y %= n;
        H = n;
      }
    }
    if (options_.function == RttFunction::DiagonalShift) x = (x + y) % W;  // f^d(x, y) = (x + y mod m, y)
    return {x, y};
  }
};

}  // namespace
}  // namespace detail

std::unique_ptr<Mapper> make_rtt_mapper(MapperLabel label, RttMapOptions options) {
  return std::make_unique<detail::RttMapper>(std::move(label), std::move(options));
}

}  // namespace taskmap
