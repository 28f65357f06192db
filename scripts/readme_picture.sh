#!/usr/bin/env bash
# Redraws docs/images/cluster-tree-loads.png, the README's picture: the switch-tree pictures of
# the HTML report of `taskmap compare --report` (the launchers' block order and auto on 22 nodes
# of a real cluster's Slurm tree, a 27-point halo), cut out of the report with its colour scale
# and recommendation, and rendered by headless Chromium.
# Usage: scripts/readme_picture.sh [TASKMAP_BINARY]   (default build/taskmap; needs ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/taskmap}
D=../shared/data/topologies
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" compare --machine slurm:$D/slurm/hpctoolset_X5.topology.conf \
  --nodes 'sl390lin[1-5,7-11,13-18],r422node[1-2,5-8]' \
  --node-topology hwloc:$D/hwloc/hwloc-netloc_avakas_node001.xml \
  --pattern halo3d:8x8x4,points=27 --mappers hostname-order,auto --report "$work/report.html" 2>/dev/null
python3 - "$work/report.html" "$work/front.html" <<'EOF'
import re, sys
s = open(sys.argv[1]).read()
style = re.search(r'<style>.*?</style>', s, re.S).group(0)
rec = re.search(r'<p class="recommendation">.*?</p>', s, re.S).group(0)
legend = re.search(r'<div class="legend">.*?</div>', s, re.S).group(0)
# Each placement's heading and tree picture, without its histograms.
cols = re.findall(r'<div class="column">(.*?)<h3>Channels per utilization', s, re.S)
assert len(cols) == 2, "expected the baseline's and auto's pictures"
page = ('<!DOCTYPE html><html><head><meta charset="utf-8">' + style +
        '<style>body{margin:10px;width:910px} h2{margin:10px 0 2px 0;font-size:1.2em} h3{display:none} '
        'p{margin:4px 0} .recommendation{font-size:1.05em}</style></head><body>\n' +
        rec + legend + cols[0] + cols[1] + '</body></html>')
open(sys.argv[2], 'w').write(page)
EOF
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=930,922 \
  --screenshot="$PWD/docs/images/cluster-tree-loads.png" "file://$work/front.html" 2>/dev/null
ls -l docs/images/cluster-tree-loads.png
