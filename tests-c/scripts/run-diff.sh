#!/usr/bin/env bash
# run-diff.sh TEST-BINARY OURS-LIBDIR REFERENCE-LIBDIR
#
# Runs one C test binary twice, once served by our librpma.so.0 and once by
# the reference (Debian's C librpma), each chosen by LD_LIBRARY_PATH and
# asserted by the test itself (RPMA_TEST_EXPECT_LIB). Both runs must pass and
# print the same observations.
#
# On a stack where the reference is known to fail a test (the suite's list
# of known outcomes, tests.toml), RUN_DIFF_REF_FAILS holds the
# reason: the reference must still fail (so the entry cannot go stale), ours
# must pass, and the observations are not compared. On a transport or kernel
# that cannot do what a test asserts (soft-iWARP; Linux 6.12 rxe retransmitting
# a native flush), RUN_DIFF_BOTH_FAIL holds the
# reason: both runs must fail, and fail the same checks (the FAIL lines and
# their got/expected values) with the same observations. RUN_DIFF_OURS_ENV holds
# extra VAR=VALUE words for our run. RUN_DIFF_KEEP names a folder that gets
# each side's stdout as NAME.ours / NAME.ref (scripts/obs-compare.sh uses it
# to hold two versions of the suite to the same observations).
# RUN_DIFF_WRAP names a program that runs the binary (qemu-user for
# another architecture's, `cargo xtask check arch`).
set -u
bin=$1 ours=$2 ref=$3
name=$(basename "$bin")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
status=0
read -r -a ours_env <<<"${RUN_DIFF_OURS_ENV:-}"
for side in ours ref; do
  dir=${!side}
  extra=(); [ $side = ours ] && extra=("${ours_env[@]}")
  # a reference known to fail may also hang (waiting for a server that
  # failed): it gets a minute
  bound=()
  [ -n "${RUN_DIFF_REF_FAILS:-}" ] && [ $side = ref ] && bound=(timeout -k 5 60)
  "${bound[@]}" env "${extra[@]}" LD_LIBRARY_PATH="$dir" RPMA_TEST_EXPECT_LIB="$dir/librpma.so.0" ${RUN_DIFF_WRAP:-} "$bin" >"$work/$side.out" 2>"$work/$side.err"
  rc=$?
  if [ -n "${RUN_DIFF_REF_FAILS:-}" ] && [ $side = ref ]; then
    echo "$name [ref] exit $rc, $(tail -1 "$work/$side.out"); known to fail here: $RUN_DIFF_REF_FAILS"
    grep -a '^FIGURE ' "$work/$side.err" | sed "s/^/  [$side] /"
    [ $rc -ne 0 ] || { echo "$name: the reference passed: its entry in the known outcomes is stale"; status=1; }
    continue
  fi
  echo "$name [$side: $(sed -n 's/^librpma under test: //p' "$work/$side.err")] exit $rc, $(tail -1 "$work/$side.out")"
  # figures a test measured (times, deltas) are shown even when it passes
  grep -a '^FIGURE ' "$work/$side.err" | sed "s/^/  [$side] /"
  if [ -n "${RUN_DIFF_BOTH_FAIL:-}" ]; then
    [ $rc -ne 0 ] || { echo "$name [$side] passed, but is known to fail on this transport: the entry is stale"; status=1; }
    # the failed checks, without what differs by nature (the library's path)
    grep -a -E '^(FAIL | +got )' "$work/$side.err" >"$work/$side.fails"
    continue
  fi
  if [ $rc -ne 0 ]; then
    status=1
    sed 's/^/  | /' "$work/$side.err"
  fi
done
if [ -n "${RUN_DIFF_BOTH_FAIL:-}" ]; then
  echo "$name: known to fail on this transport with both libraries: $RUN_DIFF_BOTH_FAIL"
  if ! diff -u --label "ours" --label "C librpma" "$work/ours.fails" "$work/ref.fails"; then
    echo "$name: the two libraries fail different checks"
    status=1
  else
    sed 's/^/  | both: /' "$work/ours.fails"
  fi
fi
if [ -n "${RUN_DIFF_KEEP:-}" ]; then
  mkdir -p "$RUN_DIFF_KEEP"
  for side in ours ref; do cp "$work/$side.out" "$RUN_DIFF_KEEP/$name.$side"; done
fi
[ -n "${RUN_DIFF_REF_FAILS:-}" ] && exit $status
if ! diff -u --label "ours" --label "C librpma" "$work/ours.out" "$work/ref.out" >"$work/diff"; then
  echo "$name: observations differ between our library and the C library:"
  cat "$work/diff"
  status=1
fi
exit $status
