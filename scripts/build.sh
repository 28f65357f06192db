#!/usr/bin/env bash
# Configures and builds taskmap (Release, every warning an error) into build/: the README's first
# command, and the first step of its second (scripts/test.sh), which so builds only what changed
# since. Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/configure.sh
configure_release "$@"
cmake --build build -j2
