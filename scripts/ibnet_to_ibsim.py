#!/usr/bin/env python3
"""Converts an InfiniBand fabric dump into the net file ibsim (ibsim-utils) simulates.

Usage: ibnet_to_ibsim.py FABRIC NETFILE
  FABRIC: ibnetdiscover output (Switch/Ca/Rt records) or an `ibnetdiscover -p` port list
          (`CA lid port guid 4x QDR - SW lid port guid ( 'desc' - 'desc' )` lines), possibly
          gzip-compressed (.gz).
  Writes NETFILE and prints `key=value` facts on stdout (switches, cas, nodes, ports, max_lid,
  sim_host: the node whose port the subnet manager attaches to, notes: what could not be kept).

What ibsim 0.10 reads and how this file is written for it:
  - only Switch/Ca/Rt records and the lines vendid=, devid=, sysimgguid=, switchguid=, caguid=
    before them; every other line is dropped here (headers, error lines, `DR path` traces).
  - ibsim numbers GUIDs itself unless a switchguid=/caguid= line sets them: each node gets one,
    so switch GUIDs (= port GUIDs) are the real ones. ibsim gives CA port p the GUID node+p, so
    the node GUID written is (port GUID - port number) of the CA's first cabled port: port GUIDs
    stay real (they are what LIDs and forwarding tables name); a CA whose node GUID was not
    port GUID - port number gets another node GUID (listed in notes).
  - descriptions are kept, except that port lines (where ibsim reads `x=` as a port option)
    get the neighbour's description with '=' and '#' replaced; the node's own is exact.
  - LIDs and LMC of the dump are written, so the ports start with them and OpenSM keeps them
    (opensm -r reassigns).
  - speeds: SDR DDR QDR FDR10 FDR EDR HDR; NDR and XDR are written HDR (no effect on routes).
  - `-p` lists have no port count: a switch gets its highest listed port, a CA its highest
    cabled port; no vendor/device id.
Bad input (no node, a link whose ends disagree, a duplicate GUID) gives one line on stderr
naming the file and the place, exit 1, and no NETFILE.
"""
import gzip
import re
import sys

SPEEDS_KNOWN = ("SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR")
SPEED_SUBSTITUTE = {"NDR": "HDR", "XDR": "HDR"}


class FabricError(Exception):
    pass


class Node:
    def __init__(self, kind, guid):
        self.kind = kind  # 'SW', 'CA' or 'RT'
        self.guid = guid  # node GUID as read (switch: also its port GUID)
        self.nports = 0
        self.desc = ""
        self.vendid = None
        self.devid = None
        self.sysimgguid = None
        self.lid = None  # switch port 0 LID
        self.lmc = 0
        self.port0 = None  # 'enhanced' / 'base'
        self.ports = {}  # port -> dict(remote=(guidkey, port), pguid, lid, lmc, width, speed)
        self.order = 0


def open_text(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8", errors="replace").replace("\r", "").split("\n")


def parse_width_speed(text):
    m = re.search(r"\b(\d+)x([A-Za-z0-9?]+)\s*$", text.strip())
    if not m:
        return None, None
    return int(m.group(1)), m.group(2).upper()


HEADER = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-fA-F]+)"(.*)$')
PORT = re.compile(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s*"([SHR])-([0-9a-fA-F]+)"\[(\d+)\]'
                  r'(?:\(([0-9a-fA-F]+)\))?(.*)$')
ATTR = re.compile(r'^(vendid|devid|sysimgguid|switchguid|caguid|rtguid)\s*=\s*(0x[0-9a-fA-F]+|\d+)')


