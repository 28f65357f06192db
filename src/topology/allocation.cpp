#include "taskmap/topology/allocation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <unordered_map>

#include "taskmap/core/catalog.h"
#include "taskmap/core/error.h"
#include "taskmap/core/hostlist.h"
#include "taskmap/core/spec.h"
#include "taskmap/core/text_source.h"
#include "common_checks.h"

namespace taskmap {
namespace {

// A host file's or the scheduler's count of slots for one host, at most.
constexpr std::int64_t kMostSlotsPerHost = std::int64_t{1} << 20;
// An allocation names no more hosts than a machine holds nodes.
constexpr std::string_view kMostHostsWhy = "no machine holds more nodes";

// Collects a host list. A host given a count gets it (counts of one host add up); a host without
// one gets the whole node, unless the list is a per-slot list, where each such listing is one
// slot: a PBS node file always, any other list once a host without a count appears twice.
class AllocationBuilder {
 public:
  explicit AllocationBuilder(std::string source) { a_.source = std::move(source); }
  // `line`: "FILE:LINE" of a host file's line, else empty.
  void add(std::string_view host, std::optional<std::uint32_t> count, std::string line = {}) {
    auto [it, fresh] = index_.emplace(std::string(host), a_.hosts.size());
    if (fresh) {
      a_.hosts.emplace_back(host);
      a_.lines.push_back(std::move(line));
      counted_.push_back(0);
      plain_.push_back(0);
    }
    const std::size_t i = it->second;
    if (count) {
      counted_[i] += *count;
    } else if (++plain_[i] > 1 && !per_slot_) {
      per_slot_ = true;
      first_repeated_ = i;
    }
    if (counted_[i] + plain_[i] > detail::kMaxSlots) {
      fail("{}: host '{}' is given more than {} slots", a_.source, host, detail::kMaxSlots);
    }
  }
  void warn(std::string line) { a_.warnings.push_back(std::move(line)); }
  // per_slot: every line without a count is one slot (a PBS node file); else that holds only
  // when some host is listed twice without a count, which is said in a warning.
  Allocation take(bool per_slot) {
    if (a_.hosts.empty()) fail("{}: names no host", a_.source);
    if (per_slot_ && !per_slot) {
      warn(fmt::format("{}: host '{}' is listed {} times, so every host listed without a count gets one slot per "
                       "listing (as in a PBS node file), not the whole node",
                       a_.source, a_.hosts[first_repeated_], plain_[first_repeated_]));
    }
    per_slot = per_slot || per_slot_;
    std::size_t dropped = 0;  // hosts listed with a count and also without one
    for (std::size_t i = 0; i < a_.hosts.size(); ++i) {
      if (!per_slot && counted_[i] > 0 && plain_[i] > 0 && dropped++ == 0) {
        warn(fmt::format("{}: host '{}' is listed with a slot count and also without one; it gets the count ({})",
                         a_.source, a_.hosts[i], counted_[i]));
      }
      a_.slots.push_back(static_cast<std::uint32_t>(counted_[i] + (per_slot ? plain_[i] : 0)));
    }
    return std::move(a_);
  }

 private:
  Allocation a_;
  std::unordered_map<std::string, std::size_t> index_;
  std::vector<std::uint64_t> counted_, plain_;
  bool per_slot_ = false;
  std::size_t first_repeated_ = 0;  // the first host listed twice without a count
};

std::uint32_t parse_count(const io::LineCursor& cur, std::string_view key, std::string_view text) {
  auto v = io::parse_int(text);
  if (!v || *v < 1 || *v > kMostSlotsPerHost) {
    cur.fail_here(fmt::format("{}'{}' is not a slot count (1 to {})", key.empty() ? "" : std::string(key) + "=", text,
                              kMostSlotsPerHost));
  }
  return static_cast<std::uint32_t>(*v);
}

// "slots = 4 max_slots=8": the KEY=VALUE words after an Open MPI hostfile's host name, spaces
// around '=' allowed as Open MPI's lexer allows them.
std::vector<std::pair<std::string, std::string>> hostfile_keys(std::string_view text, const io::LineCursor& cur) {
  std::string joined;  // the words, spaces around '=' dropped
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] != ' ' && text[i] != '\t') {
      joined += text[i++];
      continue;
    }
    const auto next = text.find_first_not_of(" \t", i);
    if (next == std::string_view::npos) break;
    const bool around_equals = text[next] == '=' || (!joined.empty() && joined.back() == '=');
    if (!around_equals && !joined.empty()) joined += ' ';
    i = next;
  }
  std::vector<std::pair<std::string, std::string>> keys;
  for (std::string_view word : io::split_fields(joined)) {
    const auto eq = word.find('=');
    if (eq == std::string_view::npos || eq == 0) cur.fail_here(fmt::format("expected KEY=VALUE after the host, found '{}'", word));
    keys.emplace_back(word.substr(0, eq), word.substr(eq + 1));
  }
  return keys;
}

