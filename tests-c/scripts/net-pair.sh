#!/usr/bin/env bash
# net-pair.sh BUILD-DIR CASE [ARG...] -- one case of the two-host tests:
# a server and a client on two SoftRoCE guests (softroce/rxe-pair) joined by
# a virtual network, each program served by the library named for it
# (run-served-by.sh). Cases:
#
#   interop EXAMPLE
#       the example's server and client across the two hosts, in the four
#       pairings of our library and the C library; all must pass
#   poweroff MODE LIB [BOUND]
#       net_client (LIB: ours or ref) streams writes to net_server (ours)
#       and waits for completions by MODE (busy, wait, poll, conn-wait);
#       the server's guest is powered off mid-stream. The client must learn
#       it within BOUND seconds (default 15) and delete everything; with
#       BOUND=0 nothing is asserted (a measurement: the C library hangs)
#   cut SECONDS MODE [BOUND]
#       the same stream, but the server's NIC is taken off the network for
#       SECONDS and put back: shorter than the library's bound, the stream
#       must complete with no error; longer, it must end as at a power-off
#
# Each run prints its RESULT line (see net_client.c). Environment:
# NET_PAIR_RESULTS, a file to which each RESULT line is appended.
set -u
build=$(cd "$1" && pwd); shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
multiarch=$(gcc -dumpmachine)
declare -A lib=([ours]=$root/build/lib/librpma.so.0 [ref]=/usr/lib/$multiarch/librpma.so.0)
served="$here/run-served-by.sh"
port=7400
out=$(mktemp); trap 'rm -f "$out"' EXIT

# a server command that creates the ready file once PROGRAM prints "listening"
serve() {
  printf '(%s >/tmp/server.log 2>&1 & p=$!; until grep -q listening /tmp/server.log || ! kill -0 $p 2>/dev/null; do sleep 0.1; done; touch /run/rxe-run/ready; wait $p; r=$?; cat /tmp/server.log; exit $r)' "$*"
}

case_=$1; shift
case $case_ in
  interop)
    ex=$1 fail=0
    for s in ours ref; do
      for c in ours ref; do
        echo "== $ex: server $s, client $c"
        "$root/softroce/rxe-pair" \
          "$(serve "$served" "${lib[$s]}" "$build/example_${ex}_server" '$RPMA_TESTING_IP' $port)" \
          "$served ${lib[$c]} $build/example_${ex}_client \$RXE_PEER_IP $port" >"$out" 2>&1
        rc=$?
        tail -3 "$out"
        [ $rc = 0 ] || { cat "$out"; fail=1; }
      done
    done
    exit $fail ;;
  poweroff|cut)
    if [ "$case_" = poweroff ]; then
      mode=$1 cl=$2 bound=${3:-15}
      control='rxe-pair-ctl $RXE_PAIR_CLIENT wait streaming && rxe-pair-ctl $RXE_PAIR_SERVER poweroff && echo "server powered off"'
    else
      secs=$1 mode=$2 bound=${3:-15} cl=ours
      # the server learns nothing of a client that gave up while the link
      # was down (nothing reaches it, and it sends nothing): once the client
      # is done, the server's guest is powered off
      control="rxe-pair-ctl \$RXE_PAIR_CLIENT wait streaming && rxe-pair-ctl \$RXE_PAIR_SERVER link-off && echo 'link cut' && sleep $secs && rxe-pair-ctl \$RXE_PAIR_SERVER link-on && echo 'link back after $secs s' && rxe-pair-ctl \$RXE_PAIR_CLIENT wait rc 120 && sleep 3 && rxe-pair-ctl \$RXE_PAIR_SERVER poweroff"
    fi
    limit=$bound; [ "$bound" = 0 ] && limit=60
    echo "== $case_ ${secs:+$secs s }$mode, client library $cl"
    RXE_PAIR_CONTROL=$control "$root/softroce/rxe-pair" \
      "$(serve "$served" "${lib[ours]}" "$build/net_server" '$RPMA_TESTING_IP' $port)" \
      "$served ${lib[$cl]} $build/net_client \$RXE_PEER_IP $port $mode /run/rxe-run/streaming $limit" \
      >"$out" 2>&1
    cat "$out"
    result=$(sed -n 's/^client| \(RESULT .*\)/\1/p' "$out")
    [ -n "${NET_PAIR_RESULTS:-}" ] && echo "$case_${secs:+ $secs} lib=$cl ${result:-RESULT none}" >>"$NET_PAIR_RESULTS"
    [ "$bound" = 0 ] && exit 0
    grep -q '^client| run-served-by: net_client exit 0' "$out" || { echo "FAIL: the client did not end cleanly"; exit 1; }
    if [ "$case_" = cut ] && [ "$secs" -lt 3 ]; then
      # a break the retransmissions bridge: every write completes
      [[ $result == *how=none* ]] || { echo "FAIL: a ${secs} s break was not bridged"; exit 1; }
    else
      [[ $result == *how=wc:* || $result == *how=event:* ]] || { echo "FAIL: the lost server went unreported"; exit 1; }
    fi
    echo "PASS: $result" ;;
  *) sed -n '2,22s/^# \{0,1\}//p' "$0"; exit 2 ;;
esac
