#!/usr/bin/env python3
"""taskmap's OpenSM engines against OpenSM itself, and the sites' real tables against both.

1. For every InfiniBand file of ../shared/data/topologies/ibnet and every engine (minhop, updn,
   dnup, dfsssp, ftree): OpenSM 3.3 under ibsim (scripts/opensm_routes.sh) and
   `taskmap routes --routing opensm:ENGINE`; a row per pair: OpenSM's result (ran, or fell back to
   minhop, from its log), its entries, and how many of taskmap's are identical (or taskmap's
   refusal where OpenSM fell back).
2. For the three sites whose dumped tables the data holds (Avakas, PlaFRIM, PlaFRIM2): the share
   of the site's entries each engine's tables (taskmap's) reproduce.

Usage: bench/opensm_compare.py [TASKMAP_BINARY]   (env: JOBS, OpenSM runs at once, default 2)
"""
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.environ.get("TASKMAP_DATA", os.path.join(ROOT, "..", "shared", "data"))
IBNET = os.path.join(DATA, "topologies", "ibnet")
OTHER = os.path.join(DATA, "topologies", "other")
BIN = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "taskmap"))
JOBS = int(os.environ.get("JOBS", "2"))
ENGINES = ["minhop", "updn", "dnup", "dfsssp", "ftree"]
FABRICS = ["ibtopotool_1.topo", "ibtopotool_2.topo", "ibtopotool_3.topo", "ibtopotool_4.topo", "ibtopoweb_topo",
           "hpctoolset_X5.topofile", "topograph_example.out.gz",
           "hwloc-netloc_avakas_ib-subnet-fe80_0000_0000_0000.txt.gz",
           "hwloc-netloc_plafrim_ib-subnet-fe80_0000_0000_0000.txt",
           "hwloc-netloc_plafrim2_ib-subnet-fe80_0000_0000_0000.txt",
           "hwloc-netloc_plafrim2_ib-subnet-fe80_0000_0000_0001.txt"]
SITES = [("avakas", "hwloc-netloc_avakas_ib-subnet-fe80_0000_0000_0000.txt.gz"),
         ("plafrim", "hwloc-netloc_plafrim_ib-subnet-fe80_0000_0000_0000.txt"),
         ("plafrim2", "hwloc-netloc_plafrim2_ib-subnet-fe80_0000_0000_0000.txt")]


def tables(path):
    """(switch GUID, LID) -> port, read independently of taskmap."""
    out, guid = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"^Unicast lids .* guid 0x([0-9a-f]+) ", line)
            if m:
                guid = int(m.group(1), 16)
                continue
            m = re.match(r"^0x([0-9a-f]{4}) (\d{3}) ", line)
            if m:
                out[(guid, int(m.group(1), 16))] = int(m.group(2))
    return out


def summary(path, key):
    with open(path) as f:
        for line in f:
            if line.startswith(key + ": "):
                return line[len(key) + 2:].strip()
    return ""


def opensm(work, fabric, engine):
    out = os.path.join(work, f"{fabric}.{engine}.osm")
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "opensm_routes.sh"), os.path.join(IBNET, fabric), engine, out],
                   capture_output=True, text=True, check=True)
    return out


def ours(work, fabric, routing, name):
    out = os.path.join(work, f"{fabric}.{name}.taskmap")
    r = subprocess.run([BIN, "routes", "--machine", f"ibnet:{os.path.join(IBNET, fabric)}", "--routing", routing,
                        "--out", out], capture_output=True, text=True)
    return out if r.returncode == 0 else r.stderr.strip().splitlines()[-1]


def main():
    work = tempfile.mkdtemp()
    cases = [(f, e) for f in FABRICS for e in ENGINES]
    with ThreadPoolExecutor(JOBS) as pool:
        runs = list(pool.map(lambda c: opensm(work, *c), cases))
    print("| fabric | engine | OpenSM | entries | identical in taskmap's tables |")
    print("|---|---|---|---:|---|")
    for (fabric, engine), osm in zip(cases, runs):
        used = summary(osm + ".log-summary", "engine used")
        mine = ours(work, fabric, f"opensm:{engine}", engine)
        theirs = tables(osm)
        if used != engine:
            verdict = "taskmap refuses too" if not os.path.exists(mine) else "taskmap routes it: MISMATCH"
            print(f"| {fabric} | {engine} | fell back to {used} | {len(theirs)} | {verdict} |")
            continue
        if not os.path.exists(mine):
            print(f"| {fabric} | {engine} | ran | {len(theirs)} | taskmap refused: {mine} |")
            continue
        t = tables(mine)
        same = sum(1 for k, p in theirs.items() if t.get(k) == p)
        print(f"| {fabric} | {engine} | ran | {len(theirs)} | {same} ({100 * same / len(theirs):.1f}%) |")

    print("\n| site | entries in its dump | " + " | ".join(ENGINES) + " |")
    print("|---|---:|" + "---:|" * len(ENGINES))
    for site, fabric in SITES:
        real = ours(work, fabric, f"lft:{OTHER}/hwloc-netloc_{site}_ibroutes-fe80_0000_0000_0000.tar.gz", "site")
        site_tables = tables(real)
        cells = []
        for engine in ENGINES:
            mine = ours(work, fabric, f"opensm:{engine}", engine)
            if not os.path.exists(mine):
                cells.append("refused")
                continue
            t = tables(mine)
            same = sum(1 for k, p in site_tables.items() if t.get(k) == p)
            cells.append(f"{100 * same / len(site_tables):.1f}%")
        print(f"| {site} | {len(site_tables)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
