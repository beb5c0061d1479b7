# SPDX-License-Identifier: BSD-3-Clause
# bench/probe/guest-libs.sh -- sourced by the probes' guest sides (with
# `here` set to bench/probe): the guest's address, the two libraries
# (RPMA_BENCH_OURS and RPMA_BENCH_C, as for bench/run.sh) and dir_of[ours|c],
# the folder each is loaded from; then the round loop and the server's
# start and stop that the probes share.
ip=${RPMA_TESTING_IP:?not in the rxe guest}
ours=$(realpath "${RPMA_BENCH_OURS:-$here/../../build/lib/librpma.so.0}")
clib=$(realpath "${RPMA_BENCH_C:-/usr/lib/x86_64-linux-gnu/librpma.so.0}")
declare -A dir_of=([ours]=$(dirname "$ours") [c]=$(dirname "$clib"))

# for_rounds ROUNDS FN: FN LIB ROUND PORT for both libraries in each round,
# C first in odd rounds and ours first in even ones (so that neither always
# runs on a guest just warmed up by the other), each run on a port of its own
for_rounds() {
  local r l order
  for r in $(seq "$1"); do
    if [ $((r % 2)) -eq 1 ]; then order="c ours"; else order="ours c"; fi
    for l in $order; do
      "$2" "$l" "$r" $((7600 + 10 * r + ${#l}))
    done
  done
}

# wait_listening FILE: until the server writing FILE listens (10 s at most)
wait_listening() {
  for _ in $(seq 100); do grep -q '^listening' "$1" && return 0; sleep 0.1; done
  return 1
}

# stop_server LIB PORT PID: asks the benchmark's server to quit, and waits
# for it (BUILD: the folder of rpma-bench)
stop_server() {
  LD_LIBRARY_PATH=${dir_of[$1]} "$build/rpma-bench" quit "$ip" "$2" >/dev/null 2>&1
  wait "$3"
}
