#!/usr/bin/env bash
# net-interop-guest.sh ROLE BUILD-DIR PORT OURS.so REF.so EXAMPLE... -- one
# guest's side of `cargo xtask net`'s interop case: every EXAMPLE in the four
# pairings of the two libraries, all in one boot of the pair. Pairing k
# (0..3: server ours or ref, then client ours or ref) of the i-th EXAMPLE
# uses port PORT+4i+k.
#   server: starts all the servers at once (run-all.sh), and fails if
#           any failed;
#   client: runs the clients one after the other, prints
#           "interop EXAMPLE SERVER CLIENT exit N" for each, and fails if
#           any failed.
set -u
role=$1 build=$2 port=$3
here=$(cd "$(dirname "$0")" && pwd)
declare -A lib=([ours]=$4 [ref]=$5)
shift 5
pairings=("ours ours" "ours ref" "ref ours" "ref ref")
logs=$(mktemp -d)
fail=0 cmds=() i=0
for ex in "$@"; do
  for k in 0 1 2 3; do
    read -r s c <<<"${pairings[$k]}"
    p=$((port + 4 * i + k))
    case $role in
      server)
        # a server waits for its client while the clients before it run
        cmds+=("EXAMPLE_WAIT_SCALE=10 $here/run-served-by.sh ${lib[$s]} $build/example_${ex}_server $RPMA_TESTING_IP $p") ;;
      client)
        echo "== $ex: server $s, client $c"
        "$here/run-served-by.sh" "${lib[$c]}" "$build/example_${ex}_client" "$RXE_PEER_IP" $p \
          >"$logs/out" 2>&1
        rc=$?
        if [ $rc = 0 ]; then tail -3 "$logs/out"; else cat "$logs/out"; fail=1; fi
        echo "interop $ex $s $c exit $rc" ;;
      *) sed -n '2,${/^#/!q;/SPDX-License-Identifier/d;s/^# \{0,1\}//p}' "$0"; exit 2 ;;
    esac
  done
  i=$((i + 1))
done
[ "$role" = server ] && { "$here/run-all.sh" --ready --tail 3 "${cmds[@]}" || fail=1; }
rm -rf "$logs"
exit $fail