def parse_plain(lines, path):
    nodes = {}
    attrs = {}
    cur = None
    for no, line in enumerate(lines, 1):
        s = line.strip()
        m = ATTR.match(s)
        if m:
            attrs[m.group(1)] = int(m.group(2), 0)
            cur = None
            continue
        m = HEADER.match(s)
        if m:
            kind = {"Switch": "SW", "Ca": "CA", "Rt": "RT"}[m.group(1)]
            guid = int(m.group(4), 16)
            key = (kind, guid)
            if key in nodes:
                raise FabricError(f"{path}:{no}: node {m.group(3)}-{m.group(4)} listed twice")
            n = Node(kind, guid)
            n.nports = int(m.group(2))
            rest = m.group(5)
            dm = re.search(r'#\s*"([^"]*)"(.*)$', rest)
            tail = rest
            if dm:
                n.desc = dm.group(1)
                tail = dm.group(2)
            lm = re.search(r"\blid\s+(\d+)", tail)
            if lm:
                n.lid = int(lm.group(1))
            lm = re.search(r"\blmc\s+(\d+)", tail)
            if lm:
                n.lmc = int(lm.group(1))
            if "enhanced port 0" in tail:
                n.port0 = "enhanced"
            elif "base port 0" in tail:
                n.port0 = "base"
            n.vendid = attrs.get("vendid")
            n.devid = attrs.get("devid")
            n.sysimgguid = attrs.get("sysimgguid")
            n.order = len(nodes)
            nodes[key] = n
            attrs = {}
            cur = n
            continue
        m = PORT.match(s)
        if m and cur is not None:
            p = int(m.group(1))
            rkind = {"S": "SW", "H": "CA", "R": "RT"}[m.group(3)]
            rguid = int(m.group(4), 16)
            rport = int(m.group(5))
            tail = m.group(7)
            info = {"remote": ((rkind, rguid), rport), "pguid": None, "lid": None, "lmc": 0}
            if m.group(2):
                info["pguid"] = int(m.group(2), 16)
            if cur.kind != "SW":
                lm = re.search(r"#\s*lid\s+(\d+)(?:\s+lmc\s+(\d+))?", tail)
                if lm:
                    info["lid"] = int(lm.group(1))
                    info["lmc"] = int(lm.group(2) or 0)
            info["width"], info["speed"] = parse_width_speed(tail)
            if p in cur.ports:
                raise FabricError(f"{path}:{no}: port {p} of {m.group(0)[:40]} listed twice")
            if p < (0 if cur.kind == "SW" else 1) or p > cur.nports:
                raise FabricError(f"{path}:{no}: port {p} outside 1..{cur.nports}")
            cur.ports[p] = info
            continue
        if not s.startswith("#"):
            cur = None
    return nodes


PLINE = re.compile(r"^(CA|SW|RT)\s+(\d+)\s+(\d+)\s+0x([0-9a-fA-F]+)\s+(\d+)x\s+(\S+)"
                   r"(?:\s+-\s+(CA|SW|RT)\s+(\d+)\s+(\d+)\s+0x([0-9a-fA-F]+)\s*"
                   r"\(\s*'(.*)'\s+-\s+'(.*)'\s*\))?\s*(?:'(.*)')?\s*$")


def dr_trace_cas(lines):
    """Node GUIDs of the CAs in `DR path ... -> new Channel Adapter {GUID}` lines, in order."""
    return [int(g, 16) for g in re.findall(r"^DR path .*-> new Channel Adapter \{([0-9a-fA-F]+)\}",
                                           "\n".join(lines), re.M)]


def parse_port_list(lines, path):
    # One line per port end, both ends of a cable listed. A CA's node GUID is its port GUID
    # (QLogic) or port GUID - port number (Mellanox): the one the DR trace names, else the latter.
    dr = set(dr_trace_cas(lines))
    ends = {}
    for no, line in enumerate(lines, 1):
        s = line.strip()
        if not s or s.startswith("DR path") or s.startswith("#"):
            continue
        m = PLINE.match(s)
        if not m:
            raise FabricError(f"{path}:{no}: not a port-list line: {s[:60]}")
        kind = m.group(1)
        lid, port, pguid = int(m.group(2)), int(m.group(3)), int(m.group(4), 16)
        end = {"kind": kind, "lid": lid, "port": port, "pguid": pguid,
               "width": int(m.group(5)), "speed": m.group(6).upper(), "desc": None, "peer": None}
        if m.group(7):
            end["peer"] = (m.group(7), int(m.group(8)), int(m.group(9)), int(m.group(10), 16))
            end["desc"] = m.group(11)
            end["peer_desc"] = m.group(12)
        else:
            end["desc"] = m.group(13)
        k = (kind, pguid, port)
        if k in ends and ends[k]["peer"] != end["peer"]:
            raise FabricError(f"{path}:{no}: port {port} of 0x{pguid:016x} listed twice")
        ends[k] = end
    nodes = {}

    def node_key(kind, pguid, port):
        if kind == "SW":
            return ("SW", pguid)
        return (kind, pguid if pguid in dr and pguid - port not in dr else pguid - port)

    for (kind, pguid, port), e in sorted(ends.items(), key=lambda kv: kv[0]):
        key = node_key(kind, pguid, port)
        n = nodes.get(key)
        if n is None:
            n = Node(kind, key[1])
            n.order = len(nodes)
            nodes[key] = n
        if e["desc"] and not n.desc:
            n.desc = e["desc"]
        if kind == "SW":
            n.lid = e["lid"]
            n.nports = max(n.nports, port)
        if e["peer"] is None:
            continue
        pk, plid, pport, ppguid = e["peer"]
        n.nports = max(n.nports, port)
        info = {"remote": (node_key(pk, ppguid, pport), pport), "pguid": pguid if kind != "SW" else None,
                "lid": e["lid"] if kind != "SW" else None, "lmc": 0,
                "width": e["width"], "speed": e["speed"]}
        n.ports[port] = info
    # A peer seen only from the other side (its own line missing): make its end from ours.
    for key, n in list(nodes.items()):
        for p, info in list(n.ports.items()):
            rkey, rport = info["remote"]
            if rkey not in nodes:
                raise FabricError(f"{path}: 0x{n.guid:016x} port {p} is cabled to a node "
                                  f"with no line of its own")
    return nodes


