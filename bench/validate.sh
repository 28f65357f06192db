#!/usr/bin/env bash
# taskmap's congestion model against SimGrid (Debian libsimgrid-dev): for each machine and
# pattern, `taskmap validate` replays one iteration of every mapping under smpirun and sets
# SimGrid's simulated time beside taskmap's prediction (MCL x bytes / link bandwidth + the
# longest path's latency, under the single-path routing SimGrid follows). Prints the tables,
# then per machine the Spearman rank correlation over all its rows (target: >= 0.9)
# and over each pattern's rows, and the simulated / predicted ratios; the same for taskmap's
# max-min fluid model (max_min_s), which refines the MCL bound.
# Usage: bash bench/validate.sh [path/to/taskmap] [refine-mcl work budget, default 200]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/step.sh
bin=${1:-./build/taskmap}
refine_work=${2:-200}
data=../shared/data/apps/maplib-64
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v smpirun > /dev/null || { echo "smpirun not found: apt install libsimgrid-dev"; exit 1; }

run() {  # machine label pattern bytes-per-unit mappers
  local out="$work/$(echo "$2 $3" | tr -c 'A-Za-z0-9' _).json"
  step "validate: $3 on $1"
  "$bin" validate --machine "$1" --pattern "$3" --bytes-per-unit "$4" --mappers "$5" --format json > "$out"
  python3 - "$out" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(f"== {sys.argv[2]}: {j['pattern'].split('/')[-2] if '/' in j['pattern'] else j['pattern']} on {j['machine']} "
      f"({j['routing']}, SimGrid {j['platform']}), Spearman {j['spearman'] if j['spearman'] is None else round(j['spearman'], 3)}")
for r in j["rows"]:
    mm = "-" if r["max_min_s"] is None else f"{r['max_min_s']:.5g}"
    mr = "-" if r["ratio_max_min"] is None else f"{r['ratio_max_min']:.3f}"
    print(f"   {r['mapper']:<26} MCL {r['mcl']:<10.4g} predicted {r['predicted_s']:<11.5g} max-min {mm:<11} "
          f"simulated {r['simulated_s']:<11.5g} ratio {r['ratio']:.3f} (max-min {mr})")
PY
}

apps() {  # machine label mappers
  for app in amg cg; do
    if [ -f "$data/$app/comm_matrix.p2p.size.csv" ]; then
      run "$1" "$2" "file:$data/$app/comm_matrix.p2p.size.csv" 1 "$3"
    else
      echo "== $2: $app skipped ($data not found)"
    fi
  done
}

opt="refine-mcl:work=$refine_work"
m="default,random:seed=1,order:BAT,cyclic:stride=16,$opt"
for p in halo2d:16x16 halo3d:8x8x4 transpose:16x16; do run torus:16x16 "2D torus" $p 1e6 "$m"; done
apps torus:16x16 "2D torus" "$m"

m="default,random:seed=1,order:EDCBAT,order:ACEBDT,$opt"
for p in halo2d:16x32 halo3d:8x8x8 transpose:16x32; do run torus:4x4x4x4x2 "5D torus" $p 1e6 "$m"; done
apps torus:4x4x4x4x2 "5D torus" "$m"

m="default,random:seed=1,cyclic:stride=2,cyclic:stride=12,$opt"
for p in halo2d:12x19 halo3d:6x6x6 transpose:15x15; do run dragonfly:p=2,a=6,h=3 Dragonfly $p 1e6 "$m"; done
apps dragonfly:p=2,a=6,h=3 Dragonfly "$m"

m="default,random:seed=1,cyclic:stride=4,cyclic:stride=16,$opt"
for p in halo2d:16x16 halo3d:8x8x4 transpose:16x16; do run fattree:k=4,n=4 "fat-tree" $p 1e6 "$m"; done
apps fattree:k=4,n=4 "fat-tree" "$m"

python3 - "$work" <<'PY'
import glob, json, math, statistics, sys
def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i]); r = [0.0] * len(v); i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]: j += 1
        for k in range(i, j + 1): r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r
def spearman(a, b):
    ra, rb = ranks(a), ranks(b); ma, mb = statistics.mean(ra), statistics.mean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra); vb = sum((y - mb) ** 2 for y in rb)
    return cov / math.sqrt(va * vb) if va and vb else float('nan')
machines = {}
for path in sorted(glob.glob(sys.argv[1] + "/*.json")):
    j = json.load(open(path))
    machines.setdefault(j["machine"], []).append(j)
print("\n== summary per machine: Spearman over all rows (target >= 0.9); per pattern; simulated / predicted")
for machine, runs in machines.items():
    rows = [r for j in runs for r in j["rows"]]
    pooled = spearman([r["predicted_s"] for r in rows], [r["simulated_s"] for r in rows])
    name = lambda j: j["pattern"].split("/")[-2] if "/" in j["pattern"] else j["pattern"].split(":")[0]
    per = [(name(j), j["spearman"]) for j in runs]
    ratios = [r["ratio"] for r in rows]
    fluid = [r for r in rows if r["max_min_s"] is not None]
    mm = spearman([r["max_min_s"] for r in fluid], [r["simulated_s"] for r in fluid]) if len(fluid) > 1 else float("nan")
    mm_ratios = [r["ratio_max_min"] for r in fluid] or [float("nan")]
    print(f"{machine:<24} rows {len(rows):3d}  Spearman {pooled:.3f}  per pattern "
          + " ".join(f"{n} " + ("n/a" if s is None else f"{s:.2f}") for n, s in per)
          + f"  ratio {min(ratios):.3f}-{max(ratios):.3f} (median {statistics.median(ratios):.3f})"
          + f"\n{'':<24} max-min model ({len(fluid)} rows up to {4096} flows): Spearman {mm:.3f}, "
          + f"ratio {min(mm_ratios):.3f}-{max(mm_ratios):.3f}")
PY
