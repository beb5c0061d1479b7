#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/guest.sh BIN ROUNDS SECS CASES_REGEX [ROWS_REGEX] -- the guest side of
# bench/run.sh
#
# Runs in the SoftRoCE guest (softroce/rxe-run). Starts two rpma-bench
# servers, one on our librpma (ports 7471/7472) and one on Debian's
# (7481/7482), checks from /proc/PID/maps that each runs on the library asked
# for, then for each round and each case/size/qd of the matrix (case names
# filtered by CASES_REGEX, grep -E; and whole rows "case size qd" by
# ROWS_REGEX) runs the client on both libraries, C first
# on odd rounds and ours first on even ones, each client against the server
# of its own library. The client itself checks (BENCH_EXPECT_LIB) that it and
# its server run on the library asked for. Prints for each run
#   RESULT lib=ours|c round=R case=... (the client's RESULT fields)
# or, when a run fails,
#   FAIL lib=.. round=.. case=.. size=.. qd=.. rc=..  (and the client's stderr)
# The RESULT lines end with empty_polls= (rpma_cq_get_wc calls that found
# nothing) and wall_s= (the client's whole run, start-up included).
#
# Knobs (RPMA_* variables reach the guest through rxe-run):
#   RPMA_BENCH_OURS, RPMA_BENCH_C   the two librpma.so.0 files
#   RPMA_BENCH_WARMUP_MS    warm-up: 100 ops or this many ms (default 250)
#   RPMA_BENCH_SERVER_POLL  busy (default) or wait: how the servers wait for
#                           completions (see rpma-bench.c)
#   RPMA_BENCH_SERVER       ours or c: the clients of both libraries talk to
#                           that library's server (default: each library's
#                           client to its own), so a row compares the
#                           clients alone
#   RPMA_BENCH_CLIENT       ours or c: both libraries' servers are measured
#                           with that library's client, so a row compares
#                           the servers alone (the row's "lib" is the
#                           server's)
#   RPMA_BENCH_PIN=0        no CPU pinning (default: servers on CPU 1,
#                           clients on CPU 0)
#   RXE_ALL_PROVIDERS=1     (given to run.sh) keep every libibverbs provider
#                           (default: rxe-run leaves only rxe's)
set -u
bin=$1 rounds=$2 secs=$3 regex=$4 rows=${5:-.}
ip=${RPMA_TESTING_IP:?not in the rxe guest}
here=$(cd "$(dirname "$0")" && pwd)
ours=$(realpath "${RPMA_BENCH_OURS:-$here/../build/lib/librpma.so.0}")
clib=$(realpath "${RPMA_BENCH_C:-/usr/lib/x86_64-linux-gnu/librpma.so.0}")
declare -A lib_of=([ours]=$ours [c]=$clib) port_of=([ours]=7471 [c]=7481) pid_of=()
declare -A dir_of=([ours]=$(dirname "$ours") [c]=$(dirname "$clib"))
# the warm-up: 100 operations, or fewer when they take more than this
warmup_ms=${RPMA_BENCH_WARMUP_MS:-250}
tmp=$(mktemp -d)
start_all=$SECONDS

# the matrix: case size qd
matrix=()
for c in read write flush pingpong write_imm srq; do
  for s in 8 4096 65536; do for q in 1 16; do matrix+=("$c $s $q"); done; done
  [ "$c" = write ] && matrix+=("atomic_write 8 1" "atomic_write 8 16")
done
matrix+=("conn 8 1" "mr 8 1" "mr 4096 1" "mr 65536 1")
# the event-driven rows: CASE_wait is CASE with a client that sleeps in
# rpma_cq_wait (BENCH_CLIENT_WAIT=wait) instead of busy polling
for c in write_wait pingpong_wait; do for q in 1 16; do matrix+=("$c 8 $q"); done; done
sel=()
for m in "${matrix[@]}"; do
  if echo "${m%% *}" | grep -Eq -- "$regex" && echo "$m" | grep -Eq -- "$rows"; then sel+=("$m"); fi
done
[ ${#sel[@]} -gt 0 ] || { echo "guest: no case matches '$regex' and '$rows'"; exit 2; }

who=guest
# shellcheck source=bench/servers.sh
. "$here/servers.sh"
trap stop_servers EXIT

mixed=()
case ${RPMA_BENCH_SERVER:-}/${RPMA_BENCH_CLIENT:-} in
  /) ;;
  ours/ | c/ | /ours | /c) mixed=(env BENCH_ALLOW_MIXED=1) ;;
  *) echo "guest: RPMA_BENCH_SERVER or RPMA_BENCH_CLIENT (not both) must be ours or c"; exit 2 ;;
esac
pin_cpus
server_env=(BENCH_SERVER_POLL="${RPMA_BENCH_SERVER_POLL:-busy}")
start_servers

fails=0
for r in $(seq "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then order="c ours"; else order="ours c"; fi
  echo "guest: round $r of $rounds (${#sel[@]} cases, $order) at $((SECONDS - start_all)) s"
  for m in "${sel[@]}"; do
    read -r c s q <<<"$m"
    bc=${c%_wait} wait_mode=busy
    [ "$bc" != "$c" ] && wait_mode=wait
    for l in $order; do
      t0=${EPOCHREALTIME/./}
      cl=${RPMA_BENCH_CLIENT:-$l}
      LD_LIBRARY_PATH=${dir_of[$cl]} BENCH_EXPECT_LIB=${lib_of[$cl]} BENCH_WARMUP_MS=$warmup_ms \
        BENCH_CLIENT_WAIT=$wait_mode "${mixed[@]}" \
        timeout -k 5 $((secs + 120)) "${pin_client[@]}" "$bin" client "$ip" "${port_of[${RPMA_BENCH_SERVER:-$l}]}" "$bc" "$s" "$q" -t "$secs" \
        >"$tmp/out" 2>"$tmp/err"
      rc=$?
      t1=${EPOCHREALTIME/./}
      # builtins only: every process costs in the TCG guest
      line= stats=
      while IFS= read -r x; do case $x in "RESULT "*) line=$x ;; esac; done <"$tmp/out"
      # the row's own name, so the report keeps busy and event-driven apart
      line=${line/ case=$bc / case=$c }
      while IFS= read -r x; do
        case $x in
          "STATS "*) stats=${x#STATS }; stats=${stats%% *} ;;
          "PHASES "*) echo "PHASES lib=$l round=$r ${x#PHASES }" ;;
        esac
      done <"$tmp/err"
      if [ $rc -eq 0 ] && [ -n "$line" ]; then
        printf 'RESULT lib=%s round=%s %s %s wall_s=%d.%02d\n' "$l" "$r" "${line#RESULT }" "$stats" \
          $(((t1 - t0) / 1000000)) $(((t1 - t0) % 1000000 / 10000))
      else
        fails=$((fails + 1))
        echo "FAIL lib=$l round=$r case=$c size=$s qd=$q rc=$rc"
        sed 's/^/  | /' "$tmp/err" | tail -5
      fi
      check_servers
    done
  done
done
stop_servers
trap - EXIT
echo "guest: done in $((SECONDS - start_all)) s, $fails failed runs"
rm -rf "$tmp"
[ $fails -eq 0 ]
