#!/usr/bin/env python3
"""A lower bound on the leaf-uplink volume of bench/cluster.sh's "x K ring" patterns (python3
standard library only).

  ring_copies_leaf_bound.py INFO.json NODEFILE MATRIX.csv K

INFO.json is `taskmap info --format json` of the fabric, NODEFILE the allocation
(cluster_allocations.py alloc), MATRIX.csv the n x n trace, K the copies (n*K = the job's slots).
The pattern is K copies of the trace's graph H joined by 64 rings (rank i of copy k <-> rank i
of copy k+1, the median flow volume m each way), as cluster_allocations.py replicate writes it.

Any placement of the tasks on the leaves (every slot filled: tasks = slots) pays:
  - per copy split over several leaves, its cut: at least lambda(H), H's global minimum cut
    (Stoer-Wagner, both directions' volumes), and a copy in j pieces at least j/2 x lambda(H)
    (each piece's boundary is at least lambda, every cut edge counted by two pieces); a leaf
    whose slots are not a multiple of n holds at least one piece of a split copy, so r such
    leaves force split cost >= max(s x lambda, r/2 x lambda) with s >= 1 split copies;
  - per place on the cycle of copies where two consecutive whole copies (split ones skipped)
    sit on different leaves, each of the n rings crosses a leaf boundary between them: 2 n m.
    The whole copies fill at least as many leaves as the fewest leaves holding K - s copies
    (floor(slots / n) copies each); when that is 2 or more, the cycle changes leaf at least
    that many times.
The bound is the minimum over s of the two sums. It is weak where lambda(H) is small (a copy
split by cutting off one light rank costs little, and the bound does not charge that copy's
rings): on the measured CG it is about a quarter of hostname-order's volume, so it settles
nothing about 0.7x. It also prints the volume of one placement, "whole copies in consecutive
runs, one run per leaf", where every leaf's slots are a multiple of n: an upper bound of the
optimum (reached on avakas best-fit by rb:tries=16+refine-hb).
"""
import json
import statistics
import sys


def stoer_wagner(w):
    n = len(w)
    w = [row[:] for row in w]
    alive = list(range(n))
    best = float("inf")
    while len(alive) > 1:
        added = [alive[0]]
        conn = {v: w[alive[0]][v] for v in alive[1:]}
        prev = alive[0]
        while conn:
            v = max(conn, key=lambda x: (conn[x], -x))
            last_weight = conn.pop(v)
            for u in conn:
                conn[u] += w[v][u]
            prev, added = added[-1], added + [v]
        s, t = added[-2], added[-1]
        best = min(best, last_weight)
        for u in alive:  # merge t into s
            w[s][u] += w[t][u]
            w[u][s] = w[s][u]
        w[s][s] = 0
        alive.remove(t)
    return best


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    info_path, node_path, matrix_path, copies = argv[0], argv[1], argv[2], int(argv[3])
    hosts = {h["name"]: h for h in json.load(open(info_path))["hosts"]}
    slots_of_leaf = {}
    for line in open(node_path):
        if line.strip():
            name, slots = line.split()[0], int(line.split("slots=")[1])
            leaf = tuple(sorted(hosts[name]["switches"]))
            slots_of_leaf[leaf] = slots_of_leaf.get(leaf, 0) + slots
    with open(matrix_path) as f:
        rows = [[float(v) for v in line.split(",")] for line in f if line.strip()]
    n = len(rows)
    sym = [[(rows[i][j] + rows[j][i]) if i != j else 0.0 for j in range(n)] for i in range(n)]
    m = statistics.median(v for i, row in enumerate(rows) for j, v in enumerate(row) if i != j and v > 0)
    lam = stoer_wagner(sym)
    caps = sorted((s // n for s in slots_of_leaf.values()), reverse=True)
    r = sum(1 for s in slots_of_leaf.values() if s % n)
    if sum(slots_of_leaf.values()) != n * copies:
        sys.exit(f"{node_path}: {sum(slots_of_leaf.values())} slots, not {n} x {copies}")
    best = None
    for s in range(1 if r else 0, copies + 1):
        split = max(s * lam, r / 2 * lam)
        need, held, leaves = copies - s, 0, 0
        if sum(caps) < need:
            continue  # too few whole copies fit: more must be split
        while held < need:
            held += caps[leaves]
            leaves += 1
        ring = 2 * n * m * (leaves if leaves >= 2 else 0)
        if best is None or split + ring < best[0]:
            best = (split + ring, s, leaves)
    print(f"leaves {len(slots_of_leaf)} (slots {sorted(slots_of_leaf.values(), reverse=True)}); "
          f"{r} not a multiple of {n}")
    print(f"lambda(H) {lam:.6g}; ring volume per leaf change 2 x {n} x {m:.6g} = {2 * n * m:.6g}")
    print(f"lower bound {best[0]:.6g} ({best[1]} split copies, whole copies on >= {best[2]} leaves)")
    if r == 0:
        print(f"whole copies in consecutive runs per leaf: {2 * n * m * len(slots_of_leaf):.6g}")


if __name__ == "__main__":
    main(sys.argv[1:])
