#pragma once
// Scotch target architecture files as machines (`--machine tgt:FILE`), and Scotch's numbering
// of a machine's terminals, which Scotch mapping files name (docs/scotch.md).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "taskmap/topology/machine.h"

namespace taskmap {

// Reads a target as scotch_gmap does: cmplt, cmpltw, hcub, mesh2D, mesh3D, meshXD, torus2D,
// torus3D, torusXD, tleaf, and deco of types 0 and 1 whose distances are a graph's hop counts.
// Each terminal becomes a router holding one node of slots_per_terminal slots (times its weight
// on cmpltw and deco), and the routers are numbered so that terminal t is the t-th router with
// slots: meshes and tori as taskmap's mesh: and torus: with the dimensions reversed (Scotch's
// first dimension varies fastest, taskmap's A slowest), hcub as hypercube:, tleaf and cmplt as
// hier: machines, deco as a graph of the terminals at distance 1 (routers in label order; the
// labels go to Machine::scotch_terminals when they are not 0, 1, ...). Errors name FILE:LINE.
Machine read_scotch_target(const std::string& path, std::uint32_t slots_per_terminal = 1);

// Scotch's numbering of a machine's terminals, the routers with slots: 0, 1, ... in router
// order, or Machine::scotch_terminals.
class ScotchTerminals {
 public:
  explicit ScotchTerminals(const Machine& machine);
  std::size_t size() const { return routers_.size(); }
  // The router of terminal number `terminal`, or nullopt when no terminal has that number.
  std::optional<RouterId> router(std::int64_t terminal) const;
  // The terminal number of a router with slots.
  std::uint32_t number(RouterId router) const { return number_of_router_[router]; }
  // The numbers in router order.
  const std::vector<std::uint32_t>& numbers() const { return numbers_; }

 private:
  std::vector<RouterId> routers_;                // per terminal, in router order
  std::vector<std::uint32_t> numbers_;           // per terminal, in router order
  std::vector<std::uint32_t> number_of_router_;  // per router; UINT32_MAX without slots
  bool identity_ = true;                         // numbers_[i] == i
};

// A hier machine as a Scotch tleaf target: the levels top down, each with its size and the cost
// of the link to its parent. Scotch's distance of two leaves is the sum of the link costs on the
// way up from either to their lowest common ancestor, so a level of distance d above one of
// distance d' gets the cost d - d'. Levels of one slot are left out, and levels of equal distance
// merged (their groups multiply), as Scotch needs sizes of 2 or more and costs of 1 or more.
struct TleafLevels {
  std::vector<std::uint32_t> sizes;
  std::vector<std::uint32_t> costs;
  std::string text() const;  // "tleaf 3 4 90 16 9 4 1"
};
TleafLevels tleaf_levels(const HierShape& hier);

}  // namespace taskmap
