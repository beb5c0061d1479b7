#!/usr/bin/env bash
# net-pair.sh BUILD-DIR CASE [ARG...] -- one case of the two-host tests:
# a server and a client on two SoftRoCE guests (softroce/rxe-pair) joined by
# a virtual network, each program served by the library named for it
# (run-served-by.sh). Cases:
#
#   interop EXAMPLE...
#       each example's server and client across the two hosts, in the four
#       pairings of our library and the C library, all in one boot of the
#       pair (net-interop-guest.sh); all must pass
#   poweroff MODE[,MODE...] LIB [BOUND]
#       net_client (LIB: ours or ref) streams writes to net_server (ours)
#       and waits for completions by MODE (busy, wait, poll, conn-wait);
#       the server's guest is powered off mid-stream. The client must learn
#       it within BOUND seconds (default 15) and delete everything; with
#       BOUND=0 nothing is asserted and it waits NET_PAIR_LIMIT seconds
#       (default 60; a measurement: the C library hangs). With several
#       MODEs, a client per MODE streams to a server of its own, all at
#       once, and one power-off ends them all
#   cut SECONDS MODE LIB [BOUND]
#       the same stream, but the server's NIC is taken off the network for
#       SECONDS and put back: shorter than the library's bound, the stream
#       must complete with no error; longer, it must end as at a power-off
#       (BOUND=0: nothing asserted, a measurement)
#   clientoff probe|passive LIB [BOUND]
#       the client's guest is powered off mid-stream and the server
#       survives (both sides LIB: the client's request sets the retry count
#       of both queue pairs): a server that probes (a zero-length write every second,
#       net_server probe) must learn it within BOUND seconds (default 15;
#       0: 30 s, nothing asserted); a passive one (nothing outstanding)
#       learns nothing, which is measured (within BOUND) and not asserted
#   rnr LIB [SECONDS]
#       net_client (LIB) sends once to net_server (ours), which never posts
#       a receive, and waits SECONDS (default 10) for its completion; then
#       deleting everything must not hang. The server answers every try
#       with a receiver-not-ready NAK naming its RNR timer, 0.64 ms (ours).
#       rxe keeps its ACK timer running meanwhile, and whether it runs out
#       the transport retries depends on how the tries and the timer fall:
#       the send stays outstanding or fails with IBV_WC_RETRY_EXC_ERR, both
#       seen with ours (asserted: one of the two, and a clean end)
#   loss PERCENT DELAY-MS LIB [EXAMPLE...]
#       both guests lose PERCENT of their packets and delay each by DELAY-MS
#       (tc netem): net_client's writes (NET_PAIR_WRITES, default 20000;
#       0: none) must all complete within 300 s and both sides end, and each
#       EXAMPLE (default data-path; "all": every client/server example;
#       "none": the stream alone),
#       LIB on both sides, must pass, its data verified by the example;
#       the stream and the examples share one boot of the pair
#   rtu-lost EXAMPLE...
#       the server's guest drops every connection-manager RTU that reaches
#       it (a tc u32 filter on its NIC), so its side of a connection never
#       gets ESTABLISHED: each EXAMPLE, whose client hangs up as soon as it
#       is connected, in the four pairings, must pass, and each server must
#       say the client closed the connection at once (its first event is
#       CLOSED; see rpma_conn_next_event(3))
#
# Each run prints its RESULT line (see net_client.c). Environment:
# NET_PAIR_RESULTS, a file to which each RESULT line is appended;
# NET_PAIR_SETUP, a command both guests run before the programs of the
# poweroff, cut and clientoff cases (for example a sysctl); and rxe-pair's
# (RXE_STACK, RXE_DEVICE=siw for soft-iWARP).
set -u
[ $# -ge 2 ] || { sed -n '2,${/^#/!q;/SPDX-License-Identifier/d;s/^# \{0,1\}//p}' "$0"; exit 2; }
build=$(cd "$1" && pwd); shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
multiarch=$(gcc -dumpmachine)
declare -A lib=([ours]=$root/build/lib/librpma.so.0 [ref]=/usr/lib/$multiarch/librpma.so.0)
served="$here/run-served-by.sh"
setup=${NET_PAIR_SETUP:+$NET_PAIR_SETUP && }
port=7400
out=$(mktemp); trap 'rm -f "$out"' EXIT
all="$here/run-all.sh"

# argv COMMAND...: the commands as words of one guest command line for
# run-all.sh ($VARS in them are expanded in the guest)
argv() { printf ' %q' "$@"; }
# line SIDE K PATTERN: the first line of SIDE's command K that starts with
# PATTERN (a sed pattern), PATTERN included
line() { sed -n "s/^$1| $2| \($3.*\)/\1/p" "$out" | head -1; }
# ended SIDE K: whether SIDE's command K exited 0
ended() { grep -q "^$1| run-all: $2 exit 0$" "$out"; }

case_=$1; shift
case $case_ in
  interop)
    # one boot of the pair for every pairing of every example
    g="$here/net-interop-guest.sh"
    "$root/softroce/rxe-pair" \
      "$g server $build $port ${lib[ours]} ${lib[ref]} $*" \
      "$g client $build $port ${lib[ours]} ${lib[ref]} $*" >"$out" 2>&1
    rc=$?
    cat "$out"
    grep '^client| interop ' "$out" | sed 's/^client| //'
    exit $rc ;;
  poweroff|cut)
    if [ "$case_" = poweroff ]; then
      IFS=, read -r -a modes <<<"$1"
      cl=$2 bound=${3:-15}
      # every client streams, then the server's guest goes
      control=
      for m in "${modes[@]}"; do control+="rxe-pair-ctl \$RXE_PAIR_CLIENT wait streaming-$m && "; done
      control+='rxe-pair-ctl $RXE_PAIR_SERVER poweroff && echo "server powered off"'
    else
      secs=$1 modes=("$2") cl=$3 bound=${4:-15}
      # the server learns nothing of a client that gave up while the link
      # was down (nothing reaches it, and it sends nothing): once the
      # client's program has ended (not its guest, which stays up while the
      # server's runs), the server's guest is powered off
      control="rxe-pair-ctl \$RXE_PAIR_CLIENT wait streaming-$2 && rxe-pair-ctl \$RXE_PAIR_SERVER link-off && echo 'link cut' && sleep $secs && rxe-pair-ctl \$RXE_PAIR_SERVER link-on && echo 'link back after $secs s' && rxe-pair-ctl \$RXE_PAIR_CLIENT wait ended 120 && sleep 3 && rxe-pair-ctl \$RXE_PAIR_SERVER poweroff"
    fi
    limit=$bound; [ "$bound" = 0 ] && limit=${NET_PAIR_LIMIT:-60}
    # the powered-off server is no news; the client must have its own time
    export RXE_PAIR_GRACE=$((limit + 60))
    echo "== $case_ ${secs:+$secs s }${modes[*]}, client library $cl"
    # one server and one client per mode, each pair on a port of its own;
    # the clients stream at once
    srv=() cli=()
    for k in "${!modes[@]}"; do
      srv+=("$served ${lib[ours]} $build/net_server \$RPMA_TESTING_IP $((port + k))")
      cli+=("$served ${lib[$cl]} $build/net_client \$RXE_PEER_IP $((port + k)) ${modes[k]} /run/rxe-run/streaming-${modes[k]} $limit")
    done
    RXE_PAIR_CONTROL=$control "$root/softroce/rxe-pair" "$setup$all --ready$(argv "${srv[@]}")" \
      "$setup$all$(argv "${cli[@]}")" >"$out" 2>&1
    cat "$out"
    fail=0
    for k in "${!modes[@]}"; do
      result=$(line client "$k" RESULT)
      [ -n "${NET_PAIR_RESULTS:-}" ] && echo "$case_${secs:+ $secs} lib=$cl ${result:-RESULT none}" >>"$NET_PAIR_RESULTS"
      [ "$bound" = 0 ] && continue
      if ! ended client "$k"; then
        echo "FAIL: ${modes[k]}: the client did not end cleanly"; fail=1
      elif [ "$case_" = cut ] && [ "$secs" -lt 3 ]; then
        # a break the retransmissions bridge: every write completes
        if [[ $result == *how=none* ]]; then echo "PASS: $result"; else echo "FAIL: a ${secs} s break was not bridged"; fail=1; fi
      elif [[ $result == *how=wc:* || $result == *how=event:* ]]; then
        echo "PASS: $result"
      else
        echo "FAIL: ${modes[k]}: the lost server went unreported"; fail=1
      fi
    done
    exit $fail ;;
  clientoff)
    how=$1 sl=$2 bound=${3:-15} assert=1
    [ "$bound" = 0 ] && bound=30 assert=0
    srv_args=(); [ "$how" = probe ] && srv_args=(probe 1)
    echo "== clientoff: the server ${how}s, server library $sl"
    RXE_PAIR_CONTROL="rxe-pair-ctl \$RXE_PAIR_CLIENT wait streaming && rxe-pair-ctl \$RXE_PAIR_CLIENT poweroff && echo 'client powered off' && { rxe-pair-ctl \$RXE_PAIR_SERVER wait ended $bound || { echo 'the server learnt nothing within $bound s'; rxe-pair-ctl \$RXE_PAIR_SERVER poweroff; }; }" \
      "$root/softroce/rxe-pair" \
      "$setup$all --ready$(argv "$served ${lib[$sl]} $build/net_server \$RPMA_TESTING_IP $port ${srv_args[*]}")" \
      "$setup$served ${lib[$sl]} $build/net_client \$RXE_PEER_IP $port busy /run/rxe-run/streaming 60" \
      >"$out" 2>&1
    cat "$out"
    result=$(line server 0 RESULT)
    [ -n "${NET_PAIR_RESULTS:-}" ] && echo "clientoff $how lib=$sl ${result:-RESULT none}" >>"$NET_PAIR_RESULTS"
    [ "$how" = probe ] && [ $assert = 1 ] || exit 0
    [[ $result == *how=wc:* || $result == *how=event:* ]] || { echo "FAIL: the lost client went unreported"; exit 1; }
    echo "PASS: $result" ;;
  rnr)
    cl=$1 secs=${2:-10}
    echo "== rnr: a send the server never takes, client library $cl"
    "$root/softroce/rxe-pair" \
      "$all --ready$(argv "$served ${lib[ours]} $build/net_server \$RPMA_TESTING_IP $port")" \
      "$all$(argv "$served ${lib[$cl]} $build/net_client \$RXE_PEER_IP $port rnr /run/rxe-run/streaming $secs")" \
      >"$out" 2>&1
    cat "$out"
    result=$(line client 0 RESULT)
    [ -n "${NET_PAIR_RESULTS:-}" ] && echo "rnr lib=$cl ${result:-RESULT none}" >>"$NET_PAIR_RESULTS"
    ended client 0 || { echo "FAIL: the client did not end cleanly"; exit 1; }
    [ "$cl" = ours ] || exit 0
    [[ $result == *how=outstanding* || $result == *how=wc:transport\ retry* ]] ||
      { echo "FAIL: the send neither stayed outstanding nor ran out of transport retries"; exit 1; }
    echo "PASS: $result" ;;
  loss)
    pct=$1 delay=$2 ll=$3 fail=0; shift 3
    examples=("${@:-data-path}")
    if [ "${examples[0]}" = all ]; then
      mapfile -t examples < <(cd "$build" && ls example_*_server | sed 's/^example_\(.*\)_server$/\1/')
    elif [ "${examples[0]}" = none ]; then
      examples=()
    fi
    netem="tc qdisc add dev eth0 root netem loss $pct% delay ${delay}ms &&"
    writes=${NET_PAIR_WRITES:-20000}
    # the stream and the examples in one boot of the pair: the server's
    # guest serves them all at once (run-all.sh), each on a port of its
    # own, and the client's guest runs them one after the other
    srv=() cli='f=0; ' k=0
    if [ "$writes" != 0 ]; then
      echo "== loss $pct%, delay $delay ms each way: the write stream"
      srv+=("$served ${lib[$ll]} $build/net_server \$RPMA_TESTING_IP $port")
      cli+="$served ${lib[$ll]} $build/net_client \$RXE_PEER_IP $port busy /run/rxe-run/streaming 300 $writes; r=\$?; echo \"stream exit \$r\"; [ \$r = 0 ] || f=1; "
    fi
    for ex in "${examples[@]+"${examples[@]}"}"; do
      echo "== loss $pct%, delay $delay ms each way: the $ex example"
      k=$((k + 1))
      # its server waits while the stream and the examples before it run
      srv+=("EXAMPLE_WAIT_SCALE=10 $served ${lib[$ll]} $build/example_${ex}_server \$RPMA_TESTING_IP $((port + k))")
      cli+="s=\$SECONDS; $served ${lib[$ll]} $build/example_${ex}_client \$RXE_PEER_IP $((port + k)); r=\$?; echo \"example $ex exit \$r in \$((SECONDS - s))s\"; [ \$r = 0 ] || f=1; "
    done
    [ ${#srv[@]} = 0 ] && exit 0
    "$root/softroce/rxe-pair" "$netem $all --ready --tail 3$(argv "${srv[@]}")" "$netem ${cli}exit \$f" >"$out" 2>&1
    rc=$?
    [ $rc = 0 ] || { cat "$out"; fail=1; }
    if [ "$writes" != 0 ]; then
      result=$(sed -n 's/^client| \(RESULT .*\)/\1/p' "$out")
      [ -n "${NET_PAIR_RESULTS:-}" ] && echo "loss $pct $delay lib=$ll ${result:-RESULT none}" >>"$NET_PAIR_RESULTS"
      if grep -q '^client| stream exit 0$' "$out" && [[ $result == *how=none* ]]; then
        echo "PASS: $result"
      else
        echo "FAIL: ${result:-no RESULT line}"; fail=1
      fi
    fi
    for ex in "${examples[@]+"${examples[@]}"}"; do
      line=$(grep "^client| example $ex exit " "$out")
      got=FAIL secs=
      [[ $line == *" exit 0 in "* ]] && got=pass
      [[ $line =~ \ in\ ([0-9]+)s$ ]] && secs=${BASH_REMATCH[1]}s
      echo "$ex: $got ${line#client| }"
      [ $got = pass ] || fail=1
      [ -n "${NET_PAIR_RESULTS:-}" ] && echo "loss-example $pct $delay lib=$ll $ex $got ${secs:-?}" >>"$NET_PAIR_RESULTS"
    done
    exit $fail ;;
  rtu-lost)
    # the RTU is a CM MAD (management class 7, attribute 0x0014) to QP 1:
    # RoCE v2 puts IP(20) UDP(8) BTH(12) DETH(8) before the MAD, whose
    # class is its byte 1 and attribute its bytes 16-17
    drop="tc qdisc add dev eth0 ingress && tc filter add dev eth0 parent ffff: protocol ip u32 match ip protocol 17 0xff match ip dport 4791 0xffff match u8 0x07 0xff at 49 match u16 0x0014 0xffff at 64 action drop &&"
    # every example in the four pairings: "EXAMPLE SERVER-LIB CLIENT-LIB"
    pairings=()
    for ex in "$@"; do
      for sl in ours ref; do
        for cl in ours ref; do pairings+=("$ex $sl $cl"); done
      done
    done
    srv=() cli='f=0; ' fail=0
    for k in "${!pairings[@]}"; do
      read -r ex sl cl <<<"${pairings[$k]}"
      srv+=("$served ${lib[$sl]} $build/example_${ex}_server \$RPMA_TESTING_IP $((port + k + 1))")
      cli+="$served ${lib[$cl]} $build/example_${ex}_client \$RXE_PEER_IP $((port + k + 1)); r=\$?; echo \"example $ex server-$sl client-$cl exit \$r\"; [ \$r = 0 ] || f=1; "
    done
    "$root/softroce/rxe-pair" "$drop $all --ready$(argv "${srv[@]}")" "${cli}exit \$f" >"$out" 2>&1
    rc=$?
    [ $rc = 0 ] || { cat "$out"; fail=1; }
    for k in "${!pairings[@]}"; do
      read -r ex sl cl <<<"${pairings[$k]}"
      # the server's output, as run-all.sh prints it, is command k's
      got=FAIL
      grep -q "^client| example $ex server-$sl client-$cl exit 0$" "$out" &&
        grep -q "^server| $k| .*closed the connection at once" "$out" && got=pass
      echo "$ex server-$sl client-$cl: $got"
      [ $got = pass ] || fail=1
    done
    exit $fail ;;
  *) sed -n '2,${/^#/!q;/SPDX-License-Identifier/d;s/^# \{0,1\}//p}' "$0"; exit 2 ;;
esac
