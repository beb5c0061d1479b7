#!/usr/bin/env bash
# serve-all.sh COMMAND... -- a server guest's side of a softroce/rxe-pair
# run with several servers: starts every COMMAND (a bash command line) at
# once, each with its output in a log of its own, and creates
# /run/rxe-run/ready once each has printed "listening" or ended, so that the
# client guest starts. Then waits for all of them, prints each log's last
# lines and a "serve-all: server K exit N" line per command, and fails if
# any failed.
set -u
logs=$(mktemp -d)
pids=()
for cmd in "$@"; do
  bash -c "$cmd" >"$logs/${#pids[@]}" 2>&1 &
  pids+=($!)
done
# a server is up once it listens, or has ended (then the client finds out)
up() { grep -q listening "$logs/$1" || ! kill -0 "${pids[$1]}" 2>/dev/null; }
for k in "${!pids[@]}"; do
  until up "$k"; do sleep 0.1; done
done
touch /run/rxe-run/ready
fail=0
for k in "${!pids[@]}"; do
  wait "${pids[k]}"
  rc=$?
  tail -3 "$logs/$k"
  echo "serve-all: server $k exit $rc"
  [ $rc = 0 ] || fail=1
done
rm -rf "$logs"
exit $fail
