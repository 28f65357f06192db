#!/usr/bin/env python3
"""An independent trace of the sites' forwarding tables, against `taskmap eval --routing lft:`.

For each site whose dumped tables the data holds (Avakas, PlaFRIM, PlaFRIM2), and for a few
patterns (random permutations, a ring with random volumes; one rank per host, hosts in the
order of taskmap's hostname-order placement, read from the rankfile `taskmap map` writes):
this script reads the fabric's `ibnetdiscover -p` port list and the ibroute dumps itself, walks
every flow switch by switch through the tables (an entry is keyed by the destination port GUID
its line names, the LID taken from the fabric file), adds the flow's volume to every cable it
crosses, and computes the MCL of the switch-to-switch cables (load / (rate / the most common
switch cable rate)). A flow the tables do not route is left out, as taskmap's
`unroutable=skip` does. It prints both MCLs and the largest relative difference of the loads.

Usage: bench/trace_lft.py [TASKMAP_BINARY]
"""
import json
import os
import random
import re
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.environ.get("TASKMAP_DATA", os.path.join(ROOT, "..", "shared", "data"))
TOPO = os.path.join(DATA, "topologies")
BIN = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "taskmap"))
SITES = ["avakas", "plafrim", "plafrim2"]
LANE = {"SDR": 2.0, "DDR": 4.0, "QDR": 8.0, "FDR10": 10.0, "FDR": 14.0625 * 64 / 66, "EDR": 25.0}
LINE = re.compile(r"^(CA|SW|RT)\s+(\d+)\s+(\d+)\s+0x([0-9a-f]+)\s+(\d+)x\s*(\S+)\s+-\s+(CA|SW|RT)\s+(\d+)\s+(\d+)\s+"
                  r"0x([0-9a-f]+)\s+\(\s*'([^']*)'\s+-\s+'([^']*)'")


def fabric(path):
    """(port -> (peer port, gbps)), port GUID -> LID, host name -> its CA port; a port is (GUID, number)."""
    import gzip
    opener = gzip.open if path.endswith(".gz") else open
    peer, lid, host = {}, {}, {}
    with opener(path, "rt") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            kind, l, port, guid, width, speed, pkind, pl, pport, pguid, desc, _ = m.groups()
            g, pg = int(guid, 16), int(pguid, 16)
            gbps = int(width) * LANE.get(speed, 0.0)
            peer[(g, int(port))] = ((pg, int(pport)), gbps, pkind == "SW")
            lid[g] = int(l)
            lid[pg] = int(pl)
            if kind == "CA":
                host[desc.split()[0]] = (g, int(port))
    return peer, lid, host


def tables(path, lid):
    """(switch GUID, LID) -> port, each entry keyed by the destination its line names."""
    out = {}
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            switch = None
            for line in tar.extractfile(member).read().decode().splitlines():
                m = re.match(r"^Unicast lids .* guid 0x([0-9a-f]+)", line)
                if m:
                    switch = int(m.group(1), 16)
                    continue
                m = re.match(r"^0x[0-9a-f]{4} (\d{3}) : \(.* portguid 0x([0-9a-f]+)", line)
                if m and switch is not None and int(m.group(2), 16) in lid:
                    out.setdefault((switch, lid[int(m.group(2), 16)]), int(m.group(1)))
    return out


def trace(peer, lid, host, lft, placement, edges):
    """Loads per directed cable (from port, to port): every flow walked through the tables."""
    loads = Counter()
    for src, dst, volume in edges:
        a, b = placement[src], placement[dst]
        if a == b:
            continue
        start, target = host[a], host[b]
        target_lid = lid[target[0]]
        path = []
        here = start
        ok = True
        for _ in range(64):
            (far, _gbps, is_switch) = peer[here]
            path.append((here, far))
            if far == target:
                break
            if not is_switch:
                ok = False
                break
            port = lft.get((far[0], target_lid))
            if port is None or (far[0], port) not in peer:
                ok = False
                break
            here = (far[0], port)
        else:
            ok = False
        if ok:
            for hop in path:
                loads[hop] += volume
    return loads


