#!/usr/bin/env bash
# RAHTM against the comparison mappings of [RAHTM §IV] at 16,384 ranks, minimal routing (the
# even split over minimal paths). Prints each mapper's MCL, its ratio to ABCDET (the default),
# hop-bytes and mapping time, plus RAHTM's solver statistics.
# Then the 4,096-node BG/Q partition torus:8x4x4x16x2,ppn=4 (16,384 ranks) with a 27-point
# stencil and CG (LARGE=0 skips these two rows, which take minutes).
# Usage: bash bench/rahtm.sh [path/to/taskmap] [extra rahtm options, e.g. beam=8]
# Targets: RAHTM's MCL <= 0.8 x ABCDET's on CG, BT and SP, never above the best
# dimension order, under 60 s per mapping on a 2-core machine; on the 4,096-node partition
# MCL <= 0.9 x ABCDET's on the stencil and never above it on CG, under 120 s per mapping.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/step.sh
bin=${1:-./build/taskmap}
rahtm="rahtm${2:+:$2}"
data=../shared/data
orders="default,order:TABCDE,order:ACEBDT,hilbert"

run() {  # title machine pattern mappers
  echo "== $1: $3 on $2"
  step "rahtm: $1 on $2"
  "$bin" compare --machine "$2" --pattern "$3" --routing minimal --mappers "$4" 2> >(grep '^rahtm' >&2) |
    awk '/^mapper/ { rows = 1; printf "%-32s %10s %8s %12s %8s\n", "mapper", "MCL", "/ABCDET", "hop-bytes", "map s"; next }
         rows && NF > 0 { if ($1 == "default") base = $2; printf "%-32s %10.4g %8.3f %12.6g %8.2f\n", $1, $2, $2 / base, $5, $NF }'
  echo
}

for app in cg bt sp; do
  run "NAS ${app^^}" torus:4x4x4x4x2,ppn=32 "npb-$app:16384" "$orders,rubik-tiling,$rahtm"
done
trace=$data/bgq/MiniMD_Mira_n1024_c16_w_hopbyte.txt.xz
if [ -f "$trace" ]; then
  # The trace has no task grid; rubik-tiling gets an assumed 128x128 one.
  run "MiniMD (measured, Mira)" torus:4x4x4x8x2,mesh=D,ppn=16 "file:$trace" "$orders,rubik-tiling:grid=128x128,$rahtm"
else
  echo "skipping MiniMD: $trace not found (needs ../shared/data beside the checkout)"
fi
if [ "${LARGE:-1}" != 0 ]; then
  run "Stencil, 4,096 nodes" torus:8x4x4x16x2,ppn=4 "halo3d:32x32x16,points=27" "$orders,blocks,$rahtm"
  run "NAS CG, 4,096 nodes" torus:8x4x4x16x2,ppn=4 "npb-cg:16384" "$orders,$rahtm"
fi
