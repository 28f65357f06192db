#!/usr/bin/env python3
"""Helpers of bench/cluster.sh (python3 standard library only).

  alloc INFO.json KIND FRACTION SEED OUT   write a node file (one 'host slots=N' per line) of
                                           round(FRACTION x hosts) hosts; print 'nodes slots leaves'
  grid SLOTS                               print X Y Z: near-cubic (largest/smallest <= 2), X*Y*Z
                                           the largest such product <= SLOTS
  replicate MATRIX.csv K OUT               write K copies of a dense rank x rank matrix as an edge list
                                           ('src dst volume', copy k's rank i -> i + k*n), plus a ring
                                           between copies (see below); print the task count
  rows COMPARE.json ROWINFO BASES          the compare output as result lines (tab separated, see ROW_FIELDS);
                                           BASES are 'BASE=PATH' pairs: 'file:PATH' is named BASE and
                                           'file:PATH+R' BASE+R, both with the BASE row's seconds added;
                                           the BASE row itself is left out
  summary RESULTS.tsv                      the summary of cluster.sh; prints the best pipeline last

KIND: contiguous - the first hosts in natural host-name order (digit runs compared as numbers);
      bestfit    - Slurm topology/tree-like: hosts grouped by leaf (the switches a host hangs on);
                   while nodes remain, the smallest leaf that holds all remaining nodes if one
                   does (best fit, its first hosts by name), else the largest leaf whole;
      random     - a uniform sample of the hosts, random.Random(SEED).
INFO.json is `taskmap info --format json` (hosts: [{name, slots, switches}]).
"""
import json
import math
import random
import re
import statistics
import sys


def natural_key(name):
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", name) if part]


def leaf_of(host):
    return tuple(sorted(host["switches"], key=natural_key))


def best_fit_by_leaf(hosts, count):
    leaves = {}
    for host in sorted(hosts, key=lambda h: natural_key(h["name"])):
        leaves.setdefault(leaf_of(host), []).append(host)
    order = sorted(leaves, key=lambda leaf: [natural_key(s) for s in leaf])
    chosen, remaining = [], count
    while remaining > 0:
        fits = [leaf for leaf in order if len(leaves[leaf]) >= remaining]
        if fits:
            leaf = min(fits, key=lambda l: len(leaves[l]))  # stable: first by name among equals
            chosen += leaves[leaf][:remaining]
            break
        leaf = max(order, key=lambda l: len(leaves[l]))
        chosen += leaves[leaf]
        remaining -= len(leaves[leaf])
        order.remove(leaf)
    return chosen


def allocate(info_path, kind, fraction, seed, out_path):
    with open(info_path) as f:
        hosts = json.load(f)["hosts"]
    count = max(1, round(fraction * len(hosts)))
    by_name = sorted(hosts, key=lambda h: natural_key(h["name"]))
    if kind == "contiguous":
        chosen = by_name[:count]
    elif kind == "bestfit":
        chosen = best_fit_by_leaf(hosts, count)
    elif kind == "random":
        chosen = random.Random(seed).sample(by_name, count)
    else:
        sys.exit(f"unknown allocation kind {kind}")
    with open(out_path, "w") as f:
        for host in sorted(chosen, key=lambda h: natural_key(h["name"])):
            f.write(f"{host['name']} slots={host['slots']}\n")
    leaves = {s for host in chosen for s in host["switches"]}
    print(len(chosen), sum(h["slots"] for h in chosen), len(leaves))


def grid(slots):
    for n in range(slots, 0, -1):
        best = None
        x = 1
        while x * x * x <= n:
            if n % x == 0:
                rest = n // x
                y = x
                while y * y <= rest:
                    if rest % y == 0:
                        z = rest // y
                        if z <= 2 * x and (best is None or z - x < best[2] - best[0]):
                            best = (x, y, z)
                    y += 1
            x += 1
        if best:
            # largest dimension first, as halo3d numbers (x*Y + y)*Z + z
            print(*sorted(best, reverse=True))
            return


# Ring between copies: copy k's rank i sends to copy k+1's rank i (mod K) and back, each with the
# median of the trace's off-diagonal non-zero volumes, so that the copies form one job whose
# replicated dimension carries traffic of the trace's own size.
def replicate(matrix_path, copies, out_path):
    with open(matrix_path) as f:
        rows = [[float(v) for v in line.split(",")] for line in f if line.strip()]
    n = len(rows)
    flows = [(i, j, v) for i, row in enumerate(rows) for j, v in enumerate(row) if i != j and v > 0]
    ring = statistics.median(v for _, _, v in flows)
    with open(out_path, "w") as f:
        for k in range(copies):
            base = k * n
            f.writelines(f"{base + i} {base + j} {v:.17g}\n" for i, j, v in flows)
            if copies > 1:
                nxt = ((k + 1) % copies) * n
                if copies > 2 or k == 0:
                    f.writelines(f"{base + i} {nxt + i} {ring:.17g}\n{nxt + i} {base + i} {ring:.17g}\n" for i in range(n))
    print(n * copies)

ROW_FIELDS = ["fabric", "tree", "kind", "nodes", "leaves", "ranks", "pattern", "mapper",
              "mcl_network", "mcl", "hop_bytes", "leaf_uplink", "seconds"]
CANDIDATES = ["scotch+refine-hb", "rb+refine-hb", "rb+refine-mcl", "scotch+refine-mcl", "auto"]


