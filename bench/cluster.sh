#!/usr/bin/env bash
# Mappers on real cluster fabrics (../shared/data/topologies) inside jobs drawn as a scheduler
# would: every fabric of 64 nodes or more that loads, allocations of 25% and 50% of its nodes
# drawn three ways by bench/cluster_allocations.py (contiguous in natural host-name order;
# Slurm topology/tree-like best fit by leaf switch; seeded random scatter, seed $SEED or 1), ppn=32 on
# the InfiniBand/Slurm trees and 16 on the Aries dragonflies. Patterns per allocation:
#   halo3d 27-point on the near-cubic X*Y*Z grid nearest below the job's slots (largest/smallest
#     dimension <= 2);
#   the measured 64-rank CG and AMG matrices (../shared/data/apps/maplib-64, byte volumes),
#     K = slots/64 copies (copy k's rank i is task i + 64k) joined by a ring: rank i of copy k
#     exchanges with rank i of copy k+1 (mod K) the median volume of the trace's flows.
# Per row: hostname-order, cyclic, scotch, auto (its default budget) and the candidate pipelines scotch+refine-hb,
# rb+refine-hb, rb+refine-mcl, scotch+refine-mcl (refine-mcl:work=REFINE_MCL_WORK). The
# pipelines start from scotch's and rb's placements written once by `taskmap map` (file:PATH+R),
# and the scotch row is that placement too; the seconds of scotch and rb come from a run of their own in
# the same compare, a pipeline's are the start mapper's seconds plus the refiner's. Then a summary per pipeline
# and the time of the best one on 4096 ranks (halo3d 16x16x16) over the whole of Edison (5760
# nodes, ppn=1), and auto's on 4096 ranks over Edison, Theta and a generated 10,000-node tree
# (ppn=1; Theta has fewer nodes than ranks). Rows run JOBS (default 2) at a time; a taskmap
# failure is listed with its command.
# The Aries machines have no injection/ejection channels: both MCL columns agree there, and the
# leaf-uplink volume is the volume leaving the routers that hold the job's nodes.
# Usage: bash bench/cluster.sh [TASKMAP_BINARY]   (env: JOBS, REFINE_MCL_WORK default 60, about 1 s, FABRICS regex,
#   SEED of the random allocations, default 1; PPN: slots per node on every fabric instead of 32 and 16)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/step.sh
bin=$(realpath "${1:-build/taskmap}")
data=${TASKMAP_DATA:-../shared/data}
topo=$data/topologies
apps=$data/apps/maplib-64
jobs=${JOBS:-2}
refine_work=${REFINE_MCL_WORK:-60}
seed=${SEED:-1}
only=${FABRICS:-.}  # a regular expression on the fabric names: run only those
helper=$(realpath bench/cluster_allocations.py)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -d "$topo" ] || { echo "$topo not found (needs ../shared/data)"; exit 1; }

# name | machine (without ppn) | ppn | tree (1) or dragonfly (0)
fabrics=(
  "X5 (slurm)|slurm:$topo/slurm/hpctoolset_X5.topology.conf|32|1"
  "azslurm blocks|slurm:$topo/slurm/azslurm_block_topology.txt|32|1"
  "azslurm tree|slurm:$topo/slurm/azslurm_slurm_topology.txt|32|1"
  "nstda|slurm:$topo/slurm/nstda_topology.conf|32|1"
  "X5 (ibnet)|ibnet:$topo/ibnet/hpctoolset_X5.topofile,map=$topo/ibnet/hpctoolset_X5.map|32|1"
  "topograph NDR|ibnet:$topo/ibnet/topograph_example.out.gz|32|1"
  "rocket (ibtopoweb)|ibnet:$topo/ibnet/ibtopoweb_topo|32|1"
  "avakas|ibnet:$topo/ibnet/hwloc-netloc_avakas_ib-subnet-fe80_0000_0000_0000.txt.gz|32|1"
  "plafrim|ibnet:$topo/ibnet/hwloc-netloc_plafrim_ib-subnet-fe80_0000_0000_0000.txt|32|1"
  "plafrim2|ibnet:$topo/ibnet/hwloc-netloc_plafrim2_ib-subnet-fe80_0000_0000_0000.txt|32|1"
  "plafrim2 subnet 1|ibnet:$topo/ibnet/hwloc-netloc_plafrim2_ib-subnet-fe80_0000_0000_0001.txt|32|1"
  "edison|aries:$topo/dragonfly/codes_links-edison.txt.gz|16|0"
  "theta|aries:$topo/dragonfly/codes_theta.interconnect.gz|16|0"
)
kinds=(contiguous bestfit random)
fractions=(0.25 0.5)
candidates=(scotch+refine-hb rb+refine-hb "rb+refine-mcl:work=$refine_work" "scotch+refine-mcl:work=$refine_work")

