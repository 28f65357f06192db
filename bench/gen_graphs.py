#!/usr/bin/python3
"""Writes public stand-in graphs of four kinds as METIS files (unweighted, 1-based), for
bench/general.sh: graphs of the sizes of ../shared/data/graphs (10K-30K vertices) that nobody
tuned a mapper on. Fixed seeds: the same files on every run with the same Debian packages
(python3-networkx 2.8.8, python3-scipy 1.10.1, python3-numpy 1.24 of Debian 12).

  delaunay2d  FEM-like 2D triangle mesh: the Delaunay triangulation of 20,000 uniform random
              points in the unit square.
  road        road-network-like planar graph: 25,000 uniform random points; the Euclidean
              minimum spanning tree of their Delaunay triangulation plus the shortest 15% of the
              other Delaunay edges (average degree about 2.6, as road networks have).
  social      social-network-like: the Holme-Kim model (networkx.powerlaw_cluster_graph) with
              15,000 vertices, 3 edges per new vertex and triangle probability 0.5: power-law
              degrees and clustering.
  fem3d       FEM-like 3D tetrahedral mesh: the edges of the Delaunay tetrahedralization of 12,000
              uniform random points in the unit cube.

Usage: gen_graphs.py DIR [KIND ...]  (all kinds when none is named); prints the files written.
"""
import sys

import networkx as nx
import numpy as np
from scipy.spatial import Delaunay

SEED = 20240601


def delaunay_edges(points):
    edges = set()
    for simplex in Delaunay(points).simplices:
        s = sorted(int(v) for v in simplex)
        for i in range(len(s)):
            for j in range(i + 1, len(s)):
                edges.add((s[i], s[j]))
    return sorted(edges)


def delaunay2d():
    points = np.random.default_rng(SEED).random((20000, 2))
    g = nx.Graph()
    g.add_nodes_from(range(len(points)))
    g.add_edges_from(delaunay_edges(points))
    return g


def road():
    points = np.random.default_rng(SEED + 1).random((25000, 2))
    full = nx.Graph()
    for a, b in delaunay_edges(points):
        full.add_edge(a, b, weight=float(np.linalg.norm(points[a] - points[b])))
    tree = nx.minimum_spanning_tree(full, weight="weight")
    rest = sorted((d["weight"], a, b) for a, b, d in full.edges(data=True) if not tree.has_edge(a, b))
    g = nx.Graph()
    g.add_nodes_from(range(len(points)))
    g.add_edges_from(tree.edges())
    g.add_edges_from((a, b) for _, a, b in rest[: int(0.15 * len(rest))])
    return g


def social():
    return nx.powerlaw_cluster_graph(15000, 3, 0.5, seed=SEED + 2)


def fem3d():
    points = np.random.default_rng(SEED + 3).random((12000, 3))
    g = nx.Graph()
    g.add_nodes_from(range(len(points)))
    g.add_edges_from(delaunay_edges(points))
    return g


KINDS = {"delaunay2d": delaunay2d, "road": road, "social": social, "fem3d": fem3d}


def write_metis(g, path):
    nodes = sorted(g.nodes())
    index = {v: i + 1 for i, v in enumerate(nodes)}
    with open(path, "w") as f:
        f.write(f"{len(nodes)} {g.number_of_edges()}\n")
        for v in nodes:
            f.write(" ".join(str(index[u]) for u in sorted(g.neighbors(v), key=index.get)) + "\n")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    kinds = sys.argv[2:] or list(KINDS)
    for kind in kinds:
        if kind not in KINDS:
            sys.exit(f"gen_graphs.py: unknown kind '{kind}' (known: {', '.join(KINDS)})")
        g = KINDS[kind]()
        g.remove_edges_from(nx.selfloop_edges(g))
        path = f"{out}/{kind}.graph"
        write_metis(g, path)
        print(path)


if __name__ == "__main__":
    main()
