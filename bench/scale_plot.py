#!/usr/bin/env python3
"""The plot of bench/scale.sh, an SVG written here (no plotting library): CPU seconds of each
evaluation against tasks, old binary dashed and new solid (a run stopped at the timeout drawn
hollow, at the CPU seconds it had had: a lower bound), and the new binary's CPU seconds
against the channel-load additions it made; both log-log, with a dotted line of slope 1
(linear growth).

Usage: scale_plot.py POINTS TIMEOUT OUT.svg, POINTS holding lines
"tasks placement routing old_cpu old_status new_cpu new_status additions"."""
import math
import sys

COLORS = {"default minimal": "#1b9e77", "random dor": "#d95f02", "random minimal": "#7570b3"}
W, H, M = 460, 340, 60  # panel size and margin


def read(path):
    points = []
    for line in open(path):
        tasks, placement, routing, old_cpu, old_status, new_cpu, new_status, additions = line.split()
        points.append({"tasks": int(tasks), "case": f"{placement} {routing}", "old": float(old_cpu),
                       "old_status": old_status, "new": float(new_cpu), "new_status": new_status,
                       "additions": float(additions) if additions != "-" else None})
    return points


def decades(lo, hi):
    return range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)


class Panel:
    def __init__(self, x0, xs, ys, xlabel, ylabel, title):
        self.x0, self.out = x0, []
        self.xd = list(decades(min(xs), max(xs)))
        self.yd = list(decades(min(ys), max(ys)))
        self.out.append(f'<text x="{x0 + W / 2}" y="20" text-anchor="middle" font-weight="bold">{title}</text>')
        self.out.append(f'<rect x="{x0 + M}" y="{M / 2}" width="{W - 1.5 * M}" height="{H - 1.5 * M}" fill="none" stroke="#444"/>')
        for d in self.xd:
            x = self.x(10.0 ** d)
            self.out.append(f'<line x1="{x}" y1="{M / 2}" x2="{x}" y2="{H - M}" stroke="#ddd"/>')
            self.out.append(f'<text x="{x}" y="{H - M + 16}" text-anchor="middle">1e{d}</text>')
        for d in self.yd:
            y = self.y(10.0 ** d)
            self.out.append(f'<line x1="{x0 + M}" y1="{y}" x2="{x0 + W - M / 2}" y2="{y}" stroke="#ddd"/>')
            self.out.append(f'<text x="{x0 + M - 6}" y="{y + 4}" text-anchor="end">1e{d}</text>')
        self.out.append(f'<text x="{x0 + W / 2}" y="{H - 14}" text-anchor="middle">{xlabel}</text>')
        self.out.append(f'<text x="{x0 + 14}" y="{H / 2}" text-anchor="middle" '
                        f'transform="rotate(-90 {x0 + 14} {H / 2})">{ylabel}</text>')

    def x(self, v):
        lo, hi = self.xd[0], self.xd[-1]
        return self.x0 + M + (math.log10(v) - lo) / max(hi - lo, 1) * (W - 1.5 * M)

    def y(self, v):
        lo, hi = self.yd[0], self.yd[-1]
        return H - M - (math.log10(v) - lo) / max(hi - lo, 1) * (H - 1.5 * M)

    def line(self, pts, color, dash=""):
        if len(pts) > 1:
            path = " ".join(f"{self.x(a):.1f},{self.y(b):.1f}" for a, b in pts)
            self.out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2" {dash}/>')

    def dot(self, a, b, color, hollow=False):
        fill = "white" if hollow else color
        self.out.append(f'<circle cx="{self.x(a):.1f}" cy="{self.y(b):.1f}" r="4" fill="{fill}" stroke="{color}"/>')

    def slope_one(self, a, b):
        """A dotted line of slope 1 through (a, b), across the panel."""
        lo, hi = 10.0 ** self.xd[0], 10.0 ** self.xd[-1]
        ylo, yhi = 10.0 ** self.yd[0], 10.0 ** self.yd[-1]
        pts = [(max(lo, a * ylo / b), max(ylo, b * lo / a)), (min(hi, a * yhi / b), min(yhi, b * hi / a))]
        self.line(pts, "#888", 'stroke-dasharray="2,4"')


def main():
    points, timeout, svg = read(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
    ok = [p for p in points if p["new_status"] == "ok"]
    if not ok:
        open(svg, "w").write('<svg xmlns="http://www.w3.org/2000/svg"/>\n')
        return
    times = [p["new"] for p in ok] + [p["old"] for p in points if p["old_status"] in ("ok", "timeout")]
    left = Panel(0, [p["tasks"] for p in points], [max(t, 1e-2) for t in times], "tasks",
                 "CPU seconds (user + sys)", "eval: CPU time against tasks")
    with_adds = [p for p in ok if p["additions"]]
    right = Panel(W + 20, [p["additions"] for p in with_adds] or [1, 10], [max(p["new"], 1e-2) for p in with_adds] or [1, 10],
                  "channel-load additions", "CPU seconds (user + sys)", "new: CPU time against additions")
    legend = []
    for i, (case, color) in enumerate(COLORS.items()):
        mine = sorted((p for p in points if p["case"] == case), key=lambda p: p["tasks"])
        new = [(p["tasks"], max(p["new"], 1e-2)) for p in mine if p["new_status"] == "ok"]
        old = [(p["tasks"], max(p["old"], 1e-2), p["old_status"] != "ok") for p in mine if p["old_status"] in ("ok", "timeout")]
        left.line(new, color)
        left.line([(a, b) for a, b, _ in old], color, 'stroke-dasharray="6,4"')
        for a, b in new:
            left.dot(a, b, color)
        for a, b, stopped in old:
            left.dot(a, b, color, hollow=stopped)
        adds = sorted((p["additions"], max(p["new"], 1e-2)) for p in mine if p["new_status"] == "ok" and p["additions"])
        right.line(adds, color)
        for a, b in adds:
            right.dot(a, b, color)
        legend.append(f'<line x1="{M + 10}" y1="{H + 12 + 16 * i}" x2="{M + 40}" y2="{H + 12 + 16 * i}" stroke="{color}" stroke-width="2"/>'
                      f'<text x="{M + 46}" y="{H + 16 + 16 * i}">{case}</text>')
    base = sorted((p for p in ok if p["case"] == "default minimal"), key=lambda p: p["tasks"])
    if base:
        left.slope_one(base[-1]["tasks"], max(base[-1]["new"], 1e-2))
    if with_adds:
        top = max(with_adds, key=lambda p: p["additions"])
        right.slope_one(top["additions"], max(top["new"], 1e-2))
    legend.append(f'<text x="{W + 40}" y="{H + 16}">solid: new binary; dashed: old (hollow: stopped after {timeout:g} s wall)</text>')
    legend.append(f'<text x="{W + 40}" y="{H + 32}">dotted: slope 1 (time proportional)</text>')
    body = "\n".join(left.out + right.out + legend)
    open(svg, "w").write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * W + 20}" height="{H + 70}" '
                         f'font-family="sans-serif" font-size="12">\n<rect width="100%" height="100%" fill="white"/>\n'
                         f'{body}\n</svg>\n')


main()
