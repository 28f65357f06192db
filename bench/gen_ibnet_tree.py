#!/usr/bin/env python3
"""Writes a three-level folded-Clos InfiniBand fabric as ibnetdiscover prints it, with LIDs
(switches first, then hosts): HOSTS hosts, RADIX/2 per leaf switch; leaves in pods of RADIX/2,
each pod with RADIX/2 middle switches cabled to every leaf of the pod; middle switch j of every
pod cabled to the RADIX/2 core switches of group j. For the timing of lft: and opensm: on a
large tree (bench/routes.py, docs/opensm.md).

With RAILS > 1 every host has RAILS HCAs (mlx5_0 ...) and the tree is rail-optimized, as GPU
clusters are cabled (bench/gpus.sh, docs/gpus.md): the hosts come in groups of RADIX/2, and HCA k
of a group's hosts hangs on the group's leaf for rail k (HOSTS must then be a multiple of RADIX/2).

Usage: bench/gen_ibnet_tree.py HOSTS OUT [RADIX [RAILS]]   (RADIX default 36, RAILS 1)
"""
import sys


def main():
    hosts, out = int(sys.argv[1]), sys.argv[2]
    radix = int(sys.argv[3]) if len(sys.argv) > 3 else 36
    rails = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    half = radix // 2
    if rails > 1 and hosts % half != 0:
        sys.exit(f"gen_ibnet_tree.py: HOSTS {hosts} must be a multiple of RADIX/2 = {half} with RAILS > 1")
    hosts *= rails  # from here on, a "host" is one HCA port

    def hca_name(p):  # port p, in leaf order: leaf i = group * rails + rail
        i = p // half
        return f"node{(i // rails) * half + p % half:05d} mlx5_{i % rails}"

    leaves = -(-hosts // half)
    pods = -(-leaves // half)
    lid = 0

    def next_lid():
        nonlocal lid
        lid += 1
        return lid

    leaf = [(0x100000 + i, next_lid()) for i in range(leaves)]
    middle = [[(0x200000 + p * half + j, next_lid()) for j in range(half)] for p in range(pods)]
    core = [[(0x300000 + j * half + c, next_lid()) for c in range(half)] for j in range(half)]
    host = [(0x1000000 + 2 * h, next_lid()) for h in range(hosts)]
    lines = []

    def switch(guid, own_lid, name, ports, links):
        lines.append(f'Switch\t{ports} "S-{guid:016x}"\t\t# "{name}" enhanced port 0 lid {own_lid} lmc 0')
        for port, text in links:
            lines.append(f"[{port}]\t{text}")
        lines.append("")

    for i, (guid, own) in enumerate(leaf):
        pod = i // half
        links = []
        for h in range(half):
            n = i * half + h
            if n < hosts:
                hg, hl = host[n]
                links.append((h + 1, f'"H-{hg:016x}"[1]({hg + 1:016x})\t\t# "{hca_name(n)}" lid {hl} 4xHDR'))
        for j in range(half):
            mg, ml = middle[pod][j]
            links.append((half + 1 + j, f'"S-{mg:016x}"[{i % half + 1}]\t\t# "mid-{pod}-{j}" lid {ml} 4xHDR'))
        switch(guid, own, f"leaf-{i}", radix, links)
    for p in range(pods):
        for j in range(half):
            guid, own = middle[p][j]
            links = []
            for k in range(half):
                i = p * half + k
                if i < leaves:
                    lg, ll = leaf[i]
                    links.append((k + 1, f'"S-{lg:016x}"[{half + 1 + j}]\t\t# "leaf-{i}" lid {ll} 4xHDR'))
            for c in range(half):
                cg, cl = core[j][c]
                links.append((half + 1 + c, f'"S-{cg:016x}"[{p + 1}]\t\t# "core-{j}-{c}" lid {cl} 4xHDR'))
            switch(guid, own, f"mid-{p}-{j}", radix, links)
    for j in range(half):
        for c in range(half):
            guid, own = core[j][c]
            links = []
            for p in range(pods):
                mg, ml = middle[p][j]
                links.append((p + 1, f'"S-{mg:016x}"[{half + 1 + c}]\t\t# "mid-{p}-{j}" lid {ml} 4xHDR'))
            switch(guid, own, f"core-{j}-{c}", max(radix, pods), links)
    for n, (hg, hl) in enumerate(host):
        i = n // half
        lg, ll = leaf[i]
        lines.append(f'Ca\t1 "H-{hg:016x}"\t\t# "{hca_name(n)}"')
        lines.append(f'[1]({hg + 1:016x}) \t"S-{lg:016x}"[{n % half + 1}]\t\t# lid {hl} lmc 0 "leaf-{i}" lid {ll} 4xHDR')
        lines.append("")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
