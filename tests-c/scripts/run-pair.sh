#!/usr/bin/env bash
# run-pair.sh SERVER_LIB SERVER_BIN CLIENT_LIB CLIENT_BIN [ARG...]
#
# Runs a client/server example pair on RPMA_TESTING_IP (each program gets
# "<addr> <port> ARG..."), the server with
# LD_LIBRARY_PATH naming SERVER_LIB's directory and the client with
# CLIENT_LIB's, so any combination of two librpma.so.0 builds can be made
# to talk to each other. The server is started first; the client only once
# the server printed its "listening" line. Each side's dynamic loader trace
# (LD_DEBUG=files) must show that it initialised exactly the library asked
# for. Exits 0 only when both programs exited 0 and both were served right.
#
# Environment: RPMA_TESTING_IP (required), RUN_PAIR_TIMEOUT (seconds each
# program may run, default 60), RUN_PAIR_VALGRIND (a suppressions file:
# the programs run under valgrind memcheck, and any error or definite leak
# fails the run), RUN_PAIR_VALGRIND_SIDE (server or client: only that side
# runs under valgrind; default both), RUN_PAIR_PRELOAD (server or client:
# that side's library is forced in with LD_PRELOAD instead of found through
# LD_LIBRARY_PATH; any other non-empty value: both sides'), RUN_PAIR_SYSTEM
# (non-empty: neither; the programs find librpma.so.0 where the system's
# loader does, and each LIB names the file that must serve them).
#
# A LIB of "rust" names a Rust program with the rpma crate linked in (the
# crate's examples): it is given its role first ("server ADDR PORT ARG..."
# or "client ..."), no library path, and must load no librpma.so.0 at all.
set -u
if [ $# -lt 4 ]; then
  sed -n '2,${/^#/!q;/SPDX-License-Identifier/d;s/^# \{0,1\}//p}' "$0" >&2
  exit 2
fi
# A process costs about 50 ms in the guests, where this runs hundreds of times a
# suite: it starts four besides the programs and reads with bash's builtins.
extra=("${@:5}")
ip=${RPMA_TESTING_IP:-}
if [ -z "$ip" ]; then
  echo "run-pair: RPMA_TESTING_IP is not set (run under softroce/rxe-run)" >&2
  exit 2
fi
limit=${RUN_PAIR_TIMEOUT:-60}
wrap=() scale=()
if [ -n "${RUN_PAIR_VALGRIND:-}" ]; then
  # the examples' own waits for a peer (30 s for a client) stretched 4
  # times on both sides: a peer's start under valgrind alone takes tens of
  # seconds in the emulated guest (example.h, scaled_ms()). Two things
  # shorten that start: no glibc debugging information to read
  # (slim-debuginfo.sh), and no inlining records (a report then names only
  # functions that were not inlined, each with its line).
  scale=(EXAMPLE_WAIT_SCALE=4)
  wrap=("${0%/*}/slim-debuginfo.sh"
        valgrind -q --read-inline-info=no --error-exitcode=99 --leak-check=full --show-leak-kinds=definite
        --errors-for-leak-kinds=definite --suppressions="$RUN_PAIR_VALGRIND")
fi
# one port per run in 20000-31999, below the ephemeral range (32768-60999
# in the guest, shared with the rdma_cm ports clients bind implicitly), like
# the live tests' t_port(), which also says what RPMA_TEST_PORT_* are for
port=$((${RPMA_TEST_PORT_BASE:-20000} + $$ % ${RPMA_TEST_PORT_SPAN:-12000}))

# Each library is named by its own directory (not the one its symlink
# resolves to), the way CMake lays out ours and the reference.
declare -A lib bin dir
for side in server client; do
  if [ "$side" = server ]; then l=$1 b=$2; else l=$3 b=$4; fi
  if [ "$l" = rust ]; then
    [ -x "$b" ] || { echo "run-pair: $side: missing $b" >&2; exit 2; }
    lib[$side]=rust dir[$side]= bin[$side]=$b
    continue
  fi
  if [ ! -e "$l" ] || [ ! -x "$b" ]; then
    echo "run-pair: $side: missing $l or $b" >&2
    exit 2
  fi
  d=${l%/*}
  [[ $l == */* ]] || d=.
  [[ $d == /* ]] || d=$PWD/$d
  lib[$side]=$l dir[$side]=$d bin[$side]=$b
done

work=$(mktemp -d)
declare -A pid rc started
# A pause without a process: bash-builtins' sleep. Never `read -t`: bash 5.2
# may leave SIGCHLD blocked after one, and zombies unreaped (tests-c/flakes).
enable -f sleep sleep 2>/dev/null

# counters: every RDMA port's counters and its connection manager's, "PATH
# VALUE" a line. A failed run prints those that moved: a lost or resent packet
# (rxe's completer_retry_err, retry_exceeded_err, rcvd_seq_err,
# duplicate_request) against a completion that never came, and connection
# messages resent or rejected (cm_tx_retries/*, cm_tx_msgs/rej, cm_rx_msgs/rej).
counters() {
  local f v
  # (the connection manager's are under each port since Linux 5.14)
  for f in /sys/class/infiniband/*/ports/*/hw_counters/* /sys/class/infiniband/*/ports/*/cm_*/*; do
    [ -f "$f" ] && read -r v 2>/dev/null <"$f" && echo "${f#/sys/class/} $v"
  done
}
counters >"$work/counters.before"
cleanup() {
  local p
  for p in "${pid[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

# start SIDE: run its program in the background, output into $work/SIDE.out
# and the loader's trace into $work/SIDE.trace.<pid>. The subshell execs
# the program, so only the program is traced and $! is the program's.
start() {
  local side=$1 role=() vg=("${wrap[@]}") load=LD_LIBRARY_PATH
  case ${RUN_PAIR_VALGRIND_SIDE:-both} in both | "$side") ;; *) vg=() ;; esac
  case ${RUN_PAIR_PRELOAD:-} in
    '') ;;
    server | client) [ "$RUN_PAIR_PRELOAD" = "$side" ] && load=LD_PRELOAD ;;
    *) load=LD_PRELOAD ;;
  esac
  [ -n "${RUN_PAIR_SYSTEM:-}" ] && load=
  [ "${lib[$side]}" = rust ] && load= role=("$side")
  (
    case $load in
      LD_LIBRARY_PATH) export LD_LIBRARY_PATH="${dir[$side]}" ;;
      LD_PRELOAD) export LD_PRELOAD="${lib[$side]}" ;;
      *) unset LD_LIBRARY_PATH LD_PRELOAD ;;
    esac
    export "${scale[@]}" LD_DEBUG=files LD_DEBUG_OUTPUT="$work/$side.trace"
    exec "${vg[@]}" "${bin[$side]}" "${role[@]}" "$ip" "$port" "${extra[@]}"
  ) >"$work/$side.out" 2>&1 </dev/null &
  pid[$side]=$! started[$side]=${EPOCHREALTIME%[.,]*}
}

