#pragma once
// Cray XC naming shared by the Aries readers: blades (one Aries router each) named by their
// cabinet, chassis and slot, node ids (nids), and the xtdb2proc node table.
#include <cstdint>
#include <string>
#include <vector>

namespace taskmap::detail {

// An XC cabinet holds 3 chassis of 16 blades; a blade holds one Aries router and 4 nodes.
inline constexpr std::uint32_t kXcChassisPerCabinet = 3;
inline constexpr std::uint32_t kXcSlotsPerChassis = 16;
inline constexpr std::uint32_t kXcNodesPerBlade = 4;

// Blade c{column}-{row}c{chassis}s{slot}.
struct CrayBlade {
  std::uint32_t column = 0, row = 0, chassis = 0, slot = 0;
};

// "c2-3c0s2", and its Aries router's name, "c2-3c0s2a0".
std::string blade_name(const CrayBlade& blade);
std::string aries_router_name(const CrayBlade& blade);
// "nid05000".
std::string nid_name(std::uint64_t nid);
// Cray numbers XC nodes cabinet by cabinet (row-major over a grid `columns` cabinets wide),
// then chassis, blade and node: nid = (((row * columns + column) * 3 + chassis) * 16 + slot) * 4
// + node. (Checked against NERSC's xtdb2proc: c2-3c0s2n0 is nid 5000, c3-1c2s5n1 nid 2261.)
std::uint64_t cray_nid(const CrayBlade& blade, std::uint32_t node, std::uint32_t columns);

// One record of `xtdb2proc -f FILE` (Cray's service database dump): node `nid` is node `node`
// of `blade`; service nodes (login, I/O) are not compute nodes.
struct CrayNode {
  std::uint32_t nid = 0;
  CrayBlade blade;
  std::uint32_t node = 0;
  bool compute = false;
  std::size_t line = 0;
};
// Records "cpu=0,slot=2,cage=0,cabinet=null,cab_position=2,cab_row=3,...,processor_type=
// 'compute',...,processor_id=5000,..." ('#' comments). Throws Error "FILE:LINE: problem" on a
// record without one of those fields, a value out of an XC's range, or a nid or node listed twice.
std::vector<CrayNode> read_xtdb2proc(const std::string& path);

}  // namespace taskmap::detail
