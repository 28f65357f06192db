// Placement files read back (`eval --mapping FILE [--mapping-format F]`): taskmap's plain
// file, Scotch's mapping files, METIS partition files and Open MPI rankfiles, each format's
// reader beside its writer in placement.cpp; without a format, the content tells which.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "taskmap/core/error.h"
#include "taskmap/core/text_source.h"
#include "taskmap/launch/placement.h"
#include "taskmap/launch/placement_catalog.h"
#include "taskmap/topology/node_model.h"
#include "taskmap/topology/scotch_target.h"

namespace taskmap {
namespace {

constexpr SlotId kUnset = UINT32_MAX;

// The tasks on each slot, against the balance, as lines of one file place them.
class SlotFill {
 public:
  SlotFill(const Machine& machine, std::size_t num_tasks, std::uint32_t per_slot)
      : per_slot_(per_slot), count_(machine.num_slots(), 0), owner_(machine.num_slots(), 0),
        owner_line_(machine.num_slots(), 0), task_line_(num_tasks, 0) {
    mapping.slot_of_task.assign(num_tasks, kUnset);
  }
  // Places task t on slot s, as line `line` says; fails there when t is placed already or s is full.
  void place(io::LineCursor& cur, TaskId t, SlotId s) {
    if (mapping.slot_of_task[t] != kUnset) {
      cur.fail_here(fmt::format("task {} is already placed (line {})", t, task_line_[t]));
    }
    if (count_[s] >= per_slot_) {
      const std::string slot = name_of_slot ? name_of_slot(s) : fmt::format("slot {}", s);
      if (per_slot_ == 1) {
        cur.fail_here(fmt::format("{} is already taken by task {} (line {})", slot, owner_[s], owner_line_[s]));
      }
      cur.fail_here(fmt::format("{} already holds the {} tasks the balance allows", slot, per_slot_));
    }
    ++count_[s];
    mapping.slot_of_task[t] = s;
    task_line_[t] = owner_line_[s] = cur.line_number();
    owner_[s] = t;
  }
  // Fails naming the first task without a slot.
  Mapping finish(const std::string& path) {
    for (std::size_t t = 0; t < mapping.slot_of_task.size(); ++t) {
      if (mapping.slot_of_task[t] == kUnset) {
        fail("{}: task {} has no slot (the pattern has {} tasks)", path, t, mapping.slot_of_task.size());
      }
    }
    return std::move(mapping);
  }
  Mapping mapping;
  std::function<std::string(SlotId)> name_of_slot;  // for messages, as the file names it; else "slot N"

