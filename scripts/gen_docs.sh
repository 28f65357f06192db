#!/usr/bin/env bash
# Regenerates docs/machines.md, docs/node-topologies.md, docs/routings.md, docs/patterns.md, docs/mappers.md and docs/formats.md from the
# catalog tables (the test Docs.GeneratedCatalogDocsAreCurrent fails while they are stale).
# Usage: scripts/gen_docs.sh [TASKMAP_BINARY]   (default build/taskmap)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/taskmap}
for kind in machines node-topologies routings patterns mappers formats; do
  "$bin" list "$kind" --format markdown > "docs/$kind.md.tmp"
  mv "docs/$kind.md.tmp" "docs/$kind.md"
done
