#!/usr/bin/env python3
"""GPU jobs: large-model training (llm patterns) placed by the framework's order and by auto, on
real rail-optimized fabrics of ../shared/data (Azure ND: 16 VMs x 8 GPUs, each HCA under its own
rail; NVIDIA topograph's GB200 fabric: 108 trays x 4 GPUs), a generated rail-optimized tree
(bench/gen_ibnet_tree.py, 2,048 nodes x 8 GPUs = 16,384 GPUs) and, without rails, the balanced
Dragonfly and a fat-tree (docs/gpus.md).

The framework's order is Megatron-LM's rank numbering laid on the GPUs as launchers place
ranks: hosts in name order, local rank = GPU index (hostname-order). Per row: the MCL over all
links, over the network's links, the leaf uplink volume, the DP ring's steps between nodes that
change rails (GPU index) and those between nodes in all, for both placements, auto's MCL and
network MCL as a share of the framework order's, and auto's seconds (map, one process).

Usage: bench/gpus.py [TASKMAP_BINARY]   (env ROWS=azure,gb200,rails,dragonfly,fattree)
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "data", "topologies")
BIN = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, "build", "taskmap")


def dp_steps(pattern, gpus):
    """(DP ring steps between nodes, those changing GPU index) for ranks in Megatron's order
    tp-cp-ep-dp-pp placed as `gpus` (per rank: (node, gpu))."""
    p = dict(kv.split("=") for kv in pattern.split(":", 1)[1].split(","))
    tp, pp, dp = int(p["tp"]), int(p["pp"]), int(p["dp"])
    between = changes = 0
    for t in range(tp):
        for s in range(pp):
            for d in range(dp):
                a = t + tp * (d + dp * s)
                b = t + tp * ((d + 1) % dp + dp * s)
                if gpus[a][0] != gpus[b][0]:
                    between += 1
                    changes += gpus[a][1] != gpus[b][1]
    return between, changes


def run(args, **kw):
    return subprocess.run([BIN] + args, check=True, capture_output=True, text=True, **kw)


def placement(machine, nodes, pattern, mapper, per_node, work):
    out = os.path.join(work, "p.txt")
    start = time.perf_counter()
    run(["map", "--machine", machine, "--nodes", nodes, "--pattern", pattern, "--mapper", mapper, "--out", out,
         "--out-format", "plain", "--baseline", "none"])
    seconds = time.perf_counter() - start
    metrics = json.loads(run(["eval", "--machine", machine, "--nodes", nodes, "--pattern", pattern, "--mapping", out,
                              "--format", "json", "--baseline", "none"]).stdout)
    gpus = {}
    with open(out) as f:
        for line in f:
            if line.startswith("#"):
                continue
            task, slot = map(int, line.split()[:2])
            gpus[task] = (slot // per_node, slot % per_node)
    return metrics, dp_steps(pattern, gpus), seconds


def rows():
    slurm = os.path.join(DATA, "slurm")
    azure = f"slurm:{slurm}/azslurm_topology.txt,map={slurm}/azslurm_nodes_guids.txt,node=gpus:8"
    gb200 = f"ibnet:{DATA}/ibnet/topograph_example.out.gz,node=gpus:4"
    wanted = os.environ.get("ROWS", "azure,gb200,rails,dragonfly,fattree").split(",")
    out = []
    if "azure" in wanted:
        for pattern in ["llm:tp=4,pp=4,dp=8", "llm:tp=4,pp=1,dp=32", "llm:tp=2,pp=4,dp=16", "llm:tp=8,pp=2,dp=8"]:
            out.append(("Azure ND 16x8", azure, "all", pattern, 8))
    if "gb200" in wanted:
        # The 108 first compute trays with 4 HCAs (name order).
        hosts = sorted(h for h in tray_hosts(f"{DATA}/ibnet/topograph_example.out.gz") if h[1] == 4)[:108]
        nodes = "@" + write_hosts([h[0] for h in hosts])
        for pattern in ["llm:tp=2,pp=4,dp=54", "llm:tp=4,pp=4,dp=27", "llm:tp=2,pp=2,dp=108"]:
            out.append(("GB200 108x4", gb200, nodes, pattern, 4))
    if "rails" in wanted:
        tree = os.path.join(tempfile.gettempdir(), "taskmap-rails-2048x8.ibnet")
        if not os.path.exists(tree):
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_ibnet_tree.py"), "2048", tree, "64", "8"],
                           check=True)
        for pattern in ["llm:tp=4,pp=8,dp=512", "llm:tp=8,pp=8,dp=256"]:
            out.append(("rails 2048x8 (generated)", f"ibnet:{tree},node=gpus:8", "all", pattern, 8))
    if "dragonfly" in wanted:
        out.append(("dragonfly:p=4,a=8,h=4 (no rails)", "dragonfly:p=4,a=8,h=4", "", "llm:tp=4,pp=4,dp=16", 8))
    if "fattree" in wanted:
        out.append(("fattree:k=8,n=3 (no rails)", "fattree:k=8,n=3", "", "llm:tp=4,pp=4,dp=32", 8))
    return out


def tray_hosts(path):
    """(host, HCAs) of the GB200 compute trays, from the ibnetdiscover file's CA descriptions."""
    import gzip
    count = {}
    with gzip.open(path, "rt") as f:
        for line in f:
            m = re.match(r'Ca\s+\d+\s+"H-\w+"\s+#\s+"(\S+-dgx-\S+) \S+"', line)
            if m:
                count[m.group(1)] = count.get(m.group(1), 0) + 1
    return list(count.items())


