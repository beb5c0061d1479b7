#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/limit-guest.sh BIN ROUNDS SECS [ROWS_REGEX] -- the guest side of
# bench/limit.sh
#
# Runs in the SoftRoCE guest. Three contenders on the same device in the same
# boot, for each row "case size qd" of the matrix (case write, read, send or
# flush; sizes 64 B to 1 MiB in powers of 4; QD 1 and 16), in rounds whose
# order rotates (verbs c ours, then c ours verbs, then ours verbs c):
#   verbs  perftest's ib_<case>_bw on rdma_cm (-R), every work request
#          signalled (-Q 1) as the libraries' runs are, QD as its tx depth;
#          for flush, verbs-bench (beside BIN): a write and an 8-byte read,
#          or with RPMA_BENCH_FLUSH=visibility (Debian 13's stack) a write
#          and a native FLUSH; with RPMA_BENCH_VERBS=verbs-bench, write and
#          read from verbs-bench too (on Debian 13's stack perftest's
#          bandwidth is well below the libraries')
#   c      rpma-bench on Debian's C librpma (server and client)
#   ours   rpma-bench on ours
# and, at QD 1, the latency of raw verbs: perftest's ib_<case>_lat for write
# and send (half a ping-pong's round trip, as perftest reports it), and
# verbs-bench for read and flush (from posting to the completion, as the
# libraries' figure is; ib_read_lat fails over rdma_cm on rxe).
# Prints per run
#   RESULT lib=verbs|c|ours round=R case=.. size=.. qd=.. ops_s=.. mb_s=.. cpu_us_op=.. [p50_us=.. p99_us=..] [rnr_naks=N]
#   LAT lib=verbs round=R case=.. size=.. p50_us=.. p99_us=..
#   (rnr_naks: the receiver-not-ready NAKs the device received during the run)
# or FAIL lines. rpma-bench's send is one-way, as ib_send_bw's is. Then, of
# the libraries only: "mr SIZE 1" (registration and deregistration, 4 KiB
# to 1 GiB), "conn 8 1" (connections set up and torn down), and
# "scale_write 64 N", "scale_srq 64 N": N connections (1 to 64) on one
# endpoint, one operation in flight on each (a write; a ping-pong the server
# receives through one shared receive queue).
set -u
bin=$1 rounds=$2 secs=$3 rows=${4:-.}
vbin=$(dirname "$bin")/verbs-bench
ip=${RPMA_TESTING_IP:?not in the rxe guest}
here=$(cd "$(dirname "$0")" && pwd)
ours=$(realpath "${RPMA_BENCH_OURS:-$here/../build/lib/librpma.so.0}")
clib=$(realpath "${RPMA_BENCH_C:-/usr/lib/x86_64-linux-gnu/librpma.so.0}")
declare -A lib_of=([ours]=$ours [c]=$clib) port_of=([ours]=7471 [c]=7481) pid_of=()
tmp=$(mktemp -d)
start_all=$SECONDS
verbs_port=7491

matrix=()
for c in write read send flush; do
  for s in 64 256 1024 4096 16384 65536 262144 1048576; do
    for q in 1 16; do matrix+=("$c $s $q"); done
  done
done
# the scale rows, of the two libraries only: registration (reg + dereg)
# from 4 KiB to 1 GiB, and the connection set-up rate (connect to delete)
for s in 4096 65536 1048576 16777216 268435456 1073741824; do matrix+=("mr $s 1"); done
matrix+=("conn 8 1")
for c in scale_write scale_srq; do
  for n in 1 2 4 8 16 32 64; do matrix+=("$c 64 $n"); done
done
sel=()
for m in "${matrix[@]}"; do
  if echo "$m" | grep -Eq -- "$rows"; then sel+=("$m"); fi
