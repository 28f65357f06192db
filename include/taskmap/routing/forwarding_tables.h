#pragma once
// Linear forwarding tables (LFTs): per switch of an InfiniBand subnet, the port through which
// it forwards each destination LID, as a subnet manager installs them. They come from a site's
// dumps (read_forwarding_tables: `ibroute`, `dump_lfts`, `dump_fts`, OpenSM's opensm-lfts.dump)
// or from taskmap's implementations of OpenSM's routing engines (opensm_engines.h); the `lft:`
// and `opensm:` routings follow them (make_table_routing).
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "taskmap/routing/routing.h"
#include "taskmap/topology/fabric.h"
#include "taskmap/topology/infiniband.h"

namespace taskmap {

struct ForwardingTables {
  // Per subnet node: for a switch, the output port of each LID (index), ib::kNoPort where the
  // table has no entry; empty for other nodes and for switches without a table.
  std::vector<std::vector<std::uint8_t>> port;
  // Per subnet node: where its table was read ("FILE:LINE"), or "" (computed, or none).
  std::vector<std::string> origin;
  // The subnet whose LIDs the tables route, when it is not the machine's: an OpenSM engine's
  // tables are for the LIDs OpenSM would assign (opensm_lids), which an LMC changes.
  std::shared_ptr<const ib::Subnet> subnet;

  std::uint8_t at(std::uint32_t node, std::uint32_t lid) const {
    const auto& table = port[node];
    return lid < table.size() ? table[lid] : ib::kNoPort;
  }
  bool has_table(std::uint32_t node) const { return !port[node].empty(); }
};

// Reads the tables of the switches of `subnet` from `path`: a file holding one or many
// switches' tables, a folder of such files, or a tar archive of them (as the dumps of
// `ibroute`, `dump_lfts.sh` and `dump_fts` give them, or OpenSM's opensm-lfts.dump). Switches
// are matched by GUID. Refuses with "FILE:LINE: problem" a table cut short, a switch GUID the
// subnet lacks, a LID beyond the unicast range, a port the switch does not have, a switch or
// LID given twice. `warn` receives one line per kind of oddity accepted (a table that ends
// with ibroute's error line, switches with no table).
ForwardingTables read_forwarding_tables(const std::string& path, const ib::Subnet& subnet, const WarningSink& warn);

// Writes the tables as `ibroute` prints them, switches in GUID order: what
// read_forwarding_tables reads back, and what a site compares with its own dump.
void write_forwarding_tables(std::ostream& out, const ib::Subnet& subnet, const ForwardingTables& tables);

// The tables of an lft: routing (read; their defects reported through `warn`, one line per
// cause) or of an opensm: routing (computed). Throws Error for the other routings.
std::shared_ptr<const ForwardingTables> forwarding_tables_for(const Machine& machine, const RoutingSpec& spec,
                                                             const std::function<void(const std::string&)>& warn);

// What following the tables from every switch to every LID of an end port finds wrong, one
// count per cause and the first case of each: a missing entry, a port with no cable, a loop,
// a CA reached that does not hold the LID.
struct TableDefects {
  struct Cause {
    std::uint64_t count = 0;
    std::string first;
  };
  Cause missing, dead_port, loop, wrong_end;
  bool any() const { return missing.count + dead_port.count + loop.count + wrong_end.count > 0; }
};
TableDefects check_forwarding_tables(const ib::Subnet& subnet, const ForwardingTables& tables);

// What a table routing does with a route the tables cannot give (no entry, a port with no
// cable, a loop): refuse it, an Error naming the two hosts, the switch and the LID (the
// default), or, with `skip`, leave that path without traffic and say once, through `warn`
// when the routing ends, how many host pairs were left so.
struct TableGaps {
  bool skip = false;
  std::function<void(const std::string&)> warn;
};

// The routing that follows `tables` on a machine built from an InfiniBand fabric
// (FabricShape::subnet). A host's traffic leaves evenly through its ports; port k of the
// source sends to the destination's port k mod (its port count), evenly over that port's LIDs
// (LMC > 0): the spread MPI libraries make over rails and LIDs. `source` names the tables in
// messages ("lft:FILE", "opensm:minhop").
std::unique_ptr<Routing> make_table_routing(const Machine& machine, std::shared_ptr<const ForwardingTables> tables,
                                            std::string source, TableGaps gaps = {});

}  // namespace taskmap