# finish SIDE: wait for its program and keep the exit status; past the
# limit it is stopped as timeout(1) -k 5 would (TERM, KILL 5 s later,
# status 124). One that outlives its KILL sleeps in the kernel: say where.
finish() {
  local side=$1 p end now over= state
  p=${pid[$side]} end=$((started[$side] + limit))
  while kill -0 "$p" 2>/dev/null; do
    now=${EPOCHREALTIME%[.,]*}
    if [ "$now" -ge $((end + 10)) ]; then
      read -r _ _ state _ <"/proc/$p/stat"
      rc[$side]="none: pid $p outlived its KILL, state $state, in $(</proc/"$p"/wchan)"
      unset "pid[$side]" && return
    elif [ "$now" -ge $((end + 5)) ]; then
      kill -KILL "$p" 2>/dev/null
    elif [ "$now" -ge "$end" ] && [ -z "$over" ]; then
      kill -TERM "$p" 2>/dev/null
      over=1
    fi
    sleep 0.05
  done
  wait "$p"
  rc[$side]=$?
  [ -n "$over" ] && rc[$side]=124
  unset "pid[$side]"
}

# has FILE TEXT: whether a line of FILE holds TEXT
has() {
  local l
  [ -r "$1" ] || return 1
  while IFS= read -r l || [ -n "$l" ]; do
    [[ $l == *"$2"* ]] && return 0
  done <"$1"
  return 1
}

start server
# Wait for the listening line; give up when the server is gone or the
# limit passed (then the client is not started at all).
ready=0
while [ "${EPOCHREALTIME%[.,]*}" -lt $((started[server] + limit)) ]; do
  if has "$work/server.out" listening; then
    ready=1
    break
  fi
  kill -0 "${pid[server]}" 2>/dev/null || break
  sleep 0.02
done
if [ $ready -eq 1 ]; then
  start client
  finish client
else
  echo "run-pair: the server never reported listening; the client was not started" >&2
  rc[client]="none (not started)"
fi
finish server

# what each side's loader initialised: the first librpma.so.0, and
# whether libibverbs.so.1 was among them
declare -A init ibv
for side in server client; do
  init[$side]= ibv[$side]=
  for f in "$work/$side.trace".*; do
    [ -r "$f" ] || continue
    while IFS= read -r l; do
      case $l in
        *"calling init: "*librpma.so.0) init[$side]=${init[$side]:-${l##*calling init: }} ;;
        *"calling init: "*libibverbs.so.1) ibv[$side]=1 ;;
      esac
    done <"$f"
  done
done
# the libraries asked for and those initialised, resolved at once
mapfile -t real <<<"$(realpath -m -- "${lib[server]}" "${init[server]:-/}" "${lib[client]}" "${init[client]:-/}")"

status=0 i=0
for side in server client; do
  want=${real[i]} got=${init[$side]:+${real[i + 1]}} i=$((i + 2))
  if [ "${lib[$side]}" = rust ]; then
    # the trace must exist (the program ran under the loader) and name
    # libibverbs, yet no librpma.so.0
    want=rust
    if [ -n "$got" ]; then by="$got (a Rust program must load no librpma.so.0)"
    elif [ -z "${ibv[$side]}" ]; then by="nothing (no loader trace with libibverbs.so.1)"
    else by="the rpma crate linked into the program (no librpma.so.0)" got=rust; fi
  else
    by=${got:-no librpma}
  fi
  line="run-pair: $side exit ${rc[$side]}"
  [ "${rc[$side]}" = 124 ] && line+=" (timed out after $limit s)"
  if [ "$got" = "$want" ]; then
    line+=", served by $by"
  else
    line+=", served by $by but expected $want"
    status=1
  fi
  [ "${rc[$side]}" = 0 ] || status=1
  echo "$line"
done
if [ $status -ne 0 ] && [ -s "$work/counters.before" ]; then
  counters >"$work/counters.after"
  echo "run-pair: device counters that moved during the run:" \
    "$(awk 'NR == FNR { was[$1] = $2; next } $2 != was[$1] { printf " %s +%d", $1, $2 - was[$1] }' \
      "$work/counters.before" "$work/counters.after")"
fi
for side in server client; do
  echo "---- $side output ----"
  [ -r "$work/$side.out" ] || continue
  while IFS= read -r l || [ -n "$l" ]; do printf '%s\n' "$l"; done <"$work/$side.out"
done
exit $status