done
[ ${#sel[@]} -gt 0 ] || { echo "limit-guest: no row matches '$rows'"; exit 2; }
command -v ib_write_bw >/dev/null || { echo "limit-guest: perftest is not installed in the guest"; exit 2; }

who=limit-guest
# shellcheck source=bench/servers.sh
. "$here/servers.sh"
trap stop_servers EXIT
pin_cpus
start_servers

# verbs-bench on both ends (read, flush): prints the RESULT line (and at
# QD 1 the LAT line), or FAIL; with lat_only, the LAT line only
run_verbs_bench() {
  local r=$1 c=$2 s=$3 q=$4 what=${5:-all} vc=$2 out=$tmp/vb.out
  [ "$c" = flush ] && [ "${RPMA_BENCH_FLUSH:-}" = visibility ] && vc=flush_native
  "${pin_server[@]}" timeout $((secs + 60)) "$vbin" server "$ip" $((verbs_port + 2)) >"$tmp/vb.srv" 2>&1 &
  local spid=$!
  for _ in $(seq 50); do grep -q '^listening' "$tmp/vb.srv" && break; sleep 0.1; done
  "${pin_client[@]}" timeout $((secs + 60)) "$vbin" client "$ip" $((verbs_port + 2)) "$vc" "$s" "$q" "$secs" \
    >"$out" 2>&1
  local rc=$? line=
  wait "$spid"
  local src=$?
  line=$(grep '^RESULT ' "$out")
  if [ $rc -ne 0 ] || [ $src -ne 0 ] || [ -z "$line" ]; then
    echo "FAIL lib=verbs round=$r case=$c size=$s qd=$q"
    tail -n 5 "$out" "$tmp/vb.srv" | sed 's/^/  | /'
    return
  fi
  line=${line/ case=$vc / case=$c }
  local ops p50 p99
  ops=$(sed -n 's/.* ops_s=\([0-9.]*\).*/\1/p' <<<"$line")
  p50=$(sed -n 's/.* p50_us=\([0-9.]*\).*/\1/p' <<<"$line")
  p99=$(sed -n 's/.* p99_us=\([0-9.]*\).*/\1/p' <<<"$line")
  [ "$q" = 1 ] && echo "LAT lib=verbs round=$r case=$c size=$s p50_us=$p50 p99_us=$p99"
  [ "$what" = lat_only ] && return
  printf 'RESULT lib=verbs round=%s %s mb_s=%s\n' "$r" "${line#RESULT }" \
    "$(awk -v o="$ops" -v s="$s" 'BEGIN { printf "%.2f", o * s / 1048576 }')"
}

# the CPU time (user + system) of the children, the last line `times`
# printed in FILE, in microseconds
cpu_us() {
  local u s last
  # no process substitution: the guest has no /dev/fd
  last=$(tail -n 1 "$1")
  read -r u s <<<"$last"
  awk -v u="$u" -v s="$s" 'function t(x, m) { m = x; sub(/m.*/, "", m); sub(/^[0-9]+m/, "", x); sub(/s$/, "", x); return (m * 60 + x) * 1e6 }
    BEGIN { printf "%.0f", t(u) + t(s) }'
}

# perftest on both ends: prints the RESULT line, or FAIL
run_verbs() {
  local r=$1 c=$2 s=$3 q=$4 out=$tmp/verbs.out srv=$tmp/verbs.srv rnr0
  rnr0=$(rnr_naks)
  local args=(-R -F -s "$s" -t "$q" -Q 1 -D "$secs" -p "$verbs_port")
  "${pin_server[@]}" timeout $((secs + 60)) "ib_${c}_bw" "${args[@]}" >"$srv" 2>&1 &
  local spid=$!
  sleep 0.5
  ( "${pin_client[@]}" timeout $((secs + 60)) "ib_${c}_bw" "${args[@]}" "$ip" >"$out" 2>&1; echo "rc=$?"; times ) >"$tmp/verbs.times"
  wait "$spid"
  local src=$?
  # the result line: bytes iterations peak average msg_rate
  local line
  line=$(awk -v s="$s" '$1 == s && NF >= 5 { l = $0 } END { print l }' "$out")
  if ! grep -q '^rc=0' "$tmp/verbs.times" || [ $src -ne 0 ] || [ -z "$line" ]; then
    echo "FAIL lib=verbs round=$r case=$c size=$s qd=$q"
    tail -n 5 "$out" "$srv" | sed 's/^/  | /'
    return
  fi
  # in duration mode the iterations column is the measured operations
  read -r _ iters _ mbs mpps <<<"$line"
  local cpu
  cpu=$(cpu_us "$tmp/verbs.times")
  with_rnr "$(awk -v r="$r" -v c="$c" -v s="$s" -v q="$q" -v mbs="$mbs" -v mpps="$mpps" -v it="$iters" -v cpu="$cpu" \
    'BEGIN { ops = mpps * 1e6; printf "RESULT lib=verbs round=%s case=%s size=%s qd=%s ops_s=%.1f mb_s=%.2f cpu_us_op=%.3f", r, c, s, q, ops, mbs, (it > 0 ? cpu / it : 0) }')" "$rnr0"
}

# perftest's latency at QD 1: t_typical (the median) and the 99th percentile
run_verbs_lat() {
  local r=$1 c=$2 s=$3 out=$tmp/lat.out n=1000
  [ "$s" -ge 262144 ] && n=200
  local args=(-R -F -s "$s" -n "$n" -p $((verbs_port + 1)))
  "${pin_server[@]}" timeout 120 "ib_${c}_lat" "${args[@]}" >"$tmp/lat.srv" 2>&1 &
  local spid=$!
  sleep 0.5
  "${pin_client[@]}" timeout 120 "ib_${c}_lat" "${args[@]}" "$ip" >"$out" 2>&1
  local rc=$?
  wait "$spid"
  # bytes iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
  local line
  line=$(awk -v s="$s" '$1 == s && NF >= 8 { l = $0 } END { print l }' "$out")
  if [ $rc -ne 0 ] || [ -z "$line" ]; then
    echo "FAIL lib=verbs-lat round=$r case=$c size=$s"
    tail -n 5 "$out" | sed 's/^/  | /'
    return
  fi
  read -r _ _ _ _ typ _ _ p99 _ <<<"$line"
  echo "LAT lib=verbs round=$r case=$c size=$s p50_us=$typ p99_us=$p99"
}

# receiver-not-ready NAKs this device has received so far (empty where the
# device counts none, as siw): a send that meets a receiver with no receive
# posted waits for the responder's RNR timer, which rdma_cm leaves at its
# largest value, 655 ms
rnr_naks() {
  cat "/sys/class/infiniband/${RPMA_TESTING_DEVICE:-rxe0}/ports/1/hw_counters/rcvd_rnr_err" 2>/dev/null
}

# LINE BEFORE: LINE with rnr_naks=N appended, N the NAKs since BEFORE
with_rnr() {
  local now
  now=$(rnr_naks)
  if [ -n "$2" ] && [ -n "$now" ]; then echo "$1 rnr_naks=$((now - $2))"; else echo "$1"; fi
}

run_lib() {
  local l=$1 r=$2 c=$3 s=$4 q=$5 rnr0
  rnr0=$(rnr_naks)
  LD_LIBRARY_PATH=$(dirname "${lib_of[$l]}") BENCH_EXPECT_LIB=${lib_of[$l]} BENCH_WARMUP_MS=250 \
    timeout -k 5 $((secs + 120)) "${pin_client[@]}" "$bin" client "$ip" "${port_of[$l]}" "$c" "$s" "$q" -t "$secs" \
    >"$tmp/out" 2>"$tmp/err"
  local rc=$? line=
  while IFS= read -r x; do case $x in "RESULT "*) line=$x ;; esac; done <"$tmp/out"
  if [ $rc -ne 0 ] || [ -z "$line" ]; then
    echo "FAIL lib=$l round=$r case=$c size=$s qd=$q rc=$rc"
    tail -n 5 "$tmp/err" | sed 's/^/  | /'
    return
  fi
  local ops
  ops=$(sed -n 's/.* ops_s=\([0-9.]*\).*/\1/p' <<<"$line")
  with_rnr "$(printf 'RESULT lib=%s round=%s %s mb_s=%s' "$l" "$r" "${line#RESULT }" \
    "$(awk -v o="$ops" -v s="$s" 'BEGIN { printf "%.2f", o * s / 1048576 }')")" "$rnr0"
}

orders=("verbs c ours" "c ours verbs" "ours verbs c")
for r in $(seq "$rounds"); do
  order=${orders[$(((r - 1) % 3))]}
  echo "limit-guest: round $r of $rounds (${#sel[@]} rows, $order) at $((SECONDS - start_all)) s"
  for m in "${sel[@]}"; do
    read -r c s q <<<"$m"
    for l in $order; do
      if [ "$l" = verbs ] && [[ $c =~ ^(mr|conn|scale_.*)$ ]]; then
        continue
      elif [ "$l" = verbs ] && { [ "$c" = flush ] || { [ "${RPMA_BENCH_VERBS:-perftest}" = verbs-bench ] &&
        [[ $c =~ ^(write|read)$ ]]; }; }; then
        run_verbs_bench "$r" "$c" "$s" "$q"
      elif [ "$l" = verbs ]; then
        run_verbs "$r" "$c" "$s" "$q"
        # ib_read_lat fails over rdma_cm on rxe ("Failed to handle RDMA CM
        # event: Operation not supported", then a segfault): verbs-bench
        # measures the read's latency
        if [ "$q" = 1 ] && [ "$c" = read ]; then
          run_verbs_bench "$r" "$c" "$s" "$q" lat_only
        elif [ "$q" = 1 ]; then
          run_verbs_lat "$r" "$c" "$s"
        fi
      else
        run_lib "$l" "$r" "$c" "$s" "$q"
      fi
    done
    check_servers
  done
done
stop_servers
trap - EXIT
echo "limit-guest: done in $((SECONDS - start_all)) s"
rm -rf "$tmp"