Allocation read_host_file(const std::string& path, const std::string& source, bool per_slot) {
  io::LineCursor cur(path, io::read_text_file(path));
  AllocationBuilder b(source);
  std::size_t unknown = 0;
  std::string first_unknown;
  while (auto raw = cur.next_content_line("#")) {
    const std::string_view line = raw->substr(0, raw->find('#'));
    const auto start = line.find_first_not_of(" \t");
    const auto end = line.find_first_of(" \t", start);
    std::string_view host = line.substr(start, end - start);
    std::optional<std::uint32_t> count, max_slots;
    if (const auto colon = host.find(':'); colon != std::string_view::npos) {  // Hydra "host:4"
      count = parse_count(cur, "", host.substr(colon + 1));
      host = host.substr(0, colon);
    }
    if (host.empty()) cur.fail_here("a line with no host name");
    for (const auto& [key, value] : hostfile_keys(end == std::string_view::npos ? "" : line.substr(end), cur)) {
      if (key == "slots" || key == "cpu" || key == "count") {  // Open MPI's synonyms
        if (count) cur.fail_here(fmt::format("'{}=' gives this host a second slot count", key));
        count = parse_count(cur, key, value);
      } else if (key == "max_slots" || key == "max-slots") {
        max_slots = parse_count(cur, key, value);
      } else if (unknown++ == 0) {
        first_unknown = fmt::format("{}:{}: '{}='", path, cur.line_number(), key);
      }
    }
    if (count && max_slots && *count > *max_slots) {
      cur.fail_here(fmt::format("{} slots but max_slots={}", *count, *max_slots));
    }
    b.add(host, count ? count : max_slots, fmt::format("{}:{}", path, cur.line_number()));
  }
  if (unknown > 0) b.warn(fmt::format("{} hostfile keys not known here ignored, first {}", unknown, first_unknown));
  return b.take(per_slot);
}

}  // namespace

Allocation parse_nodes_argument(std::string_view text) {
  if (auto path = io::at_file_argument(text)) return read_host_file(*path, fmt::format("--nodes @{}", *path), false);
  AllocationBuilder b("--nodes");
  for (const std::string& host : io::expand_hostlist(text, "--nodes", detail::kMaxRouters, 0, kMostHostsWhy)) {
    b.add(host, std::nullopt);
  }
  return b.take(false);
}

std::optional<Allocation> allocation_from_environment() {
  if (const char* list = std::getenv("SLURM_JOB_NODELIST"); list != nullptr && *list != '\0') {
    Allocation a;
    a.source = "$SLURM_JOB_NODELIST";
    a.hosts = io::expand_hostlist(list, "$SLURM_JOB_NODELIST", detail::kMaxRouters, 0, kMostHostsWhy);
    const char* counts_name = "SLURM_TASKS_PER_NODE";
    const char* counts = std::getenv(counts_name);
    if (counts == nullptr || *counts == '\0') counts_name = "SLURM_JOB_CPUS_PER_NODE", counts = std::getenv(counts_name);
    if (counts != nullptr && *counts != '\0') {
      a.slots = io::expand_slurm_counts(counts, fmt::format("${}", counts_name));
      for (std::uint32_t count : a.slots) {
        if (count > kMostSlotsPerHost) {
          fail("${}: {} slots for one node is more than taskmap supports ({})", counts_name, count, kMostSlotsPerHost);
        }
      }
      if (a.slots.size() != a.hosts.size()) {
        fail("${} gives counts for {} nodes but $SLURM_JOB_NODELIST names {}", counts_name, a.slots.size(), a.hosts.size());
      }
      // 0 stands for "the whole node" inside an Allocation: a count of 0 from Slurm is not one.
      if (const auto zero = std::find(a.slots.begin(), a.slots.end(), 0u); zero != a.slots.end()) {
        fail("${} '{}' gives host '{}' 0 slots", counts_name, counts, a.hosts[static_cast<std::size_t>(zero - a.slots.begin())]);
      }
      a.source += fmt::format(" with ${}", counts_name);
    } else {
      a.slots.assign(a.hosts.size(), 0);
    }
    return a;
  }
  if (const char* file = std::getenv("PBS_NODEFILE"); file != nullptr && *file != '\0') {
    std::error_code error;
    if (!std::filesystem::exists(file, error)) fail("$PBS_NODEFILE names '{}', which does not exist", file);
    if (std::filesystem::is_directory(file, error)) fail("$PBS_NODEFILE names '{}', which is a directory", file);
    return read_host_file(file, fmt::format("$PBS_NODEFILE ({})", file), true);  // a host once per slot
  }
  return std::nullopt;
}

