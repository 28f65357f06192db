#!/usr/bin/env python3
"""Writes a 3-level Slurm topology/tree topology.conf for timing the reader.

Defaults: 10,000 nodes on 250 leaves of 40, 20 spines, every leaf under 2 spines, 2 core
switches over all spines; node and switch lists as host-list ranges (--flat-nodes writes each
node by name instead, for long lines). The spines form groups of --parents; the leaves are split
evenly over the groups and every spine of a group lists all the leaves of its group.

  python3 bench/gen_slurm_tree.py > topology.conf
  python3 bench/gen_slurm_tree.py --leaves 100000 --nodes-per-leaf 1 --spines 200 -o big.conf
"""
import argparse
import sys


def ranged(prefix, first, last, width):
    if first == last:
        return f"{prefix}{first:0{width}d}"
    return f"{prefix}[{first:0{width}d}-{last:0{width}d}]"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--leaves", type=int, default=250)
    parser.add_argument("--nodes-per-leaf", type=int, default=40)
    parser.add_argument("--spines", type=int, default=20)
    parser.add_argument("--parents", type=int, default=2, help="spines above each leaf")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--flat-nodes", action="store_true", help="list nodes one by one, not as ranges")
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    if args.spines % args.parents != 0:
        parser.error("--spines must be a multiple of --parents")
    groups = args.spines // args.parents
    if args.leaves < groups:
        parser.error("--leaves must be at least --spines / --parents")

    nodes = args.leaves * args.nodes_per_leaf
    node_width = len(str(nodes))
    leaf_width = len(str(args.leaves))
    spine_width = len(str(args.spines))
    out = sys.stdout if args.output == "-" else open(args.output, "w")
    out.write(f"# {nodes} nodes, {args.leaves} leaves, {args.spines} spines "
              f"({args.parents} above each leaf), {args.cores} cores\n")
    spine_list = ranged("spine", 1, args.spines, spine_width)
    for c in range(1, args.cores + 1):
        out.write(f"SwitchName=core{c} Switches={spine_list} LinkSpeed=200\n")
    for s in range(args.spines):
        group = s // args.parents
        first = group * args.leaves // groups + 1
        last = (group + 1) * args.leaves // groups
        out.write(f"SwitchName=spine{s + 1:0{spine_width}d} Switches={ranged('leaf', first, last, leaf_width)} "
                  f"LinkSpeed=100\n")
    for leaf in range(args.leaves):
        first = leaf * args.nodes_per_leaf + 1
        last = first + args.nodes_per_leaf - 1
        if args.flat_nodes:
            listed = ",".join(f"cn{n:0{node_width}d}" for n in range(first, last + 1))
        else:
            listed = ranged("cn", first, last, node_width)
        out.write(f"SwitchName=leaf{leaf + 1:0{leaf_width}d} Nodes={listed} LinkSpeed=100\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
