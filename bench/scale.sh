#!/usr/bin/env bash
# Million-rank jobs, old binary against new in one run: the 7-point stencil halo3d:128x128x64
# (1,048,576 tasks) on torus:32x32x32,ppn=32 evaluated under the default and a random
# placement (minimal routing and dor), mapped by rb and scotch; RAHTM on a 4,096-node BG/Q
# partition (torus:8x4x4x16x2,ppn=4) with a 16K-rank stencil and CG; `info` on machines of
# 10^6 routers and more. Each row: wall and CPU seconds (user + sys, all threads) and peak
# memory, the figures /usr/bin/time reads (bench/measure.py, to the millisecond), a run
# stopped at TIMEOUT seconds shown as "> TIMEOUT".
# Then the evaluator's targets, from the new binary's rows (ratios to the default placement's
# evaluation in the same run; flow-hops = router pairs x hop distance, from `eval --format
# json`; per core = per CPU second), and the same three evaluations at 16K, 131K and 1M tasks
# (machines growing with the job, 32 tasks per router), plotted as CPU time against tasks and
# against channel-load additions: scale.svg in OUT.
# Usage: bash bench/scale.sh OLD_BINARY NEW_BINARY
#   env: TIMEOUT (default 300 s per command), OUT (default bench-scale-out, for scale.svg and
#   the JSON of every evaluation), ROWS (a regular expression on the case names: run only those)
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1")
new=$(realpath "$2")
timeout_s=${TIMEOUT:-300}
out=${OUT:-bench-scale-out}
only=${ROWS:-.}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

big_machine=torus:32x32x32,ppn=32
big_pattern=halo3d:128x128x64
bgq=torus:8x4x4x16x2,ppn=4
# name | taskmap arguments (OUTFILE: a placement file of the run's own)
cases=(
  "eval default, minimal|eval --machine $big_machine --pattern $big_pattern --mapper default --format json"
  "eval default, dor|eval --machine $big_machine --pattern $big_pattern --mapper default --routing dor --format json"
  "eval random, dor|eval --machine $big_machine --pattern $big_pattern --mapper random --routing dor --format json"
  "eval random, minimal|eval --machine $big_machine --pattern $big_pattern --mapper random --format json"
  "map rb|map --machine $big_machine --pattern $big_pattern --mapper rb --out OUTFILE"
  "map scotch|map --machine $big_machine --pattern $big_pattern --mapper scotch --out OUTFILE"
  "rahtm 4096 nodes, halo3d 27-point|map --machine $bgq --pattern halo3d:32x32x16,points=27 --mapper rahtm --out OUTFILE"
  "rahtm 4096 nodes, npb-cg|map --machine $bgq --pattern npb-cg:16384 --mapper rahtm --out OUTFILE"
  "info dragonfly:p=100,a=100,h=100|info --machine dragonfly:p=100,a=100,h=100"
  "info torus:2048x2048|info --machine torus:2048x2048"
)
# The evaluations at three job sizes: tasks | machine | pattern
sizes=(
  "16384|torus:8x8x8,ppn=32|halo3d:32x32x16"
  "131072|torus:16x16x16,ppn=32|halo3d:64x64x32"
  "1048576|$big_machine|$big_pattern"
)
placements=("default|minimal" "random|dor" "random|minimal")

# Runs one binary; prints "wall cpu peak_MB status" and leaves its stdout in $3.
measure() {  # binary args stdout_file
  local bin=$1 args=$2 stdout=$3 placement=$work/placement.$RANDOM
  args=${args//OUTFILE/$placement}
  # shellcheck disable=SC2086  # the arguments are split on purpose
  python3 bench/measure.py "$timeout_s" "$stdout" "$bin" $args
  rm -f "$placement"
}
cell() {  # seconds status -> "12.3", "> 12.3" (stopped at the timeout: at least) or "failed"
  case $2 in
    ok) printf "%.3g" "$1" ;;
    timeout) printf "> %.3g" "$1" ;;
    *) printf "failed" ;;
  esac
}

