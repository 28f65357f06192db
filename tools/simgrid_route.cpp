// taskmap-simgrid-route PLATFORM.xml: reads "SRC DST" host pairs from stdin and prints, for
// each, one line "SRC DST: LINK LINK ..." naming the links SimGrid routes a message through
// (SimGrid's own routing of the platform). The tests compare them with taskmap's paths.
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PLATFORM.xml < pairs\n", argv[0]);
    return 2;
  }
  int engine_argc = 1;
  simgrid::s4u::Engine engine(&engine_argc, argv);
  engine.load_platform(argv[1]);
  std::string a, b;
  while (std::cin >> a >> b) {
    const simgrid::s4u::Host* src = engine.host_by_name(a);
    const simgrid::s4u::Host* dst = engine.host_by_name(b);
    std::vector<simgrid::s4u::Link*> links;
    double latency = 0;
    src->route_to(dst, links, &latency);
    std::cout << a << " " << b << ":";
    for (const simgrid::s4u::Link* link : links) std::cout << " " << link->get_cname();
    std::cout << "\n";
  }
  return 0;
}
