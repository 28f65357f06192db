#!/usr/bin/env bash
# Runs two taskmap binaries on the same matrix of machines, patterns, routings and mappers and
# prints every row whose metrics differ (JSON of `compare`, timings removed; an old binary's
# JSON shape is brought to today's first). For refactors that
# must not change results: `bash bench/same_results.sh OLD/taskmap NEW/taskmap`. Every mapper's
# result is deterministic (refine-mcl and rahtm have work budgets, not time limits). Binaries
# from before the work budgets need REFINE='refine-mcl:seconds=600,regions=20' (a time
# budget their search never reaches) on both sides.
# Usage: bash bench/same_results.sh OLD NEW
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/step.sh
old=$(realpath "$1")
new=$(realpath "$2")
data=../shared/data
refine=${REFINE:-refine-mcl:regions=20}
general="default,random:seed=4,cyclic,scotch,metis,metis:assign=identity,greedy,rb,rb:tries=4,refine-hb,$refine,scotch+refine-hb,scotch+timer+refine-hb,rb+refine-hb"
# machine | pattern | routing (empty: default) | mappers
cases=(
  "torus:4x4x4|halo3d:4x4x4|minimal|$general,order:CBAT,rahtm,hilbert,timer"
  "torus:4x4x4|halo3d:4x4x4|dor|$general,rahtm"
  "mesh:4x4x4|npb-cg:64|minimal|$general,rahtm,timer,scotch+timer"
  "mesh:4x4x4|npb-cg:64|dor|$general,rahtm"
  "torus:4x4x4x4x2,ppn=4|npb-bt:256||default,order:TEDCBA,hilbert,rahtm:beam=16,scotch,greedy,rb"
  "torus:4x4x4x4x2,ppn=2|npb-cg:128||default,rubik-tiling:grid=8x16,rahtm:beam=16,scotch+refine-hb"
  "hypercube:d=6|transpose:8x8||$general,timer"
  "torus:8x8|halo2d:20x20||default,scotch,metis,greedy,rb,scotch+timer,scotch+refine-hb"
  "dragonfly:p=2,a=4,h=2|halo2d:8x9||default,dragonfly-bsm,$refine,scotch"
  "dragonfly:p=4,a=6,h=3|halo2d:12x12||default,dragonfly-bbac,dragonfly-bbac:colors=n"
  "dragonfly:p=2,a=4,h=2|halo2d:8x9|valiant|default,dragonfly-bsm,$refine"
  "dragonfly:p=2,a=4,h=2|halo2d:8x9|ugal|default,dragonfly-bsm,$refine"
  "percs:ns=32,nd=4|transpose:64x64||default,percs-transpose:layout=row,percs-transpose:layout=hybrid"
  "percs:ns=32,nd=4|halo2d:64x64|indirect|default,percs-block:level=drawer,percs-modcolor"
  "rtt:a=8,c=2|localmix:16x16,alpha=0.5||default,rtt-map:f=diag,conc=v2,rtt-map:f=id,conc=v2,$refine"
  "fattree:k=4,n=3|halo2d:8x8||default,cyclic:stride=4,$refine"
)
if [ -d "$data/apps" ]; then
  cases+=("mesh:4x4x4|file:$data/apps/maplib-64/cg/comm_matrix.p2p.size.csv|dor|$general,rahtm")
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for c in "${cases[@]}"; do
  IFS='|' read -r machine pattern routing mappers <<< "$c"
  step "same_results: $machine $pattern ${routing:-default routing}"
  args=(compare --machine "$machine" --pattern "$pattern" --mappers "$mappers" --format json)
  [ -n "$routing" ] && args+=(--routing "$routing")
  "$old" "${args[@]}" > "$work/old.json" 2> "$work/old.err" || { echo "FAILED    old: $(tail -1 "$work/old.err")"; status=1; continue; }
  "$new" "${args[@]}" > "$work/new.json" 2> "$work/new.err" || { echo "FAILED    new: $(tail -1 "$work/new.err")"; status=1; continue; }
  # Rows whose metrics differ: mapper, then MCL and hop-bytes old -> new.
  python3 - "$work/old.json" "$work/new.json" "$machine $pattern ${routing:-default}" <<'PY' || status=1
import json, sys
old, new = (json.load(open(f)) for f in sys.argv[1:3])
def one_shape(row):
    """Rows of binaries before the one JSON shape: classes as a list plus mcl_by_class,
    bottleneck_class a comma string."""
    if isinstance(row.get("classes"), list):
        row["classes"] = {c.pop("class"): c for c in row["classes"]}
    if isinstance(row.get("bottleneck_class"), str):
        row["bottleneck_class"] = [c for c in row["bottleneck_class"].split(",") if c]
    row.pop("mcl_by_class", None)
    return row
differ = []
for a, b in zip(old["rows"], new["rows"]):
    a, b = one_shape(a), one_shape(b)
    a.pop("mapping_seconds", None); b.pop("mapping_seconds", None)
    # Metrics the old binary did not report yet are not differences.
    b = {k: v for k, v in b.items() if k in a}
    if a != b:
        differ.append(f"    {a['mapper']:<44} MCL {a['mcl']:.6g} -> {b['mcl']:.6g}, hop-bytes {a['hop_bytes']:.6g} -> {b['hop_bytes']:.6g}")
# Keys the old binary did not print yet (units, baselines, recommendation) are not differences.
same = not differ and len(old["rows"]) == len(new["rows"]) and all(new.get(k) == v for k, v in old.items() if k != "rows")
print(("same      " if same else "DIFFERENT ") + sys.argv[3])
print("\n".join(differ)) if differ else None
sys.exit(0 if same else 1)
PY
done
exit $status