Machine allocate(const Machine& machine, const Allocation& allocation, const WarningSink& warn, bool slots_fixed) {
  if (!machine.named_nodes()) {
    fail("{}: machine '{}' has no host names; an allocation needs a machine read from the cluster's files "
         "(slurm:, ibnet:, aries:)",
         allocation.source, machine.description);
  }
  std::unordered_map<std::string_view, NodeId> node_of_name;
  for (NodeId n = 0; n < machine.num_nodes(); ++n) node_of_name.emplace(machine.node_name(n), n);
  std::vector<std::uint32_t> slots(machine.num_nodes(), 0);
  const std::uint32_t full = machine.node_model ? machine.node_model->num_slots() : 0;
  std::size_t qualified = 0;  // hosts found by the name before their first '.'
  std::string first_qualified;
  // Per node, the slots asked so far (0: the whole node): a host given once by its full name
  // and once by its short one (a PBS node file may mix them) gets the sum of their counts; a
  // listing without a count beside one with a count adds nothing, as for one name
  // (AllocationBuilder).
  std::vector<std::uint32_t> asked(machine.num_nodes(), 0);
  for (std::size_t i = 0; i < allocation.hosts.size(); ++i) {
    const std::string& host = allocation.hosts[i];
    // Where the host was given: its host file's line, else the allocation's source.
    const std::string& place = i < allocation.lines.size() && !allocation.lines[i].empty() ? allocation.lines[i] : allocation.source;
    auto it = node_of_name.find(host);
    // A PBS node file (or a user) may give fully qualified names where the fabric has short ones.
    if (const std::size_t dot = host.find('.'); it == node_of_name.end() && dot != std::string::npos && dot > 0) {
      it = node_of_name.find(std::string_view(host).substr(0, dot));
      if (it != node_of_name.end() && qualified++ == 0) first_qualified = host;
    }
    if (it == node_of_name.end()) {
      std::vector<std::string_view> names;
      for (NodeId n = 0; n < machine.num_nodes(); ++n) names.push_back(machine.node_name(n));
      fail("{}: host '{}' is not in machine '{}' (closest: {})", place, host, machine.description,
           fmt::join(closest_names(host, names, 3), ", "));
    }
    const NodeId n = it->second;
    const std::uint32_t given = allocation.slots.empty() ? 0 : allocation.slots[i];
    asked[n] = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{asked[n]} + given, UINT32_MAX));
    const std::uint32_t own = machine.slots_of_node(n);
    const std::uint32_t want = asked[n] == 0 ? own : asked[n];
    if (full > 0 && want > full) {
      std::size_t pus = 0;
      for (const auto& cpus : machine.node_model->os_cpus) pus += cpus.size();
      // Slurm counts hardware threads as CPUs: say how to have them as slots, when they are enough.
      const std::string threads =
          pus > full && want <= pus ? fmt::format(" (slots=pu in the machine makes its {} hardware threads the slots)", pus) : "";
      fail("{}: host '{}' is given {} slots but the node topology {} has {}{}", place, host, want,
           machine.node_model->source, full, threads);
    }
    if (full == 0 && slots_fixed && want > own) {
      fail("{}: host '{}' is given {} slots but machine '{}' has {} per node (ppn={}); give no ppn= to take the "
           "allocation's counts",
           place, host, want, machine.description, own, own);
    }
    slots[n] = want;
  }
  if (qualified > 0 && warn) {
    warn(fmt::format("{}: {} found by the name before the first '.', e.g. '{}' as '{}'", allocation.source,
                     qualified == 1 ? std::string("1 host") : fmt::format("{} hosts", qualified), first_qualified,
                     first_qualified.substr(0, first_qualified.find('.'))));
  }
  std::uint64_t total = 0;
  for (std::uint32_t s : slots) total += s;
  if (total > detail::kMaxSlots) {
    fail("{}: {} slots is more than taskmap supports ({})", allocation.source, total, detail::kMaxSlots);
  }
  NodeTable table = machine.node_table();
  for (NodeId n = 0; n < machine.num_nodes(); ++n) table.first_slot[n + 1] = table.first_slot[n] + slots[n];
  Machine out = machine;
  out.set_nodes(std::move(table));
  return out;
}

Machine with_node_model(Machine machine, std::shared_ptr<const NodeModel> model) {
  const std::uint32_t per_node = model->num_slots();
  if (machine.uniform()) {
    machine.slots_per_node = per_node;
  } else {
    NodeTable table = machine.node_table();
    for (NodeId n = 0; n < machine.num_nodes(); ++n) table.first_slot[n + 1] = table.first_slot[n] + per_node;
    machine.slots_per_node = per_node;
    machine.set_nodes(std::move(table));
  }
  machine.node_model = std::move(model);
  return machine;
}

}  // namespace taskmap
