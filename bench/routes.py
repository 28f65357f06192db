#!/usr/bin/env python3
"""Mapping for the routes the switches have: `auto` optimized under the real forwarding tables
against `auto` optimized under taskmap's ECMP model, both evaluated under the real tables.

Rows: the three sites whose tables the data holds (Avakas, PlaFRIM, PlaFRIM2: lft: on their
ibroute dumps; PlaFRIM2's one table that ibroute cut short leaves 25 (switch, LID) pairs without
an entry: unroutable=skip), and two fabrics under the tables of an OpenSM engine (Avakas under
ftree, the X5 cluster under dfsssp: opensm:). Patterns per fabric, one rank per host and full
nodes of PPN slots (ranks = the largest count the pattern takes that the slots hold): a
27-point halo on the near-cubic grid below the slots, the measured 64-rank CG and AMG matrices
(../shared/data/apps/maplib-64) replicated K = slots/64 times and joined by a ring (as
bench/cluster.sh builds them), and RANDOM_PERMUTATIONS random permutations (rank i sends one
unit to rank p(i)).

Per row: hostname-order, auto under ecmp, auto under the real tables (map, then eval under the
real tables: MCL over all channels and over the switch-to-switch links, mcl_network).
Prints a markdown table, then the geometric mean over the rows of
mcl_network(auto real) / mcl_network(auto ecmp), and whether auto real's MCL is ever above
hostname-order's.

Usage: bench/routes.py [TASKMAP_BINARY]   (env: PPN default 8, RANDOM_PERMUTATIONS default 2,
ROWS a regular expression on the row names)
"""
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import cluster_allocations  # noqa: E402  (replicate)

DATA = os.environ.get("TASKMAP_DATA", os.path.join(ROOT, "..", "shared", "data"))
TOPO = os.path.join(DATA, "topologies")
BIN = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "taskmap"))
PPN = int(os.environ.get("PPN", "8"))
PERMUTATIONS = int(os.environ.get("RANDOM_PERMUTATIONS", "2"))
ONLY = re.compile(os.environ.get("ROWS", "."))

IBNET = os.path.join(TOPO, "ibnet")
OTHER = os.path.join(TOPO, "other")
FABRICS = [
    ("avakas", f"ibnet:{IBNET}/hwloc-netloc_avakas_ib-subnet-fe80_0000_0000_0000.txt.gz",
     f"lft:{OTHER}/hwloc-netloc_avakas_ibroutes-fe80_0000_0000_0000.tar.gz"),
    ("plafrim", f"ibnet:{IBNET}/hwloc-netloc_plafrim_ib-subnet-fe80_0000_0000_0000.txt",
     f"lft:{OTHER}/hwloc-netloc_plafrim_ibroutes-fe80_0000_0000_0000.tar.gz"),
    ("plafrim2", f"ibnet:{IBNET}/hwloc-netloc_plafrim2_ib-subnet-fe80_0000_0000_0000.txt",
     f"lft:{OTHER}/hwloc-netloc_plafrim2_ibroutes-fe80_0000_0000_0000.tar.gz,unroutable=skip"),
    ("avakas ftree", f"ibnet:{IBNET}/hwloc-netloc_avakas_ib-subnet-fe80_0000_0000_0000.txt.gz", "opensm:ftree"),
    ("X5 dfsssp", f"ibnet:{IBNET}/hpctoolset_X5.topofile", "opensm:dfsssp"),
]


