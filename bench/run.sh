#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/run.sh [--rounds R] [--secs S] [--cases REGEX] [--rows REGEX] [--out FILE] [--aa]
#
# Throughput and latency of our librpma against Debian's C librpma, side by
# side on SoftRoCE. Builds bench/rpma-bench.c (into $BENCH_BUILD_DIR, default
# build/bench), boots the rxe guest once (softroce/rxe-run) to run
# bench/guest.sh, which serves each library from its own server and runs
# every case/size/qd R times per library (-t S seconds each; C first on odd
# rounds). The RESULT lines (lib=ours|c, round=N) are saved to FILE (default
# $BENCH_BUILD_DIR/results.txt) and summarised by bench/report.py perf:
#   case | size | qd | C ops/s | ours ops/s | ours/C | C p50/p99 us | ours p50/p99 us
# (medians over the rounds; ours/C is the median of the per-round ratios).
# The conn case's PHASES lines (the time of each step of a cycle) are saved
# too, and summarised by bench/report.py phases.
# REGEX (grep -E) selects case names: read write atomic_write flush pingpong
# write_imm srq conn mr, and write_wait pingpong_wait (size 8, QD 1 and 16:
# the client sleeps in rpma_cq_wait); --rows REGEX selects rows by "case size
# qd" (e.g. 'write 65536 1$'). Defaults: 5 rounds of 1 s (46 case/size/qd rows
# x 2 libraries x 5 rounds = 460 client runs of ~1.9 s: about 15 minutes in
# the TCG guest). Knobs of the guest side (RPMA_BENCH_*): see bench/guest.sh.
# --aa measures the benchmark's own noise: a copy of our library stands in
# for the C one (rows "C" are then ours too), so every ratio away from 1.00
# is the guest's timing, not a difference between libraries.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${BENCH_BUILD_DIR:-$root/build/bench}
rounds=5 secs=1 cases=. rows=. out= aa=0
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --secs) secs=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --rows) rows=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --aa) aa=1; shift ;;
    -h|--help) sed -n '2,${/^#/!q;/SPDX-License-Identifier/d;s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ && $secs =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: bad --rounds/--secs" >&2; exit 2; }
mkdir -p "$build"
out=${out:-$build/results.txt}
bin=$build/rpma-bench

"$here/build-bench.sh" "$bin"
if [ "$aa" = 1 ]; then
  # a file of its own, so each server still maps the path it was given
  mkdir -p "$build/aa"
  cp "$root/build/lib/librpma.so.0" "$build/aa/librpma.so.0"
  export RPMA_BENCH_C=$build/aa/librpma.so.0
  echo "run.sh --aa: the C side is a copy of ours, $RPMA_BENCH_C"
fi

start=$SECONDS
log=$build/run.log
cd "$root"
set +e
RXE_TIMEOUT=${RXE_TIMEOUT:-3600} softroce/rxe-run \
  "$(printf '%q ' bash "$here/guest.sh" "$bin" "$rounds" "$secs" "$cases" "$rows")" | tee "$log"
rc=${PIPESTATUS[0]}
set -e
elapsed=$((SECONDS - start))
# the conn case's PHASES lines too: bench/report.py phases reads them
grep -E '^(RESULT|FAIL|PHASES) ' "$log" >"$out" || true
echo
echo "raw results: $out ($(grep -c '^RESULT' "$out") runs, $(grep -c '^FAIL' "$out") failed); the guest ran $elapsed s (exit status $rc)"
echo
python3 "$here/report.py" perf "$out"
if grep -q '^PHASES ' "$out"; then
  echo
  python3 "$here/report.py" phases "$out"
fi
exit "$rc"
