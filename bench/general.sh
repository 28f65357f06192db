#!/usr/bin/env bash
# Issue 5's comparison on general graphs (many tasks per processing element): Scotch's own
# scotch_gmap (Debian package scotch) against taskmap's mappers on the same instances, each
# mapping evaluated by `taskmap eval` (minimal routing). Prints hop-bytes, MCL and mapping time
# per method with ratios to scotch_gmap measured in the same run.
# Usage: bash bench/general.sh [path/to/taskmap] [refine seconds (default 10)]
# Not yet here: TiMEr (issue 5 item still open).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-./build/taskmap}")
refine_seconds=${2:-10}
data=../shared/data/graphs
command -v scotch_gmap > /dev/null || { echo "scotch_gmap not found (Debian package scotch)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# machine spec | Scotch target | terminal -> router (Scotch numbers the first dimension fastest)
machines=(
  "mesh:16x16|mesh2D 16 16|16 16"
  "torus:16x16|torus2D 16 16|16 16"
  "mesh:8x8x8|mesh3D 8 8 8|8 8 8"
  "torus:8x8x8|torus3D 8 8 8|8 8 8"
  "hypercube:d=8|hcub 8|"
)

# Prints "mcl hop_bytes" of a placement file.
evaluate() {  # machine graph placement
  "$bin" eval --machine "$1" --pattern "file:$2" --mapping "$3" |
    awk '/^MCL/ { mcl = $2 } /^hop-bytes/ { hb = $2 } END { print mcl, hb }'
}

for name in PGPgiantcompo as-22july06; do
  gz=$data/$name.graph.gz
  if [ ! -f "$gz" ]; then echo "skipping $name: $gz not found (needs ../shared/data)"; continue; fi
  graph=$work/$name.graph
  zcat "$gz" > "$graph"
  gcv -ic "$graph" "$work/$name.grf"
  for entry in "${machines[@]}"; do
    IFS='|' read -r machine target dims <<< "$entry"
    echo "$target" > "$work/arch.tgt"
    echo "== $name on $machine"
    start=$(date +%s.%N)
    scotch_gmap "$work/$name.grf" "$work/arch.tgt" "$work/gmap.map" 2> /dev/null
    gmap_seconds=$(echo "$(date +%s.%N) - $start" | bc)
    # scotch_gmap's "vertex terminal" lines to taskmap's "task slot" (one slot per router);
    # gcv keeps the METIS (Chaco) numbering from 1, taskmap's tasks start at 0.
    base=$(sed -n 3p "$work/$name.grf" | awk '{ print $1 }')
    awk -v dims="$dims" -v base="$base" 'NR == 1 { n = split(dims, d, " "); next }
      { t = $2; r = 0
        if (n > 0) { stride = 1; for (i = n; i >= 1; --i) { s[i] = stride; stride *= d[i] }
                     for (i = 1; i <= n; ++i) { r += (t % d[i]) * s[i]; t = int(t / d[i]) } }
        else r = t
        print $1 - base, r }' "$work/gmap.map" > "$work/gmap.txt"
    read -r base_mcl base_hb <<< "$(evaluate "$machine" "$graph" "$work/gmap.txt")"
    printf "%-34s %12s %8s %12s %8s %8s %8s\n" method hop-bytes /gmap MCL /gmap seconds /gmap
    printf "%-34s %12.6g %8.3f %12.6g %8.3f %8.2f %8.3f\n" scotch_gmap "$base_hb" 1 "$base_mcl" 1 "$gmap_seconds" 1
    for mapper in scotch "scotch+refine-mcl:seconds=$refine_seconds" metis "metis+refine-mcl:seconds=$refine_seconds" \
                  greedy rb; do
      start=$(date +%s.%N)
      "$bin" map --machine "$machine" --pattern "file:$graph" --mapper "$mapper" --out "$work/tm.txt" 2> /dev/null
      seconds=$(echo "$(date +%s.%N) - $start" | bc)
      read -r mcl hb <<< "$(evaluate "$machine" "$graph" "$work/tm.txt")"
      printf "%-34s %12.6g %8.3f %12.6g %8.3f %8.2f %8.3f\n" "$mapper" "$hb" "$(echo "$hb / $base_hb" | bc -l)" \
        "$mcl" "$(echo "$mcl / $base_mcl" | bc -l)" "$seconds" "$(echo "$seconds / $gmap_seconds" | bc -l)"
    done
    echo
  done
done