# Phase 1: allocations and patterns; one line per row of the table into $work/jobs.
row=0
for entry in "${fabrics[@]}"; do
  IFS='|' read -r name machine ppn tree <<< "$entry"
  [[ "$name" =~ $only ]] || continue
  machine="$machine,ppn=${PPN:-$ppn}"
  info=$work/info$row.json
  if ! "$bin" info --machine "$machine" --format json > "$info" 2> "$work/info.err"; then
    echo "skipped $name: taskmap info failed: $(tail -1 "$work/info.err")" >> "$work/skipped"
    continue
  fi
  hosts=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["hosts"]))' "$info")
  if [ "$hosts" -lt 64 ]; then echo "skipped $name: $hosts nodes (< 64)" >> "$work/skipped"; continue; fi
  for fraction in "${fractions[@]}"; do
    for kind in "${kinds[@]}"; do
      nodefile=$work/nodes$row.$fraction.$kind
      read -r nodes slots leaves < <(python3 "$helper" alloc "$info" "$kind" "$fraction" "$seed" "$nodefile")
      read -r x y z < <(python3 "$helper" grid "$slots")
      echo "$row|$name|$tree|$kind|$nodes|$leaves|$machine|$nodefile|halo3d ${x}x${y}x${z}|halo3d:${x}x${y}x${z},points=27|$((x * y * z))" >> "$work/jobs"
      copies=$((slots / 64))
      for app in cg amg; do
        graph=$work/$app.x$copies.edges
        [ -f "$graph" ] || python3 "$helper" replicate "$apps/$app/comm_matrix.p2p.size.csv" "$copies" "$graph" > /dev/null
        echo "$row|$name|$tree|$kind|$nodes|$leaves|$machine|$nodefile|$app x$copies ring|file:$graph,format=edges|$((64 * copies))" >> "$work/jobs"
      done
    done
  done
  row=$((row + 1))
done

# Phase 2: one row = scotch and rb placements, then one compare of all mappers (each mapper
# alone if that compare fails), as tab-separated result lines in $work/result.N.
run_row() {
  local n=$1 line=$2 idx name tree kind nodes leaves machine nodefile patname patspec ranks
  IFS='|' read -r idx name tree kind nodes leaves machine nodefile patname patspec ranks <<< "$line"
  step "cluster: row $n, $name, $kind allocation of $nodes nodes, $patname"
  local out=$work/row$n start=$SECONDS bases=() mappers=(hostname-order cyclic scotch rb auto) base refiner
  for base in scotch rb; do
    if "$bin" map --machine "$machine" --nodes "@$nodefile" --pattern "$patspec" --mapper "$base" --out-format plain --out "$out.$base" \
      > /dev/null 2> "$out.err"; then
      bases+=("$base=$out.$base")
    else
      printf 'rc %s: %s map --machine %q --nodes @%q --pattern %q --mapper %s\n%s\n' "$?" "$bin" "$machine" "$nodefile" \
        "$patspec" "$base" "$(grep -v 'warning\|^taskmap: allocation' "$out.err" | tail -3)" >> "$out.failures"
    fi
  done
  for base in scotch rb; do [ -f "$out.$base" ] && mappers+=("file:$out.$base"); done
  for refiner in "${candidates[@]}"; do
    base=${refiner%%+*}
    [ -f "$out.$base" ] && mappers+=("file:$out.$base+${refiner#*+}")
  done
  local info="$name|$tree|$kind|$nodes|$leaves|$ranks|$patname" list
  list=$(IFS=,; echo "${mappers[*]}")
  if "$bin" compare --machine "$machine" --nodes "@$nodefile" --pattern "$patspec" --mappers "$list" --format json \
    > "$out.json" 2> "$out.err"; then
    python3 "$helper" rows "$out.json" "$info" "${bases[@]}" > "$out.tsv"
  else
    printf 'rc %s: %s compare --machine %q --nodes @%q --pattern %q --mappers %q\n%s\n' "$?" "$bin" "$machine" "$nodefile" \
      "$patspec" "$list" "$(grep -v 'warning\|^taskmap: allocation\|^refine' "$out.err" | tail -3)" >> "$out.failures"
    : > "$out.tsv"
    for mapper in "${mappers[@]}"; do
      if "$bin" compare --machine "$machine" --nodes "@$nodefile" --pattern "$patspec" --mappers "$mapper" --format json \
        > "$out.json" 2> /dev/null; then
        python3 "$helper" rows "$out.json" "$info" "${bases[@]}" >> "$out.tsv"
      fi
    done
  fi
  echo "$((SECONDS - start)) s: $name, $kind, $nodes nodes, $patname ($ranks ranks)" > "$out.wall"
}
export -f run_row step
export bin work helper
export candidates_list="${candidates[*]}"
started=$SECONDS
nl -ba -w1 -s'|' "$work/jobs" | xargs -d '\n' -P "$jobs" -n 1 \
  bash -c 'set -uo pipefail; read -r -a candidates <<< "$candidates_list"; run_row "${1%%|*}" "${1#*|}"' _
