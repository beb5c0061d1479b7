#!/usr/bin/env bash
# rxe-suite.sh MANIFEST OUTDIR
#
# Boots the SoftRoCE guest once and runs every test of MANIFEST in it, one
# after the other. MANIFEST has one test per line: NAME, a tab, and a shell
# command. Each test's output lands in OUTDIR/NAME.log and its exit status in
# OUTDIR/NAME.rc, where rxe-result.sh reports it as its own CTest test.
# Exits non-zero only when the guest itself failed.
set -u
manifest=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rm -rf "$out"; mkdir -p "$out"
# RXE_STACK picks the guest's stack (softroce/rxe-run); RXE_SKIP, a regular
# expression on test names, leaves tests out of this run
if [ -n "${RXE_SKIP:-}" ]; then
  awk -F '\t' -v re="$RXE_SKIP" '$1 !~ re' "$manifest" >"$out/manifest"
  manifest=$out/manifest
fi
# the whole suite in one boot: more than rxe-run's default limit, less than
# the CTest fixture's TIMEOUT
# the outcomes known to differ on this stack and device (see
# rxe-suite-guest.sh; RXE_DEVICE=siw: known-STACK-siw.tsv) and, on Debian
# 13's stack, persistent memory for the tests to run in
device_suffix=
[ "${RXE_DEVICE:-rxe}" = rxe ] || device_suffix=-$RXE_DEVICE
export RPMA_SUITE_KNOWN=$root/tests-c/known-${RXE_STACK:-bookworm}$device_suffix.tsv
if [ "${RXE_STACK:-bookworm}" = trixie ]; then
  export RXE_PMEM_MB=${RXE_PMEM_MB:-2048}
fi
RXE_TIMEOUT=${RXE_TIMEOUT:-2300} "$root/softroce/rxe-run" "$here/rxe-suite-guest.sh" "$manifest" >"$out/console.log" 2>&1
rc=$?
# Split the console into one log per test; markers carry the exit status.
awk -v out="$out" '
  /^@@test begin / { name = $3; file = out "/" name ".log"; printf "" > file; next }
  /^@@test end /   { print $4 > (out "/" $3 ".rc"); close(file); name = ""; next }
  name != ""       { print >> file }
' "$out/console.log"
if [ $rc -ne 0 ]; then
  echo "rxe-suite: the guest run failed with status $rc:"
  tail -30 "$out/console.log"
fi
exit $rc