def main():
    work = tempfile.mkdtemp()
    print("| site | pattern | flows | taskmap mcl_network | trace's | switch-link volume, relative difference |")
    print("|---|---|---:|---:|---:|---:|")
    for site in SITES:
        fabric_path = os.path.join(TOPO, "ibnet", f"hwloc-netloc_{site}_ib-subnet-fe80_0000_0000_0000.txt" +
                                   (".gz" if site == "avakas" else ""))
        tables_path = os.path.join(TOPO, "other", f"hwloc-netloc_{site}_ibroutes-fe80_0000_0000_0000.tar.gz")
        peer, lid, host = fabric(fabric_path)
        lft = tables(tables_path, lid)
        cable_rates = Counter(g for (p, (q, g, sw)) in peer.items() if sw and (q in peer and peer[q][2]))
        reference = cable_rates.most_common(1)[0][0]
        n = len(host)
        rng = random.Random(1)
        patterns = []
        for seed in range(2):
            p = list(range(n))
            random.Random(seed).shuffle(p)
            patterns.append((f"permutation {seed}", [(i, p[i], 1.0) for i in range(n) if p[i] != i]))
        patterns.append(("ring, random volumes", [(i, (i + 1) % n, rng.randint(1, 100)) for i in range(n)]))
        machine = f"ibnet:{fabric_path}"
        routing = f"lft:{tables_path},unroutable=skip"
        for name, edges in patterns:
            pattern = os.path.join(work, "edges.txt")
            with open(pattern, "w") as f:
                f.writelines(f"{s} {d} {v}\n" for s, d, v in edges)
            rankfile = os.path.join(work, "rankfile")
            subprocess.run([BIN, "map", "--machine", machine, "--pattern", f"file:{pattern},format=edges", "--mapper",
                            "hostname-order", "--out-format", "openmpi-rankfile", "--out", rankfile, "--baseline",
                            "none"], check=True, capture_output=True)
            placement = {}
            with open(rankfile) as f:
                for line in f:
                    m = re.match(r"rank (\d+)=(\S+) ", line)
                    if m:
                        placement[int(m.group(1))] = m.group(2)
            r = subprocess.run([BIN, "eval", "--machine", machine, "--pattern", f"file:{pattern},format=edges",
                                "--mapping", rankfile, "--routing", routing, "--format", "json", "--baseline", "none",
                                "--loads-csv", os.path.join(work, "loads.csv")], check=True, capture_output=True,
                               text=True)
            theirs = json.loads(r.stdout)["mcl_network"]
            loads = trace(peer, lid, host, lft, placement, edges)
            mine = max((load / (peer[a][1] / reference) for (a, b), load in loads.items()
                        if peer[a][2] and a[0] != b[0] and (b in peer and peer[b][2]) and peer[a][1] > 0), default=0.0)
            # taskmap's per-channel loads, summed per direction between two switches, against the trace's.
            taskmap_loads = defaultdict(float)
            with open(os.path.join(work, "loads.csv")) as f:
                header = f.readline().strip().split(",")
                for row in f:
                    cells = dict(zip(header, row.strip().split(",")))
                    if not cells.get("class", "").startswith(("inject", "eject")):
                        taskmap_loads[(cells["src_router"], cells["dst_router"])] += float(cells["load"])
            total_taskmap = sum(taskmap_loads.values())
            total_trace = sum(load for (a, b), load in loads.items() if peer[a][2] and b in peer and peer[b][2])
            diff = abs(total_taskmap - total_trace) / max(total_trace, 1e-12)
            print(f"| {site} | {name} | {len(edges)} | {theirs:.6g} | {mine:.6g} | {diff:.2e} |", flush=True)


if __name__ == "__main__":
    main()
