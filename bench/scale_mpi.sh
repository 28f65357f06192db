#!/usr/bin/env bash
# The 1M-task job (halo3d:128x128x64: 7-point, 1,048,576 tasks, on torus:32x32x32,ppn=32,
# 32,768 routers) run by the serial program and under Open MPI's mpirun at 1, 2 and 4 processes
# (beyond this machine's cores the processes share them: --oversubscribe). Rows: eval of the
# default mapping (minimal routing) and of a random one (--routing dor; with SLOW=1 also under
# minimal routing), compare of five cheap mappers (their rows spread over the processes), and
# ptscotch (compare's map seconds, MCL and hop-bytes: PT-Scotch's distributed partition, then
# Scotch on rank 0; its serial run is scotch, 13 minutes on this job: only with SLOW=1). Per
# run: wall seconds, the CPU (user) seconds of the busiest process and of all processes, the
# peak memory of the largest process, and whether stdout is the serial run's (compare: timings
# aside; ptscotch's mapping depends on the process count, so no check).
# Usage: bash bench/scale_mpi.sh [TASKMAP_BINARY]   (env NPS="1 2 4", SLOW=1, JOB="--machine M --pattern P")
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/taskmap}")
nps=${NPS:-1 2 4}
mpirun=$(command -v mpirun.openmpi || command -v mpirun)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
job=${JOB:-"--machine torus:32x32x32,ppn=32 --pattern halo3d:128x128x64"}

# label | taskmap arguments | how to compare with the serial output (exact, timings, none)
rows=(
  "eval default, minimal|eval --format json $job --mapper default|exact"
  "eval random, dor|eval --format json $job --mapper random:seed=1 --routing dor|exact"
  "compare 5 mappers, dor|compare --format json $job --routing dor --mappers default,hostname-order,cyclic,random:seed=1,blocks|timings"
  "map ptscotch, dor|compare --format json $job --routing dor --mappers ptscotch|none"
)
if [ "${SLOW:-0}" = 1 ]; then
  rows+=("eval random, minimal|eval --format json $job --mapper random:seed=1|exact")
fi

# Each process runs under /usr/bin/time, which appends "user_seconds max_rss_kb" to $work/time.
timed() {
  /usr/bin/time -a -o "$work/time" -f "%U %M" "$bin" "$@"
}
export -f timed
export bin work

same_output() {  # mode serial.json run.json
  case $1 in
    exact) cmp -s "$2" "$3" && echo same || echo DIFFERENT ;;
    timings) python3 - "$2" "$3" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for j in (a, b):
    for r in j["rows"]:
        r.pop("mapping_seconds", None)
print("same" if a == b else "DIFFERENT")
PY
    ;;
    *) echo "-" ;;
  esac
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; $bin"
printf "%-26s %-8s %9s %12s %12s %10s %s\n" row processes wall_s max_user_s sum_user_s max_rss_MB output
for row in "${rows[@]}"; do
  IFS='|' read -r label args check <<< "$row"
  read -ra argv <<< "$args"
  for np in serial $nps; do
    [ "$np" = serial ] && [ "$check" = none ] && [ "${SLOW:-0}" != 1 ] && continue
    : > "$work/time"
    start=$(date +%s.%N)
    if [ "$np" = serial ]; then
      timed "${argv[@]}" > "$work/$np.json" 2> "$work/err" || { echo "FAILED $label $np: $(tail -1 "$work/err")"; continue; }
    else
      "$mpirun" --allow-run-as-root --oversubscribe -np "$np" bash -c 'timed "$@"' timed "${argv[@]}" \
        > "$work/$np.json" 2> "$work/err" || { echo "FAILED $label $np: $(tail -1 "$work/err")"; continue; }
    fi
    end=$(date +%s.%N)
    extra=""
    if [ "$check" = none ]; then
      extra=" ($(python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["rows"][0]; print("map s %.1f, MCL %.6g, hop-bytes %.6g" % (r["mapping_seconds"], r["mcl"], r["hop_bytes"]))' "$work/$np.json"))"
    fi
    same=$([ "$np" = serial ] && echo "-" || same_output "$check" "$work/serial.json" "$work/$np.json")
    awk -v label="$label" -v np="$np" -v wall="$(echo "$end - $start" | bc)" -v same="$same$extra" '
      { if ($1 > max) max = $1; sum += $1; if ($2 > rss) rss = $2 }
      END { printf "%-26s %-8s %9.2f %12.2f %12.2f %10.0f %s\n", label, np, wall, max, sum, rss / 1024, same }' "$work/time"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