 private:
  std::uint32_t per_slot_;
  std::vector<std::uint32_t> count_;
  std::vector<TaskId> owner_;
  std::vector<std::size_t> owner_line_, task_line_;
};

std::int64_t int_of(io::LineCursor& cur, std::string_view field, std::string_view what) {
  const auto v = io::parse_int(field);
  if (!v) cur.fail_here(fmt::format("{} '{}' is not an integer", what, io::printable(field)));
  return *v;
}

// A METIS partition file: line i holds the part of task i; part p is slot p.
Mapping read_metis_part(const std::string& path, const Machine& machine, std::size_t num_tasks,
                        std::uint32_t per_slot) {
  io::LineCursor cur(path, io::read_text_file(path));
  SlotFill fill(machine, num_tasks, per_slot);
  std::size_t task = 0;
  while (auto line = cur.next_content_line("")) {
    const auto f = io::split_fields(*line);
    if (f.size() != 1) cur.fail_here(fmt::format("expected one part number, found {} fields", f.size()));
    if (task == num_tasks) {
      cur.fail_here(fmt::format("more lines than the pattern's {} tasks (one part per task)", num_tasks));
    }
    const std::int64_t part = int_of(cur, f[0], "part");
    if (part < 0 || part >= machine.num_slots()) {
      cur.fail_here(fmt::format("part {} is out of range [0, {}) (part p is slot p)", part, machine.num_slots()));
    }
    fill.place(cur, static_cast<TaskId>(task++), static_cast<SlotId>(part));
  }
  if (task < num_tasks) fail("{}: {} lines but the pattern has {} tasks (one part per task)", path, task, num_tasks);
  return fill.finish(path);
}

// Scotch's mapping file: the vertex count, then "vertex terminal" pairs (whitespace-separated
// tokens, as Scotch reads them). Vertices are numbered from 0 or 1, the lowest one tells.
Mapping read_scotch_mapping(const std::string& path, const Machine& machine, std::size_t num_tasks,
                            std::uint32_t per_slot, std::string* note) {
  io::TokenCursor in(path, io::read_text_file(path));
  const std::int64_t n = in.next_int("vertex count", 0, INT32_MAX);
  if (static_cast<std::uint64_t>(n) != num_tasks) {
    in.fail_here(fmt::format("the mapping has {} vertices but the pattern has {} tasks", n, num_tasks));
  }
  if (2 * num_tasks > in.tokens_left_at_most()) {
    in.fail_here(fmt::format("{} 'vertex terminal' pairs announced, but the file is too short to hold them", n));
  }
  const ScotchTerminals terminals(machine);
  struct Pair {
    std::int64_t vertex;
    RouterId router;
    std::size_t line;
  };
  std::vector<Pair> pairs;
  pairs.reserve(num_tasks);
  for (std::size_t i = 0; i < num_tasks; ++i) {
    const std::int64_t vertex = in.next_int("vertex", 0, INT32_MAX);
    const std::int64_t terminal = in.next_int("terminal", 0, INT32_MAX);
    const auto router = terminals.router(terminal);
    if (!router) {
      in.fail_here(fmt::format("terminal {} is not one of the {} terminals of '{}' (docs/scotch.md: how taskmap "
                               "numbers a machine's terminals)",
                               terminal, terminals.size(), machine.description));
    }
    pairs.push_back({vertex, *router, in.line_number()});
  }
  if (auto extra = in.next()) {
    in.fail_here(fmt::format("'{}' after the {} pairs the count announces", io::printable(*extra), n));
  }
  const auto lowest =
      std::min_element(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) { return a.vertex < b.vertex; });
  const std::int64_t base = lowest == pairs.end() ? 0 : lowest->vertex;
  if (base > 1) fail("{}:{}: the lowest vertex is {}; vertices are numbered from 0 or 1", path, lowest->line, base);
  std::vector<const Pair*> of_task(num_tasks, nullptr);
  for (const Pair& p : pairs) {
    const std::int64_t t = p.vertex - base;
    if (t >= static_cast<std::int64_t>(num_tasks)) {
      fail("{}:{}: vertex {} is out of range [{}, {})", path, p.line, p.vertex, base, base + n);
    }
    if (of_task[t]) fail("{}:{}: vertex {} is mapped twice (line {})", path, p.line, p.vertex, of_task[t]->line);
    of_task[t] = &p;
  }
  if (base == 1 && note) *note = fmt::format("Scotch vertices numbered from 1, read as tasks 0 to {}", n - 1);
  // A terminal's tasks, in task order, fill its slots in turn.
  Mapping m;
  m.slot_of_task.resize(num_tasks);
  std::vector<std::uint32_t> placed(machine.num_routers, 0);
  for (std::size_t t = 0; t < num_tasks; ++t) {
    const RouterId r = of_task[t]->router;
    const std::uint32_t slots = machine.slots_of_router(r);
    if (placed[r] == std::uint64_t{slots} * per_slot) {
      fail("{}:{}: terminal {} gets more than {} tasks ({} slots, {} per slot under the balance)", path,
           of_task[t]->line, terminals.number(r), placed[r], slots, per_slot);
    }
    m.slot_of_task[t] = machine.first_slot_of_router(r) + placed[r]++ % slots;
  }
  return m;
}

// "rank R=HOST slot=CORE" lines, '#' comments.
Mapping read_rankfile(const std::string& path, const Machine& machine, std::size_t num_tasks, std::uint32_t per_slot,
                      const HostNames& hosts) {
  std::unordered_map<std::string, NodeId> node_of_host;
  std::vector<NodeId> job_nodes;  // +nK: the nodes with slots, in node order
  for (NodeId n = 0; n < machine.num_nodes(); ++n) {
    if (hosts.names(machine, n)) node_of_host.emplace(hosts.host_of(machine, n), n);
    if (machine.slots_of_node(n) > 0) job_nodes.push_back(n);
  }
  // The slot of each hwloc logical index (of a core, or of a PU under slots=pu) in a node of the
  // node model.
  std::unordered_map<std::uint32_t, std::uint32_t> slot_of_index;
  const bool pus = machine.node_model && machine.node_model->unit == SlotUnit::Pu;
  if (machine.node_model) {
    const auto& indexes = machine.node_model->logical_index;
    for (std::uint32_t k = 0; k < indexes.size(); ++k) slot_of_index.emplace(indexes[k], k);
  }
  io::LineCursor cur(path, io::read_text_file(path));
  SlotFill fill(machine, num_tasks, per_slot);
  fill.name_of_slot = [&](SlotId s) {
    const NodeId n = machine.node_of_slot(s);
    const std::string host = hosts.names(machine, n) ? hosts.host_of(machine, n) : fmt::format("+n{}", n);
    const std::uint32_t k = machine.slot_in_node(s);  // the rankfile's slot=: hwloc's logical index
    return fmt::format("{} slot={}", host, machine.node_model ? machine.node_model->logical_index[k] : k);
  };
  while (auto line = cur.next_content_line("#")) {
    const auto f = io::split_fields(*line);
    const std::size_t eq = f.size() == 3 ? f[1].find('=') : std::string_view::npos;
    if (f.size() != 3 || f[0] != "rank" || eq == std::string_view::npos || !f[2].starts_with("slot=")) {
      cur.fail_here("expected 'rank R=HOST slot=CORE'");
    }
    const std::int64_t rank = int_of(cur, f[1].substr(0, eq), "rank");
    if (rank < 0 || static_cast<std::uint64_t>(rank) >= num_tasks) {
      cur.fail_here(fmt::format("rank {} is out of range [0, {})", rank, num_tasks));
    }
    const std::string host(f[1].substr(eq + 1));
    NodeId node = 0;
    if (host.starts_with("+n")) {
      const auto k = io::parse_int(std::string_view(host).substr(2));
      if (!k || *k < 0 || static_cast<std::uint64_t>(*k) >= job_nodes.size()) {
        cur.fail_here(fmt::format("'{}' names none of the job's {} nodes (+n0 to +n{})", io::printable(host),
                                  job_nodes.size(), job_nodes.size() - 1));
      }
      node = job_nodes[static_cast<std::size_t>(*k)];
    } else if (auto it = node_of_host.find(host); it != node_of_host.end()) {
      node = it->second;
    } else {
      cur.fail_here(fmt::format("host '{}' is not a node of '{}'{}", io::printable(host), machine.description,
                                machine.named_nodes() ? "" : " (nodes are named by --host-prefix or --hosts)"));
    }
    const std::string_view core_text = f[2].substr(5);
    const auto core = io::parse_int(core_text);
    if (!core) {
      cur.fail_here(fmt::format("slot={}: taskmap reads one core's logical index (slot=N), not a socket:core pair, "
                                "a range or a list", io::printable(core_text)));
    }
    if (machine.slots_of_node(node) == 0) {
      cur.fail_here(fmt::format("host {} is not one of the job's nodes (it has no slot in this run's allocation)",
                                io::printable(host)));
    }
    std::int64_t k = *core;
    if (machine.node_model) {
      auto it = *core >= 0 ? slot_of_index.find(static_cast<std::uint32_t>(*core)) : slot_of_index.end();
      k = it == slot_of_index.end() ? -1 : it->second;
    }
    if (k < 0 || k >= machine.slots_of_node(node)) {
      cur.fail_here(fmt::format("slot={} is not a {} of host {}'s {} slots", *core, pus ? "hardware thread" : "core",
                                host, machine.slots_of_node(node)));
    }
    fill.place(cur, static_cast<TaskId>(rank), machine.first_slot_of_node(node) + static_cast<SlotId>(k));
  }
  return fill.finish(path);
}

// ---- Guessing the format from the content --------------------------------------------------------

struct LineShape {
  std::size_t line;
  std::size_t numbers;  // fields, when all are integers; else 0 with other = true
  std::int64_t first = 0;  // the first field's value, when numbers > 0
  bool other = false;
  bool comment = false;
  bool rank = false;
};

std::string read_names() {
  std::string names;
  for (const CatalogEntry& e : placement_format_catalog().entries()) {
    if (placement_format_reads(static_cast<PlacementFormat>(e.tag))) {
      names += fmt::format("{}{}", names.empty() ? "" : "|", e.name);
    }
  }
  return names;
}

PlacementFormat guess_format(const std::string& path) {
  io::LineCursor cur(path, io::read_text_file(path));
  std::vector<LineShape> lines;
  while (auto line = cur.next_content_line("")) {
    LineShape shape{cur.line_number(), 0};
    const auto f = io::split_fields(*line);
    shape.comment = f[0].starts_with("#");
    shape.rank = f[0] == "rank";
    for (std::string_view field : f) shape.other = shape.other || !io::parse_int(field);
    shape.numbers = shape.other ? 0 : f.size();
    if (!shape.other) shape.first = *io::parse_int(f[0]);
    lines.push_back(shape);
  }
  const std::string give = fmt::format("give --mapping-format {}", read_names());
  if (lines.empty()) fail("{}: empty: no mapping to read", path);
  std::vector<const LineShape*> data;  // without comments
  for (const LineShape& l : lines) {
    if (!l.comment) data.push_back(&l);
  }
  if (data.empty()) fail("{}: only comments: no mapping to read", path);
  const bool comments = data.size() != lines.size();
  auto all = [&](auto&& test) {
    return std::all_of(data.begin(), data.end(), [&](const LineShape* l) { return test(*l); });
  };
  struct Candidate {
    PlacementFormat format;
    std::string why;
  };
  std::vector<Candidate> fits;
  if (all([](const LineShape& l) { return l.numbers == 2; })) fits.push_back({PlacementFormat::Plain, "'task slot' lines"});
  if (all([](const LineShape& l) { return l.rank; })) fits.push_back({PlacementFormat::OpenMpiRankfile, "'rank' lines"});
  const bool pairs_follow =
      std::all_of(data.begin() + 1, data.end(), [](const LineShape* l) { return l->numbers == 2; });
  if (!comments && data.front()->numbers == 1) {
    if (pairs_follow && data.front()->first == static_cast<std::int64_t>(data.size() - 1)) {
      fits.push_back({PlacementFormat::Scotch, "a count line and as many 'vertex terminal' lines"});
    }
    if (all([](const LineShape& l) { return l.numbers == 1; })) {
      fits.push_back({PlacementFormat::MetisPart, "one part number per line"});
    }
  }
  if (fits.size() == 1) return fits.front().format;
  if (fits.size() > 1) {
    fail("{}: the content fits {} ({}) and {} ({}); {}", path, placement_format_name(fits[0].format), fits[0].why,
         placement_format_name(fits[1].format), fits[1].why, give);
  }
  // Why none fits, for the likeliest intent.
  if (data.front()->numbers == 1 && pairs_follow) {
    if (comments) fail("{}: '#' lines, but a Scotch mapping file has no comments; {}", path, give);
    fail("{}: a Scotch mapping's first line counts the 'vertex terminal' lines that follow, but {} follow; {}", path,
         data.size() - 1, give);
  }
  for (const LineShape* l : data) {
    if (l->numbers != 2 && !l->rank) {
      fail("{}:{}: cannot tell the mapping's format: this line is none of 'task slot', a Scotch count or 'vertex "
           "terminal', a METIS part number or 'rank R=HOST slot=CORE'; {}",
           path, l->line, give);
    }
  }
  fail("{}: cannot tell the mapping's format: it mixes 'task slot' lines and 'rank' lines; {}", path, give);
}

}  // namespace