def taskmap(*args):
    r = subprocess.run([BIN, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"taskmap {' '.join(args)}: {r.stderr.strip().splitlines()[-1:]}")
    return r.stdout


def hosts_of(machine):
    info = json.loads(taskmap("info", "--machine", machine, "--format", "json"))
    return info["nodes"]


def grid(slots):
    """The near-cubic X x Y x Z grid (largest dimension at most twice the smallest) of the most ranks
    at most `slots`, largest dimension first (bench/cluster_allocations.py's rule)."""
    for n in range(slots, 0, -1):
        best = None
        for x in range(1, n + 1):
            if x * x * x > n:
                break
            if n % x:
                continue
            rest = n // x
            for y in range(x, rest + 1):
                if y * y > rest:
                    break
                if rest % y == 0:
                    z = rest // y
                    if z <= 2 * x and (best is None or z - x < best[2] - best[0]):
                        best = (x, y, z)
        if best:
            return sorted(best, reverse=True)
    return [1, 1, 1]


def patterns(work, slots):
    out = []
    x, y, z = grid(slots)
    out.append((f"halo3d {x}x{y}x{z}", f"halo3d:{x}x{y}x{z},points=27"))
    copies = slots // 64
    if copies >= 1:
        for app in ("cg", "amg"):
            path = os.path.join(work, f"{app}.x{copies}.edges")
            if not os.path.exists(path):
                with open(os.devnull, "w") as quiet:  # replicate prints the task count
                    stdout, sys.stdout = sys.stdout, quiet
                    try:
                        cluster_allocations.replicate(
                            os.path.join(DATA, "apps", "maplib-64", app, "comm_matrix.p2p.size.csv"), copies, path)
                    finally:
                        sys.stdout = stdout
            out.append((f"{app} x{copies} ring", f"file:{path},format=edges"))
    for seed in range(PERMUTATIONS):
        rng = random.Random(seed)
        p = list(range(slots))
        rng.shuffle(p)
        path = os.path.join(work, f"perm{slots}.{seed}.txt")
        with open(path, "w") as f:
            f.writelines(f"{i} {p[i]} 1\n" for i in range(slots) if p[i] != i)
        out.append((f"random permutation {seed}", f"file:{path},format=edges"))
    return out


def evaluate(machine, pattern, routing, how):
    j = json.loads(taskmap("eval", "--machine", machine, "--pattern", pattern, "--routing", routing, "--format", "json",
                           "--baseline", "none", *how))
    return j["mcl"], j["mcl_network"]


def main():
    work = tempfile.mkdtemp()
    rows = []
    print("| fabric | routes | ppn | pattern | ranks | hostname-order MCL / network | auto (ecmp) | auto (real) | "
          "network ratio | auto s (ecmp, real) |")
    print("|---|---|---:|---|---:|---|---|---|---:|---|")
    for name, machine_base, real in FABRICS:
        for ppn in (1, PPN):
            machine = f"{machine_base},ppn={ppn}"
            slots = hosts_of(machine) * ppn
            for label, pattern in patterns(work, slots):
                row = f"{name} | {real.split(':')[0]} | {ppn} | {label}"
                if not ONLY.search(row):
                    continue
                try:
                    base = evaluate(machine, pattern, real, ["--mapper", "hostname-order"])
                    results, seconds = {}, {}
                    for routing in ("ecmp", real):
                        out = os.path.join(work, "placement.txt")
                        start = time.time()
                        taskmap("map", "--machine", machine, "--pattern", pattern, "--routing", routing, "--out-format",
                                "plain", "--out", out, "--baseline", "none")
                        seconds[routing] = time.time() - start
                        results[routing] = evaluate(machine, pattern, real, ["--mapping", out])
                except RuntimeError as e:
                    print(f"| {row} | failed: {e} |")
                    continue
                ecmp, mine = results["ecmp"], results[real]
                ratio = mine[1] / ecmp[1] if ecmp[1] > 0 else 1.0
                rows.append((ratio, mine[0] <= base[0] * (1 + 1e-9)))
                print(f"| {row} | {slots} | {base[0]:.4g} / {base[1]:.4g} | {ecmp[0]:.4g} / {ecmp[1]:.4g} | "
                      f"{mine[0]:.4g} / {mine[1]:.4g} | {ratio:.3f} | {seconds['ecmp']:.1f}, {seconds[real]:.1f} |",
                      flush=True)
    if rows:
        gm = math.exp(sum(math.log(max(r, 1e-12)) for r, _ in rows) / len(rows))
        print(f"\nrows: {len(rows)}; geometric mean of mcl_network(auto real) / mcl_network(auto ecmp): {gm:.3f}; "
              f"auto real's MCL above hostname-order's on {sum(1 for _, ok in rows if not ok)} rows")


if __name__ == "__main__":
    main()
