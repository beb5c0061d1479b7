#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/probe/conn-calls.sh [ROUNDS [SECS]]
#
# Where a connection cycle spends its time, per library: the bench's conn
# case (connect, ESTABLISHED, disconnect, CLOSED, delete) runs for SECS
# seconds (default 3) on our librpma and on Debian's, ROUNDS times (default
# 2, alternating which goes first), with verbs-shim.so preloaded on both
# sides; prints the client's RESULT line and, per side, the average time of
# each librdmacm/libibverbs call. Libraries: RPMA_BENCH_OURS and
# RPMA_BENCH_C as for bench/run.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BENCH_BUILD_DIR:-$root/build/bench}
rounds=${1:-2} secs=${2:-3}
mkdir -p "$build"
gcc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$build/verbs-shim.so" "$here/verbs-shim.c" -ldl
"$root/bench/build-bench.sh" "$build/rpma-bench"
cd "$root"
softroce/rxe-run "$(printf '%q ' bash "$here/conn-calls-guest.sh" "$build" "$rounds" "$secs")" |
  grep -a '^\[' | tee "$build/conn-calls.txt"
