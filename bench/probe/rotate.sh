#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/probe/rotate.sh ROUNDS SECS CASE SIZE QD CONTENDER... -- one row of
# the benchmark with contenders that bench/limit.sh does not have: a
# library or raw verbs under another environment. Each CONTENDER is
#   NAME=PROGRAM[:VAR=VALUE...]
# PROGRAM being verbs (bench/verbs-bench.c), ours or c (rpma-bench on our
# librpma or on Debian's), and the VAR=VALUE words the environment of both
# its ends. The contenders run in turn, the order rotating from round to
# round, pinned as bench/limit.sh pins its runs (bench/servers.sh). Prints
# per run
#   RESULT lib=NAME round=R <the program's own RESULT fields>
# and with PROBE_CPU=1 also where each CPU's time went during the run and
# which kernel threads ran (rxe defers work to softirq on Linux 6.1, to a
# workqueue on 6.12):
#   CPU lib=NAME round=R cpu0=user/system/softirq/idle cpu1=... threads=NAME:ms,...
# (per cent of the run, from /proc/stat; thread times from /proc/PID/stat).
# bench/limit_report.py reads the RESULT lines. Runs in the SoftRoCE guest
# after bench/build-bench.sh built build/bench, for example
#   bench/build-bench.sh build/bench/rpma-bench
#   softroce/rxe-run -- bash bench/probe/rotate.sh 12 1 write 64 16 \
#     ours=ours ours-ack0=ours:RPMA_ACK_TIMEOUT=0 c=c
# (on Debian 13's stack: VERBS_HEADERS_ROOT=$(softroce/stack-root trixie)
# before build-bench.sh, and RXE_STACK=trixie RPMA_BENCH_FLUSH=visibility
# before rxe-run: C 1.3.0 registers a region for a flush to persistence only
# in persistent memory, and rpma-bench's server asks for one otherwise).
set -u
cd "$(dirname "$0")/../.."
[ $# -ge 6 ] || { sed -n '3,/^set -u/{/^set -u/q;s/^# \{0,1\}//p}' "$0"; exit 2; }
rounds=$1 secs=$2 c=$3 s=$4 q=$5
shift 5
specs=("$@")
b=build/bench ip=${RPMA_TESTING_IP:?not in the rxe guest}
[ -x $b/verbs-bench ] && [ -x $b/rpma-bench ] || { echo "rotate: build $b first (see above)"; exit 2; }
ours=$PWD/build/lib/librpma.so.0
clib=$(realpath /usr/lib/x86_64-linux-gnu/librpma.so.0)
hz=$(getconf CLK_TCK)
# the pinning of bench/limit.sh (pin_server, pin_client; RPMA_BENCH_PIN=0: none)
# shellcheck source=bench/servers.sh
. bench/servers.sh
pin_cpus
uname -r

# the per-CPU jiffies: "cpuN user nice system idle iowait irq softirq ..."
cpu_snap() { grep -E '^cpu[01] ' /proc/stat; }
# the CPU time of rxe's kernel threads so far: "pid name jiffies"
thread_snap() {
  local f pid comm rest
  for f in /proc/[0-9]*/stat; do
    read -r pid comm rest <"$f" 2>/dev/null || continue
    case $comm in "(ksoftirqd/"* | "(kworker/"* | "(rxe"*)
      # utime and stime, fields 14 and 15, are the 12th and 13th after comm
      # shellcheck disable=SC2086
      set -- $rest
      echo "$pid $comm $((${12} + ${13}))" ;;
    esac
  done
}
# cpu0=us/sy/si/id cpu1=...: the share of each between two cpu_snaps
cpu_diff() {
  awk 'NR == FNR { for (i = 2; i <= NF; i++) a[$1, i] = $i; next }
    { t = 0; for (i = 2; i <= NF; i++) { d[i] = $i - a[$1, i]; t += d[i] }
      if (t == 0) t = 1
      printf "%s=%.0f/%.0f/%.0f/%.0f ", $1, 100 * (d[2] + d[3]) / t, 100 * d[4] / t, 100 * d[8] / t, 100 * d[5] / t }' "$1" "$2"
}
# name:ms,... of the threads that ran between two thread_snaps
thread_diff() {
  awk -v hz="$hz" 'NR == FNR { a[$1] = $3; next }
    { d = $3 - a[$1]; if (d > 0) { gsub(/[()]/, "", $2); out = out sep $2 ":" d * 1000 / hz; sep = "," } }
    END { print (out == "" ? "none" : out) }' "$1" "$2"
}

port=7600
run() { # SPEC ROUND
  local name=${1%%=*} rest=${1#*=} prog env=() line spid srv=/tmp/rotate.srv vc=$c
  prog=${rest%%:*}
  [ "$prog" = "$rest" ] || IFS=: read -r -a env <<<"${rest#*:}"
  port=$((port + 1))
  local server=() client=()
  case $prog in
  verbs)
    # a flush to visibility is verbs-bench's native one, as in bench/limit-guest.sh
    [ "$c" = flush ] && [ "${RPMA_BENCH_FLUSH:-}" = visibility ] && vc=flush_native
    server=("$b/verbs-bench" server "$ip" $port)
    client=("$b/verbs-bench" client "$ip" $port "$vc" "$s" "$q" "$secs") ;;
  ours | c)
    local lib=$ours
    [ "$prog" = c ] && lib=$clib
    env+=(LD_LIBRARY_PATH="$(dirname "$lib")" BENCH_EXPECT_LIB="$lib")
    server=("$b/rpma-bench" server "$ip" $port)
    client=(env BENCH_WARMUP_MS=250 "$b/rpma-bench" client "$ip" $port "$c" "$s" "$q" -t "$secs") ;;
  *) echo "rotate: unknown program '$prog' in $1"; exit 2 ;;
  esac
  local cpu=${PROBE_CPU:-0}
  env ${env[@]+"${env[@]}"} "${pin_server[@]}" "${server[@]}" >$srv 2>&1 &
  spid=$!
  for _ in $(seq 100); do grep -q '^listening' $srv && break; sleep 0.1; done
  [ "$cpu" = 1 ] && { cpu_snap >/tmp/rotate.c0; thread_snap >/tmp/rotate.t0; }
  line=$(env ${env[@]+"${env[@]}"} "${pin_client[@]}" "${client[@]}" | grep '^RESULT ')
  [ "$cpu" = 1 ] && { cpu_snap >/tmp/rotate.c1; thread_snap >/tmp/rotate.t1; }
  # rpma-bench's server serves until asked to quit; verbs-bench's ends with its client
  [ "$prog" = verbs ] || env ${env[@]+"${env[@]}"} "$b/rpma-bench" quit "$ip" $port >/dev/null 2>&1
  wait $spid
  if [ -z "$line" ]; then echo "FAIL lib=$name round=$2"; tail -n 5 $srv; return; fi
  line=${line/ case=$vc / case=$c }
  echo "RESULT lib=$name round=$2 ${line#RESULT }"
  if [ "$cpu" = 1 ]; then
    echo "CPU lib=$name round=$2 $(cpu_diff /tmp/rotate.c0 /tmp/rotate.c1)threads=$(thread_diff /tmp/rotate.t0 /tmp/rotate.t1)"
  fi
}
n=${#specs[@]}
for r in $(seq "$rounds"); do
  for ((i = 0; i < n; i++)); do run "${specs[$(((i + r - 1) % n))]}" "$r"; done
done
