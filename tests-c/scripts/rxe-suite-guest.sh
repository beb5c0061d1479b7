#!/usr/bin/env bash
# rxe-suite-guest.sh MANIFEST -- the guest side of rxe-suite.sh: runs each
# test of MANIFEST between markers, each bounded by a timeout.
#
# The valgrind, helgrind and fault-injection runs (names ending in
# .valgrind or .helgrind, or starting with fault.) are slow and mostly CPU:
# they run in a second lane, beside the others, and their marked output is
# printed once both lanes are done, so markers never interleave.
set -u
manifest=$1

# run_lane: runs the manifest lines on stdin one after the other
run_lane() {
  local name cmd start rc limit
  while IFS=$'\t' read -r name cmd; do
    [ -z "$name" ] && continue
    echo "@@test begin $name"
    start=$SECONDS
    limit=${RPMA_TEST_TIMEOUT:-180}
    # a fault-injection sweep runs an example once per injection point
    [[ $name == fault.* ]] && limit=900
    timeout -k 5 "$limit" bash -c "$cmd" </dev/null 2>&1
    rc=$?
    [ $rc -eq 124 ] && echo "timed out after $limit s"
    echo "($name took $((SECONDS - start)) s in the guest)"
    echo "@@test end $name $rc"
  done
}

slow=$(mktemp)
slow_re='\\.(valgrind|helgrind)$|^fault\\.'
awk -F '\t' -v re="$slow_re" '$1 ~ re' "$manifest" | run_lane >"$slow" 2>&1 &
lane=$!
awk -F '\t' -v re="$slow_re" '$1 !~ re' "$manifest" | run_lane
wait "$lane"
cat "$slow"
rm -f "$slow"
