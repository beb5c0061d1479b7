#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/probe/perf-write4k.sh -- where a 4 KiB write at QD 1 spends its
# time: raw verbs (verbs-bench) and ours (rpma-bench), twice each, every
# client 4 s under `perf record -a`. Runs in a guest whose userland is this
# host's (it needs the host's linux-perf package), after bench/limit.sh built
# build/bench:
#   RXE_KERNEL=trixie softroce/rxe-run -- bash bench/probe/perf-write4k.sh
set -u
cd "$(dirname "$0")/../.."
b=build/bench ip=$RPMA_TESTING_IP
sysctl -qw kernel.perf_event_paranoid=-1 kernel.kptr_restrict=0
uname -r
for who in verbs ours verbs ours; do
  if [ $who = verbs ]; then
    taskset -c 1 $b/verbs-bench server $ip 7471 >/tmp/srv.$who 2>&1 & spid=$!
    sleep 1
    perf record -q -a -o /tmp/p.$who -- taskset -c 0 $b/verbs-bench client $ip 7471 write 4096 1 4 2>&1 | grep RESULT
  else
    env LD_LIBRARY_PATH=$PWD/build/lib BENCH_EXPECT_LIB=$PWD/build/lib/librpma.so.0 taskset -c 1 $b/rpma-bench server $ip 7480 >/tmp/srv.$who 2>&1 & spid=$!
    sleep 2
    perf record -q -a -o /tmp/p.$who -- taskset -c 0 env LD_LIBRARY_PATH=$PWD/build/lib BENCH_EXPECT_LIB=$PWD/build/lib/librpma.so.0 $b/rpma-bench client $ip 7480 write 4096 1 -t 4 2>&1 | grep RESULT
    kill $spid
  fi
  wait $spid 2>/dev/null
  echo "== $who: top symbols, all CPUs"
  perf report -i /tmp/p.$who --no-children --sort comm,dso,sym --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -45
done
