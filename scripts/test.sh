#!/usr/bin/env bash
# Builds taskmap and runs the whole test suite (the README's second command, and .ci/run),
# then lists every skipped test with its reason. The build is scripts/build.sh's, so after the
# README's first command only what changed since is built.
# With --sanitize: the same in build-sanitize/, built with ASan and UBSan (every report fatal),
# the MPI tests included, and the fuzz targets as replay programs (scripts/fuzz.sh --replay).
# Both builds turn warnings into errors (TASKMAP_WERROR).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
if [[ ${1:-} == --sanitize ]]; then
  build=build-sanitize
  source scripts/configure.sh
  configure_sanitize
  cmake --build "$build" -j2
  # Open MPI's own allocations outlive MPI_Finalize: leak reports would be Open MPI's.
  export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
else
  scripts/build.sh
fi
status=0
ctest --test-dir "$build" --output-on-failure -j2 || status=$?

# Skip reasons, from ctest's log of this run: GoogleTest prints a skipped test's reason
# between "FILE:LINE: Skipped" and "[  SKIPPED ] NAME".
log=$build/Testing/Temporary/LastTest.log
if [[ -f $log ]]; then
  awk '
    /^[0-9]+\/[0-9]+ Test: / { name = substr($0, index($0, "Test: ") + 6); reason = ""; inskip = 0; next }
    /: Skipped$/ { inskip = 1; reason = ""; next }
    inskip && /^\[  SKIPPED \] / { skips[++n] = name ": " reason; inskip = 0; next }
    inskip { reason = reason (reason == "" ? "" : " ") $0 }
    END {
      if (n == 0) { print "No test skipped."; exit }
      print n " test(s) skipped:"
      for (i = 1; i <= n; ++i) print "  " skips[i]
    }' "$log"
else
  echo "scripts/test.sh: no $log, cannot list skipped tests" >&2
  status=1
fi
exit $status
