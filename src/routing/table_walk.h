#pragma once
// One step of a packet through forwarding tables, and what following them from every switch
// to one LID finds: shared by the table routing and check_forwarding_tables.
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "taskmap/routing/forwarding_tables.h"

namespace taskmap::detail {

enum class StepKind : std::uint8_t {
  Switch,    // on to the switch at the far end of `port`
  Arrived,   // the LID's own port is reached (through `port`, or the switch itself: port 0)
  Missing,   // the switch has no entry for the LID
  DeadPort,  // the entry names a port with no cable
  WrongEnd,  // the entry leads to a CA, router or switch port that does not hold the LID
};

struct Step {
  StepKind kind = StepKind::Missing;
  std::uint8_t port = 0;            // the port left through
  std::uint32_t next = ib::kNoNode;  // the node reached
};

inline Step step(const ib::Subnet& subnet, const ForwardingTables& tables, std::uint32_t node, std::uint32_t lid) {
  const ib::Node& n = subnet.nodes[node];
  const auto owner = subnet.port_of_lid(lid);
  const std::uint8_t port = tables.at(node, lid);
  if (port == 0 && owner && owner->node == node && owner->port == 0) return {StepKind::Arrived, 0, node};
  if (port == ib::kNoPort) return {StepKind::Missing, port, ib::kNoNode};
  if (port == 0) return {StepKind::WrongEnd, 0, node};
  if (port > n.num_ports() || n.ports[port].peer_node == ib::kNoNode) return {StepKind::DeadPort, port, ib::kNoNode};
  const ib::Port& p = n.ports[port];
  if (subnet.nodes[p.peer_node].is_switch()) return {StepKind::Switch, port, p.peer_node};
  if (owner && owner->node == p.peer_node && owner->port == p.peer_port) return {StepKind::Arrived, port, p.peer_node};
  return {StepKind::WrongEnd, port, p.peer_node};
}

inline std::string describe_step(const ib::Subnet& subnet, std::uint32_t node, std::uint32_t lid, const Step& s) {
  const ib::Node& n = subnet.nodes[node];
  const std::string where = fmt::format("switch 0x{:016x} '{}', LID {}", n.guid, n.description, lid);
  switch (s.kind) {
    case StepKind::Missing: return where + ": no entry";
    case StepKind::DeadPort: return fmt::format("{}: port {} has no cable", where, s.port);
    case StepKind::WrongEnd: {
      const ib::Node& end = subnet.nodes[s.next];
      return fmt::format("{}: port {} leads to '{}', which does not hold the LID", where, s.port, end.description);
    }
    default: return where;
  }
}

// Resolves, for one LID, where the tables lead from every switch, each switch once.
class TableWalker final {
 public:
  TableWalker(const ib::Subnet& subnet, const ForwardingTables& tables)
      : subnet_(subnet), tables_(tables), state_(subnet.nodes.size()) {}

  void resolve_all(std::uint32_t lid, TableDefects& defects) {
    std::fill(state_.begin(), state_.end(), kUnknown);
    std::vector<std::uint32_t> path;
    for (std::uint32_t s = 0; s < subnet_.nodes.size(); ++s) {
      if (!subnet_.nodes[s].is_switch() || state_[s] != kUnknown) continue;
      path.clear();
      std::uint32_t node = s;
      std::uint8_t result = kOk;
      std::string first;
      while (true) {
        if (state_[node] == kOnPath) {
          result = kLoop;
          first = fmt::format("LID {}: switch 0x{:016x} '{}' is met twice", lid, subnet_.nodes[node].guid,
                              subnet_.nodes[node].description);
          break;
        }
        if (state_[node] != kUnknown) {
          result = state_[node];
          break;
        }
        state_[node] = kOnPath;
        path.push_back(node);
        const Step st = step(subnet_, tables_, node, lid);
        if (st.kind == StepKind::Switch) {
          node = st.next;
          continue;
        }
        result = st.kind == StepKind::Arrived    ? kOk
                 : st.kind == StepKind::Missing  ? kMissing
                 : st.kind == StepKind::DeadPort ? kDeadPort
                                                 : kWrongEnd;
        if (result != kOk) first = describe_step(subnet_, node, lid, st);
        break;
      }
      for (std::uint32_t p : path) state_[p] = result;
      if (result == kOk) continue;
      TableDefects::Cause& cause = result == kLoop      ? defects.loop
                                   : result == kMissing  ? defects.missing
                                   : result == kDeadPort ? defects.dead_port
                                                         : defects.wrong_end;
      if (cause.count == 0) cause.first = first;
      cause.count += path.size();
    }
  }

 private:
  static constexpr std::uint8_t kUnknown = 0, kOnPath = 1, kOk = 2, kMissing = 3, kDeadPort = 4, kLoop = 5,
                                kWrongEnd = 6;
  const ib::Subnet& subnet_;
  const ForwardingTables& tables_;
  std::vector<std::uint8_t> state_;
};

}  // namespace taskmap::detail