PlacementFormat parse_mapping_format(const std::string& name) {
  const CatalogEntry* entry = placement_format_catalog().find(name);
  if (!entry) fail("--mapping-format '{}': unknown format; taskmap reads {}", name, read_names());
  const auto format = static_cast<PlacementFormat>(entry->tag);
  if (!placement_format_reads(format)) {
    fail("--mapping-format {}: taskmap writes it but does not read it back (it reads {})", name, read_names());
  }
  return format;
}

std::vector<std::pair<std::string, std::size_t>> placement_hosts(const std::string& path,
                                                                 std::optional<PlacementFormat> format) {
  try {
    if ((format ? *format : guess_format(path)) != PlacementFormat::OpenMpiRankfile) return {};
    io::LineCursor cur(path, io::read_text_file(path));
    std::vector<std::pair<std::string, std::size_t>> hosts;
    std::unordered_map<std::string, bool> seen;
    while (auto line = cur.next_content_line("#")) {
      const auto f = io::split_fields(*line);
      const std::size_t eq = f.size() == 3 && f[0] == "rank" ? f[1].find('=') : std::string_view::npos;
      if (eq == std::string_view::npos) return {};
      const std::string host(f[1].substr(eq + 1));
      if (host.empty() || host.starts_with("+n")) return {};
      if (seen.emplace(host, true).second) hosts.emplace_back(host, cur.line_number());
    }
    return hosts;
  } catch (const Error&) {
    return {};
  }
}

