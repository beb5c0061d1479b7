#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/probe/conn-calls-guest.sh BUILD ROUNDS SECS -- the guest side of
# conn-calls.sh
set -u
build=$1 rounds=$2 secs=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/probe/guest-libs.sh
. "$here/guest-libs.sh"
tmp=$(mktemp -d)
one_run() {
  local l=$1 r=$2 port=$3 spid
  LD_LIBRARY_PATH=${dir_of[$l]} LD_PRELOAD=$build/verbs-shim.so taskset -c 1 \
    "$build/rpma-bench" server "$ip" "$port" >"$tmp/server" 2>&1 &
  spid=$!
  wait_listening "$tmp/server"
  LD_LIBRARY_PATH=${dir_of[$l]} LD_PRELOAD=$build/verbs-shim.so taskset -c 0 \
    "$build/rpma-bench" client "$ip" "$port" conn 8 1 -t "$secs" 2>&1 |
    grep -a '^RESULT\|^PROBE' | sed "s/^/[$l round $r client] /"
  stop_server "$l" "$port" "$spid"
  grep -a '^PROBE' "$tmp/server" | sed "s/^/[$l round $r server] /"
}
for_rounds "$rounds" one_run
rm -rf "$tmp"
