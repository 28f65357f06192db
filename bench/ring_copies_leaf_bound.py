#!/usr/bin/env python3
"""A lower bound on the leaf-uplink volume of bench/cluster.sh's "x K ring" patterns (python3
standard library only).

  ring_copies_leaf_bound.py INFO.json NODEFILE MATRIX.csv K [HOSTNAME_ORDER_VOLUME]

INFO.json is `taskmap info --format json` of the fabric, NODEFILE the allocation
(cluster_allocations.py alloc), MATRIX.csv the n x n trace, K the copies (n K at most the job's
slots). The pattern is K copies of the trace's graph H joined by n rings (rank i of
copy k <-> rank i of copy k+1, the median flow volume m each way), as cluster_allocations.py
replicate writes it. With HOSTNAME_ORDER_VOLUME (hostname-order's leaf-uplink volume, from
`taskmap compare`), the bound is also printed as a ratio to it.

The leaf-uplink volume of a placement is the traffic leaving each leaf, summed over the leaves:
half the sum over leaves L of cut(S_L), S_L the tasks on leaf L and cut() counting both
directions. So it is at least half the sum over leaves of B(|S_L|), B(C) a lower bound of
cut(S) over the task sets S of size C, computed here. Split S by copies, s_k = |S in copy k|:
  - copy k's own edges cut: at least F(s_k), F(0) = F(n) = 0, else the larger of lambda (H's
    global minimum cut, Stoer-Wagner) and a2 s (n - s) / n (a2: the second smallest eigenvalue
    of H's Laplacian, Fiedler's bound);
  - the rings between copies k and k+1 cut: 2 m |S_k xor S_k+1| >= 2 m |s_k - s_k+1|; round
    the cycle of copies that is at least 4 m (max s - min s).
If some copy holds none of S (min s = 0), cut(S) >= 4 m h + the least sum of F(s_k) over parts
s_k <= h adding up to C (a knapsack, for every h); else all K copies hold some of S and at most
floor(C / n) of them whole: cut(S) >= (K - floor(C / n)) lambda. B(C) is the smaller.
With spare slots (the allocation has E more slots than n K), a leaf holds between its slots - E
and its slots of tasks, the leaves' spares adding up to E: the bound is the least sum over the
ways to spread them. Hosts on the same set of switches (the rails of a multi-rail fabric) count
as one leaf. The bound ignores that leaves share copies; it is not reached in general.
"""
import json
import math
import statistics
import sys


def stoer_wagner(w):
    n = len(w)
    w = [row[:] for row in w]
    alive = list(range(n))
    best = math.inf
    while len(alive) > 1:
        order = [alive[0]]
        conn = {v: w[alive[0]][v] for v in alive[1:]}
        last = 0.0
        while conn:
            v = max(conn, key=lambda x: (conn[x], -x))
            last = conn.pop(v)
            for u in conn:
                conn[u] += w[v][u]
            order.append(v)
        s, t = order[-2], order[-1]
        best = min(best, last)
        for u in alive:  # t merged into s
            w[s][u] += w[t][u]
            w[u][s] = w[s][u]
        w[s][s] = 0.0
        alive.remove(t)
    return best


def eigenvalues(a, sweeps=60):
    """Cyclic Jacobi: the eigenvalues of a symmetric matrix, ascending."""
    n = len(a)
    a = [row[:] for row in a]
    for _ in range(sweeps):
        off = sum(a[i][j] ** 2 for i in range(n) for j in range(n) if i != j)
        if off < 1e-22 * max(1.0, sum(a[i][i] ** 2 for i in range(n))):
            break
        for p in range(n - 1):
            for q in range(p + 1, n):
                if abs(a[p][q]) < 1e-300:
                    continue
                theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                t = (1 if theta >= 0 else -1) / (abs(theta) + math.sqrt(theta * theta + 1))
                c = 1 / math.sqrt(t * t + 1)
                s = t * c
                for k in range(n):  # columns p, q
                    akp, akq = a[k][p], a[k][q]
                    a[k][p], a[k][q] = c * akp - s * akq, s * akp + c * akq
                for k in range(n):  # rows p, q
                    apk, aqk = a[p][k], a[q][k]
                    a[p][k], a[q][k] = c * apk - s * aqk, s * apk + c * aqk
    return sorted(a[i][i] for i in range(n))


def leaf_bounds(sizes, n, copies, m, f):
    """B(C) for every C in `sizes`: the knapsacks are shared, one per largest part h."""
    top = max(sizes)
    best = {c: ((copies - c // n) * f[1] if copies > c // n else math.inf) for c in sizes}  # every copy holds some
    for c in sizes:
        if c in (0, n * copies):
            best[c] = 0.0  # no task, or all of them: no cut
    for h in range(1, n + 1):
        knap = [0.0] + [math.inf] * top
        for c in range(1, top + 1):
            knap[c] = min(knap[c - s] + f[s] for s in range(1, min(h, c) + 1))
        for c in sizes:
            if best[c] > 0:
                best[c] = min(best[c], 4 * m * h + knap[c])
    return best


def least_total(leaf_slots, spare, bound):
    """The least sum of bound[C_L] / 2 over leaf task counts C_L = slots_L - e_L, sum e_L = spare."""
    total = [0.0] + [math.inf] * spare  # total[e]: leaves so far, e spares used
    for slots in leaf_slots:
        total = [min(total[e - k] + bound[slots - k] / 2 for k in range(min(e, slots) + 1)) for e in range(spare + 1)]
    return total[spare]


def main(argv):
    if len(argv) not in (4, 5):
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
    spare = sum(slots_of_leaf.values()) - n * copies
    if spare < 0:
        sys.exit(f"{node_path}: {sum(slots_of_leaf.values())} slots, fewer than {n} x {copies}")
    sym = [[(rows[i][j] + rows[j][i]) if i != j else 0.0 for j in range(n)] for i in range(n)]
    m = statistics.median(v for i, row in enumerate(rows) for j, v in enumerate(row) if i != j and v > 0)
    lam = stoer_wagner(sym)
    laplacian = [[(sum(sym[i]) if i == j else -sym[i][j]) for j in range(n)] for i in range(n)]
    a2 = eigenvalues(laplacian)[1]
    f = [0.0] + [max(lam, a2 * s * (n - s) / n) for s in range(1, n)] + [0.0]
    sizes = sorted({slots - k for slots in slots_of_leaf.values() for k in range(min(spare, slots) + 1)})
    total = least_total(list(slots_of_leaf.values()), spare, leaf_bounds(sizes, n, copies, m, f))
    print(f"leaves {len(slots_of_leaf)}, slots {sorted(slots_of_leaf.values(), reverse=True)}, spare {spare}")
    print(f"H: {n} ranks, min cut {lam:.6g}, Fiedler a2 {a2:.6g}; ring volume m {m:.6g}")
    ratio = f" = {total / float(argv[4]):.3f} x hostname-order's {float(argv[4]):.6g}" if len(argv) == 5 else ""
    print(f"leaf-uplink volume >= {total:.6g}{ratio}")


if __name__ == "__main__":
    main(sys.argv[1:])
