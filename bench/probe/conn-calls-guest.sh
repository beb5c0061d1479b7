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
for r in $(seq "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then order="c ours"; else order="ours c"; fi
  for l in $order; do
    port=$((7600 + 10 * r + ${#l}))
    LD_LIBRARY_PATH=${dir_of[$l]} LD_PRELOAD=$build/verbs-shim.so taskset -c 1 \
      "$build/rpma-bench" server "$ip" "$port" >"$tmp/server" 2>&1 &
    spid=$!
    for _ in $(seq 100); do grep -q '^listening' "$tmp/server" && break; sleep 0.1; done
    LD_LIBRARY_PATH=${dir_of[$l]} LD_PRELOAD=$build/verbs-shim.so taskset -c 0 \
      "$build/rpma-bench" client "$ip" "$port" conn 8 1 -t "$secs" 2>&1 |
      grep -a '^RESULT\|^PROBE' | sed "s/^/[$l round $r client] /"
    LD_LIBRARY_PATH=${dir_of[$l]} "$build/rpma-bench" quit "$ip" "$port" >/dev/null 2>&1
    wait "$spid"
    grep -a '^PROBE' "$tmp/server" | sed "s/^/[$l round $r server] /"
  done
done
rm -rf "$tmp"
