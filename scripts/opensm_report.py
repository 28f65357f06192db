#!/usr/bin/env python3
"""Writes OUT and OUT.log-summary for opensm_routes.sh from one OpenSM run's files.

Reads, in the run's temporary directory: dump_fts.out (the LFTs read back from the simulated
switches), opensm-lfts.dump (OpenSM's own copy), opensm.log, guid2lid (the LIDs OpenSM
assigned: `0xPORTGUID 0xBASE 0xTOP`), opensm-updn-roots.dump, net.lids (port GUID -> LID in
the fabric file, from ibnet_to_ibsim.py) and facts.
OUT: the dump_fts blocks in switch GUID order, each header in ibroute's form (`of switch Lid L
guid ...` where dump_fts writes the DR path), nothing else changed. The summary holds no time
or path of the run, so repeats give the same bytes.
"""
import argparse
import os
import re
import sys

ENGINE_NAMES = {"minhop", "updn", "dnup", "file", "ftree", "lash", "dor", "torus-2QoS", "nue",
                "dfsssp", "sssp"}


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return None


def parse_dump_fts(text):
    """-> list of (guid, desc, lid_range_text, [entry lines]) and {guid: {lid: port}}."""
    blocks, table = [], {}
    cur = None
    for line in text.split("\n"):
        m = re.match(r"^Unicast lids \[(0x[0-9a-f]+-0x[0-9a-f]+)\] of switch (.*) guid (0x[0-9a-f]+) \((.*)\):$", line)
        if m:
            cur = [int(m.group(3), 16), m.group(4), m.group(1), []]
            blocks.append(cur)
            table[cur[0]] = {}
            continue
        m = re.match(r"^(0x[0-9a-f]{4}) (\d{3}) :", line)
        if m and cur is not None:
            cur[3].append(line)
            table[cur[0]][int(m.group(1), 16)] = int(m.group(2))
    return blocks, table


def parse_osm_lfts(text):
    table, lids = {}, {}
    cur = None
    for line in (text or "").split("\n"):
        m = re.match(r"^Unicast lids \[0-(\d+)\] of switch Lid (\d+) guid (0x[0-9a-f]+) ", line)
        if m:
            cur = int(m.group(3), 16)
            table[cur] = {}
            lids[cur] = int(m.group(2))
            continue
        m = re.match(r"^(0x[0-9a-f]{4}) (\d{3}) #", line)
        if m and cur is not None:
            table[cur][int(m.group(1), 16)] = int(m.group(2))
    return table, lids


