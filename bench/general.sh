#!/usr/bin/env bash
# The comparison on general graphs (many tasks per processing element): Scotch's own
# scotch_gmap (Debian package scotch) against taskmap's mappers on the same instances, each
# mapping evaluated by `taskmap eval` (the machine's default routing). Prints hop-bytes, J (each
# pair once, KaHIP's and Scotch's cost: hop-bytes / 2, so its ratio is hop-bytes'), MCL and
# mapping time per method with ratios to scotch_gmap measured in the same run (a mapper that
# does not apply to a machine gets a row saying why). scotch_gmap seeds its random generator
# per run, so it runs three times and the median hop-bytes and median time are the baseline
# (the three values are printed). Ends with a summary: TiMEr's gain over its initial mapping,
# and per instance the best pipeline's hop-bytes and time against scotch_gmap's.
# Usage: bash bench/general.sh [path/to/taskmap] [refine-mcl work budget (default: the mapper's)]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/step.sh
bin=$(realpath "${1:-./build/taskmap}")
refine_work=${2:-}
data=../shared/data/graphs
command -v scotch_gmap > /dev/null || { echo "scotch_gmap not found (Debian package scotch)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# machine spec | Scotch target | terminal -> router (Scotch numbers the first dimension fastest;
# empty: terminal t is router t). The hierarchy is KaHIP's 1:10:100 machine of 256 PEs; Scotch's
# tleaf adds the link costs on the way up, so costs 1, 9, 90 give distances 1, 10, 100
# (docs/scotch.md).
machines=(
  "mesh:16x16|mesh2D 16 16|16 16"
  "torus:16x16|torus2D 16 16|16 16"
  "mesh:8x8x8|mesh3D 8 8 8|8 8 8"
  "torus:8x8x8|torus3D 8 8 8|8 8 8"
  "hypercube:d=8|hcub 8|"
  "hier:4:16:4,dist=1:10:100|tleaf 3 4 90 16 9 4 1|"
)
# TiMEr's rows come in pairs with their initial mapping; the pipelines are the candidates
# for "taskmap's best pipeline".
timer_pairs=("scotch scotch+timer" "metis metis+timer")
pipelines=(scotch+refine-hb scotch+timer+refine-hb rb+refine-hb rb:tries=16+refine-hb)
refiners_mcl=("scotch+refine-mcl${refine_work:+:work=$refine_work}")

# Prints "mcl hop_bytes j" of a placement file.
evaluate() {  # machine graph placement
  "$bin" eval --machine "$1" --pattern "file:$2" --mapping "$3" --mapping-format plain |
    awk '/^MCL/ { mcl = $2 } /^hop-bytes/ { hb = $2 } /^J / { j = $NF } END { print mcl, hb, j }'
}
median3() { printf "%s\n" "$@" | sort -g | sed -n 2p; }
# a / b; awk reads the 1.2e+06 that eval's tables print for large values (bc does not).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a / b }'; }
summary=$work/summary.txt

for name in PGPgiantcompo as-22july06; do
  gz=$data/$name.graph.gz
  if [ ! -f "$gz" ]; then echo "skipping $name: $gz not found (needs ../shared/data)"; continue; fi
  graph=$work/$name.graph
  zcat "$gz" > "$graph"
  gcv -ic "$graph" "$work/$name.grf"
  base=$(sed -n 3p "$work/$name.grf" | awk '{ print $1 }')
  for entry in "${machines[@]}"; do
    IFS='|' read -r machine target dims <<< "$entry"
    echo "$target" > "$work/arch.tgt"
    echo "== $name on $machine"
    step "general: $name on $machine: scotch_gmap, 3 runs"
    hbs=() mcls=() secs=() js=()
    for run in 1 2 3; do
      start=$(date +%s.%N)
      scotch_gmap "$work/$name.grf" "$work/arch.tgt" "$work/gmap.map" 2> /dev/null
      secs+=("$(echo "$(date +%s.%N) - $start" | bc)")
      # scotch_gmap's "vertex terminal" lines to taskmap's "task slot" (one slot per router);
      # gcv keeps the METIS (Chaco) numbering from 1, taskmap's tasks start at 0.
      awk -v dims="$dims" -v base="$base" 'NR == 1 { n = split(dims, d, " "); next }
        { t = $2; r = 0
          if (n > 0) { stride = 1; for (i = n; i >= 1; --i) { s[i] = stride; stride *= d[i] }
                       for (i = 1; i <= n; ++i) { r += (t % d[i]) * s[i]; t = int(t / d[i]) } }
          else r = t
          print $1 - base, r }' "$work/gmap.map" > "$work/gmap.txt"
      read -r mcl hb j <<< "$(evaluate "$machine" "$graph" "$work/gmap.txt")"
      hbs+=("$hb") mcls+=("$mcl") js+=("$j")
    done
    base_hb=$(median3 "${hbs[@]}") base_mcl=$(median3 "${mcls[@]}") gmap_seconds=$(median3 "${secs[@]}")
    base_j=$(median3 "${js[@]}")
    printf "%-30s %12s %8s %12s %12s %8s %8s %8s\n" method hop-bytes /gmap J MCL /gmap seconds /gmap
    printf "%-30s %12.6g %8.3f %12.6g %12.6g %8.3f %8.2f %8.3f   (3 runs: hop-bytes %s, s %s)\n" "scotch_gmap (median)" \
      "$base_hb" 1 "$base_j" "$base_mcl" 1 "$gmap_seconds" 1 "${hbs[*]}" "$(printf "%.2f " "${secs[@]}")"
    run_mapper() {  # mapper -> prints a row, appends "instance mapper hb/gmap s/gmap hb" to the summary
      local mapper=$1 start seconds mcl hb j
      step "general: $name on $machine: $mapper"
      start=$(date +%s.%N)
      if ! "$bin" map --machine "$machine" --pattern "file:$graph" --mapper "$mapper" --out "$work/tm.txt" 2> "$work/err"; then
        printf "%-30s skipped: %s\n" "$mapper" "$(tail -n 1 "$work/err")"
        return
      fi
      seconds=$(echo "$(date +%s.%N) - $start" | bc)
      read -r mcl hb j <<< "$(evaluate "$machine" "$graph" "$work/tm.txt")"
      printf "%-30s %12.6g %8.3f %12.6g %12.6g %8.3f %8.2f %8.3f\n" "$mapper" "$hb" "$(ratio "$hb" "$base_hb")" \
        "$j" "$mcl" "$(ratio "$mcl" "$base_mcl")" "$seconds" "$(ratio "$seconds" "$gmap_seconds")"
      echo "$name/$machine $mapper $(ratio "$hb" "$base_hb") $(ratio "$seconds" "$gmap_seconds") $hb" >> "$summary"
    }
    for pair in "${timer_pairs[@]}"; do for mapper in $pair; do run_mapper "$mapper"; done; done
    for mapper in "${pipelines[@]}" "${refiners_mcl[@]}" greedy; do run_mapper "$mapper"; done
    echo
  done
done

[ -s "$summary" ] || exit 0
echo "== TiMEr: hop-bytes after / before, per initial mapping (mean over instances)"
for pair in "${timer_pairs[@]}"; do
  read -r first second <<< "$pair"
  awk -v a="$first" -v b="$second" '$2 == a { x[$1] = $5 } $2 == b { y[$1] = $5 }
    END { for (i in x) if (i in y) { s += y[i] / x[i]; n++ }
          if (n == 0) printf "%-8s -> %-14s no instance\n", a, b
          else printf "%-8s -> %-14s mean %.3f over %d instances (%.1f%% lower)\n", a, b, s / n, n, 100 * (1 - s / n) }' "$summary"
done
awk '$2 == "scotch" || $2 == "metis" { x[$1 " " $2] = $5 } $2 == "scotch+timer" || $2 == "metis+timer" { sub(/\+timer/, "", $2); y[$1 " " $2] = $5 }
  END { for (i in x) if (i in y) { s += y[i] / x[i]; n++ }
        if (n > 0) printf "both initial mappings: mean %.3f (%.1f%% lower)\n", s / n, 100 * (1 - s / n) }' "$summary"
echo
echo "== best pipeline per instance among those within 2x scotch_gmap's time (hop-bytes / gmap, time / gmap)"
pattern=$(printf "%s|" "${pipelines[@]}")
awk -v list="${pattern%|}" 'BEGIN { n = split(list, p, "|"); for (i = 1; i <= n; ++i) ok[p[i]] = 1 }
  ok[$2] { seen[$1] = 1 }
  ok[$2] && $4 <= 2 && (!($1 in best) || $3 < best[$1]) { best[$1] = $3; who[$1] = $2; t[$1] = $4 }
  END { for (i in seen) if (i in best) printf "%-28s %-26s %.3f  %.2f  %s\n", i, who[i], best[i], t[i], (best[i] <= 0.85 ? "ok" : "MISSED 0.85")
                        else printf "%-28s none within 2x time  MISSED\n", i }' "$summary" | sort
