#!/usr/bin/env bash
# opensm_routes.sh FABRIC ENGINE OUT [opensm options...]
#
# Runs OpenSM (Debian's opensm 3.3.23) once on FABRIC simulated by ibsim (ibsim-utils) and
# writes the linear forwarding tables (LFTs) it installed:
#   FABRIC  ibnetdiscover output or `ibnetdiscover -p` port list, possibly .gz
#   ENGINE  an OpenSM routing engine (-R): minhop updn dnup ftree dfsssp sssp lash nue ...
#   OUT     the LFTs as dump_fts read them back from the simulated switches, one block per
#           switch in switch GUID order, ibroute's format (`Unicast lids [0x0-0xN] of switch
#           Lid L guid 0x... (desc):`, then `0xLID PPP : (Type portguid 0x...: 'desc')`)
#   OUT.log-summary  what happened: the engine OpenSM used (a fallback to minhop is reported
#           as such), the roots updn/dnup/ftree chose, every port's LID as OpenSM assigned it
#           beside the LID in FABRIC, whether dump_fts agrees with OpenSM's opensm-lfts.dump
#   Extra arguments go to opensm: -l LMC, -a ROOT_GUID_FILE (updn/dnup/ftree roots), -r (fresh
#   LIDs instead of keeping FABRIC's), -u/-G (ftree compute/io nodes), -X ...
# The fabric is converted by ibnet_to_ibsim.py (beside this script), which writes each port's
# LID from FABRIC: OpenSM keeps those LIDs unless -r is given. The subnet manager attaches to
# port 1 of the CA that ran ibnetdiscover (else the CA of lowest GUID); SIM_HOST overrides it.
# Each run has its own ibsim socket name and temporary directory, so runs can go in parallel;
# ibsim is stopped on every exit. KEEP_TMP=1 keeps the temporary directory (its path goes to
# stderr). Exit 0 when OpenSM configured the tables (with ENGINE or a fallback: see the
# summary), 1 when the fabric, ibsim, OpenSM or dump_fts failed (one line on stderr).
set -euo pipefail

usage() {
  echo "usage: $0 FABRIC ENGINE OUT [opensm options...]" >&2
  exit 2
}
[ $# -ge 3 ] || usage
fabric=$1 engine=$2 out=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
for tool in ibsim opensm dump_fts python3; do
  command -v "$tool" >/dev/null || { echo "$0: $tool not found (apt-get install ibsim-utils opensm infiniband-diags)" >&2; exit 1; }
done
[ -e "$umad2sim" ] || { echo "$0: $umad2sim not found (apt-get install libumad2sim0)" >&2; exit 1; }
[ -r "$fabric" ] || { echo "$0: $fabric: cannot read" >&2; exit 1; }
[ -d "$(dirname "$out")" ] || { echo "$0: $out: no such directory" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/opensm_routes.XXXXXX")
sim_pid=
cleanup() {
  local rc=$?
  if [ -n "$sim_pid" ]; then
    kill "$sim_pid" 2>/dev/null || true
    wait "$sim_pid" 2>/dev/null || true
  fi
  if [ "${KEEP_TMP:-0}" = 1 ]; then echo "$0: kept $tmp" >&2; else rm -rf "$tmp"; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
fail() {
  echo "$0: $fabric: $*" >&2
  exit 1
}
start=$(date +%s.%N)

python3 "$here/ibnet_to_ibsim.py" "$fabric" "$tmp/net" >"$tmp/facts" || exit 1
fact() { sed -n "s/^$1=//p" "$tmp/facts"; }
nodes=$(fact nodes) switches=$(fact switches) ports=$(fact ports) max_lid=$(fact max_lid)
sim_host=${SIM_HOST:-$(fact sim_host)}

# ibsim's tables are sized at start: nodes (-N, 2048 by default), switches (-S, 256), ports
# (-P) and the LFT size (-L, 30720): give it room for this fabric.
linearcap=$(( max_lid + 1 > 30720 ? max_lid + 1 : 30720 ))
sock="osmr$$_$(basename "$tmp")"
IBSIM_SOCKNAME=$sock ibsim -s -n -N $((nodes + 16)) -S $((switches + 16)) -P $((ports + 64)) \
  -L "$linearcap" "$tmp/net" </dev/null >"$tmp/ibsim.out" 2>&1 &
sim_pid=$!
# Ready when its control socket (abstract name "<sock>:ctl") is bound: a client that comes
# earlier sleeps 2 s before it retries.
for _ in $(seq 1 400); do
  grep -qE "@${sock}:ctl(@|$)" /proc/net/unix && break
  kill -0 "$sim_pid" 2>/dev/null || fail "ibsim stopped: $(grep -m1 -iE 'panic|error|warn' "$tmp/ibsim.out" || tail -1 "$tmp/ibsim.out")"
  sleep 0.025
done
grep -qE "@${sock}:ctl(@|$)" /proc/net/unix || fail "ibsim did not start in 10 s"

sim() { env IBSIM_SOCKNAME="$sock" SIM_HOST="$sim_host" LD_PRELOAD="$umad2sim" "$@"; }
# -F /dev/null: OpenSM's defaults, whatever /etc/opensm/opensm.conf says. -D 0x47: errors,
# info, verbose and the routing dumps (opensm-lfts.dump, opensm-updn-roots.dump...).
if ! sim env OSM_TMP_DIR="$tmp" OSM_CACHE_DIR="$tmp" timeout 300 \
  opensm -F /dev/null -o -e -f "$tmp/opensm.log" -D 0x47 -d 2 --dump_files_dir "$tmp" \
  -R "$engine" "$@" >"$tmp/opensm.out" 2>&1; then
  fail "opensm failed: $(grep -m1 -E 'ERR|error|invalid|usage' "$tmp/opensm.log" "$tmp/opensm.out" 2>/dev/null | cut -d: -f2- || true)"
fi
sim timeout 300 dump_fts >"$tmp/dump_fts.out" 2>"$tmp/dump_fts.err" || fail "dump_fts failed: $(grep -v '^ibwarn' "$tmp/dump_fts.err" | head -1)"
seconds=$(echo "$(date +%s.%N) $start" | awk '{printf "%.2f", $1 - $2}')

python3 "$here/opensm_report.py" --fabric "$fabric" --engine "$engine" --tmp "$tmp" \
  --seconds "$seconds" --sim-host "$sim_host" --out "$out" -- "$@" || exit 1
