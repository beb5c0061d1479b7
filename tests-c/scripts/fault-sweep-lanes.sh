#!/usr/bin/env bash
# fault-sweep-lanes.sh JOBS -- guest side of scripts/fault-injection.sh:
# runs fault-sweep.sh for every line "PAIR SIDE [ARG...]" of JOBS, two at a
# time, and prints each sweep's output whole between markers once it ends.
set -u
jobs=$1
here=$(cd "$(dirname "$0")" && pwd)
lock=$(mktemp)
lane() {
  local line tmp
  tmp=$(mktemp)
  while read -r line; do
    # shellcheck disable=SC2086 # the line is the argument list
    "$here/fault-sweep.sh" $line >"$tmp" 2>&1
    {
      flock 9
      echo "@@sweep begin ${line// /_}"
      cat "$tmp"
      echo "@@sweep end"
    } 9>"$lock"
  done
  rm -f "$tmp"
}
# each lane its own port range: with ports drawn from the pid, two lanes
# could pick the same port at the same time and the later listen fail
awk 'NR % 2 == 1' "$jobs" | RPMA_TEST_PORT_BASE=20000 RPMA_TEST_PORT_SPAN=6000 lane &
awk 'NR % 2 == 0' "$jobs" | RPMA_TEST_PORT_BASE=26000 RPMA_TEST_PORT_SPAN=6000 lane
wait
rm -f "$lock"
