#!/usr/bin/env bash
# fault-sweep.sh PAIR SIDE [ARG...] -- guest side of the fault-injection
# sweep: runs the example pair PAIR once per injection point with
# RPMA_FAULT_INJECTION=N on SIDE (server or client) only, SIDE served by the
# fault-injection build of the library and the other side by the plain one.
#
# Each point must end in a clean success (exit 0) or a clean failure: a
# non-zero exit below 128 with an error message of the example's own on
# stderr. A signal, a hang (FAULT_TIMEOUT seconds), or library heap blocks
# still live at exit (the fault build counts them) fails the point. Under
# valgrind (the first point tried and every FAULT_VALGRIND_EVERY-th one
# after it) any memcheck error, or a definite or indirect leak whose
# allocation passed through librpma.so.0, fails it too. The sweep ends at
# the first point the run completes without reaching (exit 0, no
# injection), or after FAULT_MAX_POINTS. A run that
# fails without having made call N is run again; failing so twice fails the
# point.
#
# ARGs go to both sides, except those after an ARG "--client", which go to
# the client only.
#
# Environment: FAULT_LIB, PLAIN_LIB (librpma.so.0 paths), BIN_DIR (holds
# example_<pair>_{server,client}), RPMA_TESTING_IP, FAULT_POINTS (a
# list, separated by spaces or commas, to try instead of 1, 2, ...), FAULT_MAX_POINTS
# (default 2000), FAULT_VALGRIND_EVERY (0: never; default 0), FAULT_TIMEOUT
# (default 60), FAULT_SUPP (valgrind suppressions file),
# RPMA_TEST_PORT_BASE and RPMA_TEST_PORT_SPAN (the port range, when sweeps
# or tests run side by side; see t_port() in tests-c/common/rpma_live.c).
set -u
pair=$1 side=$2
shift 2
# ARGs after a "--client" go to the client only
args=() client_args=()
while [ $# -gt 0 ]; do
  if [ "$1" = --client ]; then shift; client_args=("$@"); break; fi
  args+=("$1"); shift
done
ip=${RPMA_TESTING_IP:?run under softroce/rxe-run}
limit=${FAULT_TIMEOUT:-60}
max=${FAULT_MAX_POINTS:-2000}
every=${FAULT_VALGRIND_EVERY:-0}
other=server
[ "$side" = server ] && other=client
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT

# run_point N VALGRIND: one run; prints the outcome word and sets $why
run_point() {
  local n=$1 vg=$2 wrap=() rc spid ipid port
  # a port of this point's own, in the range of this sweep's lane when
  # sweeps run side by side (the lanes of rxe-suite-guest.sh)
  port=$((${RPMA_TEST_PORT_BASE:-20000} + ($$ + n) % ${RPMA_TEST_PORT_SPAN:-12000}))
  local limit=$limit
  if [ "$vg" = 1 ]; then
    # valgrind's start alone takes tens of seconds in the TCG guest
    # (slim-debuginfo.sh and --read-inline-info=no: see run-pair.sh)
    limit=$((limit * 3))
    wrap=("$(dirname "$0")/slim-debuginfo.sh" valgrind -q --read-inline-info=no --error-exitcode=99 --leak-check=full
          --show-leak-kinds=definite,indirect --errors-for-leak-kinds=none
          ${FAULT_SUPP:+--suppressions=$FAULT_SUPP})
  fi
  rm -f "$work"/*.out "$work"/*.err
  # launch WHO: the injected side runs the fault build (under valgrind when
  # asked), the other side the plain library
  launch() {
    local who=$1 load=(LD_LIBRARY_PATH="$(dirname "$PLAIN_LIB")") pre=() extra=()
    [ "$who" = client ] && extra=("${client_args[@]}")
    if [ "$who" = "$side" ]; then
      load=(LD_LIBRARY_PATH="$(dirname "$FAULT_LIB")" RPMA_FAULT_INJECTION="$n")
      pre=("${wrap[@]}")
    fi
    timeout -k 5 "$limit" env "${load[@]}" "${pre[@]}" \
      "$BIN_DIR/example_${pair}_$who" "$ip" "$port" "${args[@]}" "${extra[@]}" \
      >"$work/$who.out" 2>"$work/$who.err" </dev/null &
    eval "pid_$who=$!"
  }
  launch server
  local waited=0
  while ! grep -q listening "$work/server.out" 2>/dev/null; do
    kill -0 "$pid_server" 2>/dev/null || break
    sleep 0.1
    waited=$((waited + 1))
    [ $waited -gt $((limit * 10)) ] && break
  done
  if grep -q listening "$work/server.out" 2>/dev/null; then
    launch client
  else
    pid_client=
  fi
  ipid=$(eval echo "\$pid_$side")
  if [ -n "$ipid" ]; then
    wait "$ipid"
    rc=$?
  else
    rc=0
  fi
  local opid
  opid=$(eval echo "\$pid_$other")
  [ -n "$opid" ] && { kill "$opid" 2>/dev/null; wait "$opid" 2>/dev/null; }
  local err="$work/$side.err" report live injected
  report=$(grep -a "^librpma: fault injection: calls=" "$err" | tail -1)
  injected=$(sed -n 's/.*injected=\([a-z0-9]*\).*/\1/p' <<<"$report")
  live=$(sed -n 's/.*live-blocks=\(-\{0,1\}[0-9]*\).*/\1/p' <<<"$report")
  why=""
  if [ -z "$ipid" ]; then why="the plain server never listened"
  elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then why="hang (killed after $limit s)"
  elif [ "$rc" -ge 128 ] 2>/dev/null; then why="crash (signal $((rc - 128)))"
  elif [ -z "$report" ]; then why="no fault report (exit $rc)"
  elif [ "$live" != 0 ]; then why="$live library heap blocks live at exit"
  elif [ "$rc" = 99 ] && [ "$vg" = 1 ]; then why="valgrind: memcheck error"
  elif [ "$rc" != 0 ] && ! grep -av "^librpma: fault injection\|^==[0-9]*==" "$err" | grep -q .; then
    why="exit $rc without an error message"
  fi
  if [ -z "$why" ] && [ "$vg" = 1 ]; then
    # leak records (blank-line separated) whose stack passes through
    # librpma: through one of its rpma_* entry points (the library has line
    # tables, so valgrind names a frame by its source line, not its file)
    # or, were those gone, through the file itself
    sed 's/^==[0-9]*== \{0,1\}//' "$err" >"$work/vg.txt"
    if awk 'BEGIN{RS=""} /(definitely|indirectly) lost/ && (/: rpma_[a-z0-9_]+ \(/ || /librpma\.so/) {found=1} END{exit !found}' "$work/vg.txt"; then
      why="valgrind: leak through librpma.so.0"
    fi
  fi
  if [ -n "$why" ]; then
    echo "FAIL: $why"
  elif [ "$injected" = none ] && [ "$rc" = 0 ]; then
    echo "unreached"
  elif [ "$injected" = none ]; then
    # the run failed before it made call N: not the end of the sweep
    echo "early: exit $rc before call $n was made"
  elif [ "$rc" = 0 ]; then
    echo "success"
  else
    echo "error"
  fi
}

points=${FAULT_POINTS:-}
points=${points//,/ }
[ -z "$points" ] && points=$(seq 1 "$max")
tried=0 passed=0 failed=0 vgruns=0 last=0 reached_end=0
for n in $points; do
  vg=0
  # counted in points tried, not call numbers, so that a sample with a
  # stride (FAULT_POINTS) gets its share of valgrind runs too
  [ "$every" -gt 0 ] && [ $((tried % every)) -eq 0 ] && vg=1
  t0=$SECONDS
  outcome=$(run_point "$n" "$vg")
  if [ "${outcome%%:*}" = early ]; then
    # something outside the injection (a slow guest, the other side) broke
    # the run; once may be chance, twice is a failure of the point
    echo "point $n: ${outcome#early: }; running it again. Last lines of both sides:"
    tail -n 5 "$work/$side.err" "$work/$other.err" "$work/$other.out" 2>/dev/null | sed 's/^/  | /'
    outcome=$(run_point "$n" "$vg")
    [ "${outcome%%:*}" = early ] && outcome="FAIL: ${outcome#early: }, twice"
  fi
  took="$((SECONDS - t0)) s"
  if [ "$outcome" = unreached ]; then
    echo "point $n: not reached (the run completed with fewer calls)"
    reached_end=1
    break
  fi
  tried=$((tried + 1)); last=$n
  [ $vg = 1 ] && vgruns=$((vgruns + 1))
  if [ "${outcome%%:*}" = FAIL ]; then
    failed=$((failed + 1))
    echo "point $n: $outcome$([ $vg = 1 ] && echo ' (valgrind)'), $took:"
    sed 's/^/  | /' "$work/$side.err" | tail -40
  else
    passed=$((passed + 1))
    echo "point $n: $outcome$([ $vg = 1 ] && echo ' (valgrind)'), $took: $(grep -a 'fault injection: call' "$work/$side.err" | head -1 | sed 's/.*(\(.*\)) fails/\1/')"
  fi
done
result=ok
[ $failed -gt 0 ] && result=FAIL
all=("${args[@]}" ${client_args[@]:+--client "${client_args[@]}"})
echo "SWEEP $pair ${all[*]:+[${all[*]}] }$side tried=$tried passed=$passed failed=$failed valgrind=$vgruns complete=$([ $reached_end = 1 ] && echo yes || echo "no (stopped at $last)") result=$result"
[ $failed -eq 0 ]
