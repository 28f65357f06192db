#!/usr/bin/env bash
# The MPI reorder library's plan at the sizes jobs have (docs/mpi.md, "The time limit"), measured
# with `taskmap reorder-plan`, which runs the library's planning on one core without MPI.
# Rows: two real Aries fabrics of ../shared/data/topologies/dragonfly (Edison, 16 ranks per node;
# Theta, 64) and a real InfiniBand tree (Avakas, 32; its 281 nodes hold the 4,096-rank rows only)
# x 4,096, 16,384 and 65,536 ranks x two graphs: a 27-point halo (MPI_Dist_graph_create
# of a 3D stencil), and the measured 64-rank CG matrix of ../shared/data/apps/maplib-64 replicated
# to size (bench/cluster_allocations.py replicate: copies joined by a ring). The job's nodes are a
# random sample of the fabric's (seed 1), in host-name order, the launchers' block order.
# Per row: the plan at the default limit (10 s: auto:work=140) with one worker up to 16,384
# ranks and one per node above (as the library's planning processes; at most 16 get jobs, so
# --workers 16 is the plan of any more), its seconds on one core (all workers' jobs in turn) and
# the busiest worker's, the identity order's MCL and the plan's; with OFFLINE=1 (the default)
# also offline auto's (no work limit, one worker) and its seconds, and the plan's share of
# auto's MCL reduction.
# Usage: bash bench/reorder.sh [TASKMAP_BINARY]   (env SIZES="4096 16384 65536", OFFLINE=0|1,
#        SECONDS_LIMIT=10)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/taskmap}")
data=../shared/data
sizes=${SIZES:-4096 16384 65536}
offline=${OFFLINE:-1}
limit=${SECONDS_LIMIT:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
helper=bench/cluster_allocations.py
for f in "$data/topologies/dragonfly/codes_links-edison.txt.gz" "$data/topologies/dragonfly/codes_theta.interconnect.gz" \
         "$data/topologies/ibnet/hwloc-netloc_avakas_ib-subnet-fe80_0000_0000_0000.txt.gz" \
         "$data/apps/maplib-64/cg/comm_matrix.p2p.size.csv"; do
  [ -f "$f" ] || { echo "bench/reorder.sh: $f is missing (../shared/data)" >&2; exit 1; }
done

halo_of() {  # ranks -> a 27-point halo of that size
  case $1 in
    4096) echo "halo3d:16x16x16,points=27" ;;
    16384) echo "halo3d:32x32x16,points=27" ;;
    65536) echo "halo3d:64x32x32,points=27" ;;
    *) echo "bench/reorder.sh: no halo for $1 ranks" >&2; exit 1 ;;
  esac
}

seconds_of() {  # the "planned in S s" of reorder-plan's stderr
  sed -n 's/^planned in \([0-9.]*\) s.*/\1/p' "$1"
}

busiest_of() {  # the largest of "the mapper's N workers: S S ... s", else the plan's seconds
  local line
  line=$(sed -n "s/^the mapper's [0-9]* workers: \(.*\) s$/\1/p" "$1")
  if [ -z "$line" ]; then seconds_of "$1"; else tr ' ' '\n' <<< "$line" | sort -g | tail -1; fi
}

printf '| fabric | ranks | nodes | graph | workers | plan s | busiest worker s | MCL identity | MCL plan | MCL auto | auto s | share of auto |\n'
printf '|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for fabric in "edison aries:$data/topologies/dragonfly/codes_links-edison.txt.gz 16" \
              "theta aries:$data/topologies/dragonfly/codes_theta.interconnect.gz 64" \
              "avakas ibnet:$data/topologies/ibnet/hwloc-netloc_avakas_ib-subnet-fe80_0000_0000_0000.txt.gz 32"; do
  read -r name file ppn <<< "$fabric"
  machine="$file,ppn=$ppn"
  "$bin" info --format json --machine "$machine" > "$work/$name.json" 2> "$work/info.err"  # its warnings: the fabric's own
  hosts=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["hosts"]))' "$work/$name.json")
  for ranks in $sizes; do
    nodes=$((ranks / ppn))
    if [ "$nodes" -gt "$hosts" ]; then continue; fi
    python3 "$helper" alloc "$work/$name.json" random "$(python3 -c "print($nodes / $hosts)")" 1 "$work/nodes.txt" > /dev/null
    python3 "$helper" replicate "$data/apps/maplib-64/cg/comm_matrix.p2p.size.csv" $((ranks / 64)) "$work/cg.edges" > /dev/null
    for graph in "halo27 $(halo_of "$ranks")" "cg-x$((ranks / 64)) file:$work/cg.edges,format=edges"; do
      read -r label pattern <<< "$graph"
      args=(--machine "$machine" --nodes "@$work/nodes.txt" --pattern "$pattern")
      workers=1
      if [ "$ranks" -gt 16384 ]; then workers=$((nodes < 16 ? nodes : 16)); fi
      "$bin" reorder-plan "${args[@]}" --seconds "$limit" --workers "$workers" --report "$work/plan.json" 2> "$work/plan.err"
      plan_s=$(seconds_of "$work/plan.err")
      busiest=$(busiest_of "$work/plan.err")
      read -r mapper identity planned < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["mapper"], r["identity"]["mcl"], r["mapper_result"]["mcl"] if r["kept"] == "mapper" else r["identity"]["mcl"])' "$work/plan.json")
      auto="-" auto_s="-" share="-"
      if [ "$offline" = 1 ]; then
        "$bin" reorder-plan "${args[@]}" --mapper auto --report "$work/auto.json" 2> "$work/auto.err"
        auto_s=$(seconds_of "$work/auto.err")
        read -r auto share < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
identity, planned = r["identity"]["mcl"], float(sys.argv[2])
auto = r["mapper_result"]["mcl"] if r["kept"] == "mapper" else identity
share = (identity - planned) / (identity - auto) if identity > auto else 1.0
print(f"{auto:.4g}", f"{share:.0%}")' "$work/auto.json" "$planned")
      fi
      printf '| %s | %s | %s | %s | %s | %s | %s | %.4g | %.4g | %s | %s | %s |\n' "$name" "$ranks" "$nodes" "$label" \
        "$workers" "$plan_s" "$busiest" "$identity" "$planned" "$auto" "$auto_s" "$share"
    done
  done
done
