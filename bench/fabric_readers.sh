#!/usr/bin/env bash
# Load speed of the fabric readers: a generated 10,000-node Slurm tree (250 leaves of 40 nodes,
# 20 spines, 2 cores; nodes written one by one, then as host-list ranges) read by `taskmap
# eval` on a 2-task job, against the same command on a 2-router torus (process start, no
# reading) in the same farm-bench call. Cables per second = (10,000 host ports + 540 switch
# cables) / (time - baseline time). The target is at least 10^5.
# Usage: bash bench/fabric_readers.sh [TASKMAP_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/step.sh
taskmap=$(realpath "${1:-build/taskmap}")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 bench/gen_slurm_tree.py --flat-nodes > "$dir/flat.conf"
python3 bench/gen_slurm_tree.py > "$dir/ranges.conf"
for form in flat ranges; do
  step "fabric_readers: $form"
  echo "== $form: $(wc -l < "$dir/$form.conf") lines, $(wc -c < "$dir/$form.conf") bytes"
  farm-bench -n 7 --timeout 300 \
    --vs "$taskmap eval --machine torus:2 --pattern halo2d:1x2 --mapper default" \
    -- "$taskmap" eval --machine "slurm:$dir/$form.conf" --pattern halo2d:1x2 --mapper default
done