echo "# Million-rank jobs: old and new taskmap side by side"
echo
echo "old: $old ($("$old" --version 2>/dev/null | sed -n 1p))"
echo "new: $new ($("$new" --version 2>/dev/null | sed -n 1p))"
echo "$(nproc) cores; load at start: $(uptime | sed 's/.*load average: //'); timeout $timeout_s s per command"
echo
echo "| case | old wall s | old CPU s | old peak MB | new wall s | new CPU s | new peak MB | old / new wall | same result |"
echo "|---|---|---|---|---|---|---|---|---|"
row=0
for entry in "${cases[@]}"; do
  IFS='|' read -r name args <<< "$entry"
  [[ "$name" =~ $only ]] || continue
  read -r ow oc om os < <(measure "$old" "$args" "$work/old.out")
  read -r nw nc nm ns < <(measure "$new" "$args" "$work/new.out")
  cp "$work/new.out" "$out/row$row.new.out"
  echo "$name|$nw|$nc|$ns" >> "$work/rows"
  same=-
  if [[ "$args" == eval* ]] && [ "$os" = ok ] && [ "$ns" = ok ]; then
    # The MCL of both to 12 digits (the new evaluator sums large jobs in another order).
    same=$(python3 -c 'import json, sys
a, b = (json.load(open(f))["mcl"] for f in sys.argv[1:])
print("yes" if abs(a - b) <= 1e-12 * max(abs(a), abs(b)) else f"no: MCL {a!r} vs {b!r}")' "$work/old.out" "$work/new.out")
  fi
  ratio=-
  [ "$os" = ok ] && [ "$ns" = ok ] && ratio=$(printf "%.1f" "$(echo "$ow / $nw" | bc -l)")
  [ "$os" = timeout ] && [ "$ns" = ok ] && ratio="> $(printf "%.0f" "$(echo "$ow / $nw" | bc -l)")"
  echo "| $name | $(cell "$ow" "$os") | $(cell "$oc" "$os") | $om | $(cell "$nw" "$ns") | $(cell "$nc" "$ns") | $nm | $ratio | $same |"
  row=$((row + 1))
done
echo
echo "load at the end of the table: $(uptime | sed 's/.*load average: //')"

# The evaluator's targets, from the new binary's rows of the table.
echo
echo "## Evaluator targets (new binary; ratios to 'eval default, minimal' of this run)"
echo
python3 - "$work/rows" "$out" <<'PY'
import json, sys
rows = {}
for i, line in enumerate(open(sys.argv[1])):
    name, wall, cpu, status = line.rstrip("\n").split("|")
    rows[name] = (float(wall), float(cpu), status, f"{sys.argv[2]}/row{i}.new.out")
base = rows.get("eval default, minimal")
targets = {"eval random, dor": 5, "eval random, minimal": 10}
print("| case | flow-hops | channel-load additions | wall s | CPU s | wall / default | CPU / default | target | flow-hops per CPU s | additions per CPU s |")
print("|---|---|---|---|---|---|---|---|---|---|")
for name in ("eval default, minimal", "eval default, dor", "eval random, dor", "eval random, minimal"):
    if name not in rows or rows[name][2] != "ok" or not base or base[2] != "ok":
        continue
    wall, cpu, _, path = rows[name]
    j = json.load(open(path))
    hops, adds = j["router_pair_hops"], j["channel_updates"]
    target = f"<= {targets[name]}x" if name in targets else ""
    print(f"| {name} | {hops:.3g} | {adds:.3g} | {wall:.2f} | {cpu:.2f} | {wall / base[0]:.1f} | {cpu / base[1]:.1f} | "
          f"{target} | {hops / cpu:.3g} | {adds / cpu:.3g} |")
print()
print("Per CPU second of the whole process (pattern, machine, placement and evaluation), so a lower bound on the")
print("evaluator's own rate; CPU seconds are summed over the threads (per core).")
PY

# The same evaluations at three job sizes, for the plot.
echo
echo "## Evaluations at 16K, 131K and 1M tasks (32 tasks per router)"
echo
echo "| tasks | placement | routing | old CPU s | new wall s | new CPU s | new peak MB | flow-hops | channel-load additions |"
echo "|---|---|---|---|---|---|---|---|---|"
: > "$work/points"
for size in "${sizes[@]}"; do
  IFS='|' read -r tasks machine pattern <<< "$size"
  for p in "${placements[@]}"; do
    IFS='|' read -r placement routing <<< "$p"
    [[ "eval $placement, $routing" =~ $only ]] || continue
    args="eval --machine $machine --pattern $pattern --mapper $placement --routing $routing --format json"
    read -r ow oc om os < <(measure "$old" "$args" "$work/old.out")
    read -r nw nc nm ns < <(measure "$new" "$args" "$work/new.out")
    cp "$work/new.out" "$out/eval-$tasks-$placement-$routing.json"
    read -r hops adds < <(python3 -c 'import json, sys
j = json.load(open(sys.argv[1])); print(j["router_pair_hops"], j["channel_updates"])' "$work/new.out" 2>/dev/null || echo "- -")
    echo "| $tasks | $placement | $routing | $(cell "$oc" "$os") | $(cell "$nw" "$ns") | $(cell "$nc" "$ns") | $nm | $hops | $adds |"
    echo "$tasks $placement $routing $oc $os $nc $ns $adds" >> "$work/points"
  done
done
echo
echo "load at the end: $(uptime | sed 's/.*load average: //')"
python3 bench/scale_plot.py "$work/points" "$timeout_s" "$out/scale.svg"
echo "plot: $out/scale.svg"
