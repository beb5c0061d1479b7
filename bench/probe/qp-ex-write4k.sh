#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/probe/qp-ex-write4k.sh [ROUNDS [SECS [CASE SIZE QD]]] -- does an
# extended QP (one made with send_ops_flags, as both libraries make theirs
# where the device has native FLUSH and ATOMIC WRITE) cost time by itself?
# Four contenders, rotated from round to round, one write row (default:
# 4096 bytes at QD 1, 8 rounds of 2 s):
#   verbs        verbs-bench, plain QPs
#   verbs-ex     verbs-bench with VERBS_BENCH_QP_EX=1 at both ends
#   ours         rpma-bench on ours as it is (extended QPs on Debian 13)
#   ours-plain   the same with RPMA_NATIVE_FLUSH=0 RPMA_NATIVE_ATOMIC_WRITE=0
#                at both ends (plain QPs, emulated flush)
# Prints a RESULT line per run (lib=, round=, then the program's own), for
# bench/limit_report.py-style reading. Runs in the Debian 13 guest, after
# build-bench.sh built build/bench with rdma-core 56 headers:
#   VERBS_HEADERS_ROOT=$(softroce/stack-root trixie) bench/build-bench.sh build/bench/rpma-bench
#   RXE_STACK=trixie softroce/rxe-run -- bash bench/probe/qp-ex-write4k.sh
set -u
cd "$(dirname "$0")/../.."
rounds=${1:-8} secs=${2:-2} c=${3:-write} s=${4:-4096} q=${5:-1}
b=build/bench ip=$RPMA_TESTING_IP lib=$PWD/build/lib/librpma.so.0
[ -x $b/verbs-bench ] && [ -x $b/rpma-bench ] || { echo "qp-ex-write4k: build $b first (see above)"; exit 2; }
plain=(RPMA_NATIVE_FLUSH=0 RPMA_NATIVE_ATOMIC_WRITE=0)
uname -r
port=7500
run() { # WHO ROUND
  local who=$1 r=$2 env=() line
  port=$((port + 1))
  case $who in
  verbs | verbs-ex)
    [ "$who" = verbs-ex ] && env=(VERBS_BENCH_QP_EX=1)
    env ${env[@]+"${env[@]}"} taskset -c 1 "$b/verbs-bench" server "$ip" $port >/tmp/srv.out 2>&1 &
    local spid=$!
    for _ in $(seq 50); do grep -q '^listening' /tmp/srv.out && break; sleep 0.1; done
    line=$(env ${env[@]+"${env[@]}"} taskset -c 0 "$b/verbs-bench" client "$ip" $port "$c" "$s" "$q" "$secs" | grep '^RESULT ')
    wait $spid ;;
  ours | ours-plain)
    [ "$who" = ours-plain ] && env=("${plain[@]}")
    env ${env[@]+"${env[@]}"} LD_LIBRARY_PATH="$(dirname "$lib")" BENCH_EXPECT_LIB="$lib" \
      taskset -c 1 "$b/rpma-bench" server "$ip" $port >/tmp/srv.out 2>&1 &
    local spid=$!
    for _ in $(seq 100); do grep -q '^listening' /tmp/srv.out && break; sleep 0.1; done
    line=$(env ${env[@]+"${env[@]}"} LD_LIBRARY_PATH="$(dirname "$lib")" BENCH_EXPECT_LIB="$lib" BENCH_WARMUP_MS=250 \
      taskset -c 0 "$b/rpma-bench" client "$ip" $port "$c" "$s" "$q" -t "$secs" | grep '^RESULT ')
    LD_LIBRARY_PATH="$(dirname "$lib")" "$b/rpma-bench" quit "$ip" $port >/dev/null 2>&1
    wait $spid ;;
  esac
  if [ -z "$line" ]; then echo "FAIL lib=$who round=$r"; tail -n 5 /tmp/srv.out; return; fi
  echo "RESULT lib=$who round=$r ${line#RESULT }"
}
orders=("verbs verbs-ex ours ours-plain" "verbs-ex ours ours-plain verbs"
  "ours ours-plain verbs verbs-ex" "ours-plain verbs verbs-ex ours")
for r in $(seq "$rounds"); do
  for who in ${orders[$(((r - 1) % 4))]}; do run "$who" "$r"; done
done
