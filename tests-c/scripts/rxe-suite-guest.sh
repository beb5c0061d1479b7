#!/usr/bin/env bash
# rxe-suite-guest.sh MANIFEST -- runs a guest's share of `cargo xtask test`
# inside the SoftRoCE guest (softroce/rxe-run). MANIFEST has a test a line:
# NAME, LIMIT (seconds), FLAGS ("slow", "ram", both comma-separated, or -)
# and a shell command, tab-separated. Each test's output is printed in one
# block between "@@test begin NAME" and "@@test end NAME STATUS", as soon
# as it ends; the runner reads them from the console.
#
# Two lanes share the guest's two CPUs and one queue. The slow tests
# (valgrind, fault sweeps: each waits a fixed time for a peer started under
# valgrind) run one at a time, first, in the second lane. Each lane's
# servers listen in a port range of its own (t_port() in
# tests-c/common/rpma_live.c). With persistent memory (RXE_PMEM_NODE) a
# test runs with all its memory there, as on a host with pmem, unless
# flagged "ram".
set -u
manifest=$1
queue=$(mktemp -d)

# claim FILE: the next line of FILE no lane has taken, or failure
claim() {
  local f=$1 fd n
  exec {fd}>>"$f.lock"
  flock "$fd"
  n=$(($(cat "$f.taken" 2>/dev/null || echo 0) + 1))
  echo "$n" >"$f.taken"
  exec {fd}>&-
  [ "$n" -le "$(wc -l <"$f")" ] && sed -n "${n}p" "$f"
}

run_test() {
  local name limit flags cmd start rc out mem=() fd
  IFS=$'\t' read -r name limit flags cmd <<<"$1"
  out=$queue/$name.out
  start=$SECONDS
  [ -n "${RXE_PMEM_NODE:-}" ] && [[ ,$flags, != *,ram,* ]] && mem=(numactl --membind="$RXE_PMEM_NODE")
  timeout -k 5 "$limit" "${mem[@]}" bash -c "$cmd" </dev/null >"$out" 2>&1
  rc=$?
  [ $rc -eq 124 ] && echo "timed out after $limit s" >>"$out"
  echo "($name took $((SECONDS - start)) s in the guest)" >>"$out"
  exec {fd}>>"$queue/print.lock"
  flock "$fd"
  printf '@@test begin %s\n' "$name"; cat "$out"; printf '@@test end %s %s\n' "$name" "$rc"
  exec {fd}>&-
}

run_lane() {
  local src line
  for src in "$@"; do
    while line=$(claim "$src"); do run_test "$line"; done
  done
}

awk -F '\t' '$3 ~ /(^|,)slow(,|$)/' "$manifest" >"$queue/slow"
awk -F '\t' '$3 !~ /(^|,)slow(,|$)/' "$manifest" >"$queue/rest"
RPMA_TEST_PORT_BASE=26000 RPMA_TEST_PORT_SPAN=5900 run_lane "$queue/slow" "$queue/rest" &
RPMA_TEST_PORT_BASE=20000 RPMA_TEST_PORT_SPAN=5900 run_lane "$queue/rest"
wait
rm -rf "$queue"