def rows(compare_path, row_info, bases):
    """row_info: 'fabric|tree|kind|nodes|leaves|ranks|pattern'; bases: 'NAME=PATH' words."""
    base_of_path = dict(reversed(b.split("=", 1)) for b in bases)
    with open(compare_path) as f:
        found = json.load(f)["rows"]
    seconds_of = {r["mapper"]: r["mapping_seconds"] for r in found}
    for r in found:
        name, seconds = r["mapper"], r["mapping_seconds"]
        if name in base_of_path.values():
            continue  # run only for its seconds: its placement is the file's (the one refined)
        if name.startswith("file:"):
            path, _, rest = name[len("file:"):].partition("+")
            base = base_of_path[path]
            name, seconds = f"{base}+{rest.split(':')[0]}" if rest else base, seconds + seconds_of[base]
        print("\t".join(row_info.split("|") + [name] + [f"{r[k]:.6g}" for k in ("mcl_network", "mcl", "hop_bytes", "leaf_uplink_volume")]
                        + [f"{seconds:.3f}"]))


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def ratio_or_none(value, base):
    if base > 0:
        return value / base
    return 1.0 if value <= 0 else None  # None: the base is 0, the candidate is not


def summary(results_path):
    by_row = {}
    with open(results_path) as f:
        for line in f:
            r = dict(zip(ROW_FIELDS, line.rstrip("\n").split("\t")))
            key = tuple(r[k] for k in ROW_FIELDS[:7])
            by_row.setdefault(key, {})[r["mapper"]] = {k: float(r[k]) for k in ROW_FIELDS[8:]}
    at_most = lambda a, b: a <= b * (1 + 1e-9)
    print("| pipeline | MCL <= hostname-order | MCL <= scotch | geo-mean MCL / hostname-order | geo-mean leaf-uplink / hostname-order "
          "| leaf-uplink / hostname-order, trees, >= 8 leaves, >= 4096 ranks (geo-mean; min..max; rows) |")
    print("|---|---|---|---|---|---|")
    best, losses = None, {}
    for cand in CANDIDATES:
        n_ho = le_ho = n_sc = le_sc = 0
        mcl_ratios, leaf_ratios, leaf_skipped, big = [], [], 0, []
        losses[cand] = []
        for key, m in by_row.items():
            c, ho, sc = m.get(cand), m.get("hostname-order"), m.get("scotch")
            if c is None:
                continue
            if ho is not None:
                n_ho += 1
                le_ho += at_most(c["mcl"], ho["mcl"])
                if not at_most(c["mcl"], ho["mcl"]):
                    losses[cand].append((c["mcl"] / ho["mcl"], key))
                mcl_ratios.append(ratio_or_none(c["mcl"], ho["mcl"]))
                leaf = ratio_or_none(c["leaf_uplink"], ho["leaf_uplink"])
                if leaf is None:
                    leaf_skipped += 1
                else:
                    leaf_ratios.append(leaf)
                if key[1] == "1" and int(key[4]) >= 8 and int(key[5]) >= 4096 and leaf is not None:
                    big.append(leaf)
            if sc is not None:
                n_sc += 1
                le_sc += at_most(c["mcl"], sc["mcl"])
        mcl_ratios = [x for x in mcl_ratios if x is not None and x > 0]
        leaf_ratios = [x for x in leaf_ratios if x > 0]
        big_text = f"{geomean([x for x in big if x > 0]):.3f}; {min(big):.3f}..{max(big):.3f}; {len(big)}" if big else "no such row"
        skipped = f" ({leaf_skipped} rows with hostname-order at 0 left out)" if leaf_skipped else ""
        g = geomean(mcl_ratios)
        print(f"| {cand} | {le_ho}/{n_ho} | {le_sc}/{n_sc} | {g:.3f} | {geomean(leaf_ratios):.3f}{skipped} | {big_text} |")
        if mcl_ratios and (best is None or g < best[0]):
            best = (g, cand)
    for cand in CANDIDATES:
        clear = sorted((x for x in losses[cand] if x[0] > 1.001), reverse=True)
        near = len(losses[cand]) - len(clear)
        print(f"\n{cand}: MCL more than 0.1% above hostname-order's on {len(clear)} rows"
              f" (and above by at most 0.1% on {near}){':' if clear else ''}")
        for ratio, key in clear[:12]:
            print(f"  {ratio:.3f}x  {key[0]} {key[2]} {key[3]} nodes, {key[5]} ranks, {key[6]}")
        if len(clear) > 12:
            print(f"  ... and {len(clear) - 12} more, the largest {clear[12][0]:.3f}x")
    print(f"\nbest pipeline (lowest geo-mean MCL / hostname-order): {best[1] if best else 'none'}")


def main(argv):
    if len(argv) == 6 and argv[0] == "alloc":
        allocate(argv[1], argv[2], float(argv[3]), int(argv[4]), argv[5])
    elif len(argv) == 2 and argv[0] == "grid":
        grid(int(argv[1]))
    elif len(argv) == 4 and argv[0] == "replicate":
        replicate(argv[1], int(argv[2]), argv[3])
    elif len(argv) >= 3 and argv[0] == "rows":
        rows(argv[1], argv[2], argv[3:])
    elif len(argv) == 2 and argv[0] == "summary":
        summary(argv[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
