#!/usr/bin/env bash
# net-interop-guest.sh ROLE BUILD-DIR PORT EXAMPLE OURS.so REF.so -- one
# guest's side of net-pair.sh's interop case: the four pairings of the two
# libraries in one boot of the pair. The pairing k (0..3: server ours or
# ref, then client ours or ref) uses port PORT+k.
#   server: starts the four servers at once (serve-all.sh), and fails if
#           any failed;
#   client: runs the four clients one after the other, and fails if any
#           failed.
set -u
role=$1 build=$2 port=$3 ex=$4
here=$(cd "$(dirname "$0")" && pwd)
declare -A lib=([ours]=$5 [ref]=$6)
pairings=("ours ours" "ours ref" "ref ours" "ref ref")
logs=$(mktemp -d)
fail=0
case $role in
  server)
    cmds=()
    for k in 0 1 2 3; do
      read -r s _ <<<"${pairings[$k]}"
      cmds+=("$here/run-served-by.sh ${lib[$s]} $build/example_${ex}_server $RPMA_TESTING_IP $((port + k))")
    done
    "$here/serve-all.sh" "${cmds[@]}" || fail=1 ;;
  client)
    for k in 0 1 2 3; do
      read -r s c <<<"${pairings[$k]}"
      echo "== $ex: server $s, client $c"
      "$here/run-served-by.sh" "${lib[$c]}" "$build/example_${ex}_client" "$RXE_PEER_IP" $((port + k)) \
        >"$logs/$k" 2>&1
      rc=$?
      if [ $rc = 0 ]; then tail -3 "$logs/$k"; else cat "$logs/$k"; fail=1; fi
      echo "client $k exit $rc"
    done ;;
  *) sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 2 ;;
esac
rm -rf "$logs"
exit $fail
