#include "taskmap/topology/machine.h"

#include "taskmap/core/error.h"

namespace taskmap {

std::string Machine::kind_name() const {
  struct Visitor {
    std::string operator()(const TorusShape&) const { return "torus"; }
    std::string operator()(const RectTorusShape& s) const { return s.twisted ? "rtt" : "rt"; }
    std::string operator()(const DragonflyShape&) const { return "dragonfly"; }
    std::string operator()(const PercsShape&) const { return "percs"; }
    std::string operator()(const FatTreeShape&) const { return "fattree"; }
    std::string operator()(const GraphShape&) const { return "graph"; }
  };
  return std::visit(Visitor{}, shape);
}

ChannelId Machine::add_channel(RouterId src, RouterId dst, std::uint16_t link_class) {
  channels.push_back(Channel{src, dst, link_class});
  return static_cast<ChannelId>(channels.size() - 1);
}

std::uint16_t Machine::add_class(std::string name, double bandwidth) {
  if (!(bandwidth > 0)) fail("link class '{}': bandwidth must be positive", name);
  if (classes.size() >= kMaxLinkClasses) {
    fail("link class '{}': a machine has at most {} link classes", name, kMaxLinkClasses);
  }
  for (std::size_t i = 0; i < classes.size(); ++i) {
    if (classes[i].name == name) fail("link class '{}' defined twice", name);
  }
  classes.push_back(LinkClass{std::move(name), bandwidth});
  return static_cast<std::uint16_t>(classes.size() - 1);
}

}  // namespace taskmap
