#include "taskmap/dist/processes.h"

#include "taskmap/core/error.h"

namespace taskmap::dist {

std::vector<std::int32_t> Processes::partition(const GraphSlice&, std::span<const std::int32_t>, double) const {
  fail("the distributed partition needs PT-Scotch, which taskmap has under Open MPI's launcher only");
}

void Processes::broadcast(std::string& text, int root) const {
  std::uint64_t n = text.size();
  broadcast(&n, sizeof n, root);
  text.resize(n);
  broadcast(text.data(), n, root);
}

void on_leader(const Processes& processes, const std::function<void()>& work) {
  if (processes.size() == 1) return work();
  std::string error;  // its first byte: 'u' for command-line misuse (UsageError), else 'e'
  if (processes.leader()) {
    try {
      work();
    } catch (const Error& e) {
      error = (dynamic_cast<const UsageError*>(&e) ? "u" : "e") + std::string(e.what());
    }
  }
  processes.broadcast(error, 0);
  if (error.empty()) return;
  if (error.front() == 'u') throw UsageError(error.substr(1));
  throw Error(error.substr(1));
}

namespace {

class ThisProcessOnly final : public Processes {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  const Processes& alone() const override { return *this; }
  void sum(std::span<std::uint64_t>) const override {}
  void sum(std::span<Int128>) const override {}
  void max(std::span<double>) const override {}
  void min(std::span<double>) const override {}
  void broadcast(void*, std::uint64_t, int) const override {}
};

}  // namespace

const Processes& this_process_only() {
  static const ThisProcessOnly processes;
  return processes;
}

Slice slice_of(std::uint64_t total, int rank, int size) {
  const auto r = static_cast<std::uint64_t>(rank), k = static_cast<std::uint64_t>(size);
  const std::uint64_t base = total / k, extra = total % k;
  // The first `extra` processes own one more item.
  const std::uint64_t begin = r * base + std::min(r, extra);
  return {begin, begin + base + (r < extra ? 1 : 0)};
}

}  // namespace taskmap::dist