def log_messages(log):
    """Log lines without their time stamp and thread id."""
    out = []
    for line in (log or "").split("\n"):
        m = re.match(r"^\w{3} [ \d]\d \d\d:\d\d:\d\d \d+ \[[0-9A-F]+\] 0x[0-9a-f]{2} -> (.*)$", line)
        if m:
            out.append(m.group(1))
        elif out and line and not line[0].isalpha():
            out.append(line.strip())  # continuation of a multi-line message
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fabric", required=True)
    ap.add_argument("--engine", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--seconds", required=True)
    ap.add_argument("--sim-host", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("opensm_args", nargs="*")
    a = ap.parse_args()
    tmp = a.tmp
    facts = dict(l.split("=", 1) for l in read(os.path.join(tmp, "facts")).split("\n") if "=" in l)
    blocks, fts = parse_dump_fts(read(os.path.join(tmp, "dump_fts.out")) or "")
    osm, sw_lid = parse_osm_lfts(read(os.path.join(tmp, "opensm-lfts.dump")))
    msgs = log_messages(read(os.path.join(tmp, "opensm.log")))
    fname = os.path.basename(a.fabric)
    if not blocks:
        sys.stderr.write(f"{a.fabric}: dump_fts read no forwarding table\n")
        return 1

    # OUT: switch GUID order, ibroute's header.
    lines = []
    for guid, desc, rng, entries in sorted(blocks, key=lambda b: b[0]):
        lid = sw_lid.get(guid)
        if lid is None:  # no OpenSM dump: the switch's own LID is the one its LFT sends to port 0
            own = [l for l in entries if l[7:10] == "000"]
            lid = int(own[0][:6], 16) if own else 0
        lines.append(f"Unicast lids [{rng}] of switch Lid {lid} guid 0x{guid:016x} ({desc}):")
        lines.append("  Lid  Out   Destination")
        lines.append("       Port     Info ")
        lines.extend(entries)
        lines.append(f"{len(entries)} valid lids dumped ")
    tmp_out = a.out + ".tmp"
    with open(tmp_out, "w") as f:
        f.write("\n".join(lines) + "\n")

    # Which engine configured the tables.
    used = None
    for m in msgs:
        r = re.match(r"^osm_ucast_mgr_process: (\S+) tables configured on all switches", m)
        if r:
            used = r.group(1)
    requested = [e for e in a.engine.split(",") if e and e != "no_fallback"]
    errors = []
    for m in msgs:
        if "ERR " in m or "cannot build" in m or "alling back" in m or "disabling" in m \
                or "not fat-tree" in m or "not a fat-tree" in m or "Failed" in m or "No routing engine" in m:
            if m not in errors:
                errors.append(m)
    if used is None:
        status = "failed"
    elif used in requested:
        status = "ran"
    else:
        status = "fell back"

    # Roots.
    roots = []
    updn_roots = read(os.path.join(tmp, "opensm-updn-roots.dump"))
    if updn_roots and used in ("updn", "dnup"):
        roots = [f"0x{int(l, 16):016x}" for l in updn_roots.split() if l.strip()]
    rank_info = []
    if used == "ftree":  # fabric_dump_general_info: ranks, then root and leaf switches
        for m in msgs:
            r = re.match(r"^fabric_dump_general_info:\s+(.*)$", m)
            if not r or set(r.group(1)) <= set("= "):
                continue
            line = r.group(1)
            g = re.match(r"^GUID: (0x[0-9a-f]+), LID: (\d+), Index (.*)$", line)
            if g and rank_info and rank_info[-1].startswith("- Root"):
                roots.append(f"{g.group(1)} lid {g.group(2)} index {g.group(3)}")
                continue
            if g:
                line = f"  {g.group(1)} lid {g.group(2)} index {g.group(3)}"
            rank_info.append(line)

    # LIDs: OpenSM's (guid2lid) beside the fabric file's.
    file_lid = {}
    for l in (read(os.path.join(tmp, "net.lids")) or "").split("\n"):
        p = l.split(" ", 3)
        if len(p) >= 3:
            file_lid[int(p[0], 16)] = (int(p[1]), p[2], p[3] if len(p) > 3 else "")
    osm_lid = {}
    for l in (read(os.path.join(tmp, "guid2lid")) or "").split("\n"):
        p = l.split()
        if len(p) == 3:
            osm_lid[int(p[0], 16)] = (int(p[1], 16), int(p[2], 16))
    kept = sum(1 for g, (lo, hi) in osm_lid.items() if g in file_lid and file_lid[g][0] == lo)
    lmc = 0
    if "-l" in a.opensm_args:
        lmc = int(a.opensm_args[a.opensm_args.index("-l") + 1])

    # dump_fts against OpenSM's own dump.
    agree = differ = 0
    missing = []
    for guid, t in osm.items():
        f = fts.get(guid)
        if f is None:
            missing.append(guid)
            continue
        for lid in set(t) | set(f):
            if t.get(lid) == f.get(lid):
                agree += 1
            else:
                differ += 1
    entries = sum(len(t) for t in fts.values())

    s = []
    s.append(f"fabric: {fname}")
    s.append(f"format: {facts.get('format')}")
    s.append(f"switches: {facts.get('switches')}  cas: {facts.get('cas')}  routers: {facts.get('routers')}")
    s.append(f"converter notes: {facts.get('notes') or '-'}")
    s.append(f"sm attached to: {a.sim_host} (port 1 of a CA, port 0 of a switch)")
    s.append(f"opensm options: -R {a.engine} {' '.join(a.opensm_args)}".rstrip())
    s.append(f"engine requested: {a.engine}")
    s.append(f"engine used: {used or '-'}")
    s.append(f"status: {status}")
    for e in errors:
        s.append(f"  log: {e}")
    s.append(f"lmc: {lmc}")
    for r in rank_info:
        s.append(f"  ftree: {r}")
    s.append(f"roots ({len(roots)}): " + ("" if roots else "-"))
    for r in roots:
        s.append(f"  {r}")
    s.append(f"lfts: {len(fts)} switches, {entries} valid entries read back by dump_fts; "
             f"opensm-lfts.dump: {agree} entries agree, {differ} differ"
             + (f", {len(missing)} switches missing from dump_fts" if missing else "")
             if osm else f"lfts: {len(fts)} switches, {entries} entries; no opensm-lfts.dump")
    s.append(f"lids: {len(osm_lid)} ports got LIDs; {kept} kept the fabric file's LID, "
             f"{len(osm_lid) - kept} differ")
    s.append("lid assignment (port guid, OpenSM base LID-top LID, LID in the fabric file, type, description):")
    for g in sorted(osm_lid, key=lambda g: (osm_lid[g][0], g)):
        lo, hi = osm_lid[g]
        fl = file_lid.get(g)
        s.append(f"  0x{g:016x} {lo}-{hi} file {fl[0] if fl else '-'} {fl[1] if fl else '?'} {fl[2] if fl else ''}".rstrip())
    with open(a.out + ".log-summary.tmp", "w") as f:
        f.write("\n".join(s) + "\n")
    os.replace(tmp_out, a.out)
    os.replace(a.out + ".log-summary.tmp", a.out + ".log-summary")
    print(f"{fname}\t{a.engine}\t{status}\t{used or '-'}\t{a.seconds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
