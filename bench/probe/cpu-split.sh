#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/probe/cpu-split.sh [ROUNDS [SECS]]
#
# Where the event-driven ping-pong at QD 16 spends its CPU: per library, a
# busy-polling server and a client that sleeps in rpma_cq_wait (the row
# pingpong_wait 8 16 of bench/run.sh) run for SECS seconds (default 5)
# under /usr/bin/time, ROUNDS times (default 2, alternating which library
# goes first). Prints the client's RESULT and STATS lines and, per side,
# user and system CPU seconds and context switches. The user seconds bound
# what any library can save: they hold the benchmark, libc, libibverbs and
# the provider as well as librpma. Libraries: RPMA_BENCH_OURS and
# RPMA_BENCH_C as for bench/run.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BENCH_BUILD_DIR:-$root/build/bench}
rounds=${1:-2} secs=${2:-5}
[[ $rounds =~ ^[1-9][0-9]*$ && $secs =~ ^[1-9][0-9]*$ ]] || { sed -n '2,${/^#/!q;/SPDX-License-Identifier/d;s/^# \{0,1\}//p}' "$0"; exit 2; }
[ -x /usr/bin/time ] || { echo "cpu-split.sh: needs /usr/bin/time (Debian package time)" >&2; exit 1; }
mkdir -p "$build"
"$root/bench/build-bench.sh" "$build/rpma-bench"
cd "$root"
softroce/rxe-run "$(printf '%q ' bash "$here/cpu-split-guest.sh" "$build" "$rounds" "$secs")" |
  grep -a '^\[' | tee "$build/cpu-split.txt"
