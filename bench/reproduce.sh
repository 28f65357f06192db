#!/usr/bin/env bash
# Times every `taskmap reproduce` name (target: under 60 s each) on this machine.
# Usage: bash bench/reproduce.sh [path/to/taskmap]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/step.sh
bin=${1:-./build/taskmap}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-16s %10s\n' name seconds
for name in $("$bin" reproduce --list | awk '{print $1}'); do
  step "reproduce: $name"
  start=$(date +%s.%N)
  "$bin" reproduce "$name" --out "$out" >/dev/null 2>&1
  end=$(date +%s.%N)
  printf '%-16s %10.2f\n' "$name" "$(echo "$end - $start" | bc -l)"
done
