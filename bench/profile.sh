#!/usr/bin/env bash
# The MPI profiler on programs nobody here wrote (Debian's lammps and hpcc), 16 ranks
# oversubscribed: (1) its overhead, as the median wall time of R runs with and without
# LD_PRELOAD, alternated so machine noise hits both; (2) its totals against Open MPI's own
# per-peer counters (pml monitoring, user messages), pair by pair; (3) the recorded matrix
# mapped onto a BG/Q block and a Dragonfly, default against taskmap's mappers.
# Usage: bash bench/profile.sh [runs, default 5] [ranks, default 16]
# Needs: openmpi-bin, lammps (+ lammps-examples for in.melt), hpcc; a program missing is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/step.sh
runs=${1:-5}
np=${2:-16}
lib=$PWD/build/libtaskmap-profile-openmpi.so
bin=$PWD/build/taskmap
[ -f "$lib" ] || { echo "no $lib (build with Open MPI installed)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpirun="mpirun --allow-run-as-root --oversubscribe -np $np"

# Per-peer user messages counted by Open MPI itself: "E src dst N bytes M msgs" lines.
compare_with_monitoring() {  # profile monitoring-prefix
  python3 - "$1" "$2" <<'PY'
import collections, glob, sys
profile, prefix = sys.argv[1], sys.argv[2]
mine = {}
for line in open(profile):
    if line.startswith('#'): continue
    s, d, b, m = map(int, line.split())
    if m: mine[(s, d)] = (b, m)
ompi = {}
for path in glob.glob(prefix + '.*.prof'):
    for line in open(path):
        if line.startswith('E\t'):
            f = line.split('\t')
            ompi[(int(f[1]), int(f[2]))] = (int(f[3].split()[0]), int(f[4].split()[0]))
diff = collections.Counter()
for k in set(mine) | set(ompi):
    a, b = mine.get(k, (0, 0)), ompi.get(k, (0, 0))
    diff[(b[0] - a[0], b[1] - a[1])] += 1
total = lambda t: (sum(v[0] for v in t.values()), sum(v[1] for v in t.values()))
print(f"  profile: {len(mine)} pairs, {total(mine)[0]} bytes, {total(mine)[1]} messages")
print(f"  Open MPI monitoring: {len(ompi)} pairs, {total(ompi)[0]} bytes, {total(ompi)[1]} messages")
print("  pairs by (monitoring - profile) bytes, messages: " +
      ", ".join(f"{n} x {d}" for d, n in sorted(diff.items(), key=lambda x: -x[1])))
PY
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

measure() {  # name dir command...
  local name=$1 dir=$2
  shift 2
  echo "== $name, $np ranks: $*"
  step "profile: $name"
  cd "$dir"
  local plain=() profiled=()
  for ((i = 0; i < runs; i++)); do
    local t0=$(date +%s.%N)
    $mpirun "$@" > /dev/null 2>&1
    local t1=$(date +%s.%N)
    $mpirun -x LD_PRELOAD="$lib" -x TASKMAP_PROFILE_OUT="$work/$name.txt" "$@" > /dev/null 2>&1
    local t2=$(date +%s.%N)
    plain+=("$(echo "$t1 - $t0" | bc)")
    profiled+=("$(echo "$t2 - $t1" | bc)")
  done
  local p=$(printf '%s\n' "${plain[@]}" | median) q=$(printf '%s\n' "${profiled[@]}" | median)
  echo "  wall time, median of $runs: plain ${p} s, profiled ${q} s, ratio $(echo "scale=3; $q / $p" | bc)"
  echo "  (plain: ${plain[*]}; profiled: ${profiled[*]})"
  rm -f "$work"/mon.*
  $mpirun --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename "$work/mon" \
    -x LD_PRELOAD="$lib" -x TASKMAP_PROFILE_OUT="$work/$name.txt" "$@" > /dev/null 2>&1
  compare_with_monitoring "$work/$name.txt" "$work/mon"
  cd - > /dev/null
  for machine in "torus:2x2x2x2x2,ppn=1" "dragonfly:p=1,a=4,h=1"; do
    "$bin" compare --machine "$machine" --pattern "file:$work/$name.txt" \
      --mappers default,greedy,scotch,scotch+refine-hb,scotch+refine-mcl 2> /dev/null |
      awk -v m="$machine" '/^mapper/ { rows = 1; printf "  %-24s %-20s %12s %8s %12s %8s\n", m, "mapper", "MCL", "/default", "hop-bytes", "/default"; next }
           rows && NF > 0 { if ($1 == "default") { mcl = $2; hb = $5 }
                    printf "  %-24s %-20s %12.4g %8.3f %12.4g %8.3f\n", "", $1, $2, $2 / mcl, $5, $5 / hb }'
  done
  "$bin" map --machine "torus:2x2x2x2x2,ppn=1" --pattern "file:$work/$name.txt" --mapper scotch+refine-mcl \
    --out-format bgq-mapfile --out "$work/$name.bgq.map" 2> /dev/null &&
    echo "  BG/Q map file: $(wc -l < "$work/$name.bgq.map") lines, rank 0 at '$(head -1 "$work/$name.bgq.map")'"
  echo
}

if command -v lmp > /dev/null && [ -f /usr/share/lammps/examples/melt/in.melt ]; then
  mkdir -p "$work/lammps"
  cp /usr/share/lammps/examples/melt/in.melt "$work/lammps/"
  measure lammps "$work/lammps" lmp -in in.melt -log none
else
  echo "== lammps: skipped (apt install lammps lammps-examples)"
fi
if command -v hpcc > /dev/null; then
  mkdir -p "$work/hpcc"
  # hpcc reads hpccinf.txt: the package's example with N=500 and a P x Q grid of np ranks.
  grid=$(python3 -c "import math; n=$np; p=max(d for d in range(1, math.isqrt(n) + 1) if n % d == 0); print(p, n // p)")
  zcat -f /usr/share/doc/hpcc/examples/_hpccinf.txt* |
    sed -e "s/^1000 *Ns/500          Ns/" -e "s/^2 *Ps/${grid% *}            Ps/" -e "s/^2 *Qs/${grid#* }            Qs/" \
      > "$work/hpcc/hpccinf.txt"
  measure hpcc "$work/hpcc" hpcc
else
  echo "== hpcc: skipped (apt install hpcc)"
fi
