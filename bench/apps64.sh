#!/usr/bin/env bash
# The application point: the measured 64-rank AMG and CG matrices (../shared/data/apps/
# maplib-64), and a LULESH-like 27-point stencil on the 4x4x4 grid of ranks, one rank per node on
# torus:4x4x4 and mesh:4x4x4 (minimal routing). Runs every other mapper (auto among them; MCL
# and hop-bytes with their ratios to the default order's, measured in the same run), then
# refine-mcl from the rank order, from scotch and from the best other
# mapper, with and without its region phase, and prints per instance the best other mapper's
# MCL, refine-mcl's best, their ratio (target <= 0.85) and two lower bounds on the MCL:
#   flow    = the largest flow (a partner one hop away puts all of it on one channel), taken
#             only if the job's flows at 2+ hops could not already average above it;
#   inject  = the largest per-rank send (or receive) volume over the router's channels out (in).
# Usage: bash bench/apps64.sh [path/to/taskmap] [refine-mcl work budget (default: the mapper's)]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/step.sh
bin=$(realpath "${1:-./build/taskmap}")
budget=${2:+:work=$2}
data=../shared/data/apps/maplib-64
others=default,scotch,metis,greedy,rb,ml,timer,rahtm,hilbert,refine-hb,auto

# "mapper MCL hop-bytes map-seconds" per row of a compare table.
rows() { awk 'f && NF { print $1, $2, $5, $NF } /^mapper/ { f = 1 }'; }
# The rows with their MCL and hop-bytes over the default order's (the first row).
with_ratios() {
  awk 'NR == 1 { m = $2; h = $3; printf "%-34s %12s %8s %12s %8s %8s\n", "mapper", "MCL", "/default", "hop-bytes", "/default", "map s" }
       { printf "%-34s %12.6g %8.3f %12.6g %8.3f %8s\n", $1, $2, $2 / m, $3, $3 / h, $4 }'
}

# name | pattern: the measured matrices, and a LULESH-like 27-point stencil on the 4x4x4 grid of
# ranks (the default order embeds it in the machine).
apps=("cg|file:$data/cg/comm_matrix.p2p.size.csv" "amg|file:$data/amg/comm_matrix.p2p.size.csv"
      "lulesh-like|halo3d:4x4x4,points=27,periodic=false")
for entry in "${apps[@]}"; do
  IFS='|' read -r app pattern <<< "$entry"
  matrix=${pattern#file:}
  if [ "$matrix" != "$pattern" ] && [ ! -f "$matrix" ]; then echo "skipping $app: $matrix not found (needs ../shared/data)"; continue; fi
  for machine in torus:4x4x4 mesh:4x4x4; do
    echo "== $app on $machine"
    step "apps64: $app on $machine"
    "$bin" compare --machine "$machine" --pattern "$pattern" --mappers "$others" 2> /dev/null | rows > /tmp/apps64.$$
    best=$(sort -g -k2 /tmp/apps64.$$ | head -1)
    best_name=${best%% *}
    with_ratios < /tmp/apps64.$$
    refiners="refine-mcl$budget,scotch+refine-mcl$budget,$best_name+refine-mcl$budget"
    refiners+=",$best_name+refine-mcl:regions=0"
    "$bin" compare --machine "$machine" --pattern "$pattern" --mappers "$refiners" 2> /dev/null | rows |
      tee /tmp/apps64r.$$
    refined=$(grep -v regions=0 /tmp/apps64r.$$ | sort -g -k2 | head -1)
    if [ "$matrix" = "$pattern" ]; then  # a generated pattern: no matrix to bound the MCL from
      awk -v b="$best" -v r="$refined" 'BEGIN { split(b, bb, " "); split(r, rr, " ")
        printf "best other %s %.6g | refine-mcl best %s %.6g | ratio %.3f\n", bb[1], bb[2], rr[1], rr[2], rr[2] / bb[2] }'
      continue
    fi
    # Lower bounds on the MCL from the matrix (one rank per router, at most 6 channels out of
    # and into a router, C channels in all). flow: if the j-th largest flow is the largest one
    # hop apart, its channel carries all of it, and the j-1 larger flows take 2+ hops, so the
    # channels carry at least total + (those j-1 volumes); the MCL is at least the smallest
    # over j of max(v_j, (total + v_1 + ... + v_{j-1}) / C), j = F+1 meaning none is one hop
    # apart. inject: the largest per-rank send or receive volume over 6 channels.
    channels=$([ "$machine" = torus:4x4x4 ] && echo 384 || echo 288)
    read -r flow inject < <(awk -F, '{ for (j = 1; j <= NF; ++j) if (j != NR && $j > 0) {
                                         print $j; out[NR] += $j; inn[j] += $j } }
        END { for (i in out) if (out[i] > m) m = out[i]; for (j in inn) if (inn[j] > m) m = inn[j]
              print "inject", m / 6 }' "$matrix" | sort -g -r |
      awk -v c="$channels" '$1 == "inject" { inject = $2; next } { v[++n] = $1; total += $1 }
        END { lb = 2 * total / c; prefix = 0
              for (j = 1; j <= n; ++j) { x = (total + prefix) / c; if (v[j] > x) x = v[j]; if (x < lb) lb = x; prefix += v[j] }
              print lb, inject }')
    awk -v b="$best" -v r="$refined" -v flow="$flow" -v inject="$inject" 'BEGIN {
      split(b, bb, " "); split(r, rr, " ")
      lb = flow > inject ? flow : inject
      printf "best other %s %.6g | refine-mcl best %s %.6g | ratio %.3f | lower bound %.6g (flow %.6g, inject %.6g): best other / bound %.3f, refine-mcl / bound %.3f\n",
        bb[1], bb[2], rr[1], rr[2], rr[2] / bb[2], lb, flow, inject, bb[2] / lb, rr[2] / lb }'
  done
done
rm -f /tmp/apps64.$$ /tmp/apps64r.$$
