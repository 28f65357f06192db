# Sourced by scripts/fuzz.sh and the bench scripts: `step TEXT` prints "[HH:MM:SS] TEXT" on
# stderr when stderr is a terminal, one line per step of a long run, so that whoever waits sees
# where it is; redirected or in CI (no terminal) it prints nothing, and the script's output on
# stdout stays its tables.
step() {
  if [ -t 2 ]; then printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; fi
}