def write_hosts(hosts):
    fd, path = tempfile.mkstemp(suffix=".hosts")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(hosts) + "\n")
    return path


def main():
    print("| fabric | pattern | order | MCL | MCL network | leaf uplink | DP steps between nodes | rail changes | auto/order MCL | auto/order network | auto s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for name, machine, nodes, pattern, per_node in rows():
            if not nodes:
                machine_arg = machine
                per = per_node
                res = {}
                for mapper in ["hostname-order", "auto"]:
                    res[mapper] = placement_plain(machine_arg, pattern, mapper, per, work)
            else:
                res = {m: placement(machine, nodes, pattern, m, per_node, work) for m in ["hostname-order", "auto"]}
            base, auto = res["hostname-order"][0], res["auto"][0]
            for mapper in ["hostname-order", "auto"]:
                m, (between, changes), seconds = res[mapper]
                share = (f"{auto['mcl'] / base['mcl']:.3f} | {auto['mcl_network'] / base['mcl_network']:.3f} | {seconds:.1f}"
                         if mapper == "auto" else " | | ")
                print(f"| {name} | {pattern} | {'framework' if mapper == 'hostname-order' else 'auto'} | {m['mcl']:.4g} | "
                      f"{m['mcl_network']:.4g} | {m['leaf_uplink_volume']:.4g} | {between} | {changes} | {share} |", flush=True)


def placement_plain(machine, pattern, mapper, per_node, work):
    """The same on a machine without host names (no --nodes): the launcher order is the slots'."""
    out = os.path.join(work, "p.txt")
    spec = f"{machine}"
    start = time.perf_counter()
    run(["map", "--machine", spec, "--node-topology", f"gpus:{per_node}", "--pattern", pattern,
         "--mapper", mapper if mapper != "hostname-order" else "default", "--out", out, "--out-format", "plain",
         "--baseline", "none"])
    seconds = time.perf_counter() - start
    metrics = json.loads(run(["eval", "--machine", spec, "--node-topology", f"gpus:{per_node}", "--pattern", pattern,
                              "--mapping", out, "--format", "json", "--baseline", "none"]).stdout)
    gpus = {}
    with open(out) as f:
        for line in f:
            if not line.startswith("#"):
                task, slot = map(int, line.split()[:2])
                gpus[task] = (slot // per_node, slot % per_node)
    return metrics, dp_steps(pattern, gpus), seconds


if __name__ == "__main__":
    main()
