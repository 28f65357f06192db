# Sourced by scripts/build.sh, test.sh and fuzz.sh: the configuration of each of the project's
# three build folders, written once.
#   configure_release    build/           Release (the taskmap command, tests, benchmarks)
#   configure_sanitize   build-sanitize/  ASan + UBSan, every report fatal (-O1, tests -O0, -g1); the
#                                         fuzz targets as replay programs
#   configure_fuzz       build-fuzz/      clang, libFuzzer's coverage, ASan + UBSan
# Every one turns warnings into errors (TASKMAP_WERROR). Extra arguments go to cmake.
#
# When Debian's ccache is installed (and TASKMAP_CCACHE is not 0), every compile goes through
# it, with its cache outside the checkout (${XDG_CACHE_HOME:-~/.cache}/taskmap-ccache, or
# $CCACHE_DIR), so that a new clone on the same machine, CI's included, rebuilds from the cache.
# Paths inside the checkout are hashed relative to it (CCACHE_BASEDIR), so a clone elsewhere
# finds the same entries, and the build folder is not hashed (CCACHE_NOHASHDIR).
ccache_args=()
if [[ ${TASKMAP_CCACHE:-1} != 0 ]] && command -v ccache > /dev/null; then
  export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/taskmap-ccache}
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=1
  # The three builds of the project take about 1.5 GB of it.
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
  ccache_args=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

configure_release() {
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTASKMAP_WERROR=ON "${ccache_args[@]}" "$@" > /dev/null
}

configure_sanitize() {
  # -g1: line tables only, which is all the sanitizers' reports print, and a third less compile time.
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DTASKMAP_SANITIZE=ON -DTASKMAP_BUILD_BENCH=OFF \
    -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1 \
    -DTASKMAP_WERROR=ON "${ccache_args[@]}" "$@" > /dev/null
}

configure_fuzz() {
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DTASKMAP_FUZZ=ON \
    -DTASKMAP_BUILD_TESTS=OFF -DTASKMAP_BUILD_BENCH=OFF -DTASKMAP_WERROR=ON "${ccache_args[@]}" "$@" > /dev/null
}