elapsed=$((SECONDS - started))

# The table, in job order (rb's own row is kept only for the pipelines' seconds).
echo "# Mappers on real cluster fabrics"
echo
echo "$("$bin" --version 2>/dev/null | sed -n 1p); refine-mcl:work=$refine_work; allocation seed $seed; $jobs rows at a time; rows took ${elapsed} s"
[ -f "$work/skipped" ] && sed 's/^/- /' "$work/skipped"
echo
echo "| fabric | allocation | nodes | leaves | ranks | pattern | mapper | MCL (network links) | MCL (with injection) | hop-bytes | leaf-uplink volume | mapping s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
total=$(wc -l < "$work/jobs")
for n in $(seq 1 "$total"); do
  [ -f "$work/row$n.tsv" ] && cat "$work/row$n.tsv" >> "$work/results.tsv"
  [ -f "$work/row$n.tsv" ] && awk -F'\t' '$8 != "rb" {
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 }' \
    "$work/row$n.tsv"
done

echo
echo "## Summary (MCL = with injection; ratios to hostname-order on the same row)"
echo
python3 "$helper" summary "$work/results.tsv" | tee "$work/summary"
best=$(tail -1 "$work/summary" | awk '{ print $NF }')

echo
echo "## Slowest rows (wall seconds of the row: scotch and rb placements, then all mappers evaluated)"
# (sed -n, not head: under pipefail a reader that stops early can kill sort with SIGPIPE)
cat "$work"/row*.wall | sort -g -r | sed -n '1,8s/^/- /p'

echo
echo "## taskmap failures"
if ls "$work"/row*.failures > /dev/null 2>&1; then cat "$work"/row*.failures; else echo "none"; fi

echo
echo "## Timing: the best pipeline on 4096 ranks over the whole of Edison (5760 nodes, ppn=1)"
if [ "$best" != none ]; then
  spec=$(printf '%s\n' "${candidates[@]}" auto | grep "^$best\(:\|$\)" | sed -n 1p)
  cmd=("$bin" compare --machine "aries:$topo/dragonfly/codes_links-edison.txt.gz,ppn=1" --pattern halo3d:16x16x16,points=27 --mappers "hostname-order,$spec")
  echo '```'
  echo "$ ${cmd[*]}"
  /usr/bin/time -f "wall %e s, user %U s, sys %S s, max RSS %M KB" "${cmd[@]}" 2>&1 | grep -v '^taskmap: warning'
  echo '```'
fi

# auto (the default mapper) on 4096 ranks over the large fabrics: Edison (5,760 nodes), Theta
# (3,456 nodes: more ranks than nodes at ppn=1) and a generated tree of 10,000 nodes
# (bench/gen_slurm_tree.py), a 27-point halo and the CG trace x64; one run each, wall time and
# peak memory of the whole `taskmap map`.
echo
echo "## Timing: auto on 4096 ranks over large fabrics (ppn=1)"
echo
python3 bench/gen_slurm_tree.py -o "$work/tree10k.conf"
python3 "$helper" replicate "$apps/cg/comm_matrix.p2p.size.csv" 64 "$work/cg.x64.edges" > /dev/null
echo "| fabric | pattern | wall s | peak MB |"
echo "|---|---|---|---|"
for fabric in "Edison|aries:$topo/dragonfly/codes_links-edison.txt.gz" "Theta|aries:$topo/dragonfly/codes_theta.interconnect.gz" \
  "tree of 10,000 nodes|slurm:$work/tree10k.conf"; do
  IFS='|' read -r name machine <<< "$fabric"
  for pattern in "halo3d:16x16x16,points=27" "file:$work/cg.x64.edges,format=edges"; do
    label=${pattern%%,*}; [[ "$pattern" == file:* ]] && label="CG x64"
    if /usr/bin/time -f "%e %M" -o "$work/time" "$bin" map --machine "$machine,ppn=1" --pattern "$pattern" --out-format plain --out /dev/null \
      > /dev/null 2> "$work/map.err"; then
      read -r wall rss < "$work/time"
      echo "| $name | $label | $wall | $((rss / 1024)) |"
    else
      echo "| $name | $label | failed: $(tail -1 "$work/map.err") | |"
    fi
  done
done
