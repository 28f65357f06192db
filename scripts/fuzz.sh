#!/usr/bin/env bash
# Fuzzes every reader and spec language: builds the libFuzzer targets of fuzz/ into build-fuzz/
# (Debian's clang, ASan + UBSan, every report fatal, leak detection on; compiler warnings are
# errors, as in scripts/test.sh), runs them one after the other for SECONDS each (default 60),
# and prints a markdown table of executions, corpus size and findings. fuzz/targets.txt lists
# the targets with their dictionaries and seeds.
# Corpora grow across runs in build-fuzz/fuzz-corpus/NAME; findings (crash-*, leak-*,
# timeout-*, oom-*) land in build-fuzz/fuzz-findings/NAME/, each log in build-fuzz/fuzz-logs/.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET [TARGET...]]   Exit status 1 when a target found something.
# TASKMAP_FUZZ_RUNS=N stops a target after N executions, before its time is up.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/step.sh
seconds=${1:-60}
shift || true
build=build-fuzz
shared=../shared/data
max_seed_bytes=65536

CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DTASKMAP_FUZZ=ON -DTASKMAP_BUILD_TESTS=OFF \
  -DTASKMAP_BUILD_BENCH=OFF -DTASKMAP_WERROR=ON > /dev/null
cmake --build "$build" -j2 --target taskmap_fuzz

# Copies seed SOURCE into directory DIR (see fuzz/targets.txt for the forms of SOURCE).
add_seeds() {
  local source=$1 dir=$2 lines=""
  if [[ $source == shared:* ]]; then
    source=${source#shared:}
    if [[ $source == *@* ]]; then lines=${source##*@}; source=${source%@*}; fi
    source=$shared/$source
  fi
  local file
  for file in $source; do  # a glob
    [[ -f $file ]] || continue
    local name
    name=$(basename "$file")
    if [[ $file == *.lines ]]; then
      local i=0 line
      while IFS= read -r line; do printf '%s' "$line" > "$dir/$name.$((++i))"; done < "$file"
      continue
    fi
    case $file in
      *.gz) gzip -dc "$file" ;;
      *.xz) xz -dc "$file" ;;
      *) cat "$file" ;;
    esac | { if [[ -n $lines ]]; then head -n "$lines"; else cat; fi; } > "$dir/$name" || true
    if (( $(stat -c %s "$dir/$name") > max_seed_bytes )); then rm "$dir/$name"; fi
  done
}

count_findings() { find "$1" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l; }

export TMPDIR=$PWD/$build/fuzz-tmp  # the targets' input files; a crash leaves its directory here
mkdir -p "$TMPDIR" "$build/fuzz-logs"
rows=()
status=0
while read -r name dict seeds; do
  [[ -z $name || $name == \#* ]] && continue
  if (( $# > 0 )) && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  corpus=$build/fuzz-corpus/$name seed_dir=$build/fuzz-seeds/$name findings=$build/fuzz-findings/$name
  log=$build/fuzz-logs/$name.log
  rm -rf "$seed_dir"
  mkdir -p "$corpus" "$seed_dir" "$findings"
  for seed in $seeds; do add_seeds "$seed" "$seed_dir"; done
  before=$(count_findings "$findings")
  start=$SECONDS
  step "fuzz_$name: ${seconds}s"
  "$build/fuzz/fuzz_$name" -dict="fuzz/$dict.dict" -rss_limit_mb=2048 -timeout=10 -max_total_time="$seconds" \
    -runs="${TASKMAP_FUZZ_RUNS:--1}" -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "$seed_dir" > "$log" 2>&1 || true
  elapsed=$((SECONDS - start))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  # A target that stopped before its first status line has none: not a reason to stop the script.
  corp=$({ grep -o 'corp: [0-9]*' "$log" || true; } | tail -n 1 | cut -d' ' -f2)
  found=$(( $(count_findings "$findings") - before ))
  (( found == 0 )) || status=1
  # A run that ended some other way (a failed start, a sanitizer report at exit) shows no final stats.
  if [[ -z $runs ]]; then runs="? (see $log)"; status=1; fi
  rows+=("| $name | $runs | ${corp:-?} | $found | ${elapsed}s |")
done < fuzz/targets.txt

echo
echo "| target | executions | corpus | findings | time |"
echo "|---|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
if (( status != 0 )); then
  echo
  echo "Findings (crash/leak/timeout/oom inputs) are in $build/fuzz-findings/, logs in $build/fuzz-logs/."
fi
exit $status
