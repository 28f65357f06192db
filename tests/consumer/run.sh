#!/usr/bin/env bash
# The installed taskmap as a consumer sees it (CTest tests Install.*).
# Usage: run.sh STEP BUILD_DIR PREFIX [EXPECTED_MCL]
# TASKMAP_CONSUMER_FLAGS: compiler flags the consumer needs too (a sanitized build's).
#   install       cmake --install BUILD_DIR into a fresh PREFIX; check what landed there
#   find-package  configure, build and run this folder's program with find_package(taskmap)
#   pkg-config    build main.cpp with `pkg-config --cflags --libs taskmap` and run it
#   headers       compile one file including every installed header, from PREFIX alone
set -euo pipefail
step=$1 build=$2 prefix=$3 expected=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$prefix.$step
fail() { echo "FAIL: $*" >&2; exit 1; }
check_output() {
  local output
  output=$("$1")
  echo "$output"
  [[ "$output" == "MCL $expected" ]] || fail "expected 'MCL $expected', got '$output'"
}
pc_dir() { dirname "$(find "$prefix" -name taskmap.pc -print -quit)"; }

case $step in
  install)
    rm -rf "$prefix"
    cmake --install "$build" --prefix "$prefix" >/dev/null
    for f in bin/taskmap bin/taskmap-gpu-run include/taskmap/map/catalog/mapper_catalog.h share/doc/taskmap/topology-file.md \
             share/man/man1/taskmap.1 share/bash-completion/completions/taskmap; do
      [[ -e $prefix/$f ]] || fail "not installed: $f"
    done
    for f in cmake/taskmap/taskmap-config.cmake cmake/taskmap/taskmap-config-version.cmake \
             cmake/taskmap/taskmap-targets.cmake pkgconfig/taskmap.pc libtaskmap_core.a libtaskmap_map.a; do
      compgen -G "$prefix/lib*/$f" >/dev/null || compgen -G "$prefix/lib/*/$f" >/dev/null || fail "not installed: lib/$f"
    done
    # The man page and the completion script are the installed binary's own (taskmap generate).
    cmp -s "$prefix/share/man/man1/taskmap.1" <("$prefix/bin/taskmap" generate man) ||
      fail "share/man/man1/taskmap.1 differs from the installed taskmap's"
    cmp -s "$prefix/share/bash-completion/completions/taskmap" <("$prefix/bin/taskmap" generate bash-completion) ||
      fail "share/bash-completion/completions/taskmap differs from the installed taskmap's"
    # The MPI libraries the build made (one profiler and one reorder library per MPI found).
    for built in "$build"/libtaskmap-profile-*.so "$build"/libtaskmap-reorder-*.so; do
      [[ -e $built ]] || continue
      compgen -G "$prefix/lib*/$(basename "$built")" >/dev/null || fail "not installed: $(basename "$built")"
    done
    ;;
  find-package)
    rm -rf "$work"
    cmake -S "$here" -B "$work" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_CXX_FLAGS="${TASKMAP_CONSUMER_FLAGS:-}" >/dev/null
    grep -q "^taskmap_DIR:PATH=$prefix/" "$work/CMakeCache.txt" || fail "find_package did not find taskmap in $prefix"
    cmake --build "$work" -j1 >/dev/null
    check_output "$work/consumer"
    ;;
  pkg-config)
    rm -rf "$work" && mkdir -p "$work"
    export PKG_CONFIG_PATH
    PKG_CONFIG_PATH=$(pc_dir)
    [[ $(pkg-config --modversion taskmap) == "$(sed -n 's/^Version: //p' "$PKG_CONFIG_PATH/taskmap.pc")" ]] || fail "pkg-config"
    # The program before the libraries: static archives resolve what was asked before them.
    # shellcheck disable=SC2046
    c++ -std=c++20 -O1 ${TASKMAP_CONSUMER_FLAGS:-} "$here/main.cpp" -o "$work/consumer" $(pkg-config --cflags --libs taskmap)
    check_output "$work/consumer"
    ;;
  headers)
    rm -rf "$work" && mkdir -p "$work"
    (cd "$prefix/include" && find taskmap -name '*.h' | sort | sed 's/.*/#include "&"/') >"$work/all.cpp"
    [[ $(wc -l <"$work/all.cpp") -gt 20 ]] || fail "too few installed headers"
    c++ -std=c++20 -fsyntax-only -I"$prefix/include" "$work/all.cpp"
    ;;
  *) fail "unknown step $step" ;;
esac
