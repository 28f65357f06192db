#!/usr/bin/env bash
# The fuzz targets of fuzz/ (fuzz/targets.txt lists them with their dictionaries and seeds).
#
#   scripts/fuzz.sh [SECONDS [TARGET...]]
#     Fuzzes every reader and spec language: builds the libFuzzer targets into build-fuzz/
#     (Debian's clang, ASan + UBSan, every report fatal, leak detection on; warnings are errors),
#     runs them one after the other for SECONDS each (default 60) from the saved corpus
#     (fuzz/corpus/NAME) and the seeds, and prints a markdown table of executions, corpus size
#     and findings. Corpora grow across runs in build-fuzz/fuzz-corpus/NAME; findings (crash-*,
#     leak-*, timeout-*, oom-*) land in build-fuzz/fuzz-findings/NAME/, each log in
#     build-fuzz/fuzz-logs/. TASKMAP_FUZZ_RUNS=N stops a target after N executions.
#   scripts/fuzz.sh --replay [TARGET...]
#     CI's fuzz step: every input of the saved corpus and every seed run once through each
#     target's replay program of the sanitizer build (build-sanitize/, as scripts/test.sh
#     --sanitize configures it; leak detection on). No mutation, no clock in the verdict: the
#     same commit gives the same verdict. Prints inputs and the slowest input per target.
#   scripts/fuzz.sh --merge [TARGET...]
#     Adds to fuzz/corpus/NAME the inputs of build-fuzz/fuzz-corpus/NAME that reach code the
#     saved corpus does not (libFuzzer's -merge=1), for whoever fuzzed a changed reader: commit
#     them with the change.
# Exit status 1 when a target found something (or a replay failed).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/step.sh
source scripts/configure.sh
mode=fuzz
case ${1:-} in
  --replay) mode=replay; shift ;;
  --merge) mode=merge; shift ;;
  *) seconds=${1:-60}; shift || true ;;
esac
build=build-fuzz
[[ $mode == replay ]] && build=build-sanitize
shared=../shared/data
max_seed_bytes=65536
# Saved inputs above this size are left out of fuzz/corpus (libFuzzer's -max_len while fuzzing).
max_corpus_bytes=4096

if [[ $mode == replay ]]; then
  configure_sanitize
  cmake --build "$build" -j2 --target taskmap_fuzz
  # The sanitizer build's options, leak detection on: the replay programs run no MPI.
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
else
  configure_fuzz
  cmake --build "$build" -j2 --target taskmap_fuzz
fi

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
  saved=fuzz/corpus/$name corpus=$build/fuzz-corpus/$name seed_dir=$build/fuzz-seeds/$name
  findings=$build/fuzz-findings/$name log=$build/fuzz-logs/$name.log
  program=$build/fuzz/fuzz_$name
  if [[ $mode == merge ]]; then
    mkdir -p "$saved"
    before=$(find "$saved" -type f | wc -l)
    "$program" -merge=1 -max_len=$max_corpus_bytes -rss_limit_mb=2048 -timeout=10 "$saved" "$corpus" > "$log" 2>&1 \
      || { echo "fuzz_$name: merge failed (see $log)"; status=1; }
    rows+=("| $name | $before | $(find "$saved" -type f | wc -l) |")
    continue
  fi
  rm -rf "$seed_dir"
  mkdir -p "$seed_dir"
  for seed in $seeds; do add_seeds "$seed" "$seed_dir"; done
  if [[ $mode == replay ]]; then
    step "fuzz_$name: replay"
    start=$SECONDS
    inputs=("$seed_dir")
    [[ -d $saved ]] && inputs+=("$saved")
    if "$program" "${inputs[@]}" > "$log" 2>&1; then
      rows+=("| $name | $(sed -n 's/ inputs, slowest \([0-9.]*\) s.*/ | \1 s/p' "$log" | tail -n 1) | $((SECONDS - start))s | ok |")
    else
      rows+=("| $name | ? | ? | $((SECONDS - start))s | **failed** (see $log) |")
      tail -n 40 "$log"
      status=1
    fi
    continue
  fi
  mkdir -p "$corpus" "$findings"
  before=$(count_findings "$findings")
  start=$SECONDS
  step "fuzz_$name: ${seconds}s"
  "$program" -dict="fuzz/$dict.dict" -rss_limit_mb=2048 -timeout=10 -max_total_time="$seconds" \
    -max_len=$max_corpus_bytes -runs="${TASKMAP_FUZZ_RUNS:--1}" -print_final_stats=1 -artifact_prefix="$findings/" \
    "$corpus" $([[ -d $saved ]] && echo "$saved") "$seed_dir" > "$log" 2>&1 || true
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
case $mode in
  fuzz) echo "| target | executions | corpus | findings | time |"; echo "|---|---:|---:|---:|---:|" ;;
  replay) echo "| target | inputs | slowest input | time | verdict |"; echo "|---|---:|---:|---:|---|" ;;
  merge) echo "| target | saved inputs before | after |"; echo "|---|---:|---:|" ;;
esac
printf '%s\n' "${rows[@]}"
if (( status != 0 )) && [[ $mode == fuzz ]]; then
  echo
  echo "Findings (crash/leak/timeout/oom inputs) are in $build/fuzz-findings/, logs in $build/fuzz-logs/."
fi
exit $status
