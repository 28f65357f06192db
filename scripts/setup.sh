#!/usr/bin/env bash
# Installs the Debian 12 packages taskmap needs to build, test, fuzz and benchmark.
# Idempotent: packages already present are left alone. Needs root (or sudo).
# With --extras it also installs what the checks beyond the test suite use: the MPI programs
# bench/profile.sh records (lammps, lammps-examples, hpcc).
set -euo pipefail
packages=(
  build-essential cmake pkg-config
  ccache  # compiles cached outside the checkout (scripts/configure.sh)
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libbenchmark-dev
  liblzma-dev zlib1g-dev xz-utils
  coinor-libcbc-dev
  libscotch-dev scotch libmetis-dev
  libptscotch-dev  # the distributed partition under Open MPI's mpirun
  libopenmpi-dev openmpi-bin
  mpich libmpich-dev  # the MPI libraries are built and tested for both MPIs
  libsimgrid-dev
  libhwloc-dev libyaml-cpp-dev
  libarchive-dev  # forwarding tables read from tar files
  libtbb-dev  # the evaluator's threads
  clang libfuzzer-14-dev  # scripts/fuzz.sh
  chromium  # the tests render the HTML report headless (tests/eval/html_render.cpp)
  python3-jsonschema  # the tests check every JSON output against docs/schema/ (tests/cli/json_schema.cpp)
  man-db groff-base  # the tests render taskmap(1) and check groff's warnings (tests/cli/man_page_completion.cpp)
  jq  # docs/mpi.md's recipe for checking a reorder report, which tests/launch/reorder_launch.cpp runs
  time python3-networkx python3-scipy  # bench/general.sh: CPU times, the generated graphs
  opensm ibsim-utils libumad2sim0 infiniband-diags  # scripts/opensm_routes.sh: OpenSM's LFTs on a simulated fabric
)
if [ "${1:-}" = "--extras" ]; then
  packages+=(lammps lammps-examples hpcc)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