def check_links(nodes, path):
    for key, n in nodes.items():
        for p, info in n.ports.items():
            rkey, rport = info["remote"]
            r = nodes.get(rkey)
            if r is None:
                raise FabricError(f"{path}: {key[0]} 0x{key[1]:016x} port {p} is cabled to "
                                  f"{rkey[0]} 0x{rkey[1]:016x}, which has no record")
            back = r.ports.get(rport)
            if back is None or back["remote"] != (key, p):
                raise FabricError(f"{path}: {key[0]} 0x{key[1]:016x} port {p} -> "
                                  f"0x{rkey[1]:016x} port {rport}, which does not point back")


def clean(text, on_port_line=False):
    """A description ibsim reads back whole: no double quote; on a port line also no '=' (ibsim
    takes `x=` there as a port option) and no '#'."""
    text = (text or "").replace('"', "'").strip()
    return text.replace("=", ":").replace("#", "-") if on_port_line else text


def node_id(key):
    return "%s-%016x" % ({"SW": "S", "CA": "H", "RT": "R"}[key[0]], key[1])


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: ibnet_to_ibsim.py FABRIC NETFILE\n")
        return 2
    path, out = argv[1], argv[2]
    try:
        lines = open_text(path)
    except OSError as e:
        sys.stderr.write(f"{path}: cannot read: {e.strerror}\n")
        return 1
    notes = []
    try:
        content = [l.strip() for l in lines if l.strip() and not l.startswith("DR path")]
        if any(PLINE.match(l) for l in content[:50]):
            nodes = parse_port_list(lines, path)
            fmt = "port-list"
        else:
            nodes = parse_plain(lines, path)
            fmt = "ibnetdiscover"
        if not nodes:
            raise FabricError(f"{path}: no Switch/Ca record and no port-list line")
        check_links(nodes, path)
        if not any(n.kind == "SW" for n in nodes.values()):
            raise FabricError(f"{path}: no switch: nothing to route")
        if not any(n.ports for n in nodes.values()):
            raise FabricError(f"{path}: no cable between the nodes")
    except FabricError as e:
        sys.stderr.write(f"{e}\n")
        return 1

    # Node GUIDs as ibsim will give them (CA: first cabled port's GUID - port number).
    sim_guid = {}
    moved = []
    for key, n in nodes.items():
        g = n.guid
        if n.kind != "SW":
            cabled = sorted(p for p, i in n.ports.items() if i["pguid"] is not None)
            if cabled:
                p0 = cabled[0]
                g = n.ports[p0]["pguid"] - p0
                for p in cabled[1:]:
                    if n.ports[p]["pguid"] != g + p:
                        notes.append(f"port-guid-lost:0x{n.ports[p]['pguid']:016x}->0x{g + p:016x}")
            if g != n.guid:
                moved.append(key)
        sim_guid[key] = g
    if moved:
        notes.append(f"ca-node-guid-changed:{len(moved)}")
    seen = {}
    for key, g in sim_guid.items():
        k2 = ("SW" if key[0] == "SW" else "CA/RT", g)
        if k2 in seen:
            sys.stderr.write(f"{path}: two nodes would get GUID 0x{g:016x} in ibsim\n")
            return 1
        seen[k2] = key

    subst = {}
    with_lines = []
    order = sorted(nodes.values(), key=lambda n: n.order)
    for n in order:
        key = (n.kind, n.guid)
        if n.vendid is not None:
            with_lines.append(f"vendid=0x{n.vendid:x}")
        if n.devid is not None:
            with_lines.append(f"devid=0x{n.devid:x}")
        if n.sysimgguid is not None:
            with_lines.append(f"sysimgguid=0x{n.sysimgguid:x}")
        desc = clean(n.desc) or node_id(key)
        if n.kind == "SW":
            with_lines.append(f"switchguid=0x{sim_guid[key]:x}")
            tail = f" {n.port0} port 0" if n.port0 else ""
            lid = f" lid {n.lid} lmc {n.lmc}" if n.lid is not None else ""
            with_lines.append(f'Switch\t{n.nports} "{node_id(key)}"\t# "{desc}"{tail}{lid}')
        else:
            with_lines.append(f"{'caguid' if n.kind == 'CA' else 'rtguid'}=0x{sim_guid[key]:x}")
            word = "Ca" if n.kind == "CA" else "Rt"
            with_lines.append(f'{word}\t{n.nports} "{node_id(key)}"\t# "{desc}"')
        for p in sorted(n.ports):
            info = n.ports[p]
            rkey, rport = info["remote"]
            r = nodes[rkey]
            width, speed = info["width"], info["speed"]
            if speed in SPEED_SUBSTITUTE:
                subst[speed] = subst.get(speed, 0) + 1
                speed = SPEED_SUBSTITUTE[speed]
            if speed not in SPEEDS_KNOWN or width not in (1, 2, 4, 8, 12):
                width, speed = 4, "QDR"
                subst["unknown"] = subst.get("unknown", 0) + 1
            rdesc = clean(r.desc, on_port_line=True) or node_id(rkey)
            if r.kind == "SW":
                rlid = r.lid if r.lid is not None else 0
            else:
                rlid = r.ports[rport]["lid"] or 0
            if n.kind == "SW":
                with_lines.append(f'[{p}]\t"{node_id(rkey)}"[{rport}]\t# "{rdesc}" lid {rlid} {width}x{speed}')
            else:
                lid = info["lid"] or 0
                with_lines.append(f'[{p}]\t"{node_id(rkey)}"[{rport}]\t# lid {lid} lmc {info["lmc"]} '
                                  f'"{rdesc}" lid {rlid} {width}x{speed}')
        with_lines.append("")
    for k, v in sorted(subst.items()):
        notes.append(f"speed-{k}-written-as-{SPEED_SUBSTITUTE.get(k, '4xQDR')}:{v}")

    # The SM's port: port 1 of a CA (ibsim attaches a client to a CA's port 1). The CA that ran
    # ibnetdiscover when its port 1 is cabled, else the cabled CA port 1 of lowest GUID, else
    # port 0 of the switch of lowest GUID.
    init = None
    for line in lines[:20]:
        m = re.search(r"Initiated from node ([0-9a-fA-F]+) port", line)
        if m:
            init = ("CA", int(m.group(1), 16))
    dr_cas = dr_trace_cas(lines)
    if dr_cas:
        init = ("CA", dr_cas[0])  # the first DR path line is the port that ran the discovery
        unknown = [g for g in dr_cas if ("CA", g) not in nodes]
        if unknown:
            notes.append(f"dr-trace-ca-guids-not-found:{len(unknown)}")
    sim_host = None
    if init in nodes and 1 in nodes[init].ports:
        sim_host = node_id(init)
    else:
        cands = sorted(k for k, n in nodes.items() if n.kind == "CA" and 1 in n.ports)
        if cands:
            sim_host = node_id(cands[0])
        else:  # no CA port 1 cabled: the SM runs on a switch (port 0), the lowest GUID
            sim_host = node_id(min(k for k, n in nodes.items() if n.kind == "SW"))
            notes.append("sm-on-switch")

    with open(out, "w") as f:
        f.write("\n".join(with_lines) + "\n")
    # NETFILE.lids: every port's GUID (as ibsim has it) and LID in FABRIC, for the report.
    with open(out + ".lids", "w") as f:
        rows = []
        for key, n in nodes.items():
            desc = clean(n.desc)
            if n.kind == "SW":
                rows.append((sim_guid[key], n.lid or 0, "switch", desc))
            else:
                for p, info in n.ports.items():
                    rows.append((sim_guid[key] + p, info["lid"] or 0, "ca" if n.kind == "CA" else "router", desc))
        for g, lid, kind, desc in sorted(rows):
            f.write(f"0x{g:016x} {lid} {kind} {desc}\n")
    nsw = sum(1 for n in nodes.values() if n.kind == "SW")
    nca = sum(1 for n in nodes.values() if n.kind == "CA")
    nrt = sum(1 for n in nodes.values() if n.kind == "RT")
    nports = sum(n.nports + (1 if n.kind == "SW" else 0) for n in nodes.values())
    lids = [n.lid or 0 for n in nodes.values()] + [i["lid"] or 0 for n in nodes.values() for i in n.ports.values()]
    print(f"format={fmt}")
    print(f"switches={nsw}")
    print(f"cas={nca}")
    print(f"routers={nrt}")
    print(f"nodes={len(nodes)}")
    print(f"ports={nports}")
    print(f"max_lid={max(lids)}")
    print(f"sim_host={sim_host}")
    print(f"notes={' '.join(notes)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
