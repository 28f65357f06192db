#!/usr/bin/env bash
# Mapping a million ranks: halo3d:128x128x64 (7-point, 1,048,576 tasks) on
# torus:32x32x32,ppn=32 (32,768 routers), each mapper run alone by `compare` under
# --routing dor (whose evaluation of a placement is cheap, so the command's time is the
# mapper's), with two binaries side by side. Per mapper and binary: the mapper's own seconds
# (compare's mapping_seconds), the whole command's user CPU seconds and peak resident memory
# (/usr/bin/time), MCL and hop-bytes; and the load average when the row ran (the machine may be
# shared: prefer the CPU seconds). Targets: every mapper but refine-mcl under 60 s and 4 GB,
# rb+refine-mcl under 120 s with an MCL at least 10% below rb's.
# Usage: bash bench/scale_map.sh OLD NEW [MAPPERS] [ROUTING]
#   MAPPERS: comma-separated (default: default,rb,greedy,scotch,refine-hb,rb+refine-mcl)
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1")
new=$(realpath "$2")
mappers=${3:-default,rb,greedy,scotch,refine-hb,rb+refine-mcl}
routing=${4:-dor}
job=(--machine torus:32x32x32,ppn=32 --pattern halo3d:128x128x64 --routing "$routing")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "map_s user_s rss_mb mcl hop_bytes" of one run, or "failed ..." with the error's last line.
run() {
  local bin=$1 mapper=$2
  if ! /usr/bin/time -f "%U %M" -o "$work/time" "$bin" compare "${job[@]}" --mappers "$mapper" --format json \
      > "$work/out.json" 2> "$work/err"; then
    echo "failed: $(tail -1 "$work/err")"
    return
  fi
  python3 - "$work/out.json" "$work/time" <<'PY'
import json, sys
row = json.load(open(sys.argv[1]))["rows"][0]
user, rss_kb = open(sys.argv[2]).read().split()[-2:]
print(f"{row['mapping_seconds']:.1f} {float(user):.1f} {int(rss_kb) / 1024:.0f} {row['mcl']:.6g} {row['hop_bytes']:.6g}")
PY
}

printf "%-14s | %-33s | %-33s | %s\n" "" "old: map s, user s, MB, MCL" "new: map s, user s, MB, MCL" "hop-bytes old -> new; load"
IFS=',' read -r -a list <<< "$mappers"
for mapper in "${list[@]}"; do
  load=$(cut -d' ' -f1 /proc/loadavg)
  read -r om ou orss omcl ohb <<< "$(run "$old" "$mapper")" || true
  read -r nm nu nrss nmcl nhb <<< "$(run "$new" "$mapper")" || true
  printf "%-14s | %6s %7s %6s %-10s | %6s %7s %6s %-10s | %s -> %s; %s\n" "$mapper" "$om" "$ou" "$orss" "$omcl" \
    "$nm" "$nu" "$nrss" "$nmcl" "$ohb" "$nhb" "$load"
done
