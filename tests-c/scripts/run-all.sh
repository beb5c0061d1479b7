#!/usr/bin/env bash
# run-all.sh [--ready] [--tail N] COMMAND... -- one guest's side of a
# softroce/rxe-pair run with several programs: starts every COMMAND (a bash
# command line) at once, each with its output in a log of its own, and
# waits for all of them. Then prints each log, every line prefixed "K| "
# (K: the command's place, from 0; with --tail, only its last N lines), and
# a "run-all: K exit N" line per command; fails if any failed.
#   --ready  (a server guest) creates /run/rxe-run/ready once every command
#            has printed "listening" or ended, so that the client guest
#            starts
set -u
ready=0 tail=
while [ $# -gt 0 ]; do
  case $1 in
    --ready) ready=1; shift ;;
    --tail) tail=$2; shift 2 ;;
    *) break ;;
  esac
done
logs=$(mktemp -d)
pids=()
for cmd in "$@"; do
  bash -c "$cmd" >"$logs/${#pids[@]}" 2>&1 &
  pids+=($!)
done
if [ $ready = 1 ]; then
  # a server is up once it listens, or has ended (then the client finds out)
  up() { grep -q listening "$logs/$1" || ! kill -0 "${pids[$1]}" 2>/dev/null; }
  for k in "${!pids[@]}"; do
    until up "$k"; do sleep 0.1; done
  done
  touch /run/rxe-run/ready
fi
fail=0
for k in "${!pids[@]}"; do
  wait "${pids[k]}"
  rc=$?
  if [ -n "$tail" ]; then tail -n "$tail" "$logs/$k"; else cat "$logs/$k"; fi | sed "s/^/$k| /"
  echo "run-all: $k exit $rc"
  [ $rc = 0 ] || fail=1
done
rm -rf "$logs"
exit $fail
