#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/probe/cpu-split-guest.sh BUILD ROUNDS SECS -- the guest side of
# cpu-split.sh
set -u
build=$1 rounds=$2 secs=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/probe/guest-libs.sh
. "$here/guest-libs.sh"
fmt='user_s=%U sys_s=%S wall_s=%e slept=%w preempted=%c'
tmp=$(mktemp -d)
one_run() {
  local l=$1 r=$2 port=$3 spid
  LD_LIBRARY_PATH=${dir_of[$l]} /usr/bin/time -o "$tmp/server.time" -f "$fmt" taskset -c 1 \
    "$build/rpma-bench" server "$ip" "$port" >"$tmp/server" 2>&1 &
  spid=$!
  wait_listening "$tmp/server"
  BENCH_CLIENT_WAIT=wait LD_LIBRARY_PATH=${dir_of[$l]} /usr/bin/time -o "$tmp/client.time" -f "$fmt" \
    taskset -c 0 "$build/rpma-bench" client "$ip" "$port" pingpong 8 16 -t "$secs" \
    >"$tmp/client" 2>&1
  stop_server "$l" "$port" "$spid"
  grep -a '^RESULT\|^STATS' "$tmp/client" | sed "s/^/[$l round $r client] /"
  sed "s/^/[$l round $r client] CPU /" "$tmp/client.time"
  sed "s/^/[$l round $r server] CPU /" "$tmp/server.time"
}
for_rounds "$rounds" one_run
rm -rf "$tmp"
