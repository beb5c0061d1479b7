#!/usr/bin/env bash
# rxe-suite-guest.sh MANIFEST -- the guest side of rxe-suite.sh: runs each
# test of MANIFEST between markers, each bounded by a timeout.
#
# The valgrind runs (names ending in .valgrind) are slow and mostly CPU:
# they run in a second lane, beside the others, and their marked output is
# printed once both lanes are done, so markers never interleave.
set -u
manifest=$1

# run_lane: runs the manifest lines on stdin one after the other
run_lane() {
  local name cmd start rc
  while IFS=$'\t' read -r name cmd; do
    [ -z "$name" ] && continue
    echo "@@test begin $name"
    start=$SECONDS
    timeout -k 5 "${RPMA_TEST_TIMEOUT:-180}" bash -c "$cmd" </dev/null 2>&1
    rc=$?
    [ $rc -eq 124 ] && echo "timed out after ${RPMA_TEST_TIMEOUT:-180} s"
    echo "($name took $((SECONDS - start)) s in the guest)"
    echo "@@test end $name $rc"
  done
}

slow=$(mktemp)
awk -F '\t' '$1 ~ /\.valgrind$/' "$manifest" | run_lane >"$slow" 2>&1 &
lane=$!
awk -F '\t' '$1 !~ /\.valgrind$/' "$manifest" | run_lane
wait "$lane"
cat "$slow"
rm -f "$slow"