Mapping read_placement(const std::string& path, std::optional<PlacementFormat> format, const Machine& machine,
                       std::size_t num_tasks, std::uint32_t per_slot, const HostNames& hosts, std::string* note) {
  if (format && !placement_format_reads(*format)) parse_mapping_format(placement_format_name(*format));
  std::string scotch_note;
  const bool guessed = !format;
  const PlacementFormat f = format ? *format : guess_format(path);
  Mapping m;
  switch (f) {
    case PlacementFormat::Plain: m = read_mapping_file(path, machine, num_tasks, per_slot); break;
    case PlacementFormat::Scotch: m = read_scotch_mapping(path, machine, num_tasks, per_slot, &scotch_note); break;
    case PlacementFormat::MetisPart: m = read_metis_part(path, machine, num_tasks, per_slot); break;
    case PlacementFormat::OpenMpiRankfile: m = read_rankfile(path, machine, num_tasks, per_slot, hosts); break;
    default: break;
  }
  // One line: what was guessed, and how a Scotch file's vertices were numbered.
  if (note) {
    std::vector<std::string> parts;
    if (guessed) {
      parts.push_back(
          fmt::format("read as {} (guessed from its content; --mapping-format says it)", placement_format_name(f)));
    }
    if (!scotch_note.empty()) parts.push_back(scotch_note);
    *note = parts.empty() ? "" : fmt::format("{}: {}", path, fmt::join(parts, "; "));
  }
  return m;
}

}  // namespace taskmap
