#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/limit.sh [--rounds R] [--secs S] [--rows REGEX] [--out FILE] [--plots DIR]
#
# Ours against the physical limit: raw verbs (perftest; bench/verbs-bench.c
# where perftest has no such test), Debian's C librpma and ours on the same
# SoftRoCE device in one boot (bench/limit-guest.sh), for write, read, send
# and write+flush, 64 B to 1 MiB in powers of 4, QD 1 and 16; then of the
# libraries alone registration, connection set-up and 1 to 64 connections.
# The RESULT/LAT/FAIL lines go to FILE (default build/bench/limit.txt);
# bench/limit_report.py prints the table (ratios to raw verbs and to C) and
# writes the plots (PNG, gnuplot) to DIR (default build/bench/plots).
# Defaults: 3 rounds of 2 s; --rows REGEX selects rows by "case size qd".
# RXE_STACK=trixie runs on Debian 13's stack against its C 1.3.0, with
# native flush (RPMA_BENCH_FLUSH=visibility: the guest's RAM cannot take a
# flush to persistence) and verbs-bench as raw verbs for write and read
# (RPMA_BENCH_VERBS=verbs-bench: perftest's write and read reach less than
# the libraries on that stack, so they are no limit); either can be set
# otherwise there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${BENCH_BUILD_DIR:-$root/build/bench}
rounds=3 secs=2 rows=. out= plots=
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --secs) secs=$2; shift 2 ;;
    --rows) rows=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --plots) plots=$2; shift 2 ;;
    -h|--help) sed -n '2,${/^#/!q;/SPDX-License-Identifier/d;s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "limit.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ && $secs =~ ^[1-9][0-9]*$ ]] || { echo "limit.sh: bad --rounds/--secs" >&2; exit 2; }
"$root/scripts/setup.sh" bench
mkdir -p "$build"
out=${out:-$build/limit.txt}
plots=${plots:-$build/plots}
bin=$build/rpma-bench
# on Debian 13's stack, verbs-bench gets its rdma-core 56 headers and native flush
if [ "${RXE_STACK:-bookworm}" = trixie ]; then
  export RPMA_BENCH_FLUSH=${RPMA_BENCH_FLUSH-visibility} RPMA_BENCH_VERBS=${RPMA_BENCH_VERBS-verbs-bench}
  VERBS_HEADERS_ROOT=$("$root/softroce/stack-root" trixie) "$here/build-bench.sh" "$bin"
else
  "$here/build-bench.sh" "$bin"
fi
log=$build/limit.log
cd "$root"
set +e
RXE_TIMEOUT=${RXE_TIMEOUT:-7200} softroce/rxe-run \
  "$(printf '%q ' bash "$here/limit-guest.sh" "$bin" "$rounds" "$secs" "$rows")" | tee "$log"
rc=${PIPESTATUS[0]}
set -e
grep -E '^(RESULT|LAT|FAIL) ' "$log" >"$out" || true
echo
echo "raw results: $out; the guest's exit status $rc"
python3 "$here/limit_report.py" "$out" --plots "$plots"
exit "$rc"
