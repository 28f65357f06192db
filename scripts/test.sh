#!/usr/bin/env bash
# Builds taskmap and runs the whole test suite (the README's second command, and .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir build --output-on-failure -j2
