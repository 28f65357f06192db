#pragma once
// The link classes of a machine built from a fabric's files: one per kind of link and rate.
#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <utility>

#include "taskmap/topology/machine.h"

namespace taskmap::detail {

// One link class per (kind, rate); named "link", "inject", "eject" when a kind has one rate,
// else suffixed with the rate: "link-100G" in Gb/s, "link-100" in a Slurm file's own units.
class ClassTable {
 public:
  ClassTable(Machine& m, double reference, double default_gbps, bool gbps)
      : m_(m), reference_(reference), default_(default_gbps), unit_(gbps ? "G" : "") {}

  void collect(const std::string& kind, double gbps) { rates_[kind].insert(effective(gbps)); }
  void create() {
    for (const auto& [kind, rates] : rates_) {
      // Rates at 6 significant digits ("link-54.5455G" for 4xFDR), unless two of the kind's
      // rates print alike so: then the shortest text that reads back as each.
      std::set<std::string> short_names;
      for (double r : rates) short_names.insert(fmt::format("{:.6g}", r));
      const bool six_digits = short_names.size() == rates.size();
      for (double r : rates) {
        const std::string rate = six_digits ? fmt::format("{:.6g}", r) : fmt::format("{}", r);
        const std::string name = rates.size() == 1 ? kind
                                 : r > 0           ? fmt::format("{}-{}{}", kind, rate, unit_)
                                                   : kind + "-rate-unknown";  // bandwidth 1, the reference's
        const std::uint16_t id = m_.add_class(name, r > 0 ? r / reference_ : 1.0);
        m_.classes[id].host_link = kind == "inject" || kind == "eject";
        m_.classes[id].in_node = kind == "pcie" || kind == "nvlink";
        ids_[{kind, r}] = id;
      }
    }
  }
  std::uint16_t id(const std::string& kind, double gbps) const { return ids_.at({kind, effective(gbps)}); }

 private:
  double effective(double gbps) const { return gbps > 0 ? gbps : default_; }
  Machine& m_;
  double reference_, default_;
  std::string unit_;
  std::map<std::string, std::set<double>> rates_;
  std::map<std::pair<std::string, double>, std::uint16_t> ids_;
};

}  // namespace taskmap::detail
