#pragma once
// OpenSM's unicast routing engines, computed as OpenSM 3.3 computes them on a fresh subnet
// (its first sweep: no table kept from before), so that a user without access to the switches
// gets the forwarding tables their subnet manager would install. Port choices, tie-breaks and
// orders follow OpenSM's (docs/routings.md, "OpenSM's engines"): destinations in its order, the
// least-used port among the minimal ones, GUIDs ordered as OpenSM's maps order them. LIDs are
// the subnet's (the file's), as OpenSM keeps the LIDs ports already hold.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "taskmap/routing/forwarding_tables.h"
#include "taskmap/topology/infiniband.h"

namespace taskmap {

enum class OpenSmEngine : std::uint8_t { MinHop, UpDn, DnUp, Dfsssp, FatTree };

struct OpenSmOptions {
  OpenSmEngine engine = OpenSmEngine::MinHop;
  // updn and ftree: the root switches' GUIDs (OpenSM's root_guid_file, -a); empty: the engine's
  // own choice.
  std::vector<std::uint64_t> roots;
  // OpenSM's -l: every CA port gets 2^lmc LIDs.
  std::uint8_t lmc = 0;
  // The subnet manager's own port (a port GUID, or a node GUID: a CA's first cabled port, a
  // switch's port 0), whose LIDs OpenSM assigns first; 0: opensm_sm_port's default.
  std::uint64_t sm_guid = 0;
};

// The engine's name as OpenSM's -R takes it.
std::string_view opensm_engine_name(OpenSmEngine engine);

// The subnet with the LIDs a subnet manager started with `lmc` gives: every end port 2^lmc
// LIDs, a switch one; a port keeps the file's LID where it is aligned to 2^lmc and free (in
// OpenSM's order of port GUIDs, after the subnet manager's own port `sm_port`, which OpenSM
// takes first), the others, in the same order, the first run of LIDs no port could keep that
// holds their range once its start is aligned, as OpenSM keeps the LIDs ports hold. (With lmc
// 0 every file LID is kept.)
ib::Subnet opensm_lids(const ib::Subnet& subnet, std::uint8_t lmc, std::optional<ib::PortRef> sm_port = std::nullopt);

// The subnet manager's port: the cabled port with GUID `guid`, or the node with that GUID (a
// CA's first cabled port, a switch's port 0); with guid 0, on the CA that ran ibnetdiscover
// (Subnet::discovering_port) its port 1 if cabled, else its first cabled port; else port 1 of
// the CA of the lowest GUID whose port 1 is cabled, else port 0 of the switch of the lowest
// GUID (where scripts/opensm_routes.sh attaches OpenSM under ibsim). Fails when nothing
// cabled has `guid`.
std::optional<ib::PortRef> opensm_sm_port(const ib::Subnet& subnet, std::uint64_t guid);

// The tables the engine installs, for the LIDs of opensm_lids(subnet, options.lmc,
// opensm_sm_port(subnet, options.sm_guid)) (their
// `subnet`). Where OpenSM's engine gives up (updn without a root, ftree on a
// fabric that is not a fat tree, dfsssp on a disconnected fabric), OpenSM falls back to minhop
// silently; taskmap refuses instead, with OpenSM's reason: an Error "ENGINE: reason".
ForwardingTables compute_opensm_tables(const ib::Subnet& subnet, const OpenSmOptions& options);

// Reads root GUIDs from a file as OpenSM's root_guid_file: one GUID per line (0x..., S-... as
// ibnetdiscover names switches, H-..., or bare hex digits), '#' comments.
std::vector<std::uint64_t> read_root_guids(const std::string& path);

}  // namespace taskmap
